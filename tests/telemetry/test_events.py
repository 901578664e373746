"""gen_ai.evaluation.result: a span event by default, a log record with a logger provider."""

from __future__ import annotations

from collections.abc import Sequence

import relapse
from helpers import CapturedLogs
from relapse._telemetry import attributes as attr
from relapse._version import VERSION
from relapse.testing import CapturedSpans, ScriptedLLM

DOCS = ["The tower is 330 metres tall."]

FAILED = {
    "gen_ai.evaluation.name": "numbers",
    "gen_ai.evaluation.score.label": "fail",
    "gen_ai.evaluation.score.value": 0.0,
    # Messages may quote the answer, so with capture off only codes and counts are told.
    "gen_ai.evaluation.explanation": "FG001: 2 failing span(s); FG002: 1 failing span(s)",
}
PASSED = {
    "gen_ai.evaluation.name": "numbers",
    "gen_ai.evaluation.score.label": "pass",
    "gen_ai.evaluation.score.value": 1.0,
}


def numbers(query: str, chunks: Sequence[str], answer: str) -> relapse.GroundingResult:
    """Fails '512 metres, 40 floors, built 1889'; passes anything else."""
    if "512" not in answer:
        return relapse.GroundingResult(ok=True)
    return relapse.GroundingResult(
        ok=False,
        findings=(
            relapse.GroundingFinding("FG001", "2 number(s) not in chunks: ['512', '40']",
                                     ("512", "40")),
            relapse.GroundingFinding("FG002", "year 1889 not in chunks", ("1889",)),
        ),
    )  # fmt: skip


numbers.name = "numbers"  # type: ignore[attr-defined]
SCRIPT = ["It is 512 metres, 40 floors, built 1889.", "It is 330 metres tall."]


class TestSpanEvents:
    def test_one_event_per_iteration_on_its_span(self, spans: CapturedSpans) -> None:
        """Without a logger provider each iteration span carries one event, no answer text."""
        llm = ScriptedLLM(SCRIPT)

        @relapse.grounded(chunks_arg="docs", grounding_check=numbers,
                          tracer_provider=spans.provider)  # fmt: skip
        def answer(query: str, docs: list[str]) -> str:
            return llm(query)

        answer("How tall is the tower?", DOCS)
        first, second = spans.named(attr.ITERATION_SPAN_NAME)
        assert [("gen_ai.evaluation.result", FAILED)] == [
            (e.name, dict(e.attributes or {})) for e in first.events
        ]
        assert [("gen_ai.evaluation.result", PASSED)] == [
            (e.name, dict(e.attributes or {})) for e in second.events
        ]

    def test_check_name_defaults_to_qualname(self, spans: CapturedSpans) -> None:
        """A check without a name attribute is named by its __qualname__."""

        def plain_check(query: str, chunks: Sequence[str], answer: str) -> relapse.GroundingResult:
            return relapse.GroundingResult(ok=True)

        relapse.run("q", DOCS, call_llm=ScriptedLLM(["a"]), grounding_check=plain_check,
                    tracer_provider=spans.provider)  # fmt: skip
        (iteration,) = spans.named(attr.ITERATION_SPAN_NAME)
        (event,) = iteration.events
        assert (
            "TestSpanEvents.test_check_name_defaults_to_qualname.<locals>.plain_check"
            == event.attributes["gen_ai.evaluation.name"]
        )


class TestLogRecords:
    def test_events_go_through_the_logs_api(self, spans: CapturedSpans, logs: CapturedLogs) -> None:
        """With a logger provider: one log record per iteration, parented to it; no span events."""
        provider, exporter = logs.provider, logs.exporter
        llm = ScriptedLLM(SCRIPT)

        @relapse.grounded(
            chunks_arg="docs", grounding_check=numbers,
            tracer_provider=spans.provider, logger_provider=provider,
        )  # fmt: skip
        def answer(query: str, docs: list[str]) -> str:
            return llm(query)

        answer("How tall is the tower?", DOCS)
        iterations = spans.named(attr.ITERATION_SPAN_NAME)
        records = exporter.get_finished_logs()
        assert 2 == len(records)
        assert [
            ("gen_ai.evaluation.result", expected, span.context.trace_id, span.context.span_id)
            for span, expected in zip(iterations, (FAILED, PASSED), strict=True)
        ] == [
            (r.log_record.event_name, dict(r.log_record.attributes or {}),
             r.log_record.trace_id, r.log_record.span_id)
            for r in records
        ]  # fmt: skip
        for record in records:
            assert record.instrumentation_scope is not None
            assert ("relapse", VERSION) == (
                record.instrumentation_scope.name,
                record.instrumentation_scope.version,
            )
            assert record.log_record.body is None
        assert [(), ()] == [s.events for s in iterations]

    def test_logs_without_a_tracer_sdk(self, logs: CapturedLogs) -> None:
        """With a logger provider but no tracing SDK the events are still emitted (no span ids)."""
        provider, exporter = logs.provider, logs.exporter
        relapse.run("q", DOCS, call_llm=ScriptedLLM(SCRIPT), grounding_check=numbers,
                    logger_provider=provider)  # fmt: skip
        records = exporter.get_finished_logs()
        assert [FAILED, PASSED] == [dict(r.log_record.attributes or {}) for r in records]
        assert [0, 0] == [r.log_record.span_id for r in records]
