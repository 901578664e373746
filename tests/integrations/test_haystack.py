"""relapse.integrations.haystack on the real haystack-ai: a pipeline loop, an Agent, the server."""

from __future__ import annotations

import sys
from typing import Any

import pytest

pytest.importorskip("haystack", reason="the haystack extra: pip install 'relapse[haystack]'")
from haystack import Document, Pipeline, component
from haystack.components.agents import Agent
from haystack.components.builders import ChatPromptBuilder
from haystack.dataclasses import ChatMessage, ChatRole, ToolCall
from haystack.tools import tool

import relapse
from llama_server import MODEL, LlamaServer
from relapse._telemetry import attributes as attr
from relapse.integrations.haystack import (
    GroundingChecker,
    GroundingHook,
    reply_usage,
    tool_result_chunks,
)
from relapse.testing import CapturedSpans

CHUNKS = ["The Golden Gate Bridge opened on May 27, 1937.", "Its main span is 1,280 metres long."]
DOCUMENTS = [Document(content=text) for text in CHUNKS]
QUESTION = "How long is the main span?"
WRONG, RIGHT = "Its main span is 1,500 metres long.", "Its main span is 1,280 metres long."
NOTE_START = (
    'Your previous answer was rejected: "Its main span is 1,500 metres long." states things'
    " the context does not support: FG001: 1 number(s) not in the retrieved chunks: '1,500'"
)
TEMPLATE = [
    ChatMessage.from_user(
        "Context: {% for d in documents %}{{ d.content }} {% endfor %}\n"
        "{% if retry_note %}{{ retry_note }}\n{% endif %}Question: {{ query }}"
    )
]


def _usage(tokens_in: int, tokens_out: int) -> dict[str, Any]:
    return {"usage": {"prompt_tokens": tokens_in, "completion_tokens": tokens_out}}


@component
class ScriptedGenerator:
    """A chat generator replying from a script; it records the last message of each request."""

    def __init__(self, replies: list[ChatMessage]) -> None:
        self.replies = list(replies)
        self.requests: list[str | None] = []

    @component.output_types(replies=list[ChatMessage])
    def run(self, messages: list[ChatMessage], tools: Any = None, **kwargs: Any) -> dict[str, Any]:
        self.requests.append(messages[-1].text)
        return {"replies": [self.replies.pop(0)]}


def _pipeline(generator: Any, checker: GroundingChecker, runs: int = 3) -> Pipeline:
    pipe = Pipeline(max_runs_per_component=runs)
    pipe.add_component(
        "prompt", ChatPromptBuilder(template=TEMPLATE, required_variables=["query", "documents"])
    )
    pipe.add_component("llm", generator)
    pipe.add_component("check", checker)
    pipe.connect("prompt.prompt", "llm.messages")
    pipe.connect("llm.replies", "check.replies")
    pipe.connect("check.retry_note", "prompt.retry_note")
    return pipe


def _inputs() -> dict[str, Any]:
    given = {"query": QUESTION, "documents": DOCUMENTS}
    return {"prompt": given, "check": given}


