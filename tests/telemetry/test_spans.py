"""
The span tree of a grounded call: names, parents, attribute values and types.

Merged from ``test_spans.py`` (the tree of a decorated function, read through
``relapse.testing.capture_spans``) and ``tests/telemetry/test_spans.py``.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
import time
from collections import defaultdict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF
from opentelemetry.trace import StatusCode

import relapse
from helpers import forbid
from relapse._telemetry import attributes as attr
from relapse._version import VERSION
from relapse.testing import CapturedSpans, ScriptedLLM

#: What Phoenix and Langfuse read as the kind of the call and iteration spans.
KINDS = {attr.OPENINFERENCE_SPAN_KIND: "CHAIN", attr.LANGFUSE_OBSERVATION_TYPE: "chain"}
DOCS = ["The museum opened in 1931."]
CHECK = forbid("WRONG")
SCALARS = (bool, int, float, str)


def assert_valid_attributes(span: ReadableSpan) -> None:
    """Every attribute value is an OTel type: scalar or homogeneous tuple, never None/dict."""
    for key, value in (span.attributes or {}).items():
        if isinstance(value, tuple):
            assert len({type(v) for v in value}) <= 1, key
            assert all(isinstance(v, SCALARS) for v in value), key
        else:
            assert isinstance(value, SCALARS), key


def call_spans(spans: Sequence[ReadableSpan]) -> list[ReadableSpan]:
    return [s for s in spans if s.name.startswith(attr.CALL_SPAN_PREFIX)]


def by_trace(spans: Sequence[ReadableSpan]) -> dict[int, list[ReadableSpan]]:
    traces: dict[int, list[ReadableSpan]] = defaultdict(list)
    for span in spans:
        traces[span.context.trace_id].append(span)
    return traces


def chat(provider: TracerProvider, llm: ScriptedLLM, prompt: str) -> str:
    """What a provider's instrumentation does: a span around the model call."""
    with trace.get_tracer("provider", tracer_provider=provider).start_as_current_span("chat"):
        return llm(prompt)


