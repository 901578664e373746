"""What ``check(..., explain=True)`` records as the passes judge, and the trace it returns."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from relapse._results import ClaimOutcome, ClaimTrace, Evidence
from relapse.grounding._read.regions import Regions
from relapse.grounding.rules import Role, Rule
from relapse.grounding.rules.subjects import SUBJECT


class Trace:
    """What ``explain=True`` records as the passes judge: one entry per claim."""

    __slots__ = ("_entries",)

    def __init__(self) -> None:
        self._entries: list[tuple[str, int, int, str, Rule | None, object]] = []

    def add(
        self, code: str, start: int, end: int, reader: str, rule: Rule | None, verdict: object
    ) -> None:
        """Record a claim's verdict and the rule that decided it."""
        self._entries.append((str(code), start, end, reader, rule, verdict))

    def done(
        self,
        answer: str,
        evidence: tuple[Evidence, ...],
        reported: Mapping[str, list[tuple[int, int]]] | None = None,
        covered: Sequence[tuple[int, int]] = (),
        *,
        moved_to: Mapping[tuple[int, int], str] | None = None,
        cut: int | None = None,
    ) -> tuple[ClaimTrace, ...]:
        """
        Return the trace: each claim's reader, rule, outcome and evidence, in answer order.

        A claim inside a failing quotation or echoed line is ``covered``; one
        the subject rule failed after support names that rule; claims after
        where the check stopped reading are left out.
        """
        cited = {item.answer_span: item for item in evidence}
        failing = {(code, span) for code, spans in (reported or {}).items() for span in spans}
        regions = Regions(list(covered)) if covered else None
        traced: list[ClaimTrace] = []
        seen: set[tuple[str, int, int, str]] = set()
        for code, start, end, reader, rule, verdict in self._entries:
            if cut is not None and start >= cut:
                continue
            if (code, start, end, reader) in seen:
                continue
            seen.add((code, start, end, reader))
            name = rule.name if rule is not None else None
            span = (start, end)
            outcome: ClaimOutcome
            if moved_to is not None and moved_to.get(span) == SUBJECT.name and verdict:
                name, outcome = SUBJECT.name, "fails"
            elif (code, span) in failing:
                outcome = "fails"
            elif not verdict:
                outcome = (
                    "fails" if regions is None or not regions.covers(start, end) else "covered"
                )
            elif rule is not None and rule.role is not Role.SUPPORTS:
                # Exempt, or let pass by a veto (a small ordinal no chunk ranks otherwise).
                outcome = "exempt"
            else:
                outcome = "supported"
            traced.append(
                ClaimTrace(code, span, answer[start:end], reader, name, outcome, cited.get(span))
            )
        traced.sort(key=lambda item: (item.answer_span, item.code))
        return tuple(traced)
