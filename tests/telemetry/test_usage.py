"""Tokens on spans (``relapse.usage.*``) and the tokens-per-call histogram."""

from __future__ import annotations

import pytest
from opentelemetry.sdk.metrics.export import HistogramDataPoint, InMemoryMetricReader

from relapse import IterationRecord, RelapseResult, Usage
from relapse._telemetry import Telemetry
from relapse._telemetry import attributes as attr
from relapse._telemetry.metrics import TOKEN_BUCKETS
from relapse.testing import CapturedMetrics, CapturedSpans


@pytest.fixture
def reader(metrics: CapturedMetrics) -> InMemoryMetricReader:
    """The reader of the conftest ``metrics`` provider."""
    return metrics.reader


@pytest.fixture
def telemetry(spans: CapturedSpans, metrics: CapturedMetrics) -> Telemetry:
    """The telemetry of a function ``answer``, exporting spans and metrics to memory."""
    return Telemetry("answer", tracer_provider=spans.provider, meter_provider=metrics.provider)


def token_points(reader: InMemoryMetricReader) -> dict[tuple[str, str], HistogramDataPoint]:
    """The tokens histogram's points, keyed by (outcome, token type)."""
    data = reader.get_metrics_data()
    found: dict[tuple[str, str], HistogramDataPoint] = {}
    for resource in data.resource_metrics if data else ():
        for scope in resource.scope_metrics:
            for metric in scope.metrics:
                if metric.name == attr.METRIC_CALL_TOKENS:
                    assert "{token}" == metric.unit
                    for point in metric.data.data_points:
                        assert isinstance(point, HistogramDataPoint)
                        labels = point.attributes or {}
                        key = (
                            str(labels[attr.RELAPSE_OUTCOME]),
                            str(labels[attr.GEN_AI_TOKEN_TYPE]),
                        )
                        found[key] = point
    return found


def record(iteration: int, usage: Usage | None) -> IterationRecord:
    return IterationRecord(iteration, "q", "a", iteration == 2, usage=usage)


def ended_call(telemetry: Telemetry, records: list[IterationRecord]) -> None:
    """One call of ``records``' iterations, each with its check span, ended as recovered."""
    call = telemetry.start_call(3, 1)
    for item in records:
        iteration = telemetry.start_iteration(call, item.iteration)
        check = telemetry.start_check(iteration, "c")
        telemetry.end_iteration(iteration, item, "c", 0.0, check)
    telemetry.end_call(call, RelapseResult("a", True, len(records), records, "recovered"))


class TestUsageOnSpans:
    def test_iteration_and_call_spans(
        self, spans: CapturedSpans, telemetry: Telemetry, reader: InMemoryMetricReader
    ) -> None:
        """Each iteration span carries its tokens, the call span the sum over iterations."""
        records = [record(1, Usage(40, 6)), record(2, Usage(95, 7))]
        ended_call(telemetry, records)
        iterations = spans.named(attr.ITERATION_SPAN_NAME)
        (call_span,) = spans.named("relapse answer")
        assert [True] * 3 == [
            (s.attributes or {})[attr.RELAPSE_USAGE_KNOWN] for s in (*iterations, call_span)
        ]
        assert [(40, 6), (95, 7), (135, 13)] == [
            (
                (s.attributes or {})[attr.RELAPSE_USAGE_INPUT_TOKENS],
                (s.attributes or {})[attr.RELAPSE_USAGE_OUTPUT_TOKENS],
            )
            for s in (*iterations, call_span)
        ]
        points = token_points(reader)
        assert {("recovered", "input"): (1, 135), ("recovered", "output"): (1, 13)} == {
            key: (point.count, point.sum) for key, point in points.items()
        }
        assert TOKEN_BUCKETS == tuple(points["recovered", "input"].explicit_bounds)

    def test_no_usage_says_unknown(
        self, spans: CapturedSpans, telemetry: Telemetry, reader: InMemoryMetricReader
    ) -> None:
        """Calls that report no tokens get relapse.usage.known=false, no count, no point."""
        records = [record(1, None)]
        call = telemetry.start_call(3, 1)
        iteration = telemetry.start_iteration(call, 1)
        telemetry.end_iteration(
            iteration, records[0], "c", 0.0, telemetry.start_check(iteration, "c")
        )
        telemetry.end_call(call, RelapseResult("a", False, 1, records, "exhausted"))
        usage_attributes = [
            {k: v for k, v in (s.attributes or {}).items() if k.startswith("relapse.usage")}
            for s in (*spans.named(attr.ITERATION_SPAN_NAME), *spans.named("relapse answer"))
        ]
        assert [{attr.RELAPSE_USAGE_KNOWN: False}] * 2 == usage_attributes
        assert {} == token_points(reader)

    def test_partly_known_usage(self, spans: CapturedSpans, telemetry: Telemetry) -> None:
        """One iteration without usage: the call span sums the other and says known=false."""
        records = [record(1, None), record(2, Usage(95, 7))]
        ended_call(telemetry, records)
        first, second = spans.named(attr.ITERATION_SPAN_NAME)
        (call_span,) = spans.named("relapse answer")
        assert [False, True, False] == [
            (s.attributes or {})[attr.RELAPSE_USAGE_KNOWN] for s in (first, second, call_span)
        ]
        assert 95 == (call_span.attributes or {})[attr.RELAPSE_USAGE_INPUT_TOKENS]

    def test_failed_call_reports_what_was_paid(
        self, spans: CapturedSpans, telemetry: Telemetry, reader: InMemoryMetricReader
    ) -> None:
        """A call that raised after paid attempts reports their tokens, outcome error."""
        call = telemetry.start_call(3, 1)
        telemetry.fail_call(call, TimeoutError("late"), Usage(50, 5))
        (call_span,) = spans.named("relapse answer")
        # The iterations never run cannot say: known is left to the iteration spans.
        assert attr.RELAPSE_USAGE_KNOWN not in (call_span.attributes or {})
        assert (50, 5) == (
            (call_span.attributes or {})[attr.RELAPSE_USAGE_INPUT_TOKENS],
            (call_span.attributes or {})[attr.RELAPSE_USAGE_OUTPUT_TOKENS],
        )
        assert {("error", "input"): 50, ("error", "output"): 5} == {
            key: point.sum for key, point in token_points(reader).items()
        }
