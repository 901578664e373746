"""
Conversions: a quantity stated in another unit, a parenthesised conversion.

``100 km`` for a chunk's ``62 miles``; the answer's own ``40 °C (104 °F)``.
"""

from __future__ import annotations

import re
from decimal import Decimal

from relapse.grounding._codes import FG001
from relapse.grounding._read.context import AFTER_WINDOW, CONVERSION_WINDOW, converted_from
from relapse.grounding._read.quantity import VALUED_KINDS, Quantity
from relapse.grounding._values.keys import key_decimal
from relapse.grounding._values.tags import AMBIGUOUS, NEGATIVE, NUMBER, Kind
from relapse.grounding._values.units import UNIT_WINDOW, UNITS, convert, unit_of
from relapse.grounding.rules._lookup import Lookup
from relapse.grounding.rules._rule import Phase, Reads, Role, Support, rule

#: How far a written conversion may be from the computed one: one unit of its
#: last decimal place (one unit for a whole number), or this share of the
#: value, whichever is more. "58 °F (15 °C)" (14.4 °C) and "6 feet (1.8 m)"
#: (1.83 m) pass; "104 °C (203 °F)" (219.2 °F) does not.
CONVERSION_TOLERANCE = 0.03

# The number (with its sign) that a parenthesised conversion follows.
_CONVERTED = re.compile(r"[-\u2212]?\d[\d,]*(?:\.\d+)?")

#: The units with a computed conversion, by dimension (``"length"``: km, m, mi...).
_CONVERTIBLE: dict[str, tuple[str, ...]] = {}
for _unit in UNITS.values():
    if _unit.factor:
        _CONVERTIBLE[_unit.dimension] = (*_CONVERTIBLE.get(_unit.dimension, ()), _unit.name)


def conversion(lookup: Lookup, value: Quantity, verdict: Support | None) -> Support | None:
    """
    A parenthesised number that correctly converts the quantity before it is supported.

    Accepts:
        ``40 °C (104 °F)``: the number in parentheses, with a unit, right after
        a number with a unit of the same dimension (temperature, length,
        area, volume, mass, time, speed), when it equals the computed
        conversion within :data:`CONVERSION_TOLERANCE` (or one unit of its
        last decimal place). ``58 °F (15 °C)`` and ``6 feet (1.8 m)`` pass;
        ``104 °C (203 °F)`` does not.

    Why:
        The answer converts what the chunks state; the chunks need not hold
        the conversion. Currencies are not converted: an amount in another
        currency must be in the chunks.

        The stated value may differ from the computed one by one unit of its last decimal place (one
        unit for a whole number) or 3% of the value, whichever is more, for the rounding conversions
        take (``58 °F (15 °C)``: 14.4; ``6 feet (1.8 m)``: 1.83; ``180 °C (453 K)``: 453.15; ``300 K
        (27 °C)``: 26.85; a kelvin is ``K`` after a space or ``kelvin``). ``£10 ($13)`` needs
        ``$13`` in a chunk, and ``5 people (3 adults)`` is no conversion: 3 is a claim.

    Examples:
        | answer | chunks | verdict |
        | --- | --- | --- |
        | `It reached 40 °C (104 °F).` | `It reached 40 °C.` | passes |
        | `58 degrees Fahrenheit (15 degrees Celsius)` | `58 degrees` | passes |
        | `1.5 hours (90 minutes)` | `1.5 hours` | passes |
        | `40 °C (104 °F)` | `40 °C` | passes |
    """
    return True if value.claim.code == FG001 and _correct_conversion(value) else None


def another_unit(lookup: Lookup, value: Quantity, verdict: Support | None) -> Support | None:
    """
    A quantity the texts state in another unit of the same dimension is supported.

    Accepts:
        ``100 °C`` for a chunk's ``373 K``, ``100 km`` for its ``62 miles``,
        ``90 minutes`` for its ``1.5 hours``: a number the chunks write with
        another unit of the same dimension whose conversion to the answer's
        unit is within :data:`CONVERSION_TOLERANCE` of it (or half a unit of
        its last decimal).

    Why:
        An answer may convert for its reader. Currencies are not converted,
        nor degrees whose scale is not said; the chunks' numbers below zero
        are not looked for.

        The chunk's value converted must be within 3% of the answer's, or within half a unit of its
        last written decimal: ``0.5 kg`` is ``1 lb`` rounded, ``0.50 kg`` is not, and ``2 years`` is
        no ``12 months``. A four-digit whole number from 1500 to 2099 before a unit (``1610
        meters``) still reads as a year, and is not converted. pint is the oracle of every pair of
        units converted (docs/findings.md, "Oracles and the limits of the reading").

    Examples:
        | answer | chunks | verdict |
        | --- | --- | --- |
        | `It is 100 km away.` | `It is 62 miles away.` | passes |
    """
    return True if value.claim.code == FG001 and _in_another_unit(lookup, value) else None


