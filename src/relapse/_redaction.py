"""
``on_exhausted="redact"``: the best attempt with every failing sentence taken out.

The check already says where each failure is (its findings' offsets); the
answer is cut into sentences by :func:`relapse._read.sentences.sentence_spans`
(the same cut streaming releases by), and every sentence that holds part of
a failing span is removed, or replaced by a marker. The loop then checks the
redacted text itself, and removes the sentences of anything that still
fails (a claim that leaned on a removed sentence), until it passes; when
that cannot be done, nothing is kept. So a redacted answer never holds a
failing span.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from relapse._read.sentences import sentence_spans
from relapse._results import GroundingFinding, Redaction

__all__ = ["Redactor"]


def failing_offsets(answer: str, finding: GroundingFinding) -> list[tuple[int, int]] | None:
    """
    Where ``finding`` fails in ``answer``: its offsets, else its spans found in the text.

    A custom check may report spans without offsets: each is looked for in
    the answer, left to right. Returns None when the finding cannot be
    located (no spans, or a span not in the answer): then its failure may be
    anywhere.
    """
    if finding.offsets:
        return list(finding.offsets)
    if not finding.spans:
        return None
    located: list[tuple[int, int]] = []
    start = 0
    for span in finding.spans:
        at = answer.find(span, start)
        if at < 0:
            at = answer.find(span)
        if at < 0 or not span:
            return None
        located.append((at, at + len(span)))
        start = at + len(span)
    return located


@dataclass
class _Piece:
    """One sentence of the answer and where it sits in the redacted text."""

    start: int
    end: int
    kept: bool = True
    out_start: int = -1
    out_end: int = -1

    def at(self, in_redacted: bool) -> tuple[int, int]:
        """Its offsets in the redacted text (``-1`` when removed), or in the answer."""
        return (self.out_start, self.out_end) if in_redacted else (self.start, self.end)


class Redactor:
    """
    The redaction of one answer, refined until its text passes the check.

    Not thread-safe; one per redacted result.
    """

    def __init__(self, answer: str, iteration: int, marker: str | None) -> None:
        """
        Cut ``answer`` into sentences; nothing is removed yet.

        Args:
            answer: The chosen attempt's answer.
            iteration: Its iteration (named by every :class:`Redaction`).
            marker: The text a removed sentence is replaced by, or None to
                drop it with the whitespace before it.
        """
        self._answer = answer
        self._iteration = iteration
        self._marker = marker
        self._pieces = [_Piece(start, end) for start, end in sentence_spans(answer)]
        self._why: dict[int, list[GroundingFinding]] = {}
        self._text: str | None = None

    @property
    def empty(self) -> bool:
        """Whether no sentence is kept."""
        return not any(piece.kept for piece in self._pieces)

    def _remove(self, index: int, finding: GroundingFinding | None) -> bool:
        piece = self._pieces[index]
        why = self._why.setdefault(index, [])
        if finding is not None and finding not in why:
            why.append(finding)
        if not piece.kept:
            return False
        piece.kept = False
        self._text = None
        return True

    def remove_all(self, finding: GroundingFinding | None = None) -> None:
        """Remove every sentence (a failure that cannot be located may be anywhere)."""
        for index in range(len(self._pieces)):
            self._remove(index, finding)

    def remove(self, findings: Sequence[GroundingFinding], in_redacted: bool = False) -> bool:
        """
        Remove the sentences holding the error ``findings``' spans.

        Args:
            findings: Findings on the answer, or (``in_redacted``) on the
                current redacted text.
            in_redacted: Whether the offsets are in :meth:`text` rather than
                in the answer.

        Returns:
            Whether a sentence was removed. False when a failing span lies
            only in what cannot be removed (a marker, the whitespace between
            sentences): the caller must then keep nothing.
        """
        text = self.text() if in_redacted else self._answer
        removed = False
        for finding in findings:
            if finding.severity != "error":
                continue
            spans = failing_offsets(text, finding)
            if spans is None:
                self.remove_all(None if in_redacted else finding)
                return True
            for span in spans:
                hit = [
                    index
                    for index, piece in enumerate(self._pieces)
                    if (piece.kept or not in_redacted) and _overlaps(piece.at(in_redacted), span)
                ]
                if not hit:
                    self.remove_all(None if in_redacted else finding)
                    return True
                for index in hit:
                    # A finding on the redacted text has offsets in it, not in the answer.
                    why = None if in_redacted else finding
                    removed = self._remove(index, why) or removed
        return removed

    def text(self) -> str:
        """
        The redacted text: kept sentences (and markers) with the whitespace between them.

        A kept sentence is preceded by the whitespace that preceded it in the
        answer; a removed one is dropped with that whitespace, or replaced by
        the marker.
        """
        if self._text is not None:
            return self._text
        answer, marker = self._answer, self._marker
        out: list[str] = []
        length = 0
        previous_end = 0
        for piece in self._pieces:
            gap = answer[previous_end : piece.start] if length else ""
            previous_end = piece.end
            piece.out_start = piece.out_end = -1
            if piece.kept:
                out.append(gap)
                length += len(gap)
                out.append(answer[piece.start : piece.end])
                piece.out_start, piece.out_end = length, length + piece.end - piece.start
                length = piece.out_end
            elif marker is not None:
                out += [gap, marker]
                length += len(gap) + len(marker)
        self._text = "".join(out)
        return self._text

    def redactions(self) -> tuple[Redaction, ...]:
        """What was removed: one :class:`Redaction` per removed sentence, in answer order."""
        return tuple(
            Redaction(self._iteration, (piece.start, piece.end), tuple(self._why.get(index, ())))
            for index, piece in enumerate(self._pieces)
            if not piece.kept
        )


def _overlaps(piece: tuple[int, int], span: tuple[int, int]) -> bool:
    """Whether a failing span touches a sentence; an empty span, the sentence around it."""
    start, end = span
    if start == end:
        return piece[0] <= start <= piece[1] and piece[0] >= 0
    return piece[0] < end and start < piece[1]
