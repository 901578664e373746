"""The verdict helpers the grounding tests share: a check's findings as (code, spans)."""

from __future__ import annotations

from relapse import GroundingResult
from relapse.grounding import (
    default_grounding_check,
)


def codes_and_spans(result: GroundingResult) -> list[tuple[str, tuple[str, ...]]]:
    """Return ``(code, spans)`` of every finding."""
    return [(finding.code, finding.spans) for finding in result.findings]


def verdict(chunks: list[str], answer: str, query: str = "") -> list[tuple[str, tuple[str, ...]]]:
    """Check ``answer`` against ``chunks`` with the default check."""
    return codes_and_spans(default_grounding_check(query, chunks, answer))


def failing_spans(chunk: str, answer: str, query: str = "") -> tuple[str, ...]:
    """Return the failing spans of every code, in code order."""
    return tuple(span for _, spans in verdict([chunk], answer, query) for span in spans)


def flagged(chunk: str, answer: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Return ``(code, spans)`` of every finding of ``answer`` against one chunk."""
    result = default_grounding_check("", [chunk], answer)
    return tuple((finding.code, finding.spans) for finding in result.findings)


def fg001(*spans: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The findings of an answer whose numbers ``spans`` are unsupported."""
    return (("FG001", spans),)


def fg002(*spans: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The findings of an answer whose dates ``spans`` are unsupported."""
    return (("FG002", spans),)


#: The findings of an answer the chunk supports: none.
PASSES: tuple[tuple[str, tuple[str, ...]], ...] = ()
