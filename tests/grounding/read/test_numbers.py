"""FG001: numbers compared by value, in every format a real answer uses."""

from __future__ import annotations

import pytest

import relapse
from grounding_verdicts import failing_spans
from relapse.grounding import (
    GroundingCheck,
    default_grounding_check,
)
from relapse.grounding._values.keys import fraction_key


def flagged(
    chunks: str | list[str], answer: str, query: str = "", code: str = "FG001"
) -> tuple[str, ...]:
    """Return the spans the default check flags under ``code``."""
    texts = [chunks] if isinstance(chunks, str) else chunks
    result = default_grounding_check(query, texts, answer)
    return next((f.spans for f in result.findings if f.code == code), ())


class TestThousandsSeparators:
    @pytest.mark.parametrize(
        ("chunk", "answer"),
        [
            ("They hired 29,000 people.", "29 000"),
            ("They hired 29,000 people.", "29\u202f000"),
            ("They hired 29,000 people.", "29\u00a0000"),
            ("They hired 29 000 people.", "29,000"),
            ("They hired 29\u202f000 people.", "29000"),
            ("A total of 1,234,567.89 euros.", "1234567.89"),
        ],
    )
    def test_separators_are_one_number(self, chunk: str, answer: str) -> None:
        """Comma, space, no-break space and narrow no-break space group thousands."""
        # Bound to nothing: the euros of the last chunk are no people.
        assert () == flagged(chunk, f"The total was {answer}.")

    def test_comma_before_non_three_digit_groups_is_a_list(self) -> None:
        """``seeds 3,11,33`` is the list 3, 11, 33, so ``31,133 seeds`` is unsupported."""
        assert ("31,133",) == flagged("The seeds 3,11,33 sprouted.", "There are 31,133 seeds.")

    def test_list_items_are_supported_one_by_one(self) -> None:
        """Each item of ``3,11,33`` is a number of its own."""
        assert () == flagged("The seeds 3,11,33 sprouted.", "Seeds 3, 11 and 33 sprouted.")

    def test_space_grouped_number_may_be_two_numbers(self) -> None:
        """``in 19 100 cases`` is supported when the chunk has 19 and 100 apart."""
        assert () == flagged("Of 19 boxes, 100 were red.", "In 19 100 cases it held.")


class TestUnits:
    def test_percent_sign_equals_percent_word(self) -> None:
        """``45.5%`` = ``45.5 percent`` = ``45.5 per cent``, both ways."""
        assert () == flagged("Turnout was 45.5%.", "Turnout was 45.5 percent, 45.5 per cent.")
        assert () == flagged("Turnout was 45.5 percent.", "Turnout was 45.5%.")

    def test_currency_symbol_equals_currency_word(self) -> None:
        """``$35,499`` = ``35499 dollars``, both ways."""
        assert () == flagged("It costs $35,499.", "It costs 35499 dollars.")
        assert () == flagged("It costs 35499 dollars.", "It costs $35,499.")

    def test_currency_codes_are_not_part_of_the_value(self) -> None:
        """``USD 35,499`` and ``35,499 USD`` have the value 35499; ``EUR`` is another unit."""
        assert () == flagged("It costs $35,499.", "It costs USD 35,499, or 35,499 USD.")
        assert ("35,499",) == flagged("It costs $35,499.", "It costs 35,499 EUR.")

    def test_currency_symbol_is_part_of_the_span(self) -> None:
        """An unsupported price is flagged with its currency symbol."""
        assert ("$36,000",) == flagged("It costs $35,499.", "It costs $36,000.")

    def test_full_width_percent(self) -> None:
        """The full-width percent sign is a percent sign."""
        assert () == flagged("Turnout was 45%.", "Turnout was 45％.")


class TestScale:
    @pytest.mark.parametrize("answer", ["$3,800 million", "$3.8 billion", "$3,800,000,000"])
    def test_scale_words_are_part_of_the_value(self, answer: str) -> None:
        """``$3.8 billion`` = ``$3,800 million`` = 3.8e9."""
        assert () == flagged("Revenue reached $3.8 billion.", f"Revenue reached {answer}.")

    def test_wrong_scale_is_flagged_with_its_scale_word(self) -> None:
        """``2.1 billion`` against a chunk's ``2.1 million`` is FG001 ``2.1 billion``."""
        chunk = "The bank has 2.1 million customers."
        assert ("2.1 billion",) == flagged(chunk, "The bank has 2.1 billion customers.")

    @pytest.mark.parametrize(
        ("chunk", "answer"),
        [
            ("a $5m grant", "a 5 million dollar grant"),
            ("a 5bn deal", "a 5 billion deal"),
            ("a 10k run", "a 10,000 metre run"),
            ("a 2 trillion debt", "a 2,000,000,000,000 debt"),
        ],
    )
    def test_scale_abbreviations(self, chunk: str, answer: str) -> None:
        """``k``, ``bn`` and ``m`` after a currency symbol scale the number."""
        assert () == flagged(f"It was {chunk}.", f"It was {answer}.")

    def test_m_without_currency_is_a_unit(self) -> None:
        """``5m`` without a currency symbol is five metres, not five million."""
        assert ("5 million",) == flagged("The wall is 5m high.", "The wall is 5 million high.")

    def test_scaled_chunk_number_grounds_its_mantissa(self) -> None:
        """A chunk's ``3.8 billion`` also grounds a bare ``3.8``."""
        assert () == flagged("Revenue was $3.8 billion.", "Revenue was 3.8 (in billions).")