class TestSpanTree:
    def test_recovered_call(self, spans: CapturedSpans) -> None:
        """Call span under the caller's span; 2 iteration spans; LLM and check spans under them."""
        llm = ScriptedLLM(["WRONG", "It opened in 1931."])

        @relapse.grounded(chunks_arg="docs", grounding_check=CHECK, tracer_provider=spans.provider)
        def answer(query: str, docs: list[str]) -> str:
            return chat(spans.provider, llm, query)

        outer_tracer = trace.get_tracer("app", tracer_provider=spans.provider)
        with outer_tracer.start_as_current_span("request") as outer:
            assert "It opened in 1931." == answer("When did it open?", DOCS)
        (call,) = call_spans(spans.spans)
        first, second = spans.named(attr.ITERATION_SPAN_NAME)
        chats = spans.named("chat")
        assert "relapse TestSpanTree.test_recovered_call.<locals>.answer" == call.name
        assert outer.get_span_context().span_id == call.parent.span_id
        assert [call.context.span_id] * 2 == [first.parent.span_id, second.parent.span_id]
        assert [first.context.span_id, second.context.span_id] == [c.parent.span_id for c in chats]
        checks = spans.named(attr.CHECK_SPAN_NAME)
        assert [first.context.span_id, second.context.span_id] == [c.parent.span_id for c in checks]
        # request, call, 2 iterations, 2 chats, 2 checks: nothing else.
        assert 8 == len(spans.spans)
        assert {
            attr.RELAPSE_MAX_ITERATIONS: 3,
            attr.CODE_FUNCTION_NAME: "TestSpanTree.test_recovered_call.<locals>.answer",
            attr.RELAPSE_CHUNKS_COUNT: 1,
            attr.RELAPSE_ITERATIONS: 2,
            attr.RELAPSE_GROUNDED: True,
            attr.RELAPSE_OUTCOME: "recovered",
            attr.RELAPSE_USAGE_KNOWN: False,  # a str reports no tokens, and says so
            **KINDS,
        } == dict(call.attributes or {})
        durations = [s.attributes[attr.RELAPSE_CHECK_DURATION] for s in (first, second)]
        assert all(isinstance(d, float) and d >= 0.0 for d in durations)
        assert {
            attr.RELAPSE_ITERATION: 1,
            attr.RELAPSE_GROUNDED: False,
            attr.RELAPSE_FINDINGS_CODES: ("FG001",),
            attr.RELAPSE_FINDINGS_COUNT: 1,
            attr.RELAPSE_CHECK_DURATION: durations[0],
            attr.RELAPSE_USAGE_KNOWN: False,
            attr.RELAPSE_CHUNKS_COUNT: 1,
            attr.LANGFUSE_OBSERVATION_LEVEL: "WARNING",
            attr.LANGFUSE_OBSERVATION_STATUS_MESSAGE: "FG001",
            "evaluations.0.evaluation.name": "forbid",
            "evaluations.0.evaluation.label": "fail",
            "evaluations.0.evaluation.score": 0.0,
            "evaluations.0.evaluation.annotator_kind": "CODE",
            "evaluations.0.evaluation.explanation": "FG001: 1 failing span(s)",
            **KINDS,
        } == dict(first.attributes or {})
        assert {
            attr.RELAPSE_ITERATION: 2,
            attr.RELAPSE_GROUNDED: True,
            attr.RELAPSE_FINDINGS_CODES: (),
            attr.RELAPSE_FINDINGS_COUNT: 0,
            attr.RELAPSE_CHECK_DURATION: durations[1],
            attr.RELAPSE_USAGE_KNOWN: False,
            attr.RELAPSE_CHUNKS_COUNT: 1,
            # The retry resolved iteration 1's one FG001 span, kept and added nothing.
            attr.RELAPSE_RETRY_RESOLVED_CODES: ("FG001",),
            attr.RELAPSE_RETRY_RESOLVED_COUNTS: (1,),
            attr.RELAPSE_RETRY_PERSISTED_CODES: (),
            attr.RELAPSE_RETRY_PERSISTED_COUNTS: (),
            attr.RELAPSE_RETRY_INTRODUCED_CODES: (),
            attr.RELAPSE_RETRY_INTRODUCED_COUNTS: (),
            "evaluations.0.evaluation.name": "forbid",
            "evaluations.0.evaluation.label": "pass",
            "evaluations.0.evaluation.score": 1.0,
            "evaluations.0.evaluation.annotator_kind": "CODE",
            **KINDS,
        } == dict(second.attributes or {})
        for span in (call, first, second, *checks):
            assert_valid_attributes(span)
            assert StatusCode.UNSET == span.status.status_code
            assert ("relapse", VERSION) == (
                span.instrumentation_scope.name,
                span.instrumentation_scope.version,
            )

    def test_codes_sorted_unique_and_types_valid(self, spans: CapturedSpans) -> None:
        """Codes are a sorted tuple of unique str; count counts every finding."""

        def check(query: str, chunks: Sequence[str], answer: str) -> relapse.GroundingResult:
            findings = (
                relapse.GroundingFinding("FG003", "quote", ("q",)),
                relapse.GroundingFinding("FG001", "n", ("7",)),
                relapse.GroundingFinding("FG001", "n", ("8",)),
            )
            return relapse.GroundingResult(ok=False, findings=findings)

        @relapse.grounded(
            chunks_arg="docs", grounding_check=check, max_iterations=1,
            tracer_provider=spans.provider,
        )  # fmt: skip
        def answer(query: str, docs: list[str]) -> str:
            return "a"

        answer("q", DOCS)
        (iteration,) = spans.named(attr.ITERATION_SPAN_NAME)
        assert ("FG001", "FG003") == iteration.attributes[attr.RELAPSE_FINDINGS_CODES]
        assert 3 == iteration.attributes[attr.RELAPSE_FINDINGS_COUNT]
        (call,) = call_spans(spans.spans)
        assert (1, False, "exhausted") == (
            call.attributes[attr.RELAPSE_ITERATIONS],
            call.attributes[attr.RELAPSE_GROUNDED],
            call.attributes[attr.RELAPSE_OUTCOME],
        )
        for span in spans.spans:
            assert_valid_attributes(span)

    def test_llm_error_is_recorded_and_reraised(self, spans: CapturedSpans) -> None:
        """The same exception object propagates; both spans are ERROR with error.type."""
        boom = ConnectionError("model down")

        @relapse.grounded(chunks_arg="docs", grounding_check=CHECK, tracer_provider=spans.provider)
        def answer(query: str, docs: list[str]) -> str:
            raise boom

        with pytest.raises(ConnectionError) as raised:
            answer("q", DOCS)
        assert boom is raised.value
        (iteration,) = spans.named(attr.ITERATION_SPAN_NAME)
        (call,) = call_spans(spans.spans)
        for span in (iteration, call):
            assert StatusCode.ERROR == span.status.status_code
            assert "model down" == span.status.description
            assert "ConnectionError" == span.attributes[attr.ERROR_TYPE]
            assert ["exception"] == [e.name for e in span.events]
        assert attr.RELAPSE_OUTCOME not in call.attributes

    async def test_async_function_spans_cover_the_awaits(self, spans: CapturedSpans) -> None:
        """An async def gets the same tree; the iteration span lasts as long as the await."""
        llm = ScriptedLLM(["WRONG", "fine"])

        @relapse.grounded(chunks_arg="docs", grounding_check=CHECK, tracer_provider=spans.provider)
        async def answer(query: str, docs: list[str]) -> str:
            await asyncio.sleep(0.02)
            return chat(spans.provider, llm, query)

        assert "fine" == await answer("q", DOCS)
        iterations = spans.named(attr.ITERATION_SPAN_NAME)
        assert 2 == len(iterations)
        for span in iterations:
            assert span.end_time is not None
            assert span.start_time is not None
            assert span.end_time - span.start_time >= 15_000_000  # ns: the 20 ms sleep
        assert [s.context.span_id for s in iterations] == [
            c.parent.span_id for c in spans.named("chat")
        ]


