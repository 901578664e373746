"""Span arithmetic for scoring: overlap, and which annotated spans hold a real number."""

from __future__ import annotations

import re

__all__ = ["is_numeric_span", "overlaps"]

# What makes an annotated span "numeric" is decided here, independently of
# any check: it holds a digit run that is neither a line-leading list marker
# ("3. Print") nor a reference to the context ("Passage 2", "passages 1 and 3").
_DIGITS = re.compile(r"\d+")
_LIST_MARKER = re.compile(r"(?:^|\n)[ \t*#>-]*\Z")
_LIST_MARKER_AFTER = re.compile(r"[.)]\s")
_PASSAGE_REFERENCE = re.compile(
    r"(?i:passages?|documents?)\s*(?:\d+\s*(?:,|and|&)\s*)*\Z",
)


def overlaps(a_start: int, a_end: int, b_start: int, b_end: int) -> bool:
    """
    Tell whether two half-open character spans share a character.

    Args:
        a_start: Start of the first span.
        a_end: End of the first span (exclusive).
        b_start: Start of the second span.
        b_end: End of the second span (exclusive).

    Returns:
        True when ``[a_start, a_end)`` and ``[b_start, b_end)`` intersect.
    """
    return a_start < b_end and b_start < a_end


def is_numeric_span(response: str, start: int, end: int) -> bool:
    """
    Tell whether ``response[start:end]`` holds a real number.

    A real number is a digit run that is neither a line-leading list marker
    (``"3. Print"``, ``"2) Mix"``) nor part of a reference to the context
    (``"Passage 2"``, ``"passages 1 and 3"``). This is how the RAGTruth
    sample's README counts its 49 numeric spans; it does not depend on any
    check.

    Args:
        response: The annotated answer.
        start: Span start offset.
        end: Span end offset (exclusive).

    Returns:
        True when the span holds such a digit run.
    """
    for match in _DIGITS.finditer(response, start, end):
        digit_start = match.start()
        before = response[max(0, digit_start - 40) : digit_start]
        if _LIST_MARKER.search(before) and _LIST_MARKER_AFTER.match(response, match.end()):
            continue
        if _PASSAGE_REFERENCE.search(before):
            continue
        return True
    return False