class TestDecimals:
    def test_decimal_point_is_significant(self) -> None:
        """``1.25%`` against a chunk's ``12.5%`` is FG001."""
        assert ("1.25%",) == flagged("Rates rose 12.5%.", "Rates rose 1.25%.")

    def test_different_number_is_flagged(self) -> None:
        """``85%`` against a chunk's ``87%`` is FG001."""
        assert ("85%",) == flagged("Approval was 87%.", "Approval was 85%.")

    def test_trailing_zero_decimals_are_the_same_value(self) -> None:
        """``3.50`` = ``3.5`` and ``1945.0`` = ``1945``."""
        assert () == flagged("It costs 3.5 euros.", "It costs 3.50 euros.")


class TestNumberWords:
    def test_word_number_is_a_claim(self) -> None:
        """``seventy people`` against a chunk that says ``77`` is FG001 ``seventy``."""
        assert ("seventy",) == flagged("The hall held 77 people.", "The hall held seventy people.")

    def test_chunk_words_ground_digits(self) -> None:
        """``Seventy years ago`` in a chunk grounds ``70 years``."""
        assert () == flagged("Seventy years ago the town was founded.", "It was 70 years ago.")

    def test_chunk_digits_ground_words(self) -> None:
        """A chunk's ``77`` grounds ``seventy-seven``."""
        assert () == flagged("The hall held 77 people.", "It held seventy-seven people.")

    @pytest.mark.parametrize(
        ("words", "digits"),
        [
            ("seventy-seven", "77"),
            ("seventy seven", "77"),
            ("twelve", "12"),
            ("a dozen", "12"),
            ("two hundred and twelve", "212"),
            ("three thousand five hundred", "3,500"),
            ("twelve hundred", "1,200"),
            ("forty million", "40,000,000"),
        ],
    )
    def test_compound_words_have_their_value(self, words: str, digits: str) -> None:
        """Compound number words are read as one number."""
        assert () == flagged(f"There were {digits} of them.", f"There were {words} of them.")

    def test_chunk_compound_words_ground_digits(self) -> None:
        """A chunk's ``two hundred and twelve`` grounds ``212``."""
        assert () == flagged("They built two hundred and twelve homes.", "They built 212 homes.")

    def test_bare_scale_word_is_not_a_number(self) -> None:
        """``hundred-year flood`` and ``million-dollar question`` count nothing."""
        assert () == flagged("A flood.", "The hundred-year flood, the million-dollar question.")

    def test_words_inside_other_words_are_not_numbers(self) -> None:
        """``often``, ``someone`` and ``canine`` hold no number."""
        assert () == flagged("A dog.", "Someone often sees a canine.")


class TestHedges:
    @pytest.mark.parametrize(
        "hedge",
        [
            "about",
            "around",
            "approximately",
            "roughly",
            "nearly",
            "almost",
            "over",
            "more than",
            "some",
            "~",
        ],
    )
    def test_hedged_number_rounds_to_a_chunk_number(self, hedge: str) -> None:
        """``about 1.2 million`` is supported by a chunk's ``1,234,567``."""
        chunk = "The city has 1,234,567 inhabitants."
        assert () == flagged(chunk, f"The city has {hedge} 1.2 million inhabitants.")

    def test_unhedged_rounded_number_is_flagged(self) -> None:
        """Unhedged ``1.2 million`` is not supported by ``1,234,567``."""
        chunk = "The city has 1,234,567 inhabitants."
        assert ("1.2 million",) == flagged(chunk, "The city has 1.2 million inhabitants.")

    def test_hedged_number_outside_the_rounding_is_flagged(self) -> None:
        """``about 1.3 million`` does not round from ``1,234,567``."""
        chunk = "The city has 1,234,567 inhabitants."
        assert ("1.3 million",) == flagged(chunk, "The city has about 1.3 million inhabitants.")

    def test_hedged_integer_precision_is_its_last_nonzero_digit(self) -> None:
        """``about 30`` covers 25 to 35; ``about 31`` covers 30.5 to 31.5."""
        assert () == flagged("It took 27 minutes.", "It took about 30 minutes.")
        assert ("31",) == flagged("It took 27 minutes.", "It took about 31 minutes.")

    def test_hedged_word_number(self) -> None:
        """``about seventy`` is supported by a chunk's ``72``."""
        assert () == flagged("It held 72 people.", "It held about seventy people.")


