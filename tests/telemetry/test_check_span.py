"""The check span: one ``relapse.check`` GUARDRAIL child of each iteration span whose check ran."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF, ALWAYS_ON, Sampler, SamplingResult
from opentelemetry.trace import INVALID_SPAN, StatusCode

import relapse
from helpers import decorated, forbid, in_provider_span
from relapse._telemetry import Telemetry
from relapse._telemetry import attributes as attr
from relapse._version import VERSION
from relapse.checks import LLMJudge
from relapse.testing import CapturedSpans, ScriptedLLM

DOCS = ["The museum opened in 1931."]
CHECK = forbid("WRONG")
#: The kind Phoenix (OpenInference) and Langfuse read off a check span.
GUARDRAIL = {attr.OPENINFERENCE_SPAN_KIND: "GUARDRAIL", attr.LANGFUSE_OBSERVATION_TYPE: "guardrail"}
CONTENT_KEYS = {attr.INPUT_VALUE, attr.OUTPUT_VALUE}


def checks_of(spans: CapturedSpans) -> list[ReadableSpan]:
    return spans.named(attr.CHECK_SPAN_NAME)


def times(span: ReadableSpan) -> tuple[int, int]:
    """The start and end of a finished span, in ns since the epoch."""
    assert span.start_time is not None
    assert span.end_time is not None
    return span.start_time, span.end_time


def decorate(spans: CapturedSpans, script: list[Any], **options: Any) -> Any:
    options.setdefault("grounding_check", CHECK)
    llm = in_provider_span(ScriptedLLM(script), spans.provider, "chat")
    return decorated(llm, tracer_provider=spans.provider, **options)


class TestTree:
    def test_one_guardrail_span_under_each_iteration(self, spans: CapturedSpans) -> None:
        """A recovered call: each iteration span has its chat span and one check span."""
        decorate(spans, ["It is WRONG.", "It opened in 1931."])("q", DOCS)
        first, second = spans.named(attr.ITERATION_SPAN_NAME)
        checks = checks_of(spans)
        assert [first.context.span_id, second.context.span_id] == [c.parent.span_id for c in checks]
        assert [first.context.trace_id] * 2 == [c.context.trace_id for c in checks]
        assert [
            {
                **GUARDRAIL,
                attr.GEN_AI_EVALUATION_NAME: "forbid",
                attr.RELAPSE_GROUNDED: False,
                attr.RELAPSE_FINDINGS_CODES: ("FG001",),
                attr.RELAPSE_FINDINGS_COUNT: 1,
            },
            {
                **GUARDRAIL,
                attr.GEN_AI_EVALUATION_NAME: "forbid",
                attr.RELAPSE_GROUNDED: True,
                attr.RELAPSE_FINDINGS_CODES: (),
                attr.RELAPSE_FINDINGS_COUNT: 0,
            },
        ] == [dict(c.attributes or {}) for c in checks]
        for check in checks:
            # A rejected answer is the check working, not an error of its span.
            assert StatusCode.UNSET == check.status.status_code
            assert trace.SpanKind.INTERNAL == check.kind
            assert () == check.events  # the evaluation event stays on the iteration span
            assert ("relapse", VERSION) == (
                check.instrumentation_scope.name,
                check.instrumentation_scope.version,
            )
        assert [1, 1] == [
            [e.name for e in s.events].count(attr.GEN_AI_EVALUATION_RESULT_EVENT)
            for s in (first, second)
        ]
        # 1 call + 2 iterations + 2 chats + 2 checks.
        assert 7 == len(spans.spans)

    def test_span_covers_the_check_inside_its_iteration(self, spans: CapturedSpans) -> None:
        """The check span starts before the check is entered and ends after it returns."""
        seen: list[tuple[int, int]] = []

        def slow(query: str, chunks: Sequence[str], answer: str) -> relapse.GroundingResult:
            entered = time.time_ns()
            time.sleep(0.02)
            seen.append((entered, time.time_ns()))
            return relapse.GroundingResult(ok=True)

        decorate(spans, ["It opened in 1931."], grounding_check=slow)("q", DOCS)
        (iteration,) = spans.named(attr.ITERATION_SPAN_NAME)
        (chat,) = spans.named("chat")
        (check,) = checks_of(spans)
        ((entered, left),) = seen
        iteration_start, iteration_end = times(iteration)
        check_start, check_end = times(check)
        # The LLM call, then the check, both inside the iteration span.
        assert iteration_start <= times(chat)[1] <= check_start <= entered
        assert left <= check_end <= iteration_end
        assert check_end - check_start >= 20_000_000  # ns: the 20 ms sleep

    def test_spans_the_check_starts_are_its_children(self, spans: CapturedSpans) -> None:
        """An LLM judge's own (instrumented) call nests under the check span."""
        tracer = trace.get_tracer("judge-provider", tracer_provider=spans.provider)

        def judge(prompt: str) -> str:
            with tracer.start_as_current_span("chat judge"):
                return "SUPPORTED"

        decorate(spans, ["It opened in 1931."], grounding_check=LLMJudge(judge, name="judge"))(
            "q", DOCS
        )
        (check,) = checks_of(spans)
        (judged,) = spans.named("chat judge")
        assert check.context.span_id == judged.parent.span_id
        assert "judge" == check.attributes[attr.GEN_AI_EVALUATION_NAME]

    async def test_async_check_is_awaited_inside_its_span(self, spans: CapturedSpans) -> None:
        """An async judge's call nests under the check span, which lasts as long as the await."""
        tracer = trace.get_tracer("judge-provider", tracer_provider=spans.provider)

        async def judge(prompt: str) -> str:
            with tracer.start_as_current_span("chat judge"):
                await asyncio.sleep(0.02)
                return "UNSUPPORTED" if "WRONG" in prompt else "SUPPORTED"

        llm = ScriptedLLM(["It is WRONG.", "It opened in 1931."])

        @relapse.grounded(
            chunks_arg="docs", grounding_check=LLMJudge(judge, name="judge"),
            tracer_provider=spans.provider,
        )  # fmt: skip
        async def answer(query: str, docs: list[str]) -> str:
            return llm(query)

        assert "It opened in 1931." == await answer("q", DOCS)
        checks = checks_of(spans)
        judged = spans.named("chat judge")
        assert [c.context.span_id for c in checks] == [j.parent.span_id for j in judged]
        assert [False, True] == [c.attributes[attr.RELAPSE_GROUNDED] for c in checks]
        for check in checks:
            start, end = times(check)
            assert end - start >= 20_000_000  # ns: the 20 ms sleep
        assert trace.INVALID_SPAN is trace.get_current_span()  # nothing leaked into this task


