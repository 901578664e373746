"""The verdict helpers the grounding tests share: a check's findings as (code, spans)."""

from __future__ import annotations

from grounding_texts import MICE, MICE_QUESTION, WOOL
from relapse import GroundingResult
from relapse.grounding import (
    default_grounding_check,
)


def codes_and_spans(result: GroundingResult) -> list[tuple[str, tuple[str, ...]]]:
    """Return ``(code, spans)`` of every finding."""
    return [(finding.code, finding.spans) for finding in result.findings]


def verdict(
    chunks: str | list[str], answer: str, query: str = ""
) -> list[tuple[str, tuple[str, ...]]]:
    """Check ``answer`` against ``chunks`` (one chunk, or a list) with the default check."""
    texts = [chunks] if isinstance(chunks, str) else chunks
    return codes_and_spans(default_grounding_check(query, texts, answer))


def failing_spans(chunk: str, answer: str, query: str = "") -> tuple[str, ...]:
    """Return the failing spans of every code, in code order."""
    return tuple(span for _, spans in verdict([chunk], answer, query) for span in spans)


def flagged(chunk: str, answer: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Return ``(code, spans)`` of every finding of ``answer`` against one chunk."""
    result = default_grounding_check("", [chunk], answer)
    return tuple((finding.code, finding.spans) for finding in result.findings)


def flagged_spans(
    chunks: str | list[str], answer: str, query: str = "", code: str = "FG001"
) -> tuple[str, ...]:
    """Return the spans the default check flags under ``code``."""
    texts = [chunks] if isinstance(chunks, str) else chunks
    result = default_grounding_check(query, texts, answer)
    return next((f.spans for f in result.findings if f.code == code), ())


def quoted(chunks: str | list[str], answer: str, query: str = "") -> tuple[str, ...]:
    """Return the spans the default check flags under FG003."""
    return flagged_spans(chunks, answer, query, code="FG003")


def copy_verdict(answer: str, chunks: tuple[str, ...] = (MICE, WOOL)) -> list[tuple[str, str]]:
    """``(code, message start)`` of each finding on ``answer`` to MICE_QUESTION."""
    result = default_grounding_check(MICE_QUESTION, list(chunks), answer)
    return [(f.code, f.message[:44]) for f in result.findings]


#: The start of FG004's finding on an answer that copies its context.
COPY = ("FG004", "the answer copies the retrieved chunks or th")


def fg001(*spans: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The findings of an answer whose numbers ``spans`` are unsupported."""
    return (("FG001", spans),)


def fg002(*spans: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The findings of an answer whose dates ``spans`` are unsupported."""
    return (("FG002", spans),)


#: The findings of an answer the chunk supports: none.
PASSES: tuple[tuple[str, tuple[str, ...]], ...] = ()
