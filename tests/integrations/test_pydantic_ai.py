"""relapse.integrations.pydantic_ai on the real pydantic-ai: scripted FunctionModels, the server."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any

import pytest

pytest.importorskip(
    "pydantic_ai", reason="the pydantic-ai extra: pip install 'relapse[pydantic-ai]'"
)
from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

import relapse
from llama_server import MODEL, LlamaServer
from relapse._telemetry import attributes as attr
from relapse.integrations.pydantic_ai import GroundedOutput
from relapse.testing import CapturedSpans

CHUNKS = ["The Golden Gate Bridge opened on May 27, 1937.", "Its main span is 1,280 metres long."]
QUESTION = "How long is the main span?"
WRONG, RIGHT = "Its main span is 1,500 metres long.", "Its main span is 1,280 metres long."
NOTE_START = (
    'Your previous answer was rejected: "Its main span is 1,500 metres long." states things'
    " the context does not support: FG001: 1 number(s) not in the retrieved chunks: '1,500'"
)


@dataclass
class Script:
    """A FunctionModel's replies in order, and the messages each request carried."""

    replies: list[ModelResponse]
    requests: list[list[ModelMessage]] = field(default_factory=list)

    def model(self) -> FunctionModel:
        def reply(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            self.requests.append(list(messages))
            return self.replies[len(self.requests) - 1]

        return FunctionModel(reply)


def _text(text: str, tokens_in: int, tokens_out: int) -> ModelResponse:
    return ModelResponse(
        parts=[TextPart(text)], usage=RequestUsage(input_tokens=tokens_in, output_tokens=tokens_out)
    )


def _search_call() -> ModelResponse:
    return ModelResponse(
        parts=[ToolCallPart("search", {"query": "main span"})],
        usage=RequestUsage(input_tokens=30, output_tokens=7),
    )


def _retry_text(messages: list[ModelMessage]) -> str:
    """The text of the retry prompt a request ends with (Pydantic AI's ModelRetry feedback)."""
    last = messages[-1]
    assert isinstance(last, ModelRequest)
    part = last.parts[-1]
    assert isinstance(part, (RetryPromptPart, UserPromptPart)), part
    content = part.content
    return content if isinstance(content, str) else str(content)


def _agent(script: Script, grounding: GroundedOutput, form: str, **kwargs: Any) -> Agent[Any, str]:
    if form == "capability":
        agent: Agent[Any, str] = Agent(
            script.model(), capabilities=[grounding.capability()], **kwargs
        )
    else:
        agent = Agent(script.model(), **kwargs)
        agent.output_validator(grounding.validate)

    @agent.tool_plain
    def search(query: str) -> list[str]:
        """Search the documents."""
        return CHUNKS

    return agent


@pytest.mark.parametrize("form", ["capability", "output_validator"])
class TestRecovery:
    def test_a_wrong_number_from_tool_chunks_is_re_asked_with_its_span(self, form: str) -> None:
        """Chunks a tool returned: 1,500 is rejected, the note names it, the retry recovers."""
        script = Script([_search_call(), _text(WRONG, 50, 12), _text(RIGHT, 80, 11)])
        grounding = GroundedOutput(tools=["search"], max_iterations=3)
        agent = _agent(script, grounding, form, retries={"output": 2})
        run = agent.run_sync(QUESTION)
        assert RIGHT == run.output
        assert _retry_text(script.requests[2]).count(NOTE_START) == 1
        result = grounding.result_of(run)
        assert ("recovered", True, 2) == (result.outcome, result.grounded, result.iterations)
        assert [("FG001", ("1,500",), ((17, 22),))] == [
            (f.code, f.spans, f.offsets) for f in result.transcript[0].findings
        ]
        # Attempt 1 is the tool-calling turn and the wrong answer; attempt 2 the retry.
        assert [relapse.Usage(80, 19), relapse.Usage(80, 11)] == [
            r.usage for r in result.transcript
        ]
        assert relapse.Usage(160, 30) == result.usage
        assert (160, 30) == (run.usage.input_tokens, run.usage.output_tokens)
        assert [(1, "1,280", 17, 22)] == [
            (c.chunk_index, c.claim, *c.chunk_span)
            for c in relapse.citations(result.answer, result.evidence)
        ]

    def test_chunks_from_deps(self, form: str) -> None:
        script = Script([_text(WRONG, 50, 12), _text(RIGHT, 80, 11)])
        grounding = GroundedOutput(chunks_of=lambda deps: deps["chunks"], max_iterations=2)
        agent = _agent(script, grounding, form, retries={"output": 1}, deps_type=dict)
        run = agent.run_sync(QUESTION, deps={"chunks": CHUNKS})
        assert RIGHT == run.output
        assert "recovered" == grounding.result_of(run).outcome
        assert 2 == len(script.requests)

    def test_exhausted_returns_the_best_answer_within_the_agents_budget(self, form: str) -> None:
        """Two answers allowed; both fail; on_exhausted='best' picks the one with fewer spans."""
        worse = "Its main span is 1,500 metres long and 99 metres wide."
        script = Script([_text(WRONG, 5, 5), _text(worse, 5, 5)])
        grounding = GroundedOutput(chunks_of=lambda deps: CHUNKS, on_exhausted="best")
        agent = _agent(script, grounding, form, retries={"output": 1})
        run = agent.run_sync(QUESTION)
        assert WRONG == run.output
        result = grounding.result_of(run)
        assert ("exhausted", False, 2) == (result.outcome, result.grounded, result.iterations)

    def test_the_agents_smaller_budget_ends_the_loop_first(self, form: str) -> None:
        """max_iterations=3 but retries={'output': 1}: the loop ends after two answers, no error."""
        script = Script([_text(WRONG, 5, 5), _text(WRONG, 5, 5), _text(RIGHT, 5, 5)])
        grounding = GroundedOutput(chunks_of=lambda deps: CHUNKS, max_iterations=3)
        agent = _agent(script, grounding, form, retries={"output": 1})
        run = agent.run_sync(QUESTION)
        assert (WRONG, 2) == (run.output, len(script.requests))
        assert "exhausted" == grounding.result_of(run).outcome

    def test_raise_when_exhausted(self, form: str) -> None:
        script = Script([_text(WRONG, 5, 5)])
        grounding = GroundedOutput(
            chunks_of=lambda deps: CHUNKS, max_iterations=1, on_exhausted="raise"
        )
        agent = _agent(script, grounding, form)
        with pytest.raises(relapse.NotGroundedError):
            agent.run_sync(QUESTION)


class TestTelemetryAndLimits:
    def test_one_attempt_span_per_answer(self, spans: CapturedSpans) -> None:
        script = Script([_text(WRONG, 5, 5), _text(RIGHT, 5, 5)])
        grounding = GroundedOutput(
            chunks_of=lambda deps: CHUNKS, max_iterations=2, tracer_provider=spans.provider
        )
        _agent(script, grounding, "capability", retries={"output": 1}).run_sync(QUESTION)
        (call,) = spans.named("relapse pydantic_ai")
        iterations = spans.named(attr.ITERATION_SPAN_NAME)
        assert [1, 2] == [s.attributes[attr.RELAPSE_ITERATION] for s in iterations]
        assert {call.context.span_id} == {s.parent.span_id for s in iterations if s.parent}
        assert "recovered" == call.attributes[attr.RELAPSE_OUTCOME]

    async def test_run_stream_checks_the_final_output_once(self) -> None:
        """Pydantic AI cannot re-ask in run_stream: the final output is checked, not retried."""
        calls: list[int] = []

        async def stream(messages: list[ModelMessage], info: AgentInfo) -> Any:
            calls.append(1)
            for word in WRONG.split(" "):
                yield word + " "

        grounding = GroundedOutput(chunks_of=lambda deps: CHUNKS, max_iterations=3)
        agent = Agent(
            FunctionModel(stream_function=stream),
            retries={"output": 2},
            capabilities=[grounding.capability()],
        )
        async with agent.run_stream(QUESTION) as streamed:
            output = await streamed.get_output()
            run_id = streamed.run_id
        assert (WRONG.strip(), 1) == (output.strip(), len(calls))
        result = grounding.result_of(run_id)
        assert ("exhausted", 1) == (result.outcome, result.iterations)

    def test_bad_arguments(self) -> None:
        with pytest.raises(TypeError, match="give chunks_of"):
            GroundedOutput()
        with pytest.raises(TypeError, match="tools must be a sequence of tool names"):
            GroundedOutput(tools="search")
        with pytest.raises(ValueError, match='release="sentence"'):
            GroundedOutput(tools=["search"], release="sentence")
        with pytest.raises(LookupError, match="no grounded answer recorded for run 'nope'"):
            GroundedOutput(tools=["search"]).result_of("nope")


@pytest.mark.slow
def test_the_local_model_through_pydantic_ais_openai_model(llama_server: LlamaServer) -> None:
    """
    OpenAIChatModel against the local server; the first answer is rejected so the retry is sent.

    The check composes the default one with a check rejecting the first
    answer, naming a span of it: the retry request carries the note with
    that span, and each attempt's tokens are the server's counts.
    """
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    model = OpenAIChatModel(
        MODEL, provider=OpenAIProvider(base_url=llama_server.base_url, api_key="no-key")
    )
    checked: list[str] = []

    def reject_the_first(query: str, chunks: list[str], answer: str) -> relapse.GroundingResult:
        checked.append(answer)
        if len(checked) > 1:
            return relapse.GroundingResult(True)
        span = answer.split()[0] if answer.split() else answer
        start = answer.index(span)
        return relapse.GroundingResult(
            False,
            (
                relapse.GroundingFinding(
                    "X1", "rejected once", (span,), ((start, start + len(span)),)
                ),
            ),
        )

    grounding = GroundedOutput(
        chunks_of=lambda deps: CHUNKS, grounding_check=reject_the_first, max_iterations=2
    )
    agent = Agent(
        model,
        retries={"output": 1},
        capabilities=[grounding.capability()],
        # The server reads max_tokens only; Pydantic AI sends max_completion_tokens.
        model_settings={"extra_body": {"max_tokens": 60}, "temperature": 0.0},
        instructions="Answer from these passages only:\n" + "\n".join(CHUNKS),
    )
    run = agent.run_sync(QUESTION)
    result = grounding.result_of(run)
    assert (True, 2, "recovered") == (result.grounded, result.iterations, result.outcome)
    first_span = result.transcript[0].findings[0].spans[0]
    retry = [m for m in run.all_messages() if isinstance(m, ModelRequest)][-1]
    assert first_span in str(retry.parts[-1].content)
    assert all(r.usage is not None and r.usage.output_tokens > 0 for r in result.transcript)
    assert result.usage is not None
    assert (result.usage.input_tokens, result.usage.output_tokens) == (
        run.usage.input_tokens,
        run.usage.output_tokens,
    )


def test_missing_extra_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without pydantic-ai, importing the module names the extra."""
    monkeypatch.setitem(sys.modules, "pydantic_ai.capabilities", None)
    monkeypatch.delitem(sys.modules, "relapse.integrations.pydantic_ai")
    with pytest.raises(ImportError, match=r"pip install 'relapse\[pydantic-ai\]'"):
        import relapse.integrations.pydantic_ai  # noqa: F401