class TestQuestionNumbers:
    def test_question_number_is_supported(self) -> None:
        """A number the question states is not flagged."""
        query = "Is a 2006 Chevy Impala reliable at 150,000 miles?"
        answer = "A 2006 Chevy Impala at 150,000 miles can be reliable."
        assert () == flagged("Impalas are durable.", answer, query)
        assert () == flagged("Impalas are durable.", answer, query, code="FG002")

    def test_question_exemption_can_be_turned_off(self) -> None:
        """With ``exempt_question=False``, question numbers need chunk support."""
        check = GroundingCheck(exempt_question=False)
        result = check("What about 150,000 miles?", ["Impalas are durable."], "At 150,000 miles.")
        assert [("FG001", ("150,000",))] == [(f.code, f.spans) for f in result.findings]


class TestTokens:
    @pytest.mark.parametrize("token", ["COVID-19", "GPT-4", "ISO 9001", "B12", "H1N1", "v2.0.1"])
    def test_token_in_a_chunk_is_supported(self, token: str) -> None:
        """Tokens such as ``COVID-19`` are supported when a chunk holds them."""
        assert () == flagged(f"The report covers {token} in detail.", f"It covers {token}.")

    def test_other_token_is_flagged(self) -> None:
        """``GPT-5`` is not supported by a chunk's ``GPT-4`` and its 5 pages."""
        assert ("GPT-5",) == flagged("GPT-4 is described in 5 pages.", "GPT-5 is described.")

    def test_token_suffix_is_part_of_the_token(self) -> None:
        """``GPT-4o`` is not ``GPT-4``."""
        assert ("GPT-4o",) == flagged("GPT-4 is described.", "GPT-4o is described.")

    def test_version_strings(self) -> None:
        """``3.11.2`` is a version, supported only by the same version."""
        assert () == flagged("Python 3.11.2 was released.", "Version 3.11.2 is out.")
        assert ("3.11.3",) == flagged("Python 3.11.2 was released.", "Version 3.11.3 is out.")

    def test_ordinal_is_its_number(self) -> None:
        """``3rd`` is the ordinal 3: supported by a 3, flagged without one."""
        assert () == flagged("She came 3rd in the race.", "She finished 3rd.")
        assert () == flagged("Only 3 runners finished.", "She finished 3rd.")
        assert ("4th",) == flagged("Only 3 runners finished.", "She finished 4th.")

    def test_hyphenated_lowercase_prefix_is_no_token(self) -> None:
        """``mid-1990s`` is a decade, not a token."""
        assert () == flagged(
            "Sales peaked in the 1990s.", "Sales peaked in the mid-1990s.", code="FG002"
        )

    def test_dimensions(self) -> None:
        """``4x4s`` = ``4 by 4s`` = ``4 x 4``."""
        assert () == flagged("Cut two 4 by 4s to length.", "Cut two 4x4s, or 4 × 4 posts.")


class TestTrivialNumbers:
    def test_zero_one_two_are_not_flagged(self) -> None:
        """0, 1 and 2 claim too little to flag."""
        assert () == flagged("Nothing here.", "There are 0 risks, 1 option and 2 ways, or one.")

    def test_trivial_numbers_with_units_are_claims(self) -> None:
        """``2%`` and ``$1 billion`` are claims, not trivial numbers."""
        assert ("2%", "$1 billion") == flagged("Nothing here.", "It grew 2% to $1 billion.")

    def test_trivial_set_is_configurable(self) -> None:
        """``GroundingCheck(trivial_numbers=...)`` replaces the default set."""
        check = GroundingCheck(trivial_numbers=frozenset({0, 1, 2, 3}))
        assert check("", ["Nothing."], "There are 3 ways and 2 risks.").ok
        strict = GroundingCheck(trivial_numbers=frozenset())
        result = strict("", ["Nothing."], "There are 2 risks.")
        assert [("FG001", ("2",))] == [(f.code, f.spans) for f in result.findings]


