"""
Money: an amount in its minor or major unit, in another currency's code, in two units.

How the cases are made and where they came from: ``tests/grounding/README.md``.
"""

from __future__ import annotations

import pytest

from grounding_verdicts import PASSES, failing_spans, fg001, flagged
from relapse.grounding._values.units import binding_of, currency_before, unit_after


# from test_quantities.py (issue 21)
class TestUnitsOfOneDimension:
    @pytest.mark.parametrize(
        ("answer", "chunk", "expected"),
        [
            # A minor unit is a hundredth of its major one: the same amount.
            ("It costs 75 cents.", "It costs $0.75.", PASSES),
            ("It costs $0.75.", "It costs 75 cents.", PASSES),
            ("It costs 150 cents.", "It costs $1.50.", PASSES),
            ("It costs $30.", "It costs 3,000 cents.", PASSES),
            ("It costs 50p.", "It costs \u00a30.50.", PASSES),
            ("It costs \u00a30.50.", "It costs 50p.", PASSES),
            ("It costs $0.85.", "It costs 85c.", PASSES),
            ("It costs 20 euro cents.", "It costs \u20ac0.20.", PASSES),
            ("It costs seventy-five cents.", "It costs $0.75.", PASSES),
            ("It costs -75 cents.", "It costs -$0.75.", PASSES),
            # Not another amount, not a bare number, not another currency's unit.
            ("It costs 75 cents.", "It costs $7.50.", fg001("75")),
            ("It costs 75 cents.", "It costs 0.75.", fg001("75")),
            ("It costs 50 cents.", "It costs \u00a30.50.", fg001("50")),
            ("It costs 0.75 cents.", "It costs $0.75.", fg001("0.75")),
        ],
    )
    def test_minor_and_major_units(self, answer: str, chunk: str, expected: object) -> None:
        assert flagged(chunk, answer) == expected


# from test_quantities.py (issue 21)
class TestAmountsInTwoUnits:
    """``2 dollars and 50 cents`` is the amount $2.50: each of its numbers holds with it."""

    @pytest.mark.parametrize(
        ("answer", "chunk", "expected"),
        [
            ("It cost two dollars and fifty cents.", "It cost $2.50.", PASSES),
            ("It cost 2 dollars and 50 cents.", "It cost $2.50.", PASSES),
            ("It cost $2 and 50 cents.", "It cost $2.50.", PASSES),
            ("It cost 3 pounds 20 pence.", "It cost £3.20.", PASSES),
            ("It cost 3 pounds 20p.", "It cost £3.20.", PASSES),
            ("It cost five euros and five cents.", "It cost €5.05.", PASSES),
            # Another amount, or another currency: both numbers fail.
            ("It cost $2 and 60 cents.", "It cost $2.50.", fg001("$2", "60")),
            ("It cost 3 pounds 20 pence.", "It cost $3.20.", fg001("3", "20")),
        ],
    )
    def test_amounts(self, answer: str, chunk: str, expected: object) -> None:
        assert flagged(chunk, answer) == expected


_STAMP = "A first-class stamp costs 85 cents."


_FARE = "The bus fare is 75p."


# from test_units_more.py
class TestCurrencyMinorUnits:
    @pytest.mark.parametrize(
        ("chunk", "answer", "expected"),
        [
            # A currency code before the number is its currency, as its symbol is.
            (_STAMP, "It costs USD 85.", ("85",)),
            (_STAMP, "It costs 85 USD.", ("85",)),
            # "US$85": the scanner starts the number at its capitals.
            (_STAMP, "It costs US$85.", ("US$85",)),
            (_FARE, "The bus fare is GBP 75.", ("75",)),
            # A cent of any currency is a cent: "euro cents", German "Cent".
            ("A coffee costs 50 euro cents.", "A coffee costs €50.", ("€50",)),
            ("Eine Tasse kostet 50 Cent.", "A coffee costs €50.", ("€50",)),
            ("It costs 50 US cents.", "It costs $50.", ("$50",)),
            # "85c" glued is 85 cents.
            ("A first-class stamp costs $85.", "It costs 85c.", ("85",)),
        ],
    )
    def test_a_minor_unit_is_not_the_major(
        self, chunk: str, answer: str, expected: tuple[str, ...]
    ) -> None:
        """85 cents is not 85 dollars, however either side writes its currency."""
        assert failing_spans(chunk, answer) == expected

    @pytest.mark.parametrize(
        ("chunk", "answer"),
        [
            (_STAMP, "It costs 85¢."),
            (_STAMP, "It costs 85c."),
            ("A first-class stamp costs USD 85.", "It costs $85."),
            ("The bus fare is GBP 75.", "The bus fare is £75."),
            (_FARE, "The bus fare is 75 pence."),
            ("A coffee costs 50 euro cents.", "A coffee costs 50 cents."),
            ("A coffee costs EUR 50.", "A coffee costs €50."),
        ],
    )
    def test_one_unit_spelled_otherwise(self, chunk: str, answer: str) -> None:
        """Codes, symbols and words of one unit agree."""
        assert failing_spans(chunk, answer) == ()

    def test_currency_before_reads_codes_and_prefixed_symbols(self) -> None:
        """The currency before a number: a code (a word of its own), or capitals and a symbol."""
        assert currency_before("a USD 85", 6) == "$"
        assert currency_before("GBP75", 3) == "£"
        assert currency_before("US$85", 0) == "$"
        assert currency_before("HK$ 5", 0) == "$"
        # Capitals glued before a code make it no code.
        assert currency_before("XUSD 85", 5) is None
        assert currency_before("85", 0) is None

    def test_glued_c_is_a_cent_but_not_before_a_letter(self) -> None:
        """``85c`` is cents, ambiguous as any one-letter unit; ``5cl`` stays centilitres."""
        assert binding_of("It costs 85c.", 9, 11) == "?¢"
        assert unit_after("It holds 5cl.", 10) == "cl"


# from test_units_more.py
class TestPaise:
    """Paise are the rupee's cents: 99 paise is no ₹99."""

    @pytest.mark.parametrize(
        ("chunk", "answer", "expected"),
        [
            ("A stamp costs 99 paise.", "A stamp costs ₹99.", ("₹99",)),
            ("A stamp costs ₹99.", "A stamp costs 99 paise.", ("99",)),
            ("A stamp costs 1 paisa.", "A stamp costs ₹1.", ("₹1",)),
            ("A stamp costs 99 paise.", "A stamp costs 99 paise.", ()),
            # A cent of any currency is one unit, as 50 euro cents are 50 cents.
            ("It costs 99 cents.", "It costs 99 paise.", ()),
        ],
    )
    def test_paise(self, chunk: str, answer: str, expected: tuple[str, ...]) -> None:
        assert failing_spans(chunk, answer) == expected
