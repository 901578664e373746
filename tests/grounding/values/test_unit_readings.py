"""Units: currency minor units and codes, numbers in words, glued °F/°C, kelvin conversions."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grounding_verdicts import failing_spans
from relapse.grounding._values import units
from relapse.grounding._values.units import binding_of, currency_before, unit_after

_STAMP = "A first-class stamp costs 85 cents."
_FARE = "The bus fare is 75p."


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


class TestNumbersInWordsWithAUnit:
    @pytest.mark.parametrize(
        ("chunk", "answer", "expected"),
        [
            (_STAMP, "It costs eighty-five dollars.", ("eighty-five",)),
            ("A stamp costs 85 dollars.", "It costs eighty-five cents.", ("eighty-five",)),
            ("A stamp costs 85 dollars.", "It costs eighty-five dollars.", ()),
            ("The dose is 5 mg.", "The dose is five grams.", ("five",)),
            # No unit on one side: not compared.
            ("A stamp costs 85 dollars.", "It costs eighty-five.", ()),
            ("A stamp costs 85.", "It costs eighty-five dollars.", ()),
        ],
    )
    def test_a_number_in_words_has_its_unit_compared(
        self, chunk: str, answer: str, expected: tuple[str, ...]
    ) -> None:
        """A number in words with a unit is compared with the chunks' digits as digits are."""
        assert failing_spans(chunk, answer) == expected


class TestGluedTemperatureScale:
    @pytest.mark.parametrize(
        ("chunk", "answer", "expected"),
        [
            ("The liquid boils at 350 °C.", "It boils at 350F.", ("350",)),
            ("Preheat the oven to 350 °F.", "Preheat the oven to 350C.", ("350",)),
            ("Preheat the oven to 350 °F.", "Preheat the oven to 350F.", ()),
            ("The liquid boils at 350 °C.", "It boils at 350C.", ()),
            ("It is 350 degrees Fahrenheit.", "It is 350F.", ()),
        ],
    )
    def test_a_glued_capital_f_or_c_is_the_scale(
        self, chunk: str, answer: str, expected: tuple[str, ...]
    ) -> None:
        """``350F`` is 350 °F: it conflicts with 350 °C."""
        assert failing_spans(chunk, answer) == expected

    def test_only_glued_capitals_not_before_a_letter(self) -> None:
        """A spaced or small letter, or one a letter or digit continues, is no scale."""
        assert unit_after("350F.", 3) == "°F"
        assert unit_after("350C ", 3) == "°C"
        assert binding_of("350F", 0, 3) == "?°F"
        assert unit_after("Grade 5 C.", 7) is None
        assert unit_after("350f", 3) is None
        assert unit_after("350Fx", 3) is None
        assert unit_after("350F2", 3) is None
        assert unit_after("Type C", 4) is None


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


def _writings() -> st.SearchStrategy[str]:
    """Every unit spelling's writings (hypothesis reads the spellings' patterns)."""
    patterns = [spelling for *_, spellings in units._TABLE for spelling in spellings]
    # A spelling that starts by looking behind ("(?<=\d)C") cannot be drawn
    # alone: its letter is drawn, and the prefixes put digits or a space before it.
    drawable = [pattern for pattern in patterns if not pattern.startswith("(?<=")]
    return st.one_of(
        *(st.from_regex(pattern, fullmatch=True) for pattern in [*drawable, units._GENERIC]),
        st.sampled_from(["C", "F", "K", "c", "p"]),
    )


