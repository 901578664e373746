"""
Helpers for testing code that uses relapse.

* :class:`ScriptedLLM`: a fake LLM that returns scripted answers in order and
  records every prompt it was given, sync or async.
* :func:`capture_spans`: a tracer provider with an in-memory exporter, for
  asserting the spans a grounded call produced (needs ``opentelemetry-sdk``).
* :func:`capture_metrics`: a meter provider with an in-memory reader, for
  reading the metric points a grounded call recorded, by name (needs
  ``opentelemetry-sdk``).
* :class:`FakeClock`: a clock that moves only when told to, for code that
  takes a ``clock() -> seconds`` (or a ``sleep``), so no test waits.
* :func:`attempt_after`: the :class:`relapse.Attempt` a policy receives after
  one rejected answer, for unit-testing a ``rewrite`` or ``retrieve``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from relapse._results import GroundingFinding, IterationRecord
from relapse._state import Attempt

if TYPE_CHECKING:
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import DataPointT, InMemoryMetricReader, Metric
    from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

__all__ = [
    "CapturedMetrics",
    "CapturedSpans",
    "FakeClock",
    "ScriptedLLM",
    "attempt_after",
    "capture_metrics",
    "capture_spans",
]


class ScriptedLLM:
    """
    A fake LLM: the n-th call returns the n-th scripted answer.

    Once the script is used up, the last answer repeats. An item that is an
    exception instance is raised instead of returned; an item that is a
    callable is called with the prompt and its return value used.

    Args:
        answers: The script, at least one item.

    Raises:
        ValueError: ``answers`` is empty.

    Attributes:
        prompts: Every prompt received, in order (thread-safe).
    """

    def __init__(self, answers: Sequence[str | BaseException | Callable[[str], str]]) -> None:
        if not answers:
            raise ValueError("answers must hold at least one scripted answer")
        self._answers = list(answers)
        self._lock = threading.Lock()
        self.prompts: list[str] = []

    @property
    def calls(self) -> int:
        """How many times the fake was called."""
        return len(self.prompts)

    def __call__(self, prompt: str, *_: Any, **__: Any) -> str:
        """Record ``prompt`` and return (or raise) the next scripted item."""
        with self._lock:
            index = min(len(self.prompts), len(self._answers) - 1)
            self.prompts.append(prompt)
            item = self._answers[index]
        if isinstance(item, BaseException):
            raise item
        if callable(item):
            return item(prompt)
        return item

    async def acall(self, prompt: str, *args: Any, **kwargs: Any) -> str:
        """The same as calling the fake, as a coroutine."""
        return self(prompt, *args, **kwargs)


@dataclass
class CapturedSpans:
    """The provider to pass as ``tracer_provider=`` and what it captured."""

    provider: TracerProvider
    exporter: InMemorySpanExporter

    @property
    def spans(self) -> tuple[ReadableSpan, ...]:
        """Every finished span, in the order they ended."""
        return tuple(self.exporter.get_finished_spans())

    def named(self, name: str) -> list[ReadableSpan]:
        """The finished spans called ``name``, ordered by start time."""
        return sorted((s for s in self.spans if s.name == name), key=lambda s: s.start_time or 0)


@contextmanager
def capture_spans() -> Iterator[CapturedSpans]:
    """
    Yield a :class:`CapturedSpans` whose provider exports to memory.

    The provider is never made global; pass it as ``tracer_provider=``.

    Raises:
        ModuleNotFoundError: ``opentelemetry-sdk`` is not installed.
    """
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    try:
        yield CapturedSpans(provider, exporter)
    finally:
        provider.shutdown()


@dataclass
class CapturedMetrics:
    """
    The provider to pass as ``meter_provider=`` and what its reader collects.

    Every read collects again: instruments are cumulative, so a read shows
    everything recorded since the provider was made.

    .. versionadded:: 0.2.0
    """

    provider: MeterProvider
    reader: InMemoryMetricReader

    @property
    def metrics(self) -> dict[str, Metric]:
        """Every metric recorded so far, by name (all instrumentation scopes)."""
        data = self.reader.get_metrics_data()
        found: dict[str, Metric] = {}
        for resource in data.resource_metrics if data is not None else ():
            for scope in resource.scope_metrics:
                found.update({metric.name: metric for metric in scope.metrics})
        return found

    def named(self, name: str) -> list[DataPointT]:
        """
        The points of the metric called ``name``: one per attribute set.

        Returns:
            The points (``NumberDataPoint`` for a counter, with ``.value``;
            ``HistogramDataPoint`` for a histogram, with ``.count``,
            ``.sum``, ``.bucket_counts``), empty when nothing was recorded
            under ``name``.
        """
        metric = self.metrics.get(name)
        return [] if metric is None else list(metric.data.data_points)

    def by_attributes(self, name: str) -> dict[tuple[tuple[str, Any], ...], DataPointT]:
        """
        The points of the metric called ``name``, keyed by their sorted attributes.

        ``{(("relapse.outcome", "recovered"),): point, ...}``: one key per
        attribute set, each a tuple of ``(key, value)`` pairs in key order.
        """
        return {
            tuple(sorted((point.attributes or {}).items())): point for point in self.named(name)
        }


@contextmanager
def capture_metrics() -> Iterator[CapturedMetrics]:
    """
    Yield a :class:`CapturedMetrics` whose provider is read in memory.

    The provider is never made global; pass it as ``meter_provider=``.

    >>> import relapse
    >>> from relapse.testing import capture_metrics
    >>> with capture_metrics() as captured:
    ...     _ = relapse.run("q", ["It is 4 m."], call_llm=lambda p: "It is 4 m.",
    ...                     meter_provider=captured.provider)
    ...     [point.value for point in captured.named("relapse.calls")]
    [1]

    Raises:
        ModuleNotFoundError: ``opentelemetry-sdk`` is not installed.

    .. versionadded:: 0.2.0
    """
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader

    reader = InMemoryMetricReader()
    provider = MeterProvider(metric_readers=[reader])
    try:
        yield CapturedMetrics(provider, reader)
    finally:
        provider.shutdown()


class FakeClock:
    """
    A monotonic clock that moves only when told to, in seconds.

    Calling it returns the current time, like :func:`time.monotonic`; it
    never moves by itself, so a test decides every duration. Pass it where
    code takes a ``clock() -> float`` (or monkeypatch ``time.perf_counter``
    with it), and ``clock.sleep`` where code takes a ``sleep(seconds)``:
    sleeping moves the clock instead of waiting.

    >>> from relapse.testing import FakeClock
    >>> clock = FakeClock(start=100.0)
    >>> clock.advance(2.5)
    102.5
    >>> clock.sleep(0.5)
    >>> clock(), clock.slept
    (103.0, [0.5])

    Args:
        start: The time of the first reading, in seconds (any origin, as
            for :func:`time.monotonic`).

    Raises:
        TypeError: ``start`` is not a number.

    Attributes:
        now: The current time, in seconds; assign to jump.
        slept: Every duration passed to :meth:`sleep`, in order, in seconds.

    .. versionadded:: 0.2.0
    """

    def __init__(self, start: float = 0.0) -> None:
        if isinstance(start, bool) or not isinstance(start, (int, float)):
            raise TypeError(f"start must be a number of seconds, got {type(start).__name__}")
        self.now = float(start)
        self.slept: list[float] = []

    def __call__(self) -> float:
        """The current time, in seconds."""
        return self.now

    def advance(self, seconds: float) -> float:
        """
        Move the clock ``seconds`` forward and return the new time.

        Raises:
            ValueError: ``seconds`` is negative (a monotonic clock never goes back).
        """
        if seconds < 0:
            raise ValueError(f"seconds must be >= 0 (the clock is monotonic), got {seconds}")
        self.now += seconds
        return self.now

    def sleep(self, seconds: float) -> None:
        """
        A ``time.sleep`` that returns at once, having moved the clock ``seconds`` forward.

        Raises:
            ValueError: ``seconds`` is negative.
        """
        self.advance(seconds)
        self.slept.append(seconds)

    def __repr__(self) -> str:
        return f"FakeClock(now={self.now!r})"


def attempt_after(
    query: str,
    answer: str,
    findings: Sequence[GroundingFinding] = (),
    *,
    chunks: Sequence[str] = (),
    released: str = "",
) -> Attempt:
    """
    The :class:`relapse.Attempt` the loop prepares after one rejected answer.

    What ``rewrite``, ``retrieve`` and ``on_iteration`` receive before
    iteration 2, so a policy can be tested without running the loop:
    ``relapse.prompts.compact_retry(attempt_after("q", "It is 78.", [finding]))``.

    Args:
        query: The caller's query (also iteration 1's prompt).
        answer: The rejected answer (``attempt.previous_answer``).
        findings: The check's findings on it (``attempt.findings``; the
            ``"error"`` ones are ``attempt.errors``).
        chunks: The chunk texts (``attempt.chunks``).
        released: With ``release="sentence"``, the text already handed to the
            caller (``attempt.released``); ``answer`` then starts with it.

    Returns:
        ``Attempt(iteration=2, ...)`` whose transcript holds the one
        rejected record, with ``elapsed_s`` 0.
    """
    found = tuple(findings)
    rejected = IterationRecord(1, query, answer, False, found)
    return Attempt(2, query, query, tuple(chunks), (rejected,), found, 0.0, released)