class TestRanges:
    def test_range_needs_a_range_or_both_ends_on_their_own(self) -> None:
        """``10-15 minutes`` is not supported by ``8-10 minutes`` and ``15 minutes``."""
        chunk = "Cook for 8-10 minutes. Rest for 15 minutes."
        assert ("10-15",) == flagged(chunk, "Rest for 10-15 minutes.")

    def test_range_from_a_list_of_values(self) -> None:
        """``28% to 52%`` is supported by a chunk listing 28% and 52% apart."""
        chunk = "Monday: 28% chance of rain. Tuesday: 52% chance of rain."
        assert () == flagged(chunk, "The chance of rain ranges from 28% to 52%.")

    @pytest.mark.parametrize("answer", ["8-10", "8 – 10", "8 to 10", "between 8 and 10"])
    def test_range_spellings(self, answer: str) -> None:
        """Hyphen, en dash, ``to`` and ``between ... and`` make the same range."""
        assert () == flagged("Cook for 8-10 minutes.", f"Cook for {answer} minutes.")

    def test_range_of_trivial_numbers(self) -> None:
        """``1-2 minutes`` is a claim: a range measures something, even of small numbers."""
        assert ("1-2",) == flagged("Stir well.", "Stir for 1-2 minutes.")
        assert () == flagged("Stir for 1-2 minutes.", "Stir for 1-2 minutes.")

    @pytest.mark.parametrize(
        ("chunk", "answer"),
        [
            ("The ADA covers employers with four to fifteen employees.", "4 to 15 employees"),
            ("It takes three to four weeks.", "It takes 3-4 weeks."),
            ("Rest for five minutes, or 10 at most.", "Rest for 5-10 minutes."),
        ],
    )
    def test_range_ends_spelled_out_in_a_chunk(self, chunk: str, answer: str) -> None:
        """Each end of a range may be written in words in the chunk, or stated on its own."""
        assert () == flagged(chunk, answer)

    def test_range_end_not_spelled_out_is_flagged(self) -> None:
        """``3-5 weeks`` is not ``three to four weeks``: 5 is nowhere."""
        assert ("3-5",) == flagged("It takes three to four weeks.", "It takes 3-5 weeks.")


class TestFractions:
    @pytest.mark.parametrize(
        ("chunk", "answer"),
        [
            ("Add 3/4 cup of milk.", "Add 0.75 cup of milk."),
            ("Add 0.75 cup of milk.", "Add 3/4 cup of milk."),
            ("Add 1/8 teaspoon of salt.", "Add 0.125 teaspoon of salt."),
            ("Add 2 1/4 cups of flour.", "Add 2.25 cups of flour."),
            ("Add 2.25 cups of flour.", "Add 2 1/4 cups of flour."),
            ("Add 1 1/2 cups of flour.", "Add 1.5 cups of flour."),
            ("Add 1 1/3 cups of flour.", "Add 1 1/3 cups of flour."),
        ],
    )
    def test_fraction_equals_its_decimal(self, chunk: str, answer: str) -> None:
        """A proper fraction, alone or after a whole number, is its value in decimals."""
        assert () == flagged(chunk, answer)

    def test_other_mixed_number_is_flagged_whole(self) -> None:
        """``2 1/4`` against ``2 1/2`` is flagged as one number, span ``2 1/4``."""
        assert ("2 1/4",) == flagged("Add 2 1/2 cups of flour.", "Add 2 1/4 cups of flour.")

    def test_decimal_not_equal_to_the_fraction_is_flagged(self) -> None:
        """``2.5`` is not ``1 1/2`` (1.5)."""
        assert ("2.5",) == flagged("Add 1 1/2 cups of flour.", "Add 2.5 cups of flour.")

    def test_fraction_without_ending_decimals_has_no_decimal_value(self) -> None:
        """1/3 has no exact decimal: ``1.33`` is not ``1 1/3``."""
        assert ("1.33",) == flagged("Add 1 1/3 cups of flour.", "Add 1.33 cups of flour.")

    def test_improper_fraction_after_a_number_is_two_numbers(self) -> None:
        """``3 5/4`` is no mixed number: 3 and the pair 5/4, each checked."""
        assert ("3",) == flagged("The ratio was 5/4.", "In 3 5/4 of cases.")

    @pytest.mark.parametrize(
        ("whole", "numerator", "denominator", "key"),
        [
            (0, 3, 4, ("n", "75", -2)),
            (0, 1, 8, ("n", "125", -3)),
            (2, 1, 4, ("n", "225", -2)),
            (0, 1, 64, ("n", "15625", -6)),
            (0, 1, 3, None),
            (0, 1, 128, None),  # 0.0078125: seven places
        ],
    )
    def test_fraction_keys(
        self, whole: int, numerator: int, denominator: int, key: tuple[object, ...] | None
    ) -> None:
        """The key of a fraction is the key of its decimals, when they end within six places."""
        assert key == fraction_key(whole, numerator, denominator)

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
        assert () == flagged(chunk, answer)

    def test_currency_conversions_are_not_computed(self) -> None:
        """Exchange rates change: ``($13)`` after a supported ``£10`` must be in the chunks."""
        assert ("$13",) == flagged("It costs £10.", "It costs £10 ($13).")

    def test_parenthesised_number_without_unit_is_a_claim(self) -> None:
        """``5 people (3 adults)`` is no conversion: 3 is a claim of its own."""
        assert ("3",) == flagged("5 people came.", "5 people (3 adults) came.")

    def test_unit_conversion_in_parentheses(self) -> None:
        """``58 degrees Fahrenheit (15 degrees Celsius)`` converts a supported number."""
        chunk = "September averages 58 degrees."
        answer = "September averages 58 degrees Fahrenheit (15 degrees Celsius)."
        assert () == flagged(chunk, answer)
        # 60 °F is 15.6 °C: the conversion is right, the number it converts is not.
        assert ("60",) == flagged(chunk, "It averages 60 degrees Fahrenheit (15 degrees Celsius).")


