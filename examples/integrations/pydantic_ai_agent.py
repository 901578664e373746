"""
Ground a Pydantic AI agent's answer: runs offline, no API key.

The agent searches with a tool, then answers; Pydantic AI's FunctionModel
stands in for your model (its first answer states a length the search
results do not hold, its retry is right). Swap in any model::

    pip install 'relapse[pydantic-ai]'
    python examples/integrations/pydantic_ai_agent.py
"""

from __future__ import annotations

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

from relapse import Usage
from relapse.integrations.pydantic_ai import GroundedOutput

PASSAGES = [
    "The Golden Gate Bridge opened to traffic on May 27, 1937.",
    "Its main span is 1,280 metres long.",
]
SCRIPT = [
    ModelResponse(parts=[ToolCallPart("search", {"query": "main span"})],
                  usage=RequestUsage(input_tokens=60, output_tokens=8)),
    ModelResponse(parts=[TextPart("Its main span is 1,500 metres long.")],
                  usage=RequestUsage(input_tokens=95, output_tokens=12)),
    ModelResponse(parts=[TextPart("Its main span is 1,280 metres long.")],
                  usage=RequestUsage(input_tokens=170, output_tokens=11)),
]  # fmt: skip


def scripted(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """The scripted model: one reply per request, in order."""
    return SCRIPT[sum(isinstance(m, ModelResponse) for m in messages)]


# The chunks are what the search tool returned; the agent may re-ask twice.
grounding = GroundedOutput(tools=["search"], max_iterations=3)
agent = Agent(FunctionModel(scripted), retries={"output": 2},
              capabilities=[grounding.capability()])  # fmt: skip


@agent.tool_plain
def search(query: str) -> list[str]:
    """Search the documents."""
    return PASSAGES


def tokens(usage: Usage | None) -> str:
    """``"95 in, 12 out"``, or ``"no tokens"``."""
    return f"{usage.input_tokens} in, {usage.output_tokens} out" if usage else "no tokens"


def main() -> None:
    run = agent.run_sync("How long is the main span of the Golden Gate Bridge?")
    result = grounding.result_of(run)
    for record in result.transcript:
        spans = [span for f in record.findings for span in f.spans]
        print(
            f"attempt {record.iteration}: {record.answer!r} spans={spans} ({tokens(record.usage)})"
        )
    print(f"answer: {run.output}")
    print(f"outcome: {result.outcome}, tokens: {tokens(result.usage)}")


if __name__ == "__main__":
    main()
