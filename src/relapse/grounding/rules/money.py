"""
Money: an amount in its minor or major unit, an amount in two units.

``75 cents`` for a chunk's ``$0.75``; ``2 dollars and 50 cents`` for its ``$2.50``.
"""

from __future__ import annotations

import re

from relapse.grounding._codes import FG001
from relapse.grounding._read.context import CONTEXT_BEFORE
from relapse.grounding._read.money import WINDOW, compound_amount
from relapse.grounding._read.quantity import VALUED_KINDS, Quantity
from relapse.grounding._values.keys import Key
from relapse.grounding._values.tags import AMBIGUOUS, MONEY_MARK, NUMBER_TAGS
from relapse.grounding._values.units import UNIT_WINDOW
from relapse.grounding.rules._lookup import Lookup
from relapse.grounding.rules._rule import Phase, Reads, Role, Support, rule

#: The money units a hundredth or a hundred times another's, by the answer's
#: unit: the power of ten to the other's amount, and the other units. A cent
#: (or paisa) is a hundredth of a dollar, a euro or a rupee; a penny of a pound.
_MINOR_UNITS: dict[str, tuple[int, frozenset[str]]] = {
    "¢": (-2, frozenset({"$", "€", "₹"})),
    "p": (-2, frozenset({"£"})),
    "$": (2, frozenset({"¢"})),
    "€": (2, frozenset({"¢"})),
    "₹": (2, frozenset({"¢"})),
    "£": (2, frozenset({"p"})),
}

# Every spelling of a minor unit after a number holds one of these letters
# within this many characters ("50 euro cents", "99 PAISE", "85c", "75¢").
_MINOR_UNIT_LETTERS = frozenset("cpCP\u00a2")

# A unit's name right after a part of an amount in two units ("2 dollars",
# "50 cents", "20p"): the test before the amount is read.
_MONEY_PART_INITIALS = frozenset("dDpPeEcC\u00a2")

_MONEY_PART_AFTER = re.compile(
    r"[\ \u00a0]?(?:(?i:dollars?|pounds?|euros?|cents?|pence)|[pc\u00a2])(?![^\W_])"
)

_MINOR_UNIT_PEEK = 12


def minor_money(lookup: Lookup, value: Quantity, verdict: Support | None) -> Support | None:
    """
    An amount of money is stated by the texts in its minor or major unit.

    Accepts:
        ``75 cents`` for a chunk's ``$0.75``, ``50p`` for its ``£0.50``,
        ``$75`` for its ``7,500 cents``: the amount a hundred times smaller
        (or larger), written with a currency of the other unit.

    Why:
        A cent (or paisa) is a hundredth of a dollar, a euro or a rupee; a
        penny of a pound. ``75 cents`` is still no ``$75``, nor a bare
        ``0.75``.

    Examples:
        | answer | chunks | verdict |
        | --- | --- | --- |
        | `It costs 75 cents.` | `It costs $0.75.` | passes |
    """
    return True if _in_other_money_unit(lookup, value) else None


def compound_money(lookup: Lookup, value: Quantity, verdict: Support | None) -> Support | None:
    """
    Each number of an amount in two units holds when the texts write the amount.

    Accepts:
        ``two dollars and fifty cents``, ``$2 and 50 cents`` or ``3 pounds 20
        pence`` when the chunks (or the question) write ``$2.50`` or
        ``£3.20`` with its currency
        (:func:`relapse.grounding._read.money.compound_amount`).

    Why:
        Read as two numbers, each is foreign to the chunk (no $2, no 50 cents
        there); read as the amount they make together, both are the chunk's.

        The currency is ``$``, ``£`` or ``€``, or a dollar, pound or euro name, then cents, pence,
        ``p``, ``c`` or ``¢``. ``$2 and 60 cents``, or ``3 pounds 20 pence`` against ``$3.20``,
        still fail, both numbers. Limits: only the answer's amounts are read so (a chunk's ``$20 and
        50 cents`` grounds no ``$20.50``), and the minor part is a whole number below 100.

    Examples:
        | answer | chunks | verdict |
        | --- | --- | --- |
        | `It costs two dollars and fifty cents.` | `It costs $2.50.` | passes |
    """
    return True if _compound_money_held(lookup, value) else None


