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
