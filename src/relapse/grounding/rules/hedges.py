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

        The hedges: ``about``, ``around``, ``approximately``, ``approx.``, ``roughly``, ``nearly``,
        ``almost``, ``some``, ``close to``, ``circa``, ``(an) estimated``, ``~`` and ``≈``: after
        one, a number claims "this much, to my precision" (``about 1.2 million``: 1,150,000 to
        1,250,000; ``about 30``: 25 to 35). The lower bounds ``at least``, ``more than``, ``over``,
        ``above``, ``upwards of``, ``in excess of``, ``no fewer than`` and ``as many as`` are held
        by a number at or above them, up to ten times them; the upper bounds ``under``, ``below``,
        ``less than``, ``fewer than``, ``up to``, ``at most`` and ``no more than`` by one at or
        below them, down to a tenth. The factor of ten keeps an unrelated number (a year, a count of
        something else) from supporting every bound below it. Rounding uses ``decimal.Decimal`` on
        numbers of up to 40 significant digits; longer ones are compared exactly.

    Examples:
        | answer | chunks | verdict |
        | --- | --- | --- |
        | `About 1.2 million people live there.` | `1,184,000 people live there.` | passes |
        | `At least 200 came.` | `250 came.` | passes |
        | `at least 200` | `150` | fails |
        | `up to 30 people` | `35 people` | fails |
        | `about 1.2 million` | `1,234,567` | passes |
        | `at least 200` | `250` | passes |
        | `more than 2,000` | `2,400` | passes |
        | `over 50` | `52` | passes |
        | `fewer than 100` | `80` | passes |
        | `under 20` | `15` | passes |
        | `up to 30` | `28` | passes |
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
