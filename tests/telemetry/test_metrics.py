"""The four relapse instruments, read with InMemoryMetricReader after a scripted run."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import pytest
from opentelemetry.sdk.metrics.export import (
    HistogramDataPoint,
    InMemoryMetricReader,
    Metric,
    NumberDataPoint,
)

import relapse
from relapse._telemetry.metrics import ITERATION_BUCKETS, instruments_for
from relapse._version import VERSION
from relapse.testing import CapturedMetrics, FakeClock, ScriptedLLM

DOCS = ["x"]
CHECK_SECONDS = 0.25  # exactly representable, so sums are exact


@pytest.fixture
def clock(clock: FakeClock, monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    """The conftest clock as ``time.perf_counter``: it moves only when the check runs."""
    monkeypatch.setattr(time, "perf_counter", clock)
    return clock


def relapse_metrics(metric_reader: InMemoryMetricReader) -> dict[str, Metric]:
    data = metric_reader.get_metrics_data()
    assert data is not None
    found: dict[str, Metric] = {}
    for resource in data.resource_metrics:
        for scope in resource.scope_metrics:
            if scope.scope.name == "relapse":
                assert VERSION == scope.scope.version
                found.update({m.name: m for m in scope.metrics})
    return found


def points(metric: Metric) -> dict[tuple[tuple[str, Any], ...], Any]:
    return {tuple(sorted((p.attributes or {}).items())): p for p in metric.data.data_points}


class TestScriptedRun:
    def test_exact_values(self, clock: FakeClock, metrics: CapturedMetrics) -> None:
        """Recovered, exhausted, first-try and failing calls give these exact metrics."""
        provider, metric_reader = metrics.provider, metrics.reader

        def two_codes(query: str, chunks: Sequence[str], answer: str) -> relapse.GroundingResult:
            clock.advance(CHECK_SECONDS)
            if "WRONG" not in answer:
                return relapse.GroundingResult(ok=True)
            return relapse.GroundingResult(
                ok=False,
                findings=(
                    relapse.GroundingFinding("FG001", "n", ("WRONG",)),
                    relapse.GroundingFinding("FG003", "q", ("WRONG",)),
                ),
            )

        two_codes.name = "two_codes"  # type: ignore[attr-defined]

        def call(script: list[Any]) -> None:
            relapse.run("q", DOCS, call_llm=ScriptedLLM(script), grounding_check=two_codes,
                        meter_provider=provider)  # fmt: skip

        call(["WRONG", "fine"])  # recovered: 2 iterations, 2 findings
        call(["WRONG"])  # exhausted: 3 iterations, 6 findings
        call(["fine"])  # grounded first try: 1 iteration
        with pytest.raises(ValueError, match="bad request"):
            call([ValueError("bad request")])  # error: no check ran
        found = relapse_metrics(metric_reader)
        assert {
            "relapse.calls",
            "relapse.call.iterations",
            "relapse.findings",
            "relapse.check.duration",
        } == set(found)

        calls = found["relapse.calls"]
        assert ("{call}", True) == (calls.unit, calls.data.is_monotonic)
        assert {
            (("relapse.outcome", "recovered"),): 1,
            (("relapse.outcome", "exhausted"),): 1,
            (("relapse.outcome", "grounded_first_try"),): 1,
            (("error.type", "ValueError"), ("relapse.outcome", "error")): 1,
        } == {k: p.value for k, p in points(calls).items()}

        iterations = found["relapse.call.iterations"]
        assert "{iteration}" == iterations.unit
        got = points(iterations)
        assert {
            (("relapse.outcome", "recovered"),): (1, 2, 2, 2),
            (("relapse.outcome", "exhausted"),): (1, 3, 3, 3),
            (("relapse.outcome", "grounded_first_try"),): (1, 1, 1, 1),
        } == {k: (p.count, p.sum, p.min, p.max) for k, p in got.items()}
        recovered: HistogramDataPoint = got[(("relapse.outcome", "recovered"),)]
        assert tuple(float(b) for b in ITERATION_BUCKETS) == tuple(recovered.explicit_bounds)
        assert [0, 1, 0, 0, 0, 0, 0, 0, 0] == list(recovered.bucket_counts)

        findings = found["relapse.findings"]
        assert "{finding}" == findings.unit
        assert {
            (("relapse.finding.code", "FG001"),): 4,
            (("relapse.finding.code", "FG003"),): 4,
        } == {k: p.value for k, p in points(findings).items()}

        duration = found["relapse.check.duration"]
        assert "s" == duration.unit
        ((key, point),) = points(duration).items()
        assert (("gen_ai.evaluation.name", "two_codes"),) == key
        assert (6, 6 * CHECK_SECONDS, CHECK_SECONDS, CHECK_SECONDS) == (
            point.count,
            point.sum,
            point.min,
            point.max,
        )

    def test_no_tracer_needed(self, metrics: CapturedMetrics) -> None:
        """Metrics are recorded with no tracing SDK at all (spans are no-ops)."""
        provider, metric_reader = metrics.provider, metrics.reader
        relapse.run("q", DOCS, call_llm=ScriptedLLM(["a"]), meter_provider=provider)
        calls = relapse_metrics(metric_reader)["relapse.calls"]
        point: NumberDataPoint = calls.data.data_points[0]
        assert 1 == point.value


class TestInstruments:
    def test_created_once_per_provider(self, metrics: CapturedMetrics) -> None:
        """run() decorates per call, yet the instruments of one provider are built once."""
        provider = metrics.provider
        assert instruments_for(provider) is instruments_for(provider)
        assert instruments_for(None) is instruments_for(None)
        assert instruments_for(provider) is not instruments_for(None)
