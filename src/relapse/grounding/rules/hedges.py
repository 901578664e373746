"""Hedges and bounds: ``about 1.2 million``, ``at least 200``, ``up to 30``."""

from __future__ import annotations

from relapse.grounding._codes import FG001
from relapse.grounding._index.text_index import TextIndex
from relapse.grounding._read.context import HEDGE_WINDOW
from relapse.grounding._read.quantity import VALUED_KINDS, Quantity
from relapse.grounding._values.keys import Key
from relapse.grounding._values.tags import Hedge
from relapse.grounding.rules._lookup import Lookup
from relapse.grounding.rules._rule import Phase, Reads, Role, Support, rule


def hedged(lookup: Lookup, value: Quantity, verdict: Support | None) -> Support | None:
    """
    A hedged number is stated by a number it rounds, or one within its bound.

    Accepts:
        ``about 1.2 million`` when some number in the texts rounds to it
        (within half a unit of its last written digit); ``at least 200`` when
        one is at or above it; ``up to 30`` when one is at or below it.

    Why:
        A hedge says the number is not exact: a chunk's 1,184,000 is what
        ``about 1.2 million`` reports, and a chunk's 250 makes ``at least
        200`` true. The support has no one place: no evidence.

    Examples:
        | answer | chunks | verdict |
        | --- | --- | --- |
        | `About 1.2 million people live there.` | `1,184,000 people live there.` | passes |
        | `At least 200 came.` | `250 came.` | passes |
    """
    claim = value.claim
    if claim.code != FG001:
        return None
    key = claim.key
    assert key is not None  # the century rule decided every claim without one
    direction = value.hedge
    if direction is not None and any(
        index is not None and _hedged_support(index, key, claim.precision, direction)
        for index in (lookup.chunks, lookup.question)
    ):
        return True
    return None


def _hedged_support(index: TextIndex, key: Key, precision: int, direction: Hedge) -> bool:
    """
    Tell whether the texts support a hedged number.

    ``about 1.2 million``: some number rounds to it (within half a unit of
    its last written digit). ``at least 200``: a number at or above it;
    ``up to 30``: at or below it (see
    :meth:`relapse.grounding._index.number_line.NumberLine.bounds`).
    """
    if direction == "about":
        return index.numbers.rounds_to(key, precision)
    return index.numbers.bounds(key, direction)


#: The hedges' rule.
HEDGED = rule(
    "hedged",
    frozenset({FG001}),
    Role.SUPPORTS,
    Phase.DECIDE,
    frozenset({Reads.DIGITS, Reads.WORDS}),
    (HEDGE_WINDOW, 0),
    hedged,
    kinds=VALUED_KINDS,
)