class TestNoCheckSpan:
    def test_not_when_the_llm_call_raised(self, spans: CapturedSpans) -> None:
        """The check never ran on the failed iteration: the first iteration has one, it none."""
        boom = ConnectionError("model down")
        with pytest.raises(ConnectionError):
            decorate(spans, ["It is WRONG.", boom])("q", DOCS)
        first, second = spans.named(attr.ITERATION_SPAN_NAME)
        (check,) = checks_of(spans)
        assert first.context.span_id == check.parent.span_id
        assert StatusCode.ERROR == second.status.status_code

    def test_not_when_reading_the_reply_raised(self, spans: CapturedSpans) -> None:
        """A reply that cannot be read is never checked: no check span."""

        def answer_of(response: object) -> str:
            raise ValueError("unreadable")

        with pytest.raises(ValueError, match="unreadable"):
            decorate(spans, ["It opened in 1931."], answer_of=answer_of)("q", DOCS)
        assert [] == checks_of(spans)
        (iteration,) = spans.named(attr.ITERATION_SPAN_NAME)
        assert "ValueError" == iteration.attributes[attr.ERROR_TYPE]

    def test_not_with_the_api_alone(self) -> None:
        """With the API's no-op provider there is no span to make current during the check."""
        current: list[object] = []

        def check(query: str, chunks: Sequence[str], answer: str) -> relapse.GroundingResult:
            current.append(trace.get_current_span())
            return relapse.GroundingResult(ok=True)

        result = relapse.run(
            "q", DOCS, call_llm=ScriptedLLM(["1931"]), grounding_check=check,
            tracer_provider=trace.NoOpTracerProvider(),
        )  # fmt: skip
        assert (True, [INVALID_SPAN]) == (result.grounded, current)
        telemetry = Telemetry("f", tracer_provider=trace.NoOpTracerProvider())
        assert INVALID_SPAN is telemetry.start_check(INVALID_SPAN, "c")


class DropIterations(Sampler):
    """Records every span but the iteration spans (a sampler may decide per span)."""

    def should_sample(self, parent_context: Any, trace_id: int, name: str, *args: Any,
                      **kwargs: Any) -> SamplingResult:  # fmt: skip
        sampler = ALWAYS_OFF if name == attr.ITERATION_SPAN_NAME else ALWAYS_ON
        return sampler.should_sample(parent_context, trace_id, name, *args, **kwargs)

    def get_description(self) -> str:
        return "DropIterations"