def _in_another_unit(lookup: Lookup, value: Quantity) -> bool:
    """
    Tell whether the texts state a quantity in another unit that the answer's converts.

    ``100 °C`` is a chunk's ``373 K``, ``100 km`` its ``62 miles``, ``90
    minutes`` its ``1.5 hours``: a number the chunks write with another
    unit of the same dimension whose conversion to the answer's unit is
    within :data:`CONVERSION_TOLERANCE` of it (or half a unit of its last
    decimal). Currencies are
    not converted, nor degrees whose scale is not said; the chunks'
    numbers below zero are not looked for.
    """
    claim = value.claim
    key = claim.key
    if key is None or key[0] != NUMBER or not claim.plain:
        return False
    target = value.unit_after
    unit = UNITS.get(target) if target is not None else None
    amount = key_decimal(key)
    if unit is None or not unit.factor or amount is None:
        return False
    stated = float(amount)
    # The answer rounds the converted value: to half a unit of its last
    # written decimal ("0.0500" has four), or within the tolerance's share
    # of it (not a unit: "2 years" is no "12 months").
    places = -claim.precision if claim.precision < 0 else 0
    rounding = 0.5 * 10.0**-places if places else 0.0
    tolerance = max(rounding, CONVERSION_TOLERANCE * stated)
    indexes = [index for index in (lookup.chunks, lookup.question) if index is not None]
    for other in _CONVERTIBLE[unit.dimension]:
        if other == unit.name:
            continue
        low = convert(stated - tolerance, unit.name, other)
        high = convert(stated + tolerance, unit.name, other)
        if low is None or high is None or high < 0:
            continue
        low = max(low, 0.0)  # the chunks' numbers below zero are not looked for
        for index in indexes:
            for number in index.numbers.numbers_between(Decimal(repr(low)), Decimal(repr(high))):
                if any(
                    written is not None and written.removeprefix(AMBIGUOUS) == other
                    for written in index.units.written(number)
                ):
                    return True
    return False


def _correct_conversion(value: Quantity) -> bool:
    """
    Tell whether a parenthesised number correctly converts the quantity before it.

    ``40 °C (104 °F)``: the number in parentheses, with a unit, right after a
    number with a unit of the same dimension (temperature, length, area,
    volume, mass, time, speed) is supported when it equals the computed
    conversion within :data:`CONVERSION_TOLERANCE`. Currencies are not
    converted: an amount in another currency must be in the chunks.
    """
    answer, claim = value.answer, value.claim
    quantity_end = converted_from(answer, claim.start, claim.end)
    key = claim.key
    if quantity_end is None or key is None:
        return False
    target = value.unit
    number = key_decimal((NUMBER, *key[1:]))
    if target is None or number is None:
        return False
    # The converted quantity: the number ending at quantity_end, and its unit.
    low = max(0, quantity_end - CONVERSION_WINDOW)
    numbers = list(_CONVERTED.finditer(answer, low, quantity_end))
    if not numbers or numbers[-1].end() != quantity_end:
        return False
    written = numbers[-1].group()
    source = unit_of(answer, numbers[-1].start(), quantity_end)
    if source is None or source == target:
        return False
    try:
        original = float(written.replace(",", "").replace("\u2212", "-"))
    except ValueError:
        return False
    expected = convert(original, source, target)
    if expected is None:
        return False
    stated = float(number) * (-1 if key[0] == NEGATIVE else 1)
    exponent = key[2]
    places = -exponent if isinstance(exponent, int) and exponent < 0 else 0
    tolerance = max(10.0**-places, CONVERSION_TOLERANCE * abs(expected))
    return abs(stated - expected) <= tolerance


_DIGITS = frozenset({Reads.DIGITS})

#: The conversions' rules.
CONVERSION = rule(
    "conversion",
    frozenset({FG001}),
    Role.SUPPORTS,
    Phase.RESCUE,
    _DIGITS,
    (CONVERSION_WINDOW + UNIT_WINDOW, AFTER_WINDOW),
    conversion,
    kinds=VALUED_KINDS,
)
ANOTHER_UNIT = rule(
    "another-unit",
    frozenset({FG001}),
    Role.SUPPORTS,
    Phase.RESCUE,
    _DIGITS,
    (0, UNIT_WINDOW),
    another_unit,
    kinds=frozenset({Kind.COUNT, Kind.DATE}),
)
