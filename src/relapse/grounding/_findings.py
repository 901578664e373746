"""
The default check's findings and evidence: a message per code that says why its spans fail.

A failing claim a rule vetoed carries the rule's name in its code
(:class:`Reason`), through the digits' block memo, to the finding's message:
a unit that disagrees is not "not in the retrieved chunks".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from relapse._results import Evidence, GroundingFinding
from relapse.grounding._codes import COPY_MESSAGE, MESSAGES, REASON_MESSAGES
from relapse.grounding._read.regions import Regions
from relapse.grounding.rules import Role, Rule

#: Spans quoted in a finding's message, and characters kept of each.
PREVIEW_SPANS = 5
PREVIEW_CHARS = 60

#: Supported claims an answer's evidence lists at most: its first ones, in
#: answer order. A generated or hostile answer repeating a supported claim
#: (a megabyte of ``$5 5%``) would otherwise cost a citation object per
#: repetition, which no reader of citations wants.
MAX_EVIDENCE = 1_000


class Reason(str):
    """A failing claim's code, carrying the rule that vetoed it (the finding's message names it)."""

    __slots__ = ("rule",)

    rule: str

    def __new__(cls, code: str, rule: str) -> Reason:
        reason = super().__new__(cls, code)
        reason.rule = rule
        return reason


#: The failing codes of the claims a rule vetoed, once per (code, rule).
_REASONS: dict[tuple[str, str], Reason] = {}


def failing_code(code: str, rule: Rule | None) -> str:
    """Return ``code``, or for a claim a rule vetoed, ``code`` carrying that rule's name."""
    if rule is None or rule.role is not Role.VETOES:
        return code
    reason = _REASONS.get((code, rule.name))
    if reason is None:
        reason = _REASONS[(code, rule.name)] = Reason(code, rule.name)
    return reason


def evidence_of(
    placed: list[tuple[str, int, int, tuple[int, int, int]]],
    covered: list[tuple[int, int]],
    cut: int,
    copied: bool,
) -> tuple[Evidence, ...]:
    """
    Build the evidence of the supported claims, in answer order.

    A claim that shares a character with a failing span (an echo, a failing
    quotation, a failing token around its digits) or starts after where the
    check stopped reading has none, and neither has any claim of an answer
    that copies the chunks (its finding spans the whole answer).
    """
    if copied or not placed:
        return ()
    regions = Regions(covered) if covered else None
    placed.sort(key=lambda item: (item[1], item[2]))
    return tuple(
        Evidence(kind, (start, end), where[0], (where[1], where[2]))
        for kind, start, end, where in placed[:MAX_EVIDENCE]
        if start < cut and (regions is None or not regions.overlaps(start, end))
    )


def _preview(spans: Sequence[str]) -> str:
    """The spans a message quotes: the first few, each cut, and how many more."""
    preview = ", ".join(
        repr(span if len(span) <= PREVIEW_CHARS else span[: PREVIEW_CHARS - 1] + "…")
        for span in spans[:PREVIEW_SPANS]
    )
    if len(spans) > PREVIEW_SPANS:
        preview += f" and {len(spans) - PREVIEW_SPANS} more"
    return preview


def finding(
    code: str,
    answer: str,
    offsets: list[tuple[int, int]],
    note: str = "",
    copy: bool = False,
    reasons: Mapping[tuple[int, int], str] | None = None,
) -> GroundingFinding:
    """
    Build one finding from its failing spans; ``note`` ends its message; ``copy``: FG004's.

    A span a rule failed for a reason other than that no chunk holds it (a
    unit that disagrees, another subject, another rank: ``reasons``, by
    span, the rule's name) is quoted in a part of the message that says so
    (:data:`relapse.grounding._codes.REASON_MESSAGES`); the other spans keep
    the code's message.
    """
    spans = tuple(answer[start:end] for start, end in offsets)
    if copy:
        message = COPY_MESSAGE.format(spans=_preview(spans))
    elif not reasons or reasons.keys().isdisjoint(offsets):
        # No chunk holds any of them: the code's message alone.
        message = MESSAGES[code].format(count=len(spans), spans=_preview(spans))
    else:
        by_reason: dict[str, list[str]] = {}
        for span, text in zip(offsets, spans, strict=True):
            reason = reasons.get(span, "") if reasons else ""
            by_reason.setdefault(reason if reason in REASON_MESSAGES else "", []).append(text)
        message = "; ".join(
            (REASON_MESSAGES[reason] if reason else MESSAGES[code]).format(
                count=len(texts), spans=_preview(texts)
            )
            for reason, texts in sorted(by_reason.items(), key=lambda item: _REASON_ORDER[item[0]])
        )
    return GroundingFinding(code=code, message=message + note, spans=spans, offsets=tuple(offsets))


#: The order of a message's parts: the spans no chunk holds first.
_REASON_ORDER = {"": 0, **{reason: n for n, reason in enumerate(REASON_MESSAGES, 1)}}
