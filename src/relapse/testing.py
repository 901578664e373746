"""
Helpers for testing code that uses relapse.

* :class:`ScriptedLLM`: a fake LLM that returns scripted answers in order and
  records every prompt it was given, sync or async.
* :func:`capture_spans`: a tracer provider with an in-memory exporter, for
  asserting the spans a grounded call produced (needs ``opentelemetry-sdk``).
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
    from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

__all__ = ["CapturedSpans", "ScriptedLLM", "attempt_after", "capture_spans"]


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
