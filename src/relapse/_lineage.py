"""
What a retry fixed: the error findings of one attempt matched against the previous one's.

Findings are matched by code and *normalised* span, never by offset: a retry
rewrites the answer, so a claim that persists usually moves. A span is
normalised by Unicode NFKC, case folding and collapsing whitespace, so
``"42 Million"`` in one answer and ``"42  million"`` in the next are the same
failure. The spans are counted as a multiset: an answer that repeats a
failing span twice, followed by one that repeats it once, persisted one and
resolved one.

A finding without spans (an ``LLMJudge`` verdict, a custom check's) has
nothing to match but its answer: it stands for the whole answer, normalised,
so the same failing answer twice persists it, and a different one resolves
the old and introduces the new.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

from relapse._results import GroundingFinding

__all__ = ["NO_LINEAGE", "Lineage", "count_by_code", "lineage", "normalised_span"]


def normalised_span(span: str) -> str:
    """``span`` as lineage compares it: NFKC, case-folded, whitespace collapsed, stripped."""
    return " ".join(unicodedata.normalize("NFKC", span).casefold().split())


@dataclass(frozen=True)
class Lineage:
    """
    The error findings of a retry, against those of the attempt before it.

    Each tuple holds findings cut down to the spans in question (code,
    message and severity of the finding they come from; ``spans`` and
    ``offsets`` only those spans), in the order of the findings they come
    from. Offsets of ``resolved`` are in the previous answer, those of
    ``persisted`` and ``introduced`` in the retry's.
    """

    #: Failing spans of the previous attempt the retry no longer has.
    resolved: tuple[GroundingFinding, ...] = ()
    #: Failing spans the retry still has (as the retry writes them).
    persisted: tuple[GroundingFinding, ...] = ()
    #: Failing spans the retry has and the previous attempt did not.
    introduced: tuple[GroundingFinding, ...] = ()


#: The lineage of a first attempt: nothing to compare with.
NO_LINEAGE = Lineage()


def _units(finding: GroundingFinding, answer: str) -> list[tuple[str, str]]:
    """The (code, normalised span) keys a finding stands for, parallel to its spans."""
    if not finding.spans:
        return [(finding.code, normalised_span(answer))]
    return [(finding.code, normalised_span(span)) for span in finding.spans]


def _split(
    findings: Sequence[GroundingFinding], answer: str, other: Counter[tuple[str, str]]
) -> tuple[tuple[GroundingFinding, ...], tuple[GroundingFinding, ...]]:
    """
    Split ``findings`` into the parts matched in ``other`` and the rest.

    ``other`` is consumed: each key it holds matches one span once.
    """
    matched: list[GroundingFinding] = []
    unmatched: list[GroundingFinding] = []
    for finding in findings:
        keys = _units(finding, answer)
        hits = []
        for key in keys:
            hit = other[key] > 0
            if hit:
                other[key] -= 1
            hits.append(hit)
        for wanted, into in ((True, matched), (False, unmatched)):
            chosen = [index for index, hit in enumerate(hits) if hit is wanted]
            if not chosen:
                continue
            if len(chosen) == len(hits):
                into.append(finding)
                continue
            offsets = finding.offsets
            into.append(
                replace(
                    finding,
                    spans=tuple(finding.spans[i] for i in chosen),
                    offsets=tuple(offsets[i] for i in chosen) if offsets else (),
                )
            )
    return tuple(matched), tuple(unmatched)


def lineage(
    previous: Sequence[GroundingFinding],
    previous_answer: str,
    current: Sequence[GroundingFinding],
    answer: str,
) -> Lineage:
    """
    Which error findings of ``previous`` the retry resolved, kept, and which it added.

    Warnings are ignored on both sides: they never reject an answer, so no
    retry is asked to fix them.

    Args:
        previous: The findings of the attempt before the retry.
        previous_answer: That attempt's answer (what a finding without spans
            stands for).
        current: The retry's findings.
        answer: The retry's answer.

    Returns:
        The :class:`Lineage`; all three tuples are empty when neither side
        has an error finding.
    """
    before = [f for f in previous if f.severity == "error"]
    after = [f for f in current if f.severity == "error"]
    if not before and not after:
        return NO_LINEAGE
    now: Counter[tuple[str, str]] = Counter()
    for finding in after:
        now.update(_units(finding, answer))
    earlier: Counter[tuple[str, str]] = Counter()
    for finding in before:
        earlier.update(_units(finding, previous_answer))
    _, resolved = _split(before, previous_answer, now)
    persisted, introduced = _split(after, answer, earlier)
    return Lineage(resolved, persisted, introduced)


def count_by_code(findings: Sequence[GroundingFinding]) -> dict[str, int]:
    """Spans per code (a finding without spans counts one), codes sorted."""
    counts: Counter[str] = Counter()
    for finding in findings:
        counts[finding.code] += max(1, len(finding.spans))
    return dict(sorted(counts.items()))