class TestUnitGuard:
    """The unnamed alternatives that guard the unit lookup match where the named ones do."""

    @settings(max_examples=1500, deadline=None)
    @given(
        before=st.sampled_from(["5", "5 ", "5\u00a0", "5\u202f", "5  ", "5\n", "5-", "x ", ""]),
        writing=_writings(),
        after=st.text(alphabet=list("ab1 .-/²³)"), max_size=3),
    )
    def test_same_matches_at_every_offset(self, before: str, writing: str, after: str) -> None:
        text = before + writing + after
        for offset in range(len(text) + 1):
            limit = offset + units.UNIT_WINDOW
            named = units._UNIT_AFTER.match(text, offset, limit)
            guard = units._MAY_BE_UNIT_AFTER.match(text, offset, limit)
            assert (guard and guard.span()) == (named and named.span()), (text, offset)

    @pytest.mark.parametrize(
        ("text", "end", "expected"),
        [
            ("40 hours per week", 2, "h"),
            ("27,345 stores.", 6, None),
            ("5 mg/dL", 1, "mg"),  # a row's spelling before the generic concentration
            ("5 ng/mL", 1, "ng/ml"),
            ("It was 350C.", 10, "°C"),
        ],
    )
    def test_the_lookup_still_names_the_unit(
        self, text: str, end: int, expected: str | None
    ) -> None:
        assert unit_after(text, end) == expected


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


class TestDegreesWithoutAScale:
    """``350 degrees`` is Celsius or Fahrenheit, never kelvin, which is not written in degrees."""

    @pytest.mark.parametrize(
        ("chunk", "answer", "expected"),
        [
            ("Bake it at 350 K.", "Bake it at 350 degrees.", ("350",)),
            ("Bake it at 350 degrees.", "Bake it at 350 K.", ("350",)),
            ("Bake it at 350°.", "Bake it at 350 kelvin.", ("350",)),
            ("Bake it at 350 °F.", "Bake it at 350 degrees.", ()),
            ("Bake it at 350 degrees.", "Bake it at 350 °C.", ()),
            ("Bake it at 350 degrees.", "Bake it at 350°.", ()),
            ("Bake it at 350.", "Bake it at 350 degrees.", ()),
            # An angle is degrees too: no length or percent is one.
            ("Turn it 90 degrees.", "Turn it 90 degrees.", ()),
            ("It is 90 km away.", "Turn it 90 degrees.", ("90",)),
            ("The oven was set to 220°.", "The oven was 220 percent.", ("220 percent",)),
            ("It was 220%.", "The oven was set to 220°.", ("220",)),
            # Written in any case.
            ("Bake it at 350 Degrees.", "Bake it at 350 K.", ("350",)),
            ("Bake it at 350 DEGREES.", "Bake it at 350 kelvin.", ("350",)),
            ("Bake at 350 Degrees Fahrenheit.", "Bake at 350 °C.", ("350",)),
            ("Bake at 350 DEGREES FAHRENHEIT.", "Bake at 350 °C.", ("350",)),
            ("Bake at 350 Degrees F.", "Bake at 350 °C.", ("350",)),
            ("Bake at 350 Degrees Fahrenheit.", "Bake at 350 °F.", ()),
            # A scale said is compared as before.
            ("Bake at 180 degrees Celsius.", "Bake at 180 degrees Fahrenheit.", ("180",)),
            # "deg" abbreviates degrees; "º" (the masculine ordinal) is typed
            # for "°", and also marks an ordinal ("1º"): ambiguous, never foreign.
            ("Bake at 350 deg.", "Bake at 350 km.", ("350",)),
            ("Bake at 350 °F.", "Bake at 350 deg.", ()),
            ("Bake at 350 deg F.", "Bake at 350 °C.", ("350",)),
            ("Bake at 350 deg. C.", "Bake at 350 °C.", ()),
            ("Bake at 350 K.", "Bake at 350º.", ("350",)),
            ("Bake at 350 °F.", "Bake at 350º.", ()),
            ("Bake at 350º.", "Bake at 350 kg.", ()),
        ],
    )
    def test_degrees(self, chunk: str, answer: str, expected: tuple[str, ...]) -> None:
        assert failing_spans(chunk, answer) == expected

    def test_the_lookup_names_the_unit(self) -> None:
        assert unit_after("It was 350 degrees.", 10) == "°"
        assert unit_after("It was 350°.", 10) == "°"
        assert unit_after("It was 350 degrees Celsius.", 10) == "°C"
        assert binding_of("It was 350 degrees.", 7, 10) == "°"
        assert binding_of("It was 350°.", 7, 10) == "°"