class TestPipeline:
    def test_a_wrong_number_is_re_asked_inside_the_pipeline(self, spans: CapturedSpans) -> None:
        """The checker's retry_note loops back to the prompt; the second reply is grounded."""
        generator = ScriptedGenerator(
            [
                ChatMessage.from_assistant(WRONG, meta=_usage(50, 12)),
                ChatMessage.from_assistant(RIGHT, meta=_usage(80, 11)),
            ]
        )
        checker = GroundingChecker(max_iterations=3, tracer_provider=spans.provider)
        output = _pipeline(generator, checker).run(_inputs())
        (reply,) = output["check"]["replies"]
        assert RIGHT == reply.text
        assert 2 == len(generator.requests)
        assert NOTE_START in (generator.requests[1] or "")
        result = output["check"]["result"]
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
        (call,) = spans.named("relapse haystack")
        assert [1, 2] == [
            s.attributes[attr.RELAPSE_ITERATION] for s in spans.named(attr.ITERATION_SPAN_NAME)
        ]
        assert "recovered" == call.attributes[attr.RELAPSE_OUTCOME]

    def test_the_loop_ends_within_max_iterations_with_the_best_answer(self) -> None:
        worse = "Its main span is 1,500 metres long and 99 metres wide."
        generator = ScriptedGenerator(
            [ChatMessage.from_assistant(WRONG), ChatMessage.from_assistant(worse)]
        )
        checker = GroundingChecker(max_iterations=2, on_exhausted="best")
        output = _pipeline(generator, checker).run(_inputs())
        assert WRONG == output["check"]["replies"][0].text
        assert ("exhausted", 2) == (
            output["check"]["result"].outcome,
            output["check"]["result"].iterations,
        )

    def test_a_new_question_starts_a_new_loop(self) -> None:
        checker = GroundingChecker(max_iterations=3)
        first = checker.run(QUESTION, DOCUMENTS, [ChatMessage.from_assistant(WRONG)])
        assert first["retry_note"].startswith(NOTE_START)
        second = checker.run("Another?", DOCUMENTS, [ChatMessage.from_assistant(RIGHT)])
        assert "grounded_first_try" == second["result"].outcome

    def test_serialized_with_its_plain_options(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Haystack loads only allowlisted modules: relapse's is allowed as a user would."""
        monkeypatch.setenv("HAYSTACK_DESERIALIZATION_ALLOWLIST", "relapse.*")
        pipe = Pipeline()
        pipe.add_component("check", GroundingChecker(max_iterations=2, on_exhausted="best"))
        again = Pipeline.from_dict(pipe.to_dict()).get_component("check")
        assert {"max_iterations": 2, "on_exhausted": "best"} == dict(again.loop.options)
        with pytest.raises(TypeError, match="cannot serialize the loop option grounding_check"):
            GroundingChecker(grounding_check=relapse.default_grounding_check).to_dict()

    def test_no_assistant_reply_is_an_error(self) -> None:
        with pytest.raises(ValueError, match="no assistant reply to check"):
            GroundingChecker().run(QUESTION, DOCUMENTS, [ChatMessage.from_user("hi")])


@tool
def search(query: str) -> list[str]:
    """Search the documents."""
    return CHUNKS


def _search_call() -> ChatMessage:
    return ChatMessage.from_assistant(
        tool_calls=[ToolCall(tool_name="search", arguments={"query": "span"})], meta=_usage(30, 7)
    )


class TestAgent:
    def test_on_exit_re_asks_with_the_note(self) -> None:
        generator = ScriptedGenerator(
            [
                _search_call(),
                ChatMessage.from_assistant(WRONG, meta=_usage(50, 12)),
                ChatMessage.from_assistant(RIGHT, meta=_usage(80, 11)),
            ]
        )
        grounding = GroundingHook(tools=["search"], max_iterations=3)
        agent = Agent(chat_generator=generator, tools=[search], hooks=grounding.hooks())
        output = agent.run(messages=[ChatMessage.from_user(QUESTION)])
        assert RIGHT == output["last_message"].text
        assert (generator.requests[2] or "").startswith(NOTE_START)
        (result,) = grounding.results
        assert ("recovered", 2) == (result.outcome, result.iterations)
        assert [relapse.Usage(50, 12), relapse.Usage(80, 11)] == [
            r.usage for r in result.transcript
        ]

    async def test_async_run(self) -> None:
        generator = ScriptedGenerator(
            [_search_call(), ChatMessage.from_assistant(WRONG), ChatMessage.from_assistant(RIGHT)]
        )
        grounding = GroundingHook(max_iterations=2)
        agent = Agent(chat_generator=generator, tools=[search], hooks=grounding.hooks())
        output = await agent.run_async(messages=[ChatMessage.from_user(QUESTION)])
        assert RIGHT == output["last_message"].text
        assert "recovered" == grounding.results[-1].outcome

    def test_the_chosen_answer_becomes_the_last_message(self) -> None:
        """on_exhausted='redact' with a marker: the redaction is appended as the final reply."""
        generator = ScriptedGenerator([_search_call(), ChatMessage.from_assistant(WRONG)])
        grounding = GroundingHook(
            max_iterations=1, on_exhausted="redact", redact_marker="[unsupported]"
        )
        agent = Agent(chat_generator=generator, tools=[search], hooks=grounding.hooks())
        output = agent.run(messages=[ChatMessage.from_user(QUESTION)])
        assert "[unsupported]" == output["last_message"].text
        assert ChatRole.ASSISTANT == output["last_message"].role
        assert "redacted" == grounding.results[-1].outcome

    def test_no_tool_output_passes_unchecked(self) -> None:
        generator = ScriptedGenerator([ChatMessage.from_assistant(WRONG)])
        grounding = GroundingHook()
        agent = Agent(chat_generator=generator, tools=[search], hooks=grounding.hooks())
        output = agent.run(messages=[ChatMessage.from_user(QUESTION)])
        assert (WRONG, []) == (output["last_message"].text, grounding.results)

    def test_max_agent_steps_ends_the_open_loop(self, spans: CapturedSpans) -> None:
        """The agent stops at max_agent_steps mid-loop; after_run ends the loop's spans."""
        generator = ScriptedGenerator(
            [_search_call(), ChatMessage.from_assistant(WRONG), ChatMessage.from_assistant(WRONG)]
        )
        grounding = GroundingHook(max_iterations=5, tracer_provider=spans.provider)
        agent = Agent(
            chat_generator=generator, tools=[search], hooks=grounding.hooks(), max_agent_steps=2
        )
        agent.run(messages=[ChatMessage.from_user(QUESTION)])
        assert [] == grounding.results
        (call,) = spans.named("relapse haystack")
        assert call.end_time is not None


class TestHelpers:
    def test_tool_result_chunks(self) -> None:
        assert ["a", "b"] == tool_result_chunks('["a", "b"]')
        assert ["a"] == tool_result_chunks(["a"])
        assert ["[x"] == tool_result_chunks("[x")
        assert ["plain"] == tool_result_chunks("plain")

    def test_reply_usage(self) -> None:
        assert relapse.Usage(3, 4) == reply_usage(
            ChatMessage.from_assistant("x", meta=_usage(3, 4))
        )
        assert None is reply_usage(ChatMessage.from_assistant("x"))

    def test_bad_arguments(self) -> None:
        with pytest.raises(TypeError, match="tools must be a sequence"):
            GroundingHook(tools="search")
        with pytest.raises(TypeError, match="state_key must be a str"):
            GroundingHook(state_key=3)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="retrieve= cannot reach"):
            GroundingChecker(retrieve=lambda attempt: None)


