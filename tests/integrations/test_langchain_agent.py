"""GroundingMiddleware in real LangChain 1.x agents (create_agent): scripted models, the server."""

from __future__ import annotations

import sys
from typing import Any

import pytest

pytest.importorskip(
    "langchain.agents", reason="the langchain extra: pip install 'relapse[langchain]'"
)
from langchain.agents import create_agent
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.documents import Document
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from pydantic import SecretStr

import relapse
from llama_server import MODEL, LlamaServer
from relapse._telemetry import attributes as attr
from relapse.integrations.langchain import GroundingMiddleware, tool_chunks
from relapse.testing import CapturedSpans

CHUNKS = ["The Golden Gate Bridge opened on May 27, 1937.", "Its main span is 1,280 metres long."]
QUESTION = "How long is the main span?"
WRONG, RIGHT = "Its main span is 1,500 metres long.", "Its main span is 1,280 metres long."
NOTE_START = (
    'Your previous answer was rejected: "Its main span is 1,500 metres long." states things'
    " the context does not support: FG001: 1 number(s) not in the retrieved chunks: '1,500'"
)


class ToolCallingFake(GenericFakeChatModel):
    """GenericFakeChatModel that accepts tools (it replies from its script whatever they are)."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self


class ModelRuns(BaseCallbackHandler):
    """The tags and the last message of every chat model run."""

    def __init__(self) -> None:
        self.runs: list[tuple[list[str], str]] = []

    def on_chat_model_start(
        self, serialized: Any, messages: list[list[BaseMessage]], **kwargs: Any
    ) -> None:
        last = messages[0][-1]
        self.runs.append(([t for t in kwargs.get("tags") or [] if "relapse" in t], last.text))


def _ai(text: str, tokens_in: int, tokens_out: int, **more: Any) -> AIMessage:
    usage = {"input_tokens": tokens_in, "output_tokens": tokens_out}
    return AIMessage(
        content=text, usage_metadata={**usage, "total_tokens": tokens_in + tokens_out}, **more
    )


def _search_call() -> AIMessage:
    return _ai("", 30, 7, tool_calls=[{"name": "search", "args": {"query": "span"}, "id": "c1"}])


@tool
def search(query: str) -> list[str]:
    """Search the documents."""
    return CHUNKS


def _invoke(agent: Any, runs: ModelRuns | None = None) -> list[BaseMessage]:
    config = {"callbacks": [runs]} if runs is not None else None
    state = agent.invoke({"messages": [HumanMessage(QUESTION)]}, config=config)
    messages: list[BaseMessage] = state["messages"]
    return messages


class TestRecovery:
    def test_a_wrong_number_is_re_asked_with_its_span(self) -> None:
        """The tool's chunks reject 1,500; the retry carries the note and is tagged attempt 2."""
        model = ToolCallingFake(
            messages=iter([_search_call(), _ai(WRONG, 50, 12), _ai(RIGHT, 80, 11)])
        )
        grounding = GroundingMiddleware(tools=["search"], max_iterations=3)
        runs = ModelRuns()
        messages = _invoke(create_agent(model, tools=[search], middleware=[grounding]), runs)
        assert RIGHT == messages[-1].text
        # The rejected answer is not in the agent's history: the chosen one replaced it.
        assert [HumanMessage, AIMessage, ToolMessage, AIMessage] == [type(m) for m in messages]
        assert [["relapse:attempt:1"], ["relapse:attempt:1"], ["relapse:attempt:2"]] == [
            tags for tags, _ in runs.runs
        ]
        assert runs.runs[2][1].startswith(NOTE_START)
        (result,) = grounding.results
        assert ("recovered", True, 2) == (result.outcome, result.grounded, result.iterations)
        assert [("FG001", ("1,500",), ((17, 22),))] == [
            (f.code, f.spans, f.offsets) for f in result.transcript[0].findings
        ]
        assert [relapse.Usage(50, 12), relapse.Usage(80, 11)] == [
            r.usage for r in result.transcript
        ]
        assert relapse.Usage(130, 23) == result.usage
        assert [(1, "1,280")] == [
            (c.chunk_index, c.claim) for c in relapse.citations(result.answer, result.evidence)
        ]

    async def test_async_agent(self) -> None:
        model = ToolCallingFake(messages=iter([_search_call(), _ai(WRONG, 5, 5), _ai(RIGHT, 5, 5)]))
        grounding = GroundingMiddleware(max_iterations=2)
        agent = create_agent(model, tools=[search], middleware=[grounding])
        state = await agent.ainvoke({"messages": [HumanMessage(QUESTION)]})
        assert RIGHT == state["messages"][-1].text
        assert "recovered" == grounding.results[-1].outcome

    def test_exhausted_keeps_the_best_answer(self) -> None:
        worse = "Its main span is 1,500 metres long and 99 metres wide."
        model = ToolCallingFake(messages=iter([_search_call(), _ai(WRONG, 5, 5), _ai(worse, 5, 5)]))
        grounding = GroundingMiddleware(max_iterations=2, on_exhausted="best")
        messages = _invoke(create_agent(model, tools=[search], middleware=[grounding]))
        assert WRONG == messages[-1].text
        assert ("exhausted", 2) == (grounding.results[-1].outcome, grounding.results[-1].iterations)

    def test_redact_replaces_the_answer_with_its_text(self) -> None:
        model = ToolCallingFake(messages=iter([_search_call(), _ai(WRONG, 5, 5)]))
        grounding = GroundingMiddleware(max_iterations=1, on_exhausted="redact")
        messages = _invoke(create_agent(model, tools=[search], middleware=[grounding]))
        assert "" == messages[-1].text
        assert "redacted" == grounding.results[-1].outcome

    def test_an_answer_with_no_tool_output_passes_unchecked(self) -> None:
        model = ToolCallingFake(messages=iter([_ai(WRONG, 5, 5)]))
        grounding = GroundingMiddleware()
        messages = _invoke(create_agent(model, tools=[search], middleware=[grounding]))
        assert (WRONG, []) == (messages[-1].text, grounding.results)

    def test_only_the_named_tools_are_chunks(self) -> None:
        """With tools=['other'], the search output is not a chunk: nothing to check against."""
        model = ToolCallingFake(messages=iter([_search_call(), _ai(WRONG, 5, 5)]))
        grounding = GroundingMiddleware(tools=["other"])
        messages = _invoke(create_agent(model, tools=[search], middleware=[grounding]))
        assert (WRONG, []) == (messages[-1].text, grounding.results)

    def test_one_attempt_span_per_model_call(self, spans: CapturedSpans) -> None:
        model = ToolCallingFake(messages=iter([_search_call(), _ai(WRONG, 5, 5), _ai(RIGHT, 5, 5)]))
        grounding = GroundingMiddleware(max_iterations=2, tracer_provider=spans.provider)
        _invoke(create_agent(model, tools=[search], middleware=[grounding]))
        (call,) = spans.named("relapse GroundingMiddleware")
        iterations = spans.named(attr.ITERATION_SPAN_NAME)
        assert [1, 2] == [s.attributes[attr.RELAPSE_ITERATION] for s in iterations]
        assert "recovered" == call.attributes[attr.RELAPSE_OUTCOME]


