"""
pint as an oracle (issue 21): every pair of units the check converts between, as pint converts it.

The check's conversion factors agree with pint's within the stated tolerance,
and an answer that converts a chunk's quantity into another unit is grounded
by it.
"""

from __future__ import annotations

from decimal import Decimal
from itertools import combinations

import pint
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from grounding_oracles import PINT_EXAMPLES, grounded
from relapse.grounding._values.units import UNITS, convert
from relapse.grounding.rules.conversions import CONVERSION_TOLERANCE

#: The oracle properties run in the full suite; `bash scripts/test.sh --fast` leaves them out.
pytestmark = pytest.mark.oracle


# The check's canonical unit names, as pint spells them.
_PINT_NAMES = {
    "m3/s": "meter ** 3 / second",
    "ft3/s": "foot ** 3 / second",
    "km/h": "kilometer / hour",
    "mph": "mile / hour",
    "m/s": "meter / second",
    "knot": "knot",
    "°C": "degree_Celsius",
    "°F": "degree_Fahrenheit",
    "K": "kelvin",
    "km2": "kilometer ** 2",
    "cm2": "centimeter ** 2",
    "m2": "meter ** 2",
    "ft2": "foot ** 2",
    "mi2": "mile ** 2",
    "acre": "acre",
    "ha": "hectare",
    "m3": "meter ** 3",
    "cm3": "centimeter ** 3",
    "ft3": "foot ** 3",
    "fl oz": "fluid_ounce",
    "ml": "milliliter",
    "cl": "centiliter",
    "dl": "deciliter",
    "l": "liter",
    "gal": "gallon",
    "qt": "quart",
    "pt": "pint",
    "cup": "cup",
    "tbsp": "tablespoon",
    "tsp": "teaspoon",
    "nm": "nanometer",
    "µm": "micrometer",
    "mm": "millimeter",
    "cm": "centimeter",
    "km": "kilometer",
    "m": "meter",
    "in": "inch",
    "ft": "foot",
    "yd": "yard",
    "mi": "mile",
    "mg": "milligram",
    "µg": "microgram",
    "kg": "kilogram",
    "g": "gram",
    "t": "tonne",
    "lb": "pound",
    "oz": "ounce",
    "st": "stone",
    "ms": "millisecond",
    "s": "second",
    "min": "minute",
    "h": "hour",
    "day": "day",
    "week": "week",
    "month": "month",
    "year": "julian_year",
}


_CONVERTED = sorted(name for name, unit in UNITS.items() if unit.factor)


_PAIRS_OF_UNITS = [
    (first, second)
    for first, second in combinations(_CONVERTED, 2)
    if UNITS[first].dimension == UNITS[second].dimension
]


_REGISTRY = pint.UnitRegistry()


#: How far the check's factors may be from pint's: well within the
#: tolerance conversions are checked with, so no verdict can turn on it.
FACTOR_TOLERANCE = 1e-5


def _pint_convert(value: float, source: str, target: str) -> float:
    """Convert with pint."""
    quantity = _REGISTRY.Quantity(value, _PINT_NAMES[source])
    return float(quantity.to(_PINT_NAMES[target]).magnitude)


#: How a quantity in each unit is written in the sentences below (the check's own spellings).
_SPELLED = {
    "km": "kilometers",
    "m": "meters",
    "cm": "centimeters",
    "mm": "millimeters",
    "mi": "miles",
    "ft": "feet",
    "yd": "yards",
    "in": "inches",
    "kg": "kilograms",
    "g": "grams",
    "lb": "pounds",
    "oz": "ounces",
    "st": "stone",
    "mg": "milligrams",
    "t": "tonnes",
    "l": "liters",
    "ml": "milliliters",
    "gal": "gallons",
    "qt": "quarts",
    "pt": "pints",
    "cup": "cups",
    "s": "seconds",
    "min": "minutes",
    "h": "hours",
    "day": "days",
    "week": "weeks",
    "month": "months",
    "year": "years",
    "°C": "°C",
    "°F": "°F",
    "K": "kelvin",
    "acre": "acres",
    "ha": "hectares",
    "mph": "mph",
    "km/h": "km/h",
    "knot": "knots",
}


_SPELLED_PAIRS = [
    (first, second) for first, second in _PAIRS_OF_UNITS if first in _SPELLED and second in _SPELLED
]


def _three_digits(value: float) -> str:
    """``value`` rounded to three significant digits, in plain decimals (``3.28``, ``0.0500``)."""
    exact = Decimal(repr(value))
    return format(exact.quantize(Decimal(1).scaleb(exact.adjusted() - 2)), "f")


# from test_oracles.py (issue 21)
class TestPintConversions:
    def test_every_converted_unit_has_a_pint_name(self) -> None:
        assert set(_CONVERTED) == set(_PINT_NAMES)

    @pytest.mark.parametrize(("source", "target"), _PAIRS_OF_UNITS)
    def test_every_pair_agrees(self, source: str, target: str) -> None:
        for value in (1.0, 37.5, 1000.0):
            for first, second in ((source, target), (target, source)):
                ours = convert(value, first, second)
                assert ours is not None
                theirs = _pint_convert(value, first, second)
                assert ours == pytest.approx(theirs, rel=FACTOR_TOLERANCE, abs=1e-9)

    @settings(max_examples=PINT_EXAMPLES, deadline=None)
    @given(
        pair=st.sampled_from(_PAIRS_OF_UNITS),
        value=st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False),
        forward=st.booleans(),
    )
    def test_within_the_stated_tolerance(
        self, pair: tuple[str, str], value: float, forward: bool
    ) -> None:
        source, target = pair if forward else pair[::-1]
        ours = convert(value, source, target)
        assert ours is not None
        theirs = _pint_convert(value, source, target)
        # Far within the tolerance a written conversion is checked with (3%).
        assert abs(ours - theirs) <= CONVERSION_TOLERANCE * abs(theirs) + 1e-6
        assert abs(ours - theirs) <= FACTOR_TOLERANCE * abs(theirs) + 1e-6


# from test_oracles.py (issue 21)
class TestPintConvertedAnswers:
    """An answer that converts a chunk's quantity into another unit is grounded by it."""

    @settings(max_examples=PINT_EXAMPLES, deadline=None)
    @given(pair=st.sampled_from(_SPELLED_PAIRS), value=st.integers(3, 5000), forward=st.booleans())
    def test_a_converted_quantity(self, pair: tuple[str, str], value: int, forward: bool) -> None:
        source, target = pair if forward else pair[::-1]
        converted = _pint_convert(float(value), source, target)
        assume(converted > 0.01)
        written = _three_digits(converted)
        # A four-digit whole number from 1500 to 2099 reads as a year (docs/findings.md).
        assume(not (written.isdigit() and 1500 <= int(written) <= 2099))
        chunk = f"The value is {value} {_SPELLED[source]}."
        answer = f"The value is {written} {_SPELLED[target]}."
        assert grounded(chunk, answer), (chunk, answer)
        wrong = _three_digits(converted * 1.1)
        assume(not (wrong.isdigit() and 1500 <= int(wrong) <= 2099))
        assert not grounded(chunk, f"The value is {wrong} {_SPELLED[target]}."), (chunk, answer)
