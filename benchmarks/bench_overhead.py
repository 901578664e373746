"""
Per-call overhead of ``@relapse.grounded``, with and without an OpenTelemetry SDK.

Run: ``python benchmarks/bench_overhead.py [--number N] [--repeat R]``.

One process measures a no-op ``answer(query, docs)``:

* called bare;
* under ``@relapse.grounded`` with no SDK (the API's no-op providers);
* under ``@relapse.grounded`` with an SDK tracer provider whose sampler
  drops everything (``ALWAYS_OFF``);
* under ``@relapse.grounded`` with an SDK tracer provider exporting to an
  ``InMemorySpanExporter`` and an SDK meter provider read by an
  ``InMemoryMetricReader``;
* under ``tenacity.retry`` (the reference for a well-kept retry decorator).

The grounding check is a trivial always-ok callable, so the check's own cost
is excluded and every relapse call is exactly one iteration. Each figure is
the best of ``--repeat`` runs of ``--number`` calls, in microseconds per
call; overhead is that minus the bare call. Targets (issue 4): relapse with
no SDK no slower than tenacity; with the in-memory exporter under 150 µs per
iteration. No global provider is ever set.
"""

from __future__ import annotations

import argparse
import gc
import timeit
from collections.abc import Callable, Sequence

from opentelemetry import trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF
from tenacity import retry, stop_after_attempt

import relapse

DOCS = ["The bridge opened in 1932 and is 503 metres long."]
QUERY = "When did the bridge open?"
ANSWER = "It opened in 1932."

NO_SDK_TARGET = "relapse, no SDK <= tenacity"
IN_MEMORY_TARGET_US = 150.0


def always_ok(query: str, chunks: Sequence[str], answer: str) -> relapse.GroundingResult:
    """A check that accepts every answer at (almost) no cost."""
    return relapse.GroundingResult(ok=True)


class FailTwiceThenOk:
    """A check that fails two answers out of three (cheaply): three iterations per call."""

    name = "fail_twice_then_ok"
    _finding = relapse.GroundingFinding("FG001", "not in chunks: ['1932']", ("1932",))

    def __init__(self) -> None:
        self._calls = 0

    def __call__(self, query: str, chunks: Sequence[str], answer: str) -> relapse.GroundingResult:
        self._calls += 1
        if self._calls % 3:
            return relapse.GroundingResult(ok=False, findings=(self._finding,))
        return relapse.GroundingResult(ok=True)


def answer(query: str, docs: list[str]) -> str:
    """The no-op function under test."""
    return ANSWER


def grounded(check: object = always_ok, **providers: object) -> Callable[[str, list[str]], str]:
    """``answer`` under ``@relapse.grounded`` with ``check`` and the given providers."""
    decorate = relapse.grounded(chunks_arg="docs", grounding_check=check, **providers)  # type: ignore[arg-type]
    return decorate(answer)


def per_call_us(function: Callable[[str, list[str]], str], number: int, repeat: int,
                reset: Callable[[], None] | None = None) -> float:  # fmt: skip
    """Best-of-``repeat`` microseconds per call over ``number`` calls."""
    best = float("inf")
    for _ in range(repeat):
        if reset is not None:
            reset()
        gc.collect()
        seconds = timeit.timeit(lambda: function(QUERY, DOCS), number=number)
        best = min(best, seconds / number * 1e6)
    return best


def main(argv: Sequence[str] | None = None) -> int:
    """Run every scenario and print µs per call, overheads and ratios."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--number", type=int, default=20_000, help="calls per run")
    parser.add_argument("--repeat", type=int, default=7, help="runs per scenario (best kept)")
    args = parser.parse_args(argv)
    number, repeat = args.number, args.repeat
    sdk_number = max(1, number // 4)

    if not isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider):
        raise SystemExit("a global tracer provider is set; this benchmark needs none")

    dropping = TracerProvider(sampler=ALWAYS_OFF)
    exporter = InMemorySpanExporter()
    recording = TracerProvider()
    recording.add_span_processor(SimpleSpanProcessor(exporter))
    reader = InMemoryMetricReader()
    meters = MeterProvider(metric_readers=[reader])

    tenacity_answer = retry(stop=stop_after_attempt(3))(answer)
    scenarios: list[tuple[str, Callable[[str, list[str]], str], int, Callable[[], None] | None]] = [
        ("bare call", answer, number, None),
        ("tenacity @retry (reference)", tenacity_answer, number, None),
        ("relapse, no SDK", grounded(), number, None),
        ("relapse, SDK sampler ALWAYS_OFF", grounded(tracer_provider=dropping), number, None),
        (
            "relapse, SDK + in-memory exporter + metrics",
            grounded(tracer_provider=recording, meter_provider=meters),
            sdk_number,
            exporter.clear,
        ),
        (
            "relapse, SDK + in-memory, 3 iterations/call",
            grounded(FailTwiceThenOk(), tracer_provider=recording, meter_provider=meters),
            sdk_number,
            exporter.clear,
        ),
    ]
    for _, function, _, _ in scenarios:  # warm up, and prove they all answer
        if function(QUERY, DOCS) != ANSWER:
            raise SystemExit("a scenario changed the answer")
    results = {
        name: per_call_us(function, calls, repeat, reset)
        for name, function, calls, reset in scenarios
    }
    exported = len(exporter.get_finished_spans())
    for provider in (dropping, recording):
        provider.shutdown()
    meters.shutdown()

    bare = results["bare call"]
    tenacity_overhead = results["tenacity @retry (reference)"] - bare
    print(f"per-call time, best of {repeat} runs (no-SDK runs: {number} calls each)")
    print(f"{'scenario':<46}{'µs/call':>10}{'overhead µs':>14}{'vs tenacity':>14}")
    for name, value in results.items():
        overhead = value - bare * (3 if "3 iterations" in name else 1)
        ratio = overhead / tenacity_overhead if tenacity_overhead > 0 else float("nan")
        print(f"{name:<46}{value:>10.2f}{overhead:>14.2f}{ratio:>13.2f}x")
    no_sdk = results["relapse, no SDK"] - bare
    in_memory = results["relapse, SDK + in-memory exporter + metrics"] - bare
    per_iteration = (results["relapse, SDK + in-memory, 3 iterations/call"] - 3 * bare) / 3
    print()
    print(
        f"spans exported in the last in-memory run: {exported}"
        " (7 per call: call + 3 iterations + their 3 check spans)"
    )
    verdict = "met" if no_sdk <= tenacity_overhead else "MISSED"
    print(
        f"target {NO_SDK_TARGET}: {no_sdk:.2f} µs vs {tenacity_overhead:.2f} µs"
        f" (ratio {no_sdk / tenacity_overhead:.2f}) -> {verdict}"
    )
    verdict = "met" if in_memory < IN_MEMORY_TARGET_US else "MISSED"
    print(
        f"target in-memory exporter < {IN_MEMORY_TARGET_US:.0f} µs per iteration:"
        f" {in_memory:.2f} µs with 1 iteration per call (call span included) -> {verdict}"
    )
    verdict = "met" if per_iteration < IN_MEMORY_TARGET_US else "MISSED"
    print(
        f"target in-memory exporter < {IN_MEMORY_TARGET_US:.0f} µs per iteration:"
        f" {per_iteration:.2f} µs per iteration with 3 iterations per call -> {verdict}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
