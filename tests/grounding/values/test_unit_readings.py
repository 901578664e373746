"""
Units and bindings as values: the unit after a number, the currency before it, what it counts.

How the cases are made and where they came from: ``tests/grounding/README.md``.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grounding_verdicts import failing_spans, flagged_spans
from property_budget import examples
from relapse.grounding._index.unit_lookup import (
    AGREE,
    FOREIGN,
    UNRELATED,
    search_verdict,
    units_by_number,
    verdict_of,
)
from relapse.grounding._values import units
from relapse.grounding._values.keys import number_key
from relapse.grounding._values.units import (
    AMBIGUOUS,
    PEOPLE,
    REFERENCE,
    SCALE,
    binding_of,
    foreign,
    unit_after,
)


# from test_numbers.py
class TestUnits:
    def test_percent_sign_equals_percent_word(self) -> None:
        """``45.5%`` = ``45.5 percent`` = ``45.5 per cent``, both ways."""
        assert () == flagged_spans("Turnout was 45.5%.", "Turnout was 45.5 percent, 45.5 per cent.")
        assert () == flagged_spans("Turnout was 45.5 percent.", "Turnout was 45.5%.")

    def test_currency_symbol_equals_currency_word(self) -> None:
        """``$35,499`` = ``35499 dollars``, both ways."""
        assert () == flagged_spans("It costs $35,499.", "It costs 35499 dollars.")
        assert () == flagged_spans("It costs 35499 dollars.", "It costs $35,499.")

    def test_currency_codes_are_not_part_of_the_value(self) -> None:
        """``USD 35,499`` and ``35,499 USD`` have the value 35499; ``EUR`` is another unit."""
        assert () == flagged_spans("It costs $35,499.", "It costs USD 35,499, or 35,499 USD.")
        assert ("35,499",) == flagged_spans("It costs $35,499.", "It costs 35,499 EUR.")

    def test_currency_symbol_is_part_of_the_span(self) -> None:
        """An unsupported price is flagged with its currency symbol."""
        assert ("$36,000",) == flagged_spans("It costs $35,499.", "It costs $36,000.")

    def test_full_width_percent(self) -> None:
        """The full-width percent sign is a percent sign."""
        assert () == flagged_spans("Turnout was 45%.", "Turnout was 45％.")


#: Every writing of a percent after a number, as the answer or a chunk may write it.
_PERCENT_WRITINGS = [
    "%",
    "\u066a",
    "\uff05",
    " percent",
    " Percent",
    " PERCENT",
    " per cent",
    " Per Cent",
    " PER CENT",
    " per\u00a0cent",
    " pct",
    " Pct",
    " PCT",
]


# from test_bound.py (issue 21)
class TestBindings:
    @pytest.mark.parametrize(
        ("text", "binding"),
        [
            ("30 minutes", "min"),
            ("$30", "$"),
            ("30 people", PEOPLE),
            ("page 30", REFERENCE),
            ("May 30", REFERENCE),
            ("May 30, 2020", REFERENCE),
            ("In May 30 were hurt", None),  # a count: no date ends after it
            ("\u00a7 30", REFERENCE),
            ("30m", AMBIGUOUS + "m"),
            ("30 h", AMBIGUOUS + "h"),
            ("30%", "%"),
            ("$30%", AMBIGUOUS + "$"),  # a currency and a percent: either
            ("30", None),
            ("homepage 30", None),  # "page" inside a word is no reference
            ("30 cows", PEOPLE),  # a plural noun: what it counts
            ("30 decades", PEOPLE),
            ("30 kgs", None),  # a unit's abbreviation made plural: no noun
            ("30 was", None),
            ("30 bonus", None),  # singular: "-us", "-is", "-ss"
            ("30 basis", None),
            ("30 glass", None),
            ("30 Cities", None),  # a title's capital: not read
            ("page 30 cows", REFERENCE),  # the reference is read first
        ],
    )
    def test_by_hand(self, text: str, binding: str | None) -> None:
        start = text.index("30") - (1 if text.startswith("$") else 0)
        end = text.index("30") + 2
        assert binding == binding_of(text, start, end)

    @pytest.mark.parametrize(
        ("unit", "binding", "expected"),
        [
            ("min", REFERENCE, True),
            ("min", PEOPLE, True),
            ("min", "kg", True),
            ("min", None, False),
            ("min", "min", False),
            ("min", AMBIGUOUS + "m", False),
            ("lb", "£", False),  # mass and money are close: "pounds"
            ("km", "km/h", False),  # a length and a speed are close
            ("%", PEOPLE, False),
            (PEOPLE, "%", False),
            ("%", REFERENCE, True),  # "page 62" is no 62%
            ("%", "min", True),
            ("%", "$", True),
            ("%", SCALE, True),  # "62 million" is no 62%
            ("$", SCALE, False),  # "$3.8 billion" still grounds a bare "$3.8"
            ("min", SCALE, False),
            (PEOPLE, SCALE, True),  # "62 million users" is no 62 users
            (PEOPLE, "day", True),
            (PEOPLE, PEOPLE, False),
        ],
    )
    def test_foreign(self, unit: str, binding: str | None, expected: bool) -> None:
        assert expected is foreign(unit, binding)

    @pytest.mark.parametrize(
        ("texts", "verdict"),
        [
            (["See page 30."], FOREIGN),
            (["See page 30.", "Wait 30."], AGREE),
            (["The walk: 30m."], UNRELATED),
            (["Nothing here."], UNRELATED),  # no occurrence: nothing to say
        ],
    )
    def test_verdicts_both_ways(self, texts: list[str], verdict: str) -> None:
        key = number_key("30", "", 0)
        assert verdict == search_verdict(texts, key, "min")
        assert verdict == verdict_of(units_by_number(texts).get(key, frozenset()), "min")


# from test_bound.py (issue 21)
class TestPercentInEveryCase:
    """Each reader of a percent reads one list of its writings, in every case they are written."""

    @pytest.mark.parametrize("percent", _PERCENT_WRITINGS)
    def test_an_answer_percent_is_bound_to_percent(self, percent: str) -> None:
        answer = f"Turnout was 62{percent}."
        # A page, a speed: plainly no percent.
        assert failing_spans("See page 62.", answer) == (f"62{percent}",)
        assert failing_spans("The car reached 62 mph.", answer) == (f"62{percent}",)
        # A percent however written, a bare 62 and the ratio ground it.
        for chunk in ("Turnout was 62%.", "North | 62", "Turnout was 0.62."):
            assert failing_spans(chunk, answer) == (), chunk

    @pytest.mark.parametrize("percent", _PERCENT_WRITINGS)
    def test_a_chunk_percent_grounds_every_writing(self, percent: str) -> None:
        chunk = f"Turnout was 62{percent}."
        for answer in ("Turnout was 62%.", "Turnout was 62 per cent.", "Turnout was 62 PCT."):
            assert failing_spans(chunk, answer) == (), answer

    @pytest.mark.parametrize("percent", [" Percent", " PER CENT", " Pct"])
    def test_numbers_in_words_before_a_percent(self, percent: str) -> None:
        # "Fifty Percent" is a share; "minus five Percent" a signed change.
        assert failing_spans(f"Fifty{percent} of voters came.", "Half of voters came.") == ()
        assert failing_spans("It fell 5%.", f"It fell minus five{percent}.") == ("minus five",)


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


# from test_units_more.py
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


# from test_units_more.py
class TestUnitGuard:
    """The unnamed alternatives that guard the unit lookup match where the named ones do."""

    @settings(max_examples=examples(1500), deadline=None)
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


# from test_units_more.py
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


# from test_units_more.py
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


# from test_units_more.py
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


# from test_units_more.py
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