class TestSampling:
    def test_always_off_sampler_records_nothing(self) -> None:
        """With the ALWAYS_OFF sampler no span is exported, and the call works as usual."""
        exporter = InMemorySpanExporter()
        provider = TracerProvider(sampler=ALWAYS_OFF)
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        llm = ScriptedLLM(["WRONG", "fine"])

        @relapse.grounded(chunks_arg="docs", grounding_check=CHECK, tracer_provider=provider)
        def answer(query: str, docs: list[str]) -> str:
            return chat(provider, llm, query)

        result = answer.run("q", DOCS)
        provider.shutdown()
        assert ("fine", True, 2) == (result.answer, result.grounded, result.iterations)
        assert () == exporter.get_finished_spans()


def assert_each_trace_nests(spans: Sequence[ReadableSpan], calls: int, iterations: int) -> None:
    """One trace per call; in each, call -> iterations -> one chat span per iteration."""
    traces = by_trace(spans)
    assert calls == len(traces)
    for members in traces.values():
        (call,) = call_spans(members)
        its = sorted(
            (s for s in members if s.name == attr.ITERATION_SPAN_NAME),
            key=lambda s: s.attributes[attr.RELAPSE_ITERATION],
        )
        chats = sorted((s for s in members if s.name == "chat"), key=lambda s: s.start_time or 0)
        assert iterations == len(its) == len(chats)
        assert all(call.context.span_id == s.parent.span_id for s in its)
        assert [s.context.span_id for s in its] == [c.parent.span_id for c in chats]


class TestContextPropagation:
    def test_thread_pool(self, spans: CapturedSpans) -> None:
        """Decorated calls running concurrently in a ThreadPoolExecutor nest correctly."""
        provider = spans.provider
        barrier = threading.Barrier(4)
        llm = ScriptedLLM([lambda p: "fine" if "WRONG" in p else "WRONG"])

        @relapse.grounded(chunks_arg="docs", grounding_check=CHECK, tracer_provider=provider)
        def answer(query: str, docs: list[str]) -> str:
            if "WRONG" not in query:
                barrier.wait(timeout=5)  # all four calls are inside their iteration 1 now
            with trace.get_tracer("p", tracer_provider=provider).start_as_current_span("chat"):
                time.sleep(0.005)
                return llm(query)

        with ThreadPoolExecutor(max_workers=4) as pool:
            answers = list(pool.map(lambda i: answer(f"q{i}", DOCS), range(4)))
        assert ["fine"] * 4 == answers
        assert_each_trace_nests(spans.spans, calls=4, iterations=2)

    def test_llm_call_handed_to_a_pool_with_copied_context(self, spans: CapturedSpans) -> None:
        """The iteration span is current inside the function; copying the context carries it."""
        provider = spans.provider
        llm = ScriptedLLM(["WRONG", "fine"])

        @relapse.grounded(chunks_arg="docs", grounding_check=CHECK, tracer_provider=provider)
        def answer(query: str, docs: list[str]) -> str:
            ctx = contextvars.copy_context()
            with ThreadPoolExecutor(max_workers=1) as pool:
                return pool.submit(ctx.run, chat, provider, llm, query).result()

        assert "fine" == answer("q", DOCS)
        assert_each_trace_nests(spans.spans, calls=1, iterations=2)

    async def test_concurrent_asyncio_tasks(self, spans: CapturedSpans) -> None:
        """Interleaved asyncio tasks each nest their chat spans under their own iterations."""
        provider = spans.provider
        tracer = trace.get_tracer("p", tracer_provider=provider)

        @relapse.grounded(chunks_arg="docs", grounding_check=CHECK, tracer_provider=provider)
        async def answer(query: str, docs: list[str]) -> str:
            with tracer.start_as_current_span("chat"):
                for _ in range(3):
                    await asyncio.sleep(0)  # let the other tasks run inside this span
                return "fine" if "WRONG" in query else "WRONG"

        results: list[Any] = await asyncio.gather(*(answer(f"q{i}", DOCS) for i in range(5)))
        assert ["fine"] * 5 == results
        assert_each_trace_nests(spans.spans, calls=5, iterations=2)
        assert trace.INVALID_SPAN is trace.get_current_span()  # nothing leaked into this task


