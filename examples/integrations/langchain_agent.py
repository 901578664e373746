"""
Ground a LangChain agent (create_agent) with GroundingMiddleware: runs offline.

The agent searches with a tool, then answers; langchain-core's fake chat model
stands in for yours (its first answer states a length the search results do
not hold, its retry is right). Swap in any chat model with tool calling::

    pip install 'relapse[langchain]'
    python examples/integrations/langchain_agent.py
"""

from __future__ import annotations

from typing import Any

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import tool

from relapse import Usage
from relapse.integrations.langchain import GroundingMiddleware

PASSAGES = [
    "The Golden Gate Bridge opened to traffic on May 27, 1937.",
    "Its main span is 1,280 metres long.",
]


class ScriptedChatModel(GenericFakeChatModel):
    """langchain-core's fake chat model, accepting tools (its replies are scripted)."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self


def _reply(text: str, tokens_in: int, tokens_out: int, **more: Any) -> AIMessage:
    usage = {"input_tokens": tokens_in, "output_tokens": tokens_out,
             "total_tokens": tokens_in + tokens_out}  # fmt: skip
    return AIMessage(content=text, usage_metadata=usage, **more)  # type: ignore[arg-type]


model = ScriptedChatModel(messages=iter([
    _reply("", 60, 8, tool_calls=[{"name": "search", "args": {"query": "span"}, "id": "1"}]),
    _reply("Its main span is 1,500 metres long.", 95, 12),
    _reply("Its main span is 1,280 metres long.", 170, 11),
]))  # fmt: skip


@tool
def search(query: str) -> list[str]:
    """Search the documents."""
    return PASSAGES


grounding = GroundingMiddleware(tools=["search"], max_iterations=3)
agent = create_agent(model, tools=[search], middleware=[grounding])


def tokens(usage: Usage | None) -> str:
    """``"95 in, 12 out"``, or ``"no tokens"``."""
    return f"{usage.input_tokens} in, {usage.output_tokens} out" if usage else "no tokens"


def main() -> None:
    state = agent.invoke({"messages": [HumanMessage("How long is the main span?")]})
    (result,) = grounding.results
    for record in result.transcript:
        spans = [span for f in record.findings for span in f.spans]
        print(
            f"attempt {record.iteration}: {record.answer!r} spans={spans} ({tokens(record.usage)})"
        )
    print(f"answer: {state['messages'][-1].text}")
    print(f"outcome: {result.outcome}, tokens: {tokens(result.usage)}")


if __name__ == "__main__":
    main()