class TestOtherScripts:
    @pytest.mark.parametrize("digits", ["１２３", "١٢٣", "۱۲۳", "१२३"])
    def test_digits_compare_by_value(self, digits: str) -> None:
        """Full-width, Arabic-Indic, Persian and Devanagari digits compare by value."""
        assert () == flagged("There are 123 rooms.", f"There are {digits} rooms.")
        assert () == flagged(f"There are {digits} rooms.", "There are 123 rooms.")

    def test_other_script_number_is_flagged_as_written(self) -> None:
        """An unsupported full-width number is flagged exactly as written."""
        assert ("１２４",) == flagged("There are 123 rooms.", "There are １２４ rooms.")


class TestHugeNumbers:
    def test_thousands_of_digits_compare_exactly(self) -> None:
        """A 5,000-digit number is compared by value, without int or float limits."""
        number = "7" * 5000
        assert () == flagged(f"The key is {number}.", f"The key is {number}.")
        other = "7" * 4999 + "8"
        assert (other,) == flagged(f"The key is {number}.", f"The key is {other}.")

    def test_huge_hedged_number_does_not_overflow(self) -> None:
        """``about 1`` followed by 400 zeros neither overflows nor raises."""
        number = "1" + "0" * 400
        assert () == flagged(f"It is {number}.", f"It is about {number}.")
        assert ("2" + "0" * 400,) == flagged(f"It is {number}.", f"It is about {'2' + '0' * 400}.")


# The kinds of issue 12.
class TestSign:
    @pytest.mark.parametrize(
        ("chunk", "answer", "span"),
        [
            ("The low was -5 °C.", "The low was 5 °C.", "5"),
            ("The low was 5 °C.", "The low was -5 °C.", "-5"),
            ("The low was \u22125 °C.", "The low was 5 °C.", "5"),
            ("The low was 5 °C.", "The low was \u22125 °C.", "\u22125"),
            ("The balance was 40 dollars.", "The balance was -$40.", "-$40"),
        ],
    )
    def test_a_signed_number_is_not_its_absolute_value(
        self, chunk: str, answer: str, span: str
    ) -> None:
        """``-5`` and ``5`` are different values, either way, with either minus glyph."""
        assert (span,) == failing_spans(chunk, answer)

    @pytest.mark.parametrize(
        ("chunk", "answer"),
        [
            ("The low was -5 °C.", "The low was \u22125 °C."),
            ("Lows of (-12) were seen.", "Lows reached -12."),
            ("It ranges from 10-15 minutes.", "It takes 10-15 minutes."),
            ("The GPT-4 model.", "GPT-4 is a model."),
            ("It lasted from 1939 -1945.", "It lasted from 1939 to 1945."),
        ],
    )
    def test_same_sign_or_no_sign(self, chunk: str, answer: str) -> None:
        """Both minus glyphs are one sign; a hyphen after a number or a word is no sign."""
        assert () == failing_spans(chunk, answer)


# The kinds of issue 12.
class TestDirectionalHedges:
    @pytest.mark.parametrize(
        ("chunk", "answer", "expected"),
        [
            ("About 150 came.", "At least 200 came.", ("200",)),
            ("About 250 came.", "At least 200 came.", ()),
            ("About 200 came.", "At least 200 came.", ()),
            ("It had 1,900 seats.", "It had more than 2,000 seats.", ("2,000",)),
            ("It had 2,400 seats.", "It had more than 2,000 seats.", ()),
            ("It weighs 46 kg.", "It weighs over 50 kg.", ("50",)),
            ("It weighs 52 kg.", "It weighs over 50 kg.", ()),
            ("It had 150 staff.", "It had fewer than 100 staff.", ("100",)),
            ("It had 80 staff.", "It had fewer than 100 staff.", ()),
            ("It takes 25 minutes.", "It takes under 20 minutes.", ("20",)),
            ("It takes 15 minutes.", "It takes under 20 minutes.", ()),
            ("It holds 35 people.", "It holds up to 30 people.", ("30",)),
            ("It holds 28 people.", "It holds up to 30 people.", ()),
            ("It holds 35 people.", "It holds no more than 30 people.", ("30",)),
            # "about" keeps rounding: about 30 is 25 to 35.
            ("It holds 34 people.", "It holds about 30 people.", ()),
            ("It holds 36 people.", "It holds about 30 people.", ("30",)),
            ("It holds 26 people.", "It holds around 30 people.", ()),
        ],
    )
    def test_bounds_need_a_value_on_their_side(
        self, chunk: str, answer: str, expected: tuple[str, ...]
    ) -> None:
        """A lower bound needs a chunk value at or above it, an upper bound one at or below."""
        assert expected == failing_spans(chunk, answer)


