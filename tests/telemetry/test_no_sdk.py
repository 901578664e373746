"""
The no-SDK fast path: a call no SDK can see skips the telemetry, and a provider set later is used.

The global providers can be set once per process, so the test that sets them
runs in a fresh interpreter.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider

from relapse._telemetry import Telemetry

_SRC = str(Path(__file__).resolve().parents[2] / "src")

_LATER = textwrap.dedent(
    """
    from opentelemetry import metrics, trace
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    import relapse

    def ok(query, chunks, answer):
        return relapse.GroundingResult(ok=True)

    @relapse.grounded(chunks_arg="docs", grounding_check=ok)
    def answer(query, docs):
        return "It opened in 1932."

    answer("When?", ["It opened in 1932."])
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    reader = InMemoryMetricReader()
    metrics.set_meter_provider(MeterProvider(metric_readers=[reader]))
    answer("When?", ["It opened in 1932."])
    names = sorted(span.name for span in exporter.get_finished_spans())
    calls = [
        point.value
        for resource in reader.get_metrics_data().resource_metrics
        for scope in resource.scope_metrics
        for metric in scope.metrics
        if metric.name == "relapse.calls"
        for point in metric.data.data_points
    ]
    print(names, calls)
    """
)


class TestNoSdk:
    def test_a_provider_set_after_decorating_gets_the_next_call(self) -> None:
        """The call after the providers are set globally is recorded; the one before is not."""
        env = {**os.environ, "PYTHONPATH": _SRC}
        done = subprocess.run(
            [sys.executable, "-c", _LATER], capture_output=True, text=True, env=env, check=True
        )
        # One call span, its iteration span and the check span; one call counted.
        assert "['relapse answer', 'relapse.check', 'relapse.iteration'] [1]" == done.stdout.strip()

    def test_global_providers_unset_gives_the_silent_twin(self) -> None:
        """With the API's proxy providers (none set here), each call runs on the silent twin."""
        telemetry = Telemetry("f")
        assert telemetry.silent is not None
        assert telemetry.silent is telemetry.for_call()
        assert trace.INVALID_SPAN is telemetry.for_call().start_call(3, 1)

    def test_an_sdk_provider_gives_the_full_telemetry(self) -> None:
        """A tracer provider passed in is never silent."""
        telemetry = Telemetry("f", tracer_provider=TracerProvider())
        assert telemetry.silent is None
        assert telemetry is telemetry.for_call()

    def test_a_logger_provider_is_never_silent(self) -> None:
        """Evaluation events go to a given logger provider even with no tracer: no silent twin."""
        from opentelemetry.sdk._logs import LoggerProvider

        assert Telemetry("f", logger_provider=LoggerProvider()).silent is None

    def test_renamed_twin_names_its_call_span(self) -> None:
        """A renamed telemetry's silent twin carries the new name."""
        twin = Telemetry("f").renamed("g")
        assert twin.silent is not None
        assert "relapse g" == twin.silent.call_span_name
