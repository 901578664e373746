"""
Citations from the check's evidence: an answer with markers, or a list of claims and chunks.

The default check records, for every claim it supported from a chunk, where
in which chunk (:class:`relapse.Evidence`); these helpers turn that into what
a RAG interface shows. No model is called and nothing is searched again.

>>> from relapse import Evidence
>>> answer = "It stores 40 buses."
>>> evidence = [Evidence("number", (10, 12), 0, (17, 19), "depot.md")]
>>> cite(answer, evidence)
'It stores 40[1] buses.'
>>> citations(answer, evidence)
[Citation(claim='40', number=1, chunk_index=0, chunk_id='depot.md', chunk_span=(17, 19))]

.. versionadded:: 0.2.0
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from relapse._results import Evidence

__all__ = ["Citation", "citations", "cite"]


class Citation(NamedTuple):
    """
    One supported claim and the chunk that supports it.

    Attributes:
        claim: The claim's text in the answer.
        number: Its marker's number: chunks are numbered 1, 2, ... in the
            order the answer first cites them.
        chunk_index: The supporting chunk's index in the chunks checked.
        chunk_id: That chunk's id, or None.
        chunk_span: ``(start, end)`` offsets of the supporting text in the chunk.
    """

    claim: str
    number: int
    chunk_index: int
    chunk_id: str | None
    chunk_span: tuple[int, int]


def _ordered(answer: str, evidence: Sequence[Evidence]) -> list[Evidence]:
    """The evidence in answer order, checked against ``answer``."""
    for index, item in enumerate(evidence):
        if not isinstance(item, Evidence):
            raise TypeError(
                f"evidence[{index}] is {type(item).__name__}; expected relapse.Evidence"
            )
        start, end = item.answer_span
        if not 0 <= start <= end <= len(answer):
            raise ValueError(
                f"evidence[{index}].answer_span {item.answer_span} is outside the answer"
                f" ({len(answer)} characters): is it the evidence of another answer?"
            )
    return sorted(evidence, key=lambda e: (e.answer_span, e.chunk_index, e.chunk_span))


def _numbers(ordered: Sequence[Evidence]) -> dict[int, int]:
    """Chunk index -> marker number, in order of first citation."""
    numbers: dict[int, int] = {}
    for item in ordered:
        numbers.setdefault(item.chunk_index, len(numbers) + 1)
    return numbers


def citations(answer: str, evidence: Sequence[Evidence]) -> list[Citation]:
    """
    Every supported claim with its chunk, in answer order.

    Args:
        answer: The answer the evidence is about (``result.answer``).
        evidence: Its evidence (``result.evidence``).

    Returns:
        One :class:`Citation` per evidence item; a claim two chunks support
        appears twice, once per chunk.

    Raises:
        TypeError: an item is not a :class:`relapse.Evidence`.
        ValueError: an item's ``answer_span`` lies outside ``answer``.
    """
    ordered = _ordered(answer, evidence)
    numbers = _numbers(ordered)
    return [
        Citation(
            answer[item.answer_span[0] : item.answer_span[1]],
            numbers[item.chunk_index],
            item.chunk_index,
            item.chunk_id,
            item.chunk_span,
        )
        for item in ordered
    ]


def cite(answer: str, evidence: Sequence[Evidence]) -> str:
    """
    ``answer`` with a marker ``[n]`` after each supported claim.

    ``n`` numbers the chunks in the order the answer first cites them (see
    :func:`citations` for the chunk each number stands for); a claim two
    chunks support gets both markers, ``[1][2]``.

    Args:
        answer: The answer the evidence is about (``result.answer``).
        evidence: Its evidence (``result.evidence``).

    Returns:
        The answer with the markers inserted; ``answer`` itself without evidence.

    Raises:
        TypeError: an item is not a :class:`relapse.Evidence`.
        ValueError: an item's ``answer_span`` lies outside ``answer``.
    """
    ordered = _ordered(answer, evidence)
    numbers = _numbers(ordered)
    markers: dict[int, list[int]] = {}
    for item in ordered:
        at = markers.setdefault(item.answer_span[1], [])
        number = numbers[item.chunk_index]
        if number not in at:
            at.append(number)
    pieces: list[str] = []
    previous = 0
    for end in sorted(markers):
        pieces += [answer[previous:end], *(f"[{n}]" for n in sorted(markers[end]))]
        previous = end
    pieces.append(answer[previous:])
    return "".join(pieces)
