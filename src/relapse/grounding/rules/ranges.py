"""Ranges: a range of numbers (``3-4 weeks``) whose two ends the chunks state apart."""

from __future__ import annotations

from relapse.grounding._codes import FG001, FG002
from relapse.grounding._read.quantity import Quantity
from relapse.grounding._values.keys import Key, int_key, key_int
from relapse.grounding._values.tags import STANDALONE, Kind
from relapse.grounding.rules._lookup import Lookup
from relapse.grounding.rules._rule import Phase, Reads, Role, Support, rule


def range_ends(lookup: Lookup, value: Quantity, verdict: Support | None) -> Support | None:
    """
    A plain range no chunk writes whole is judged by its two ends.

    Accepts:
        A plain range (``10-15``, ``3 to 4 weeks``) when each end is stated on
        its own in the texts, or spelled out (``three to four weeks`` grounds
        ``3-4 weeks``). The verdict is final: a range with an end nowhere
        fails here.

    Why:
        A chunk may give the ends in two sentences or in words; the range
        states nothing they do not. Its support has no one place: no evidence.

        Two numbers joined by a hyphen, a dash, ``to``, ``through`` or ``between … and`` are one
        claim; a chunk holds it with the same range in any spelling (the held-values rule), or with
        both ends stated as numbers of their own (a range drawn from a list of values). The end of a
        *different* range does not count: ``8-10`` and ``15 minutes`` do not make ``10-15 minutes``.
        A range is a claim even when its ends are small (``1-2 inches``), and a signed number is
        never joined into one (``-5 to 10`` is two claims).

    Examples:
        | answer | chunks | verdict |
        | --- | --- | --- |
        | `It takes 3-4 weeks.` | `It takes three weeks, sometimes four.` | passes |
        | `4 to 15 employees` | `four to fifteen employees` | passes |
        | `3-4 weeks` | `three to four weeks` | passes |
    """
    claim = value.claim
    if claim.parts and claim.plain:
        # Each end stated on its own, or spelled out ("three to four weeks"
        # grounds "3-4 weeks").
        return all(_range_end(lookup, part) for part in claim.parts)
    return None


def _range_end(lookup: Lookup, part: Key) -> bool:
    """Tell whether one end of a plain range is stated alone, or in words."""
    if lookup.has((STANDALONE, *part[1:]), plain=True):
        return True
    whole = key_int(part)
    return whole is not None and (
        lookup.chunks.words.has(whole)
        or (lookup.question is not None and int_key(whole) in lookup.question.keys)
    )


#: The ranges' rule.
RANGE_ENDS = rule(
    "range-ends",
    frozenset({FG001, FG002}),
    Role.SUPPORTS,
    Phase.DECIDE,
    frozenset({Reads.DIGITS, Reads.WORDS}),
    (0, 0),
    range_ends,
    kinds=frozenset({Kind.RANGE}),
)