class TestToolChunks:
    def test_shapes(self) -> None:
        documents = [Document(page_content="a"), Document(page_content="b")]
        assert documents == tool_chunks(
            ToolMessage(content="2 documents", artifact=documents, tool_call_id="1")
        )
        assert ["x", "y"] == tool_chunks(ToolMessage(content='["x", "y"]', tool_call_id="1"))
        assert ["[not json"] == tool_chunks(ToolMessage(content="[not json", tool_call_id="1"))
        assert ["[1, 2]"] == tool_chunks(ToolMessage(content="[1, 2]", tool_call_id="1"))
        assert ["plain"] == tool_chunks(ToolMessage(content="plain", tool_call_id="1"))

    def test_bad_arguments(self) -> None:
        with pytest.raises(TypeError, match="tools must be a sequence of tool names"):
            GroundingMiddleware(tools="search")
        with pytest.raises(ValueError, match="retrieve= cannot reach"):
            GroundingMiddleware(retrieve=lambda attempt: None)


@pytest.mark.slow
def test_the_local_model_in_an_agent(llama_server: LlamaServer) -> None:
    """
    ChatOpenAI against the local server, in create_agent, after a tool's output.

    The conversation already holds the tool call and its output (a 270M model
    calls no tools on its own); the check composes the default one with a
    check rejecting the first answer, naming a span of it, so the retry goes
    to the server with the note, and each attempt's tokens are the server's.
    """
    from langchain_openai import ChatOpenAI

    model = ChatOpenAI(
        model=MODEL,
        base_url=llama_server.base_url,
        api_key=SecretStr("no-key"),
        temperature=0.0,
        max_retries=0,
        extra_body={"max_tokens": 60},
    )
    checked: list[str] = []

    def reject_the_first(query: str, chunks: list[str], answer: str) -> relapse.GroundingResult:
        checked.append(answer)
        if len(checked) > 1:
            return relapse.GroundingResult(True)
        span = answer.split()[0] if answer.split() else answer
        start = answer.index(span)
        finding = relapse.GroundingFinding(
            "X1", "rejected once", (span,), ((start, start + len(span)),)
        )
        return relapse.GroundingResult(False, (finding,))

    grounding = GroundingMiddleware(grounding_check=reject_the_first, max_iterations=2)
    runs = ModelRuns()
    history = [
        HumanMessage(QUESTION),
        # Not empty: ChatOpenAI sends an empty content as null, which the server refuses.
        AIMessage(
            content="Searching.",
            tool_calls=[{"name": "search", "args": {"query": "span"}, "id": "c1"}],
        ),
        ToolMessage(content="\n".join(CHUNKS), tool_call_id="c1", name="search"),
    ]
    agent = create_agent(model, tools=[], middleware=[grounding])
    agent.invoke({"messages": history}, config={"callbacks": [runs]})
    (result,) = grounding.results
    assert (True, 2, "recovered") == (result.grounded, result.iterations, result.outcome)
    span = result.transcript[0].findings[0].spans[0]
    assert "Your previous answer was rejected" in runs.runs[1][1]
    assert span in runs.runs[1][1]
    assert all(r.usage is not None and r.usage.output_tokens > 0 for r in result.transcript)


def test_without_langchain_the_middleware_names_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """langchain-core alone: GroundedRunnable imports, GroundingMiddleware names the extra."""
    monkeypatch.setitem(sys.modules, "langchain.agents.middleware.types", None)
    monkeypatch.delitem(sys.modules, "relapse.integrations._langchain_agent")
    import relapse.integrations.langchain as module

    assert module.GroundedRunnable is not None
    with pytest.raises(
        ImportError, match=r"needs langchain 1.x; run: pip install 'relapse\[langchain\]'"
    ):
        module.GroundingMiddleware  # noqa: B018