class TestNotUnderASampledOutIteration:
    def test_no_check_span_when_the_iteration_span_is_dropped(self) -> None:
        """A check span under a dropped iteration span would dangle: none is started."""
        exporter = InMemorySpanExporter()
        provider = TracerProvider(sampler=DropIterations())
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        llm = ScriptedLLM(["It is WRONG.", "It opened in 1931."])
        result = relapse.run(
            "q", DOCS, call_llm=llm, grounding_check=CHECK, tracer_provider=provider
        )
        provider.shutdown()
        assert (True, 2) == (result.grounded, result.iterations)
        assert ["relapse run"] == [s.name for s in exporter.get_finished_spans()]


class TestFailedCheck:
    def test_a_raising_check_fails_its_span(self, spans: CapturedSpans) -> None:
        """The check's exception is on its span (and the iteration's), and propagates unchanged."""
        boom = RuntimeError("index corrupt")

        def broken(query: str, chunks: Sequence[str], answer: str) -> relapse.GroundingResult:
            raise boom

        broken.name = "broken"  # type: ignore[attr-defined]
        with pytest.raises(RuntimeError) as raised:
            decorate(spans, ["It opened in 1931."], grounding_check=broken)("q", DOCS)
        assert boom is raised.value
        (iteration,) = spans.named(attr.ITERATION_SPAN_NAME)
        (check,) = checks_of(spans)
        assert iteration.context.span_id == check.parent.span_id
        for span in (check, iteration):
            assert StatusCode.ERROR == span.status.status_code
            assert "index corrupt" == span.status.description
            assert "RuntimeError" == span.attributes[attr.ERROR_TYPE]
        assert ["exception"] == [e.name for e in check.events]
        # The evaluation event says the check raised (error.type), then the exception.
        event, exception = iteration.events
        assert (attr.GEN_AI_EVALUATION_RESULT_EVENT, "exception") == (event.name, exception.name)
        assert {attr.GEN_AI_EVALUATION_NAME: "broken", attr.ERROR_TYPE: "RuntimeError"} == dict(
            event.attributes or {}
        )
        assert {
            **GUARDRAIL,
            attr.GEN_AI_EVALUATION_NAME: "broken",
            attr.ERROR_TYPE: "RuntimeError",
        } == dict(check.attributes or {})
        assert times(check)[1] <= times(iteration)[1]

    def test_an_async_check_under_a_sync_call(self, spans: CapturedSpans) -> None:
        """The sync driver refuses an async check: its span records the TypeError."""

        async def judge(prompt: str) -> str:
            return "SUPPORTED"  # pragma: no cover - never awaited

        with pytest.raises(TypeError, match="async"):
            decorate(spans, ["It opened in 1931."], grounding_check=LLMJudge(judge))("q", DOCS)
        (check,) = checks_of(spans)
        assert (StatusCode.ERROR, "TypeError") == (
            check.status.status_code,
            check.attributes[attr.ERROR_TYPE],
        )


def capture(spans: CapturedSpans, **options: Any) -> list[ReadableSpan]:
    """A recovered call with ``options``; its two check spans."""
    result = decorate(spans, ["A-SECRET is WRONG.", "A-SECRET opened in 1931."], **options).run(
        "Q-SECRET", DOCS
    )
    assert (True, 2) == (result.grounded, result.iterations)
    return checks_of(spans)


class TestContent:
    def test_none_without_capture(self, spans: CapturedSpans) -> None:
        """Capture off: no answer, no explanation, no text of any kind on the check spans."""
        for check in capture(spans, capture_content=False):
            assert set() == CONTENT_KEYS & set(check.attributes or {})
            assert not any("SECRET" in str(v) for v in (check.attributes or {}).values())

    def test_answer_and_explanation_with_capture(self, spans: CapturedSpans) -> None:
        """Capture on: the answer is the input, the findings' messages (spans in) the output."""
        first, second = capture(spans, capture_content=True)
        assert "A-SECRET is WRONG." == first.attributes[attr.INPUT_VALUE]
        assert "FG001: not in chunks: ['WRONG']" == first.attributes[attr.OUTPUT_VALUE]
        assert "A-SECRET opened in 1931." == second.attributes[attr.INPUT_VALUE]
        assert attr.OUTPUT_VALUE not in second.attributes  # grounded: nothing to explain

    def test_redacted_with_capture(self, spans: CapturedSpans) -> None:
        """redact runs on the answer and explanation before they reach the check span."""
        first, second = capture(
            spans, capture_content=True, redact=lambda text: text.replace("SECRET", "***")
        )
        assert ("A-*** is WRONG.", "A-*** opened in 1931.") == (
            first.attributes[attr.INPUT_VALUE],
            second.attributes[attr.INPUT_VALUE],
        )

    def test_broken_redact_drops_the_content(self, spans: CapturedSpans) -> None:
        """A redact that raises leaves the check spans without content, verdict intact."""
        first, second = capture(spans, capture_content=True, redact=lambda text: 1 / 0)
        for check in (first, second):
            assert set() == CONTENT_KEYS & set(check.attributes or {})
        assert [False, True] == [c.attributes[attr.RELAPSE_GROUNDED] for c in (first, second)]


