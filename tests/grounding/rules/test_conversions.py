"""
Conversions: a quantity stated in another unit, a parenthesised conversion (rules/conversions.py).

How the cases are made and where they came from: ``tests/grounding/README.md``.
"""

from __future__ import annotations

import pytest

from grounding_verdicts import PASSES, failing_spans, fg001, flagged, flagged_spans


# from test_numbers.py
class TestFractions:
    @pytest.mark.parametrize(
        ("chunk", "answer"),
        [
            ("It takes 1.5 hours.", "It takes 1.5 hours (90 minutes)."),
            ("It costs £10 ($13).", "It costs £10 ($13)."),
            ("The post is 6 feet tall.", "The post is 6 feet (1.8 m) tall."),
        ],
    )
    def test_other_conversions(self, chunk: str, answer: str) -> None:
        """Time and length conversions are computed; an amount in another currency is held."""
        assert () == flagged_spans(chunk, answer)

    def test_currency_conversions_are_not_computed(self) -> None:
        """Exchange rates change: ``($13)`` after a supported ``£10`` must be in the chunks."""
        assert ("$13",) == flagged_spans("It costs £10.", "It costs £10 ($13).")

    def test_parenthesised_number_without_unit_is_a_claim(self) -> None:
        """``5 people (3 adults)`` is no conversion: 3 is a claim of its own."""
        assert ("3",) == flagged_spans("5 people came.", "5 people (3 adults) came.")

    def test_unit_conversion_in_parentheses(self) -> None:
        """``58 degrees Fahrenheit (15 degrees Celsius)`` converts a supported number."""
        chunk = "September averages 58 degrees."
        answer = "September averages 58 degrees Fahrenheit (15 degrees Celsius)."
        assert () == flagged_spans(chunk, answer)
        # 60 °F is 15.6 °C: the conversion is right, the number it converts is not.
        assert ("60",) == flagged_spans(
            chunk, "It averages 60 degrees Fahrenheit (15 degrees Celsius)."
        )


# from test_quantities.py (issue 21)
class TestUnitsOfOneDimension:
    @pytest.mark.parametrize(
        ("answer", "chunk", "expected"),
        [
            # A chunk's quantity in another unit of the dimension, converted.
            ("It was 100 °C.", "It was 373 K.", PASSES),
            ("It was 100 °C.", "It was 363 K.", fg001("100")),
            ("It walked 100 km.", "It walked 62 miles.", PASSES),
            ("It walked 100 km.", "It walked 60 miles.", fg001("100")),
            ("Bake at 177 °C.", "Bake at 350 °F.", PASSES),
            ("Bake at 200 °C.", "Bake at 350 °F.", fg001("200")),
            ("It took 90 minutes.", "It took 1.5 hours.", PASSES),
            ("It lasted 1 year.", "It lasted 12 months.", PASSES),
            ("It lasted 2 years.", "It lasted 12 months.", fg001("2")),  # not within a unit
            ("It weighs 0.5 kg.", "It weighs 1 lb.", PASSES),  # 0.45 kg, to one decimal
            ("It weighs 0.50 kg.", "It weighs 1 lb.", fg001("0.50")),  # not to two
            # No money, no degrees without a scale.
            ("It costs 5 euros.", "It costs $5.", fg001("5")),
            ("Bake at 177 °C.", "Bake at 350 degrees.", fg001("177")),
        ],
    )
    def test_converted_from_another_unit(self, answer: str, chunk: str, expected: object) -> None:
        assert flagged(chunk, answer) == expected


# from test_units_more.py
class TestKelvinConversions:
    @pytest.mark.parametrize(
        ("chunk", "answer", "expected"),
        [
            # 180 °C is 453.15 K.
            ("Bake at 180 °C for 25 minutes.", "Bake at 180 °C (453 K).", ()),
            ("Bake at 180 °C for 25 minutes.", "Bake at 180 °C (500 K).", ("500",)),
            # 300 K is 26.85 °C.
            ("The gas is at 300 K.", "The gas is at 300 K (27 °C).", ()),
            ("The gas is at 300 K.", "The gas is at 300 K (40 °C).", ("40",)),
            ("The gas is at 27 °C.", "The gas is at 27 °C (300 K).", ()),
            # 27 °C is 80.6 °F; 300 K is 80.33 °F.
            ("The gas is at 300 K.", "The gas is at 300 kelvin (80 °F).", ()),
        ],
    )
    def test_kelvin_is_converted(self, chunk: str, answer: str, expected: tuple[str, ...]) -> None:
        """A parenthesised conversion to or from kelvin is computed."""
        assert failing_spans(chunk, answer) == expected