def _in_other_money_unit(lookup: Lookup, value: Quantity) -> bool:
    """
    Tell whether the texts state an amount of money in its minor or major unit.

    ``75 cents`` is ``$0.75`` and ``50p`` is ``£0.50``: the amount a
    hundred times smaller (or larger) is looked for, written with a
    currency of the other unit (:data:`_MINOR_UNITS`); ``75 cents`` is
    still no ``$75``, nor a bare ``0.75``.
    """
    claim = value.claim
    key = claim.key
    if key is None or key[0] not in NUMBER_TAGS or not isinstance(key[2], int):
        return False
    # Money has its symbol before it, or a minor unit after it ("cents",
    # "85c", "50p", "pence", "paise", "¢"): the binding's searches only then.
    if claim.unit != MONEY_MARK and _MINOR_UNIT_LETTERS.isdisjoint(
        value.answer[claim.end : claim.end + _MINOR_UNIT_PEEK]
    ):
        return False
    binding = value.binding
    other = _MINOR_UNITS.get(binding.name) if binding is not None else None
    if other is None:
        return False
    shift, units = other
    scaled: Key = (key[0], key[1], key[2] + shift)
    # "50p", "85c": a letter glued is ambiguous, and still the unit here.
    return lookup.has(scaled, plain=False) and any(
        written is not None and written.removeprefix(AMBIGUOUS) in units
        for index in (lookup.chunks, lookup.question)
        if index is not None
        for written in index.units.written(scaled)
    )


def _compound_money_held(lookup: Lookup, value: Quantity) -> bool:
    """
    Tell whether the amount a number is a part of is the texts' (``2 dollars and 50 cents``).

    The answer's ``two dollars and fifty cents``, ``$2 and 50 cents`` or
    ``3 pounds 20 pence`` is the amount ``$2.50`` or ``£3.20``
    (:func:`relapse.grounding._read.money.compound_amount`): each of its
    numbers holds when the chunks (or the question) write that amount
    with its currency.
    """
    # A part of such an amount is money ("$2") or has its unit's name
    # right after it ("2 dollars", "50 cents"): its initial, then one
    # anchored match, before the amount is read.
    claim, answer = value.claim, value.answer
    if claim.code != FG001 or claim.precision < 0:
        return False  # each part is a whole number: "$4,812.37" is none
    if claim.unit != MONEY_MARK and (
        answer[claim.end : claim.end + 2].lstrip(" \u00a0")[:1] not in _MONEY_PART_INITIALS
        or _MONEY_PART_AFTER.match(answer, claim.end) is None
    ):
        return False
    found = compound_amount(answer, claim.start, claim.end)
    if found is None:
        return False
    key, currency = found
    return lookup.has(key, plain=False) and any(
        written is not None and written.removeprefix(AMBIGUOUS) == currency
        for index in (lookup.chunks, lookup.question)
        if index is not None
        for written in index.units.written(key)
    )


_CLAIMS = frozenset({Reads.DIGITS, Reads.WORDS})

#: The money rules.
MINOR_MONEY = rule(
    "minor-money",
    frozenset({FG001}),
    Role.SUPPORTS,
    Phase.RESCUE,
    _CLAIMS,
    (CONTEXT_BEFORE, max(_MINOR_UNIT_PEEK, UNIT_WINDOW)),
    minor_money,
    kinds=VALUED_KINDS,
)
COMPOUND_MONEY = rule(
    "compound-money",
    frozenset({FG001}),
    Role.SUPPORTS,
    Phase.RESCUE,
    _CLAIMS,
    (WINDOW, WINDOW),
    compound_money,
)
