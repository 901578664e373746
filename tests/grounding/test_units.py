"""Units: a number with a unit is supported by the same quantity, converted where computed."""

from __future__ import annotations

import pytest

from grounding_verdicts import failing_spans


# The kinds of issue 12.
class TestUnits:
    @pytest.mark.parametrize(
        ("chunk", "answer", "expected"),
        [
            ("Water boils at 104 °F here.", "Water boils at 104 °C here.", ("104",)),
            ("It is 104 degrees Fahrenheit.", "It is 104 degrees Celsius.", ("104",)),
            ("The trail is 5 miles long.", "The trail is 5 km long.", ("5",)),
            ("The dose is 5 mg.", "The dose is 5 g.", ("5",)),
            ("It holds 2 gallons.", "It holds 2 liters.", ("2",)),
            ("It took 3 hours.", "It took 3 days.", ("3",)),
            ("It costs €40.", "It costs $40.", ("$40",)),
            ("It costs 40 euros.", "It costs $40.", ("$40",)),
            # The same unit, spelled otherwise, or no unit on one side.
            ("The trail is 5 kilometres long.", "The trail is 5 km long.", ()),
            ("The trail is 5 km long.", "The trail is 5 kilometers long.", ()),
            ("It took 3 hrs.", "It took 3 hours.", ()),
            ("Water boils at 104.", "Water boils at 104 °C.", ()),
            ("Water boils at 104 °C.", "Water boils at 104.", ()),
            ("It costs 40 dollars.", "It costs $40.", ()),
            # A unit of another dimension measures something else: not compared.
            ("Winds of 5 mph.", "Over the next 5 days.", ()),
            # One occurrence with the same unit is enough.
            ("It is 5 miles, or 5 km by road.", "It is 5 km.", ()),
        ],
    )
    def test_units_must_agree(self, chunk: str, answer: str, expected: tuple[str, ...]) -> None:
        """When the answer and the chunk both give a unit, they must be the same unit."""
        assert expected == failing_spans(chunk, answer)

    @pytest.mark.parametrize(
        ("chunk", "answer", "expected"),
        [
            # 104 °C is 219.2 °F: 203 is no conversion of it, nor in the chunk.
            ("It is 40 °C (104 °F).", "It is 104 °C (203 °F).", ("104", "203")),
            # 40 °C is 104 °F, computed.
            ("It is 40 °C.", "It is 40 °C (104 °F).", ()),
            ("It is 40 °C.", "It is 40 °C (100 °F).", ("100",)),
            # 0 °C is 32 °F, the degree sign glued to the unit's name.
            ("It is 0 °C.", "It is 0 °Celsius (32 °Fahrenheit).", ()),
            ("It is 0 °C.", "It is 0 °Celsius (23 °Fahrenheit).", ("23",)),
            # -40 °C is -40 °F.
            ("It is -40 °C.", "It is -40 °C (-40 °F).", ()),
            # 10 km is 6.21 miles.
            ("The race is 10 km.", "The race is 10 km (6.2 miles).", ()),
            ("The race is 10 km.", "The race is 10 km (8 miles).", ("8",)),
            # 5 kg is 11.02 lb.
            ("It weighs 5 kg.", "It weighs 5 kg (11 lb).", ()),
            ("It weighs 5 kg.", "It weighs 5 kg (15 lb).", ("15",)),
            # 2 cups is 473 ml.
            ("Add 2 cups of water.", "Add 2 cups (473 ml) of water.", ()),
            # 90 minutes is 1.5 hours.
            ("It takes 90 minutes.", "It takes 90 minutes (1.5 hours).", ()),
            ("It takes 90 minutes.", "It takes 90 minutes (2.5 hours).", ("2.5",)),
            # A currency conversion is not computed: the amount must be in a chunk.
            ("It costs £10.", "It costs £10 ($13).", ("$13",)),
            ("It costs £10, about $13.", "It costs £10 ($13).", ()),
        ],
    )
    def test_a_parenthesised_conversion_is_a_claim(
        self, chunk: str, answer: str, expected: tuple[str, ...]
    ) -> None:
        """The number in parentheses is supported, or the correct conversion of the one before."""
        assert expected == failing_spans(chunk, answer)

    @pytest.mark.parametrize(
        ("chunk", "answer"),
        [
            (
                "The Amazon discharges 209,000 cubic meters per second.",
                "It discharges 209,000 m3/s.",
            ),
            ("The lake covers 31,500 square kilometers.", "The lake covers 31,500 km2."),
            ("The tank holds 40 cubic centimeters.", "The tank holds 40 cm³."),
        ],
    )
    def test_unit_symbols_with_an_exponent_are_units(self, chunk: str, answer: str) -> None:
        """``m3/s``, ``km2`` and ``cm³`` are units, not the numbers 3 and 2."""
        assert () == failing_spans(chunk, answer)