class RaiseForChecks(SpanProcessor):
    """A processor that raises on the check spans only."""

    def __init__(self, where: str) -> None:
        self.where = where

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        if self.where == "start" and span.name == attr.CHECK_SPAN_NAME:
            raise RuntimeError("on_start exploded")

    def on_end(self, span: ReadableSpan) -> None:
        if self.where == "end" and span.name == attr.CHECK_SPAN_NAME:
            raise RuntimeError("on_end exploded")


class RaisingCheckTracer(trace.Tracer):
    """A tracer whose start_span raises for the check span and delegates otherwise."""

    def __init__(self, inner: trace.Tracer) -> None:
        self.inner = inner

    def start_span(self, name: str, *args: Any, **kwargs: Any) -> trace.Span:
        if name == attr.CHECK_SPAN_NAME:
            raise RuntimeError("no check span for you")
        return self.inner.start_span(name, *args, **kwargs)

    def start_as_current_span(self, *args: Any, **kwargs: Any) -> Any:
        return self.inner.start_as_current_span(*args, **kwargs)  # pragma: no cover


class RaisingCheckTracerProvider(TracerProvider):
    def get_tracer(self, *args: Any, **kwargs: Any) -> trace.Tracer:
        return RaisingCheckTracer(super().get_tracer(*args, **kwargs))


#: How the SDK fails on the check spans -> how many of them are exported.
BROKEN = {"tracer raises": 0, "on_start raises": 0, "on_end raises": 2}


@pytest.fixture(params=sorted(BROKEN))
def broken(
    request: pytest.FixtureRequest,
) -> Iterator[tuple[TracerProvider, InMemorySpanExporter, int]]:
    exporter = InMemorySpanExporter()
    provider: TracerProvider
    provider = (
        RaisingCheckTracerProvider() if request.param == "tracer raises" else TracerProvider()
    )
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    if request.param != "tracer raises":
        # After the exporting processor: a span that ends is exported, then on_end raises.
        provider.add_span_processor(RaiseForChecks(request.param.split()[0].removeprefix("on_")))
    yield provider, exporter, BROKEN[request.param]
    provider.shutdown()


class TestBrokenCheckSpan:
    def test_call_and_iteration_spans_unaffected(
        self, broken: tuple[TracerProvider, InMemorySpanExporter, int]
    ) -> None:
        """A check span the SDK cannot start or end changes neither the result nor the tree."""
        provider, exporter, exported = broken
        llm = ScriptedLLM(["It is WRONG.", "It opened in 1931."])
        result = relapse.run(
            "q", DOCS, call_llm=llm, grounding_check=CHECK, tracer_provider=provider
        )
        assert ("It opened in 1931.", True, 2, "recovered") == (
            result.answer,
            result.grounded,
            result.iterations,
            result.outcome,
        )
        finished = exporter.get_finished_spans()
        iterations = sorted(
            (s for s in finished if s.name == attr.ITERATION_SPAN_NAME),
            key=lambda s: s.attributes[attr.RELAPSE_ITERATION],
        )
        assert [False, True] == [s.attributes[attr.RELAPSE_GROUNDED] for s in iterations]
        assert [["gen_ai.evaluation.result"]] * 2 == [
            [e.name for e in s.events] for s in iterations
        ]
        (call,) = [s for s in finished if s.name == "relapse run"]
        assert "recovered" == call.attributes[attr.RELAPSE_OUTCOME]
        checks = [s for s in finished if s.name == attr.CHECK_SPAN_NAME]
        assert [False, True][:exported] == [c.attributes[attr.RELAPSE_GROUNDED] for c in checks]