class TestUnitWordsInAnyCase:
    """A unit written as a word is read in capitals too: ``99 CENTS``, ``50 Pence``, ``5 MPH``."""

    @pytest.mark.parametrize(
        ("chunk", "answer", "expected"),
        [
            ("It costs 99 CENTS.", "It costs $99.", ("$99",)),
            ("It costs 99 CENTS.", "It costs 99 cents.", ()),
            ("It costs 50 Pence.", "It costs £50.", ("£50",)),
            ("It costs 99 Paise per litre.", "It costs ₹99.", ("₹99",)),
            ("It is 5 Miles away.", "It is 5 km away.", ("5",)),
            ("It is 5 Miles away.", "It is 5 miles away.", ()),
            ("It went 5 MPH.", "It went 5 km/h.", ("5",)),
            ("It takes 30 Minutes.", "It takes 30 kg.", ("30",)),
        ],
    )
    def test_any_case(self, chunk: str, answer: str, expected: tuple[str, ...]) -> None:
        assert failing_spans(chunk, answer) == expected

    @pytest.mark.parametrize(
        ("text", "end", "expected"),
        [
            ("It was 99 CENTS.", 9, "¢"),
            ("It was 5 Kilometres.", 8, "km"),
            ("It was 350 Degrees Celsius.", 10, "°C"),
            # Abbreviations of one or two letters keep their case: 5 MM is no mm.
            ("It was 5 MM.", 8, None),
            ("It was 5 KM.", 8, None),
            ("It was 5 IN.", 8, None),
        ],
    )
    def test_the_unit_read(self, text: str, end: int, expected: str | None) -> None:
        assert unit_after(text, end) == expected


class TestRupees:
    """``Rs 500`` and ``Rs. 500`` are rupees, as ``₹500`` and ``INR 500`` are."""

    @pytest.mark.parametrize(
        ("chunk", "answer", "expected"),
        [
            ("It costs Rs 500.", "It costs $500.", ("$500",)),
            ("It costs Rs. 500.", "It costs 500 km.", ("500",)),
            ("It costs 99 paise.", "It costs Rs 99.", ("99",)),
            ("It costs Rs 99.", "It costs ₹99.", ()),
            ("It costs INR 99.", "It costs Rs. 99.", ()),
        ],
    )
    def test_rupees(self, chunk: str, answer: str, expected: tuple[str, ...]) -> None:
        assert failing_spans(chunk, answer) == expected


class TestHyphenatedUnits:
    """``a 30-minute drive`` binds 30 to minutes, as ``30 minutes`` does."""

    @pytest.mark.parametrize(
        ("chunk", "answer", "expected"),
        [
            ("It is 30 km away.", "It is a 30-minute drive.", ("30",)),
            ("It takes 30 minutes.", "It is a 30-minute drive.", ()),
            ("It is a 30-minute drive.", "It takes 30 minutes.", ()),
            ("It is a 30-minute drive.", "It is 30 km away.", ("30",)),
            ("Cut at a 45-degree angle.", "It was 45 K.", ("45",)),
            ("They ran a 10-km race.", "They ran 10 miles.", ("10",)),
            ("A 10-year-old girl.", "She is 10 years old.", ()),
            ("It is a 24-Hour service.", "It runs 24 km.", ("24",)),
            # A hyphen before digits is a range or a token, no unit.
            ("Scores rose 10-15%.", "Scores rose 10-15%.", ()),
            ("The Boeing 737-800 flew.", "The Boeing 737-800 flew.", ()),
        ],
    )
    def test_hyphenated(self, chunk: str, answer: str, expected: tuple[str, ...]) -> None:
        assert failing_spans(chunk, answer) == expected

    def test_the_unit_read(self) -> None:
        assert unit_after("a 30-minute drive", 4) == "min"
        assert unit_after("a 30-Minute drive", 4) == "min"
        assert unit_after("pages 10-15", 8) is None
