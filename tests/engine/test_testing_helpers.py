"""relapse.testing: capture_metrics reads points by name; FakeClock moves only when told to."""

from __future__ import annotations

import pytest
from opentelemetry import metrics as otel_metrics
from opentelemetry.sdk.metrics.export import HistogramDataPoint, NumberDataPoint

import relapse
from helpers import forbid
from relapse.testing import CapturedMetrics, FakeClock, ScriptedLLM, capture_metrics

DOCS = ["x"]


def ask(metrics: CapturedMetrics, script: list[str]) -> relapse.RelapseResult:
    """One run over the ``forbid("WRONG")`` check, recording into ``metrics``."""
    return relapse.run(
        "q",
        DOCS,
        call_llm=ScriptedLLM(script),
        grounding_check=forbid("WRONG"),
        meter_provider=metrics.provider,
    )


class TestCaptureMetrics:
    def test_points_by_name_and_by_attributes(self, metrics: CapturedMetrics) -> None:
        """A recovered call (2 iterations) and a first-try one: 2 calls, 3 iterations."""
        ask(metrics, ["WRONG", "fine"])
        ask(metrics, ["fine"])
        calls = metrics.by_attributes("relapse.calls")
        assert {
            (("relapse.outcome", "recovered"),): 1,
            (("relapse.outcome", "grounded_first_try"),): 1,
        } == {
            key: point.value for key, point in calls.items() if isinstance(point, NumberDataPoint)
        }
        iterations = metrics.by_attributes("relapse.call.iterations")
        assert {
            (("relapse.outcome", "recovered"),): (1, 2),
            (("relapse.outcome", "grounded_first_try"),): (1, 1),
        } == {
            key: (point.count, point.sum)
            for key, point in iterations.items()
            if isinstance(point, HistogramDataPoint)
        }

    def test_reads_are_cumulative(self, metrics: CapturedMetrics) -> None:
        """Each read collects again and shows everything since the provider was made."""
        ask(metrics, ["fine"])
        assert [1] == [p.value for p in metrics.named("relapse.calls")]  # type: ignore[union-attr]
        ask(metrics, ["fine"])
        assert [2] == [p.value for p in metrics.named("relapse.calls")]  # type: ignore[union-attr]

    def test_nothing_recorded(self, metrics: CapturedMetrics) -> None:
        """Before any call: no metric, and a name never recorded has no points."""
        assert ({}, [], {}) == (
            metrics.metrics,
            metrics.named("relapse.calls"),
            metrics.by_attributes("relapse.calls"),
        )

    def test_the_provider_is_never_global(self) -> None:
        """capture_metrics leaves the global meter provider alone."""
        before = otel_metrics.get_meter_provider()
        with capture_metrics() as captured:
            assert before is otel_metrics.get_meter_provider()
            assert captured.provider is not otel_metrics.get_meter_provider()


class TestFakeClock:
    def test_moves_only_when_told(self) -> None:
        """Readings repeat until advance() or sleep(); sleep records its durations."""
        clock = FakeClock(start=100.0)
        assert (100.0, 100.0) == (clock(), clock())
        assert 100.0 + 2.5 == clock.advance(2.5)
        clock.sleep(0.25)
        clock.sleep(0)
        assert (100.0 + 2.5 + 0.25, [0.25, 0]) == (clock(), clock.slept)
        clock.now = 5.0
        assert 5.0 == clock()

    def test_the_fixture_starts_at_1000(self, clock: FakeClock) -> None:
        """The conftest ``clock`` fixture: a fresh FakeClock at 1000.0 s."""
        assert (1000.0, []) == (clock(), clock.slept)

    def test_bad_input(self) -> None:
        """A clock never goes back, and starts at a number."""
        clock = FakeClock()
        with pytest.raises(ValueError, match=r"seconds must be >= 0 .*got -1"):
            clock.advance(-1)
        with pytest.raises(ValueError, match="seconds must be >= 0"):
            clock.sleep(-0.5)
        assert (0.0, []) == (clock(), clock.slept)
        with pytest.raises(TypeError, match="start must be a number of seconds, got str"):
            FakeClock(start="0")  # type: ignore[arg-type]