def decorate(spans: CapturedSpans, llm: ScriptedLLM, **options: object) -> object:
    """A function over the ``forbid("WRONG")`` check whose LLM call has a provider span."""

    @relapse.grounded(
        chunks_arg="docs",
        grounding_check=forbid("WRONG"),
        tracer_provider=spans.provider,
        **options,
    )
    def answer(query: str, docs: list[str]) -> str:
        # A provider's own instrumentation would start a span here.
        with trace.get_tracer("provider", tracer_provider=spans.provider).start_as_current_span(
            "chat model"
        ):
            return llm(query)

    return answer


class TestDecoratedSpanTree:
    def test_recovered_call_has_one_child_per_iteration(self, spans: CapturedSpans) -> None:
        """Call span, two iteration spans under it, each LLM and check span under its iteration."""
        answer = decorate(spans, ScriptedLLM(["WRONG", "ok"]))
        answer("q", DOCS)  # type: ignore[operator]
        (call,) = [
            s
            for s in spans.spans
            if s.name.startswith("relapse ") and s.name != "relapse.iteration"
        ]
        assert call.name.endswith("decorate.<locals>.answer")
        iterations = spans.named("relapse.iteration")
        llm_spans = spans.named("chat model")
        assert 2 == len(iterations) == len(llm_spans)
        for it in iterations:
            assert call.context.span_id == it.parent.span_id
        for it, llm_span in zip(iterations, llm_spans, strict=True):
            assert it.context.span_id == llm_span.parent.span_id
        checks = spans.named("relapse.check")
        assert [it.context.span_id for it in iterations] == [c.parent.span_id for c in checks]
        assert 7 == len(spans.spans)  # call, 2 iterations, 2 LLM spans, 2 checks
        first, second = iterations
        assert {
            "relapse.iteration": 1,
            "relapse.grounded": False,
            "relapse.findings.codes": ("FG001",),
            "relapse.findings.count": 1,
        } == {
            k: first.attributes[k]
            for k in (
                "relapse.iteration",
                "relapse.grounded",
                "relapse.findings.codes",
                "relapse.findings.count",
            )
        }
        assert (2, True, (), 0) == (
            second.attributes["relapse.iteration"],
            second.attributes["relapse.grounded"],
            second.attributes["relapse.findings.codes"],
            second.attributes["relapse.findings.count"],
        )
        assert (2, True, 3, "recovered") == (
            call.attributes["relapse.iterations"],
            call.attributes["relapse.grounded"],
            call.attributes["relapse.max_iterations"],
            call.attributes["relapse.outcome"],
        )

    @pytest.mark.parametrize(
        ("answers", "outcome", "count"),
        [(["ok"], "grounded_first_try", 1), (["WRONG"], "exhausted", 3)],
    )
    def test_outcomes(
        self, spans: CapturedSpans, answers: list[str], outcome: str, count: int
    ) -> None:
        """The call span's outcome and the number of iteration spans agree."""
        decorate(spans, ScriptedLLM(answers))("q", DOCS)  # type: ignore[operator]
        (call,) = [s for s in spans.spans if s.name.endswith(".answer")]
        assert outcome == call.attributes["relapse.outcome"]
        assert count == len(spans.named("relapse.iteration"))

    def test_run_names_its_call_span_run(self, spans: CapturedSpans) -> None:
        """relapse.run produces a call span named 'relapse run'."""
        relapse.run("q", ["1945"], call_llm=ScriptedLLM(["1945"]), tracer_provider=spans.provider)
        # In the order they end: the check inside the iteration inside the call.
        assert ["relapse.check", "relapse.iteration", "relapse run"] == [
            s.name for s in spans.spans
        ]

    def test_llm_error_marks_both_spans(self, spans: CapturedSpans) -> None:
        """An LLM exception sets ERROR status and error.type on iteration and call spans."""
        answer = decorate(spans, ScriptedLLM([TimeoutError("slow")]))
        with pytest.raises(TimeoutError):
            answer("q", DOCS)  # type: ignore[operator]
        (iteration,) = spans.named("relapse.iteration")
        (call,) = [s for s in spans.spans if s.name.endswith(".answer")]
        for span in (iteration, call):
            assert StatusCode.ERROR == span.status.status_code
            assert "TimeoutError" == span.attributes["error.type"]

    def test_evaluation_event_on_each_iteration(self, spans: CapturedSpans) -> None:
        """Each iteration span carries a gen_ai.evaluation.result event with pass/fail."""
        decorate(spans, ScriptedLLM(["WRONG", "ok"]))("q", DOCS)  # type: ignore[operator]
        labels = [
            [
                e.attributes["gen_ai.evaluation.score.label"]
                for e in s.events
                if e.name == "gen_ai.evaluation.result"
            ]
            for s in spans.named("relapse.iteration")
        ]
        assert [["fail"], ["pass"]] == labels