# The kinds of issue 12.
class TestSmallNumbersThatMeasure:
    @pytest.mark.parametrize(
        ("answer", "span"),
        [
            ("Plant them 1-2 inches deep.", "1-2"),
            ("The level is 0-1 ng/mL.", "0-1"),
            ("Walk 1 kilometer.", "1"),
            ("Add 2 cups of flour.", "2"),
            ("It rose 2%.", "2%"),
            ("Walk one kilometer.", "one"),
        ],
    )
    def test_with_a_unit_or_in_a_range_they_are_claims(self, answer: str, span: str) -> None:
        """0, 1 and 2 with a unit or in a range measure something: FG001 when unsupported."""
        assert (span,) == failing_spans("Nothing here.", answer)

    @pytest.mark.parametrize(
        "answer", ["It is 1 of the best.", "There are 2 ways.", "One said no."]
    )
    def test_bare_they_are_trivial(self, answer: str) -> None:
        """Written bare, they still claim too little to flag."""
        assert () == failing_spans("Nothing here.", answer)


# The kinds of issue 12.
class TestFormats:
    @pytest.mark.parametrize(
        ("chunk", "answer", "expected"),
        [
            # Decimal comma: no thousands group can follow it.
            ("The rate is 1.5 %.", "The rate is 1,5 %.", ()),
            ("The rate is 1,5 %.", "The rate is 1.5%.", ()),
            ("The rate is 15 %.", "The rate is 1,5 %.", ("1,5 %",)),
            ("Keep it ≤ 1,5.", "Keep it under 1.5.", ()),
            ("Keep it at 0,25 mm.", "Keep it at 0.25 mm.", ()),
            ("It is 1,500 m.", "It is 1.5 m.", ("1.5",)),
            # Leading-point decimals.
            ("The dose is 0.5 mg.", "The dose is .5 mg.", ()),
            ("The dose is .5 mg.", "The dose is 0.5 mg.", ()),
            ("The dose is 5 mg.", "The dose is .5 mg.", (".5",)),
            ("The dose is .25 mg.", "The dose is 25 mg.", ("25",)),
            # Comma lists whose groups are not all three digits.
            ("Seeds: 8,22,443.", "There were 22 and 443 seeds.", ()),
            ("Seeds: 8,22,443.", "There were 22,443 seeds.", ("22,443",)),
            ("Seeds: 8,22,443.", "There were 8 seeds.", ()),
            # A list's items are no one number (issue 38: 822,443 was fused from them).
            ("Seeds: 8,22,443.", "There were 822,443 seeds.", ("822,443",)),
            ("Seeds: 8,22,443.", "There were 822443 seeds.", ("822443",)),
            ("Seeds: 12,34,567.", "There were 1,234,567 seeds.", ("1,234,567",)),
            # The same writing copied, or the items apart, are the chunk's.
            ("Seeds: 8,22,443.", "Seeds: 8,22,443.", ()),
            ("Seeds: 8,22,443.", "There were 8, 22 and 443 seeds.", ()),
            # Written in Indian grouping after a rupee, it is one number.
            ("It cost \u20b98,22,443.", "It cost 822,443 rupees.", ()),
            ("It cost Rs. 12,34,567.", "It cost \u20b91,234,567.", ()),
            ("It cost INR 12,34,567.", "It cost \u20b91,234,568.", ("\u20b91,234,568",)),
            # An answer's Indian grouping reads either way.
            ("It cost 822,443.", "It cost 8,22,443.", ()),
            ("It has 1,234,567 people.", "It has 1,234,567 people.", ()),
        ],
    )
    def test_decimal_commas_points_and_lists(
        self, chunk: str, answer: str, expected: tuple[str, ...]
    ) -> None:
        """``1,5`` is 1.5, ``.5`` is 0.5, and ``8,22,443`` is 8, 22 and 443."""
        assert expected == failing_spans(chunk, answer)

    @pytest.mark.parametrize(
        "answer",
        [
            'He said \u201cthe plan was rejected" by all.',
            'He said "the plan was rejected\u201d by all.',
        ],
    )
    def test_mismatched_quote_glyphs_open_and_close_a_quotation(self, answer: str) -> None:
        """A curly opener closed by a straight quote (or the reverse) is a quotation to check."""
        assert ("the plan was rejected",) == failing_spans("The plan was approved.", answer)
        assert () == failing_spans("Then the plan was rejected by all.", answer)

    @pytest.mark.parametrize(
        ("chunk", "answer", "expected"),
        [
            ("Add 3.5 cups.", "Add 3½ cups.", ()),
            ("Add 3 1/2 cups.", "Add 3 ½ cups.", ()),
            ("Add 1.5 cups.", "Add 1 ½ cups.", ()),
            ("Add 0.75 cup.", "Add ¾ cup.", ()),
            ("Add 3/4 cup.", "Add ¾ cup.", ()),
            ("Add 0.5 cup.", "Add ¾ cup.", ("¾",)),
            ("Add 2.5 cups.", "Add 3½ cups.", ("3½",)),
            ("Add ½ cup.", "Add 0.5 cup.", ()),
            ("Add 1\u20442 cup.", "Add 0.5 cup.", ()),
        ],
    )
    def test_vulgar_fractions(self, chunk: str, answer: str, expected: tuple[str, ...]) -> None:
        """``½``, ``¾``, ``3½`` and ``1 ½`` are the numbers they show."""
        assert expected == failing_spans(chunk, answer)

    @pytest.mark.parametrize(
        ("chunk", "answer", "expected"),
        [
            ("There are 10⁶ cells.", "There are 10⁹ cells.", ("10⁹",)),
            ("There are 10⁹ cells.", "There are 10⁹ cells.", ()),
            ("There are 1,000,000,000 cells.", "There are 10⁹ cells.", ()),
            ("There are 10⁹ cells.", "There are 1 billion cells.", ()),
            ("Light moves at 3 × 10⁸ m/s.", "Light moves at 300,000,000 m/s.", ()),
            ("It is 2.5·10⁻³ m.", "It is 0.0025 m.", ()),
            ("It is 2.5·10⁻³ m.", "It is 0.025 m.", ("0.025",)),
        ],
    )
    def test_superscript_exponents(
        self, chunk: str, answer: str, expected: tuple[str, ...]
    ) -> None:
        """``10⁹`` is a billion, not ten; ``3 × 10⁸`` is 300,000,000."""
        assert expected == failing_spans(chunk, answer)

    @pytest.mark.parametrize(
        ("chunk", "answer", "expected"),
        [
            # The sign of the exponent is part of the value.
            (
                "The concentration was 4.2 × 10^-3 mol/L.",
                "It was 4.2 × 10^3 mol/L.",
                ("4.2 × 10^3",),
            ),
            ("The concentration was 4.2 × 10^-3 mol/L.", "It was 4.2 × 10^-3 mol/L.", ()),
            ("The concentration was 4.2 × 10^-3 mol/L.", "It was 0.0042 mol/L.", ()),
            ("The rate was 10^-5 per hour.", "The rate was 10^5 per hour.", ("10^5",)),
            ("The rate was 10^5 per hour.", "The rate was 10^-5 per hour.", ("10^-5",)),
            ("The rate was 10^-5 per hour.", "The rate was 0.00001 per hour.", ()),
            # The value, whatever the writing.
            ("The sample contained 2.5 million cells.", "It contained 2.5 × 10^6 cells.", ()),
            ("The sample contained 2,500,000 cells.", "It contained 2.5 x 10^6 cells.", ()),
            ("The sample contained 2.5 million cells.", "It contained 2.5 * 10^6 cells.", ()),
            ("The sample contained 2.5 million cells.", "It contained 25 × 10^5 cells.", ()),
            ("The sample contained 2.5 million cells.", "It contained 2.5 X 10^6 cells.", ()),
            ("The sample contained 2.5 million cells.", "It contained 2.5×10^6 cells.", ()),
            (
                "The sample contained 2.5 million cells.",
                "It contained 2.5 × 10^7 cells.",
                ("2.5 × 10^7",),
            ),
            ("The sample contained 10^9 cells.", "It contained 1 billion cells.", ()),
            ("The sample contained 10^9 cells.", "It contained 1 million cells.", ("1 million",)),
            ("The sample contained 1 billion cells.", "It contained 10^9 cells.", ()),
            ("Avogadro's number is 6.022 × 10²³.", "It is 6.022 × 10^23.", ()),
            ("Avogadro's number is 6.022 × 10^23.", "It is 6.022 × 10²³.", ()),
            ("Avogadro's number is 6.022 × 10^23.", "It is 6.022 × 10^22.", ("6.022 × 10^22",)),
            ("It carried 300 million photons.", "It carried 3 x 10^8 photons.", ()),
            ("It carried 3 x 10^8 photons.", "It carried 300 million photons.", ()),
            ("It carried 3e8 photons.", "It carried 3 x 10^8 photons.", ()),
            ("It carried 3 x 10^8 photons.", "It carried 3e8 photons.", ()),
            ("The level was 0.0042.", "The level was 4.2 x 10^-3.", ()),
            ("The level was 4.2 x 10^-3.", "The level was 0.0042.", ()),
            ("The level was 0.042.", "The level was 4.2 x 10^-3.", ("4.2 x 10^-3",)),
            ("It was 1,000 units.", "It was 10^3 units.", ()),
            # The minus sign U+2212, a plus, parentheses and braces.
            ("The level was 0.001.", "The level was 10^\u22123.", ()),
            ("The level was 0.001.", "The level was 10^(-3).", ()),
            ("The level was 0.001.", "The level was 10^{-3}.", ()),
            ("The level was 0.001.", "The level was 10^(\u22123).", ()),
            ("The level was 1,000.", "The level was 10^(+3).", ()),
            ("The level was 1,000.", "The level was 10^(-3).", ("10^(-3)",)),
            ("The level was 0.001.", "The level was 10^3.", ("10^3",)),
        ],
    )
    def test_caret_exponents(self, chunk: str, answer: str, expected: tuple[str, ...]) -> None:
        """``10^6`` is a million, ``4.2 × 10^-3`` is 0.0042: the caret is a superscript."""
        assert expected == failing_spans(chunk, answer)

    @pytest.mark.parametrize(
        ("chunk", "answer", "expected"),
        [
            # Only 10 is a base: 2^10 is the numbers 2 and 10, not 1024.
            ("There were 1024 items.", "There were 2^10 items.", ("10",)),
            ("It took 2 to 10 days.", "It took 2^10 days.", ()),
            ("The value is x^2 + 5.", "The value is x^2 + 5.", ()),
            # Beyond 10^100 (or with more than three exponent digits), as written.
            ("The value is 10^99999.", "The value is 10^99999.", ()),
            ("The value is 10^99999.", "The value is 10^99998.", ("99998",)),
            ("The value is 10^101.", "The value is 10^101.", ()),
            # 10^3.5 is no power the check computes: 10 and 3.5.
            ("It was 10 or 3.5.", "It was 10^3.5.", ()),
            ("It was 1,000.", "It was 10^3.5.", ("10", "3.5")),
        ],
    )
    def test_caret_that_is_no_power_of_ten(
        self, chunk: str, answer: str, expected: tuple[str, ...]
    ) -> None:
        """A caret after anything but 10, or an exponent beyond 100, is read as written."""
        assert expected == failing_spans(chunk, answer)

    @pytest.mark.parametrize(
        "invisible", ["\u200b", "\u2060", "\u00ad", "\ufeff", "\u200d", "\u200c"]
    )
    def test_invisible_characters_inside_numbers(self, invisible: str) -> None:
        """``12<invisible>500`` is 12500, in an answer and in a chunk; its span is as written."""
        answer = f"It has 12{invisible}500 members."
        assert () == failing_spans("It has 12,500 members.", answer)
        assert (f"12{invisible}500",) == failing_spans("It has 12 teams and 500 members.", answer)
        assert () == failing_spans(f"It has 12{invisible}500 members.", "It has 12,500 members.")
        # The span is a substring of the answer, with its offsets.
        result = default_grounding_check("", ["Nothing."], answer)
        (finding,) = result.findings
        ((start, end),) = finding.offsets
        assert answer[start:end] == f"12{invisible}500"


class TestInlineEnumerations:
    @pytest.mark.parametrize(
        "answer",
        [
            "Causes include 1. hormones 2. genes 3. diet 4. sun exposure.",
            "1) Use a towel. 2) Use a hair dryer. 3) Comb it.",
        ],
    )
    def test_counting_markers_are_not_claims(self, answer: str) -> None:
        """Markers that count up from 1 on one line order the answer; no FG001."""
        chunks = ["Hormones, genes, diet and sun exposure. Use a towel, a hair dryer, a comb."]
        assert relapse.default_grounding_check("why", chunks, answer).ok

    @pytest.mark.parametrize(
        ("answer", "span"),
        [("It has 4. Then it stops.", "4"), ("Steps 1. towel 2. dryer and 3 hours rest.", "3")],
    )
    def test_a_number_that_does_not_continue_the_count_is_a_claim(
        self, answer: str, span: str
    ) -> None:
        """Without the previous marker, or without the marker shape, the number is checked."""
        result = relapse.default_grounding_check("q", ["Use a towel and a dryer."], answer)
        assert [("FG001", (span,))] == [(f.code, f.spans) for f in result.findings]