@pytest.mark.slow
def test_the_local_model_in_a_pipeline(llama_server: LlamaServer) -> None:
    """
    OpenAIChatGenerator against the local server, re-asked inside the pipeline.

    The check composes the default one with a check rejecting the first
    answer, naming a span of it, so the retry prompt (with the note) goes to
    the server; each attempt's tokens are the server's counts.
    """
    from haystack.components.generators.chat import OpenAIChatGenerator
    from haystack.utils import Secret

    generator = OpenAIChatGenerator(
        api_key=Secret.from_token("no-key"),
        model=MODEL,
        api_base_url=llama_server.base_url,
        generation_kwargs={"max_tokens": 60, "temperature": 0.0},
        max_retries=0,
        timeout=600.0,  # its default, 30 s, is less than a busy CPU may take
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

    prompts: list[str] = []

    @component
    class Recorder:
        @component.output_types(messages=list[ChatMessage])
        def run(self, messages: list[ChatMessage]) -> dict[str, Any]:
            prompts.append(messages[-1].text or "")
            return {"messages": messages}

    pipe = Pipeline(max_runs_per_component=2)
    pipe.add_component(
        "prompt", ChatPromptBuilder(template=TEMPLATE, required_variables=["query", "documents"])
    )
    pipe.add_component("record", Recorder())
    pipe.add_component("llm", generator)
    pipe.add_component(
        "check", GroundingChecker(grounding_check=reject_the_first, max_iterations=2)
    )
    pipe.connect("prompt.prompt", "record.messages")
    pipe.connect("record.messages", "llm.messages")
    pipe.connect("llm.replies", "check.replies")
    pipe.connect("check.retry_note", "prompt.retry_note")
    output = pipe.run(_inputs())
    result = output["check"]["result"]
    assert (True, 2, "recovered") == (result.grounded, result.iterations, result.outcome)
    span = result.transcript[0].findings[0].spans[0]
    assert "Your previous answer was rejected" in prompts[1]
    assert span in prompts[1]
    assert all(r.usage is not None and r.usage.output_tokens > 0 for r in result.transcript)


def test_missing_extra_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without haystack-ai, importing the module names the extra."""
    monkeypatch.setitem(sys.modules, "haystack.components.agents.state", None)
    monkeypatch.delitem(sys.modules, "relapse.integrations.haystack")
    with pytest.raises(ImportError, match=r"pip install 'relapse\[haystack\]'"):
        import relapse.integrations.haystack  # noqa: F401
