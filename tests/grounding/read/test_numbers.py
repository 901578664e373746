"""
Numbers in digits read by value: separators, decimals, scales, signs, exponents, scripts, tokens.

How the cases are made and where they came from: ``tests/grounding/README.md``.
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from grounding_verdicts import PASSES, failing_spans, fg001, fg002, flagged, flagged_spans
from property_budget import examples
from relapse.grounding import default_grounding_check


# from test_numbers.py
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
        assert () == flagged_spans(chunk, f"The total was {answer}.")

    def test_comma_before_non_three_digit_groups_is_a_list(self) -> None:
        """``seeds 3,11,33`` is the list 3, 11, 33, so ``31,133 seeds`` is unsupported."""
        assert ("31,133",) == flagged_spans(
            "The seeds 3,11,33 sprouted.", "There are 31,133 seeds."
        )

    def test_list_items_are_supported_one_by_one(self) -> None:
        """Each item of ``3,11,33`` is a number of its own."""
        assert () == flagged_spans("The seeds 3,11,33 sprouted.", "Seeds 3, 11 and 33 sprouted.")

    def test_space_grouped_number_may_be_two_numbers(self) -> None:
        """``in 19 100 cases`` is supported when the chunk has 19 and 100 apart."""
        assert () == flagged_spans("Of 19 boxes, 100 were red.", "In 19 100 cases it held.")


# from test_numbers.py
class TestScale:
    @pytest.mark.parametrize("answer", ["$3,800 million", "$3.8 billion", "$3,800,000,000"])
    def test_scale_words_are_part_of_the_value(self, answer: str) -> None:
        """``$3.8 billion`` = ``$3,800 million`` = 3.8e9."""
        assert () == flagged_spans("Revenue reached $3.8 billion.", f"Revenue reached {answer}.")

    def test_wrong_scale_is_flagged_with_its_scale_word(self) -> None:
        """``2.1 billion`` against a chunk's ``2.1 million`` is FG001 ``2.1 billion``."""
        chunk = "The bank has 2.1 million customers."
        assert ("2.1 billion",) == flagged_spans(chunk, "The bank has 2.1 billion customers.")

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
        assert () == flagged_spans(f"It was {chunk}.", f"It was {answer}.")

    def test_m_without_currency_is_a_unit(self) -> None:
        """``5m`` without a currency symbol is five metres, not five million."""
        assert ("5 million",) == flagged_spans(
            "The wall is 5m high.", "The wall is 5 million high."
        )

    def test_scaled_chunk_number_grounds_its_mantissa(self) -> None:
        """A chunk's ``3.8 billion`` also grounds a bare ``3.8``."""
        assert () == flagged_spans("Revenue was $3.8 billion.", "Revenue was 3.8 (in billions).")


# from test_numbers.py
class TestDecimals:
    def test_decimal_point_is_significant(self) -> None:
        """``1.25%`` against a chunk's ``12.5%`` is FG001."""
        assert ("1.25%",) == flagged_spans("Rates rose 12.5%.", "Rates rose 1.25%.")

    def test_different_number_is_flagged(self) -> None:
        """``85%`` against a chunk's ``87%`` is FG001."""
        assert ("85%",) == flagged_spans("Approval was 87%.", "Approval was 85%.")

    def test_trailing_zero_decimals_are_the_same_value(self) -> None:
        """``3.50`` = ``3.5`` and ``1945.0`` = ``1945``."""
        assert () == flagged_spans("It costs 3.5 euros.", "It costs 3.50 euros.")


# from test_numbers.py
class TestTokens:
    @pytest.mark.parametrize("token", ["COVID-19", "GPT-4", "ISO 9001", "B12", "H1N1", "v2.0.1"])
    def test_token_in_a_chunk_is_supported(self, token: str) -> None:
        """Tokens such as ``COVID-19`` are supported when a chunk holds them."""
        assert () == flagged_spans(f"The report covers {token} in detail.", f"It covers {token}.")

    def test_other_token_is_flagged(self) -> None:
        """``GPT-5`` is not supported by a chunk's ``GPT-4`` and its 5 pages."""
        assert ("GPT-5",) == flagged_spans("GPT-4 is described in 5 pages.", "GPT-5 is described.")

    def test_token_suffix_is_part_of_the_token(self) -> None:
        """``GPT-4o`` is not ``GPT-4``."""
        assert ("GPT-4o",) == flagged_spans("GPT-4 is described.", "GPT-4o is described.")

    def test_version_strings(self) -> None:
        """``3.11.2`` is a version, supported only by the same version."""
        assert () == flagged_spans("Python 3.11.2 was released.", "Version 3.11.2 is out.")
        assert ("3.11.3",) == flagged_spans("Python 3.11.2 was released.", "Version 3.11.3 is out.")

    def test_ordinal_is_its_number(self) -> None:
        """``3rd`` is the ordinal 3: supported by a 3, flagged without one."""
        assert () == flagged_spans("She came 3rd in the race.", "She finished 3rd.")
        assert () == flagged_spans("Only 3 runners finished.", "She finished 3rd.")
        assert ("4th",) == flagged_spans("Only 3 runners finished.", "She finished 4th.")

    def test_hyphenated_lowercase_prefix_is_no_token(self) -> None:
        """``mid-1990s`` is a decade, not a token."""
        assert () == flagged_spans(
            "Sales peaked in the 1990s.", "Sales peaked in the mid-1990s.", code="FG002"
        )

    def test_dimensions(self) -> None:
        """``4x4s`` = ``4 by 4s`` = ``4 x 4``."""
        assert () == flagged_spans("Cut two 4 by 4s to length.", "Cut two 4x4s, or 4 × 4 posts.")


# from test_numbers.py
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
        assert () == flagged_spans(chunk, answer)

    def test_other_mixed_number_is_flagged_whole(self) -> None:
        """``2 1/4`` against ``2 1/2`` is flagged as one number, span ``2 1/4``."""
        assert ("2 1/4",) == flagged_spans("Add 2 1/2 cups of flour.", "Add 2 1/4 cups of flour.")

    def test_decimal_not_equal_to_the_fraction_is_flagged(self) -> None:
        """``2.5`` is not ``1 1/2`` (1.5)."""
        assert ("2.5",) == flagged_spans("Add 1 1/2 cups of flour.", "Add 2.5 cups of flour.")

    def test_fraction_without_ending_decimals_has_no_decimal_value(self) -> None:
        """1/3 has no exact decimal: ``1.33`` is not ``1 1/3``."""
        assert ("1.33",) == flagged_spans("Add 1 1/3 cups of flour.", "Add 1.33 cups of flour.")

    def test_improper_fraction_after_a_number_is_two_numbers(self) -> None:
        """``3 5/4`` is no mixed number: 3 and the pair 5/4, each checked."""
        assert ("3",) == flagged_spans("The ratio was 5/4.", "In 3 5/4 of cases.")


# from test_numbers.py
class TestOtherScripts:
    @pytest.mark.parametrize("digits", ["１２３", "١٢٣", "۱۲۳", "१२३"])
    def test_digits_compare_by_value(self, digits: str) -> None:
        """Full-width, Arabic-Indic, Persian and Devanagari digits compare by value."""
        assert () == flagged_spans("There are 123 rooms.", f"There are {digits} rooms.")
        assert () == flagged_spans(f"There are {digits} rooms.", "There are 123 rooms.")

    def test_other_script_number_is_flagged_as_written(self) -> None:
        """An unsupported full-width number is flagged exactly as written."""
        assert ("１２４",) == flagged_spans("There are 123 rooms.", "There are １２４ rooms.")


# from test_numbers.py
class TestHugeNumbers:
    def test_thousands_of_digits_compare_exactly(self) -> None:
        """A 5,000-digit number is compared by value, without int or float limits."""
        number = "7" * 5000
        assert () == flagged_spans(f"The key is {number}.", f"The key is {number}.")
        other = "7" * 4999 + "8"
        assert (other,) == flagged_spans(f"The key is {number}.", f"The key is {other}.")

    def test_huge_hedged_number_does_not_overflow(self) -> None:
        """``about 1`` followed by 400 zeros neither overflows nor raises."""
        number = "1" + "0" * 400
        assert () == flagged_spans(f"It is {number}.", f"It is about {number}.")
        assert ("2" + "0" * 400,) == flagged_spans(
            f"It is {number}.", f"It is about {'2' + '0' * 400}."
        )


# from test_numbers.py
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


# from test_numbers.py
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


# from test_quantities.py (issue 21)
class TestSigns:
    @pytest.mark.parametrize(
        ("answer", "chunk", "expected"),
        [
            ("It was \u20135 \u00b0C at night.", "It was 5 \u00b0C at night.", fg001("\u20135")),
            ("It was minus 5 degrees.", "It was 5 \u00b0C.", fg001("minus 5")),
            ("It was negative 12 degrees.", "It was 12 \u00b0C.", fg001("negative 12")),
            ("It was \u20135 \u00b0C at night.", "It was -5 \u00b0C at night.", PASSES),
            ("It was minus 5 degrees.", "It was \u22125 \u00b0C.", PASSES),
            ("It was -5 \u00b0C.", "It was minus 5 degrees Celsius.", PASSES),
            # An en dash between numbers is a range, and "minus" between them arithmetic.
            ("It lasts 10\u201315 minutes.", "It lasts 10-15 minutes.", PASSES),
            ("Then 12 minus 5 is 7.", "Take 12 and 5, which leaves 7.", PASSES),
        ],
    )
    def test_minus_signs(self, answer: str, chunk: str, expected: object) -> None:
        assert flagged(chunk, answer) == expected

    @pytest.mark.parametrize("minus", ["-", "\u2013", "\u2212"])
    def test_a_minus_after_only_spaces_at_the_start_is_a_sign(self, minus: str) -> None:
        """
        `` -3`` opens its text as ``-3`` does: minus 3, in an answer and in
        any chunk, first or not (each chunk reads as a text of its own).
        """
        answer = f" {minus}3 \u00b0C"
        assert flagged("It was 3 \u00b0C.", answer) == fg001(f"{minus}3")
        assert flagged("It was -3 \u00b0C.", answer) == PASSES
        # Copied from the second chunk: found as minus 3 there too.
        verdict = default_grounding_check("", ["Cold.", answer], answer)
        assert () == verdict.findings
        assert fg001(f"{minus}3") == tuple(
            (f.code, f.spans)
            for f in default_grounding_check("", ["Cold.", " 3 \u00b0C"], answer).findings
        )


# from test_quantities.py (issue 21)
class TestExponents:
    @pytest.mark.parametrize(
        ("answer", "chunk", "expected"),
        [
            ("It has 1e6 cells.", "It has 1,000,000 cells.", PASSES),
            ("It has 2.5E-3 mol.", "It has 0.0025 mol.", PASSES),
            ("It has 1,000,000 cells.", "It has 1e6 cells.", PASSES),
            ("It has 1e6 cells.", "It has 1,000 cells.", fg001("1e6")),
        ],
    )
    def test_e_notation(self, answer: str, chunk: str, expected: object) -> None:
        assert flagged(chunk, answer) == expected

    @pytest.mark.parametrize(
        ("answer", "chunk", "expected"),
        [
            ("It was 4.2 × 10^3 mol/L.", "It was 4.2 × 10^-3 mol/L.", fg001("4.2 × 10^3")),
            ("It was 10^5 per hour.", "It was 10^-5 per hour.", fg001("10^5")),
            ("It has 2.5 × 10^6 cells.", "It has 2.5 million cells.", PASSES),
            ("It has 2.5 x 10^6 cells.", "It has 2,500,000 cells.", PASSES),
            ("It has 1 billion cells.", "It has 10^9 cells.", PASSES),
            ("It is 6.022 × 10^23.", "It is 6.022 × 10²³.", PASSES),
            ("It has 2.5 x 10^6 cells.", "It has 2.5e6 cells.", PASSES),
            ("It has 2.5e6 cells.", "It has 2.5 x 10^6 cells.", PASSES),
            ("It has 2.5 x 10^6 cells.", "It has 2.5e5 cells.", fg001("2.5 x 10^6")),
        ],
    )
    def test_caret_notation(self, answer: str, chunk: str, expected: object) -> None:
        assert flagged(chunk, answer) == expected

    @settings(
        max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow]
    )
    @example(whole=3, decimals="", exponent=0, times="×", written="{}", minus="-")  # "3×10^0": 3
    # "150×10^1" is the number 1500, which four digits alone may write as a year.
    @example(whole=150, decimals="", exponent=1, times="×", written="{}", minus="-")
    @example(whole=1, decimals="9", exponent=3, times=" x ", written="{}", minus="-")
    @given(
        whole=st.integers(1, 999),
        decimals=st.text("0123456789", max_size=4),
        exponent=st.integers(-40, 40),
        times=st.sampled_from(["×", "x", "*", "·", " × ", " x ", " * "]),
        written=st.sampled_from(["{}", "({})", "{{{}}}"]),
        minus=st.sampled_from(["-", "\u2212"]),
    )
    def test_a_caret_power_is_its_value(
        self, whole: int, decimals: str, exponent: int, times: str, written: str, minus: str
    ) -> None:
        """``m × 10^e`` is supported by its plain decimal and ``m × 10ᵉ``, not ``m × 10^(e+1)``."""
        mantissa = f"{whole}.{decimals}" if decimals else str(whole)
        value = Decimal(mantissa).scaleb(exponent)
        assume(value not in (0, 1, 2))  # trivial numbers are never flagged

        def caret(power: int) -> str:
            sign = minus if power < 0 else ""
            return f"{mantissa}{times}10^" + written.format(f"{sign}{abs(power)}")

        superscript = str(exponent).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))
        answer = f"The sample held {caret(exponent)} cells."
        plain = format(value.normalize(), "f")
        assert flagged(f"The sample held {plain} cells.", answer) == PASSES
        assert flagged(f"The sample held {mantissa} × 10{superscript} cells.", answer) == PASSES
        assert flagged(f"The sample held {caret(exponent + 1)} cells.", answer) == fg001(
            caret(exponent)
        )
        # And the other way round: the caret power supports the plain decimal.
        assert flagged(answer, f"The sample held {plain} cells.") == PASSES


# from test_quantities.py (issue 21)
class TestSeparatorsAndOrdinals:
    @pytest.mark.parametrize(
        ("answer", "chunk", "expected"),
        [
            ("It has 12\u2009345 people.", "It has 12,345 people.", PASSES),
            ("It has 29'000 people.", "It has 29,000 people.", PASSES),
            ("It has 1\u2019234\u2019567 people.", "It has 1,234,567 people.", PASSES),
            ("It has 1.234.567 people.", "It has 1,234,567 people.", PASSES),
            ("It has 1.234.567,5 people.", "It has 1,234,567.5 people.", PASSES),
            ("It has 1\u202f234\u202f567,891 people.", "It has 1,234,567.891 people.", PASSES),
            ("It has 12\u2009345 people.", "It has 12,346 people.", fg001("12\u2009345")),
            ("It was the 3rd attempt.", "It was the third attempt.", PASSES),
            ("It was the 4th attempt.", "It was the third attempt.", fg001("4th")),
        ],
    )
    def test_formats(self, answer: str, chunk: str, expected: object) -> None:
        assert flagged(chunk, answer) == expected


# from test_quantities.py (issue 21), class TestOtherScripts
class TestCircledDigits:
    def test_circled_digits_are_numbers(self) -> None:
        assert flagged("They invited 7 guests.", "They invited \u2462 guests.") == fg001("\u2462")
        assert flagged("They invited 3 guests.", "They invited \u2462 guests.") == PASSES
        assert flagged("They invited \u2473 guests.", "They invited 20 guests.") == PASSES
        # An enclosed number opening a line is a list marker.
        assert flagged("Rinse the rice.", "\u2462 Rinse the rice.") == PASSES


# from test_quantity_writings.py (issue 21)
class TestADecimalCommaInAChunkIsOneNumber:
    """
    ``2,5`` in a chunk may be the list 2, 5; ``3,75 %``, ``0,25 mm`` and ``1.299,99 €`` may not.

    A number that is plainly one (grouped, a percent, money, with a unit, or
    with a digit no list item starts with) supports neither its integer part
    alone nor its decimals alone.
    """

    @pytest.mark.parametrize(
        ("answer", "chunk", "expected"),
        [
            ("The rate is 75%.", "The rate is 3,75 %.", fg001("75%")),
            ("The rate is 5%.", "Der Zinssatz liegt bei 4,5 %.", fg001("5%")),
            ("The rate is 4%.", "Der Zinssatz liegt bei 4,5 %.", fg001("4%")),
            ("The rate is 4.5%.", "Der Zinssatz liegt bei 4,5 %.", PASSES),
            ("It is 25 mm thick.", "Die Schicht ist 0,25 mm dick.", fg001("25")),
            ("It is 0.25 mm thick.", "Die Schicht ist 0,25 mm dick.", PASSES),
            ("It weighs 75 kg.", "The parcel weighs 2,75 kg.", fg001("75")),
            ("The price is €99.", "Der Preis beträgt 1.299,99 €.", fg001("€99")),
            ("The price is €1,299.", "Der Preis beträgt 1.299,99 €.", fg001("€1,299")),
            ("The price is €1,299.99.", "Der Preis beträgt 1.299,99 €.", PASSES),
            ("The price is €75.", "Le prix est de 2\u202f450,75 €.", fg001("€75")),
            ("The price is €450.", "Le prix est de 2\u00a0450,75 €.", fg001("€450")),
            ("The price is €2,450.75.", "Le prix est de 2\u00a0450,75 €.", PASSES),
            ("It is 5 mm.", "Rainfall is 1 234,5 mm per year.", fg001("5")),
            ("It is 1,234.5 mm.", "Rainfall is 1 234,5 mm per year.", PASSES),
            ("The margin was 5%.", "The margin was 12,5 %.", fg001("5%")),
            # A bare pair of small numbers may still be a list.
            ("See items 2, 5 and 7.", "See items 2,5 and 7.", PASSES),
        ],
    )
    def test_one_number(self, answer: str, chunk: str, expected: object) -> None:
        assert flagged(chunk, answer) == expected


# from test_quantity_writings.py (issue 21)
class TestACapitalMGluedIsAMillion:
    """
    ``8.4M residents`` is 8.4 million, as ``$8.4M`` is, and ``3B units`` 3 billion.

    A small ``m`` is a million before people or a unit (``62m users``, ``5m
    tonnes``), and else stays metres (``400m hurdles``).
    """

    @pytest.mark.parametrize(
        ("answer", "chunk", "expected"),
        [
            (
                "The city has 8.4M residents.",
                "The city has 8.4 billion residents.",
                fg001("8.4M"),
            ),
            ("The city has 8.4M residents.", "The city has 8.4 million residents.", PASSES),
            ("Sales totalled 3M units.", "Sales totalled 3 thousand units.", fg001("3M")),
            ("Sales totalled 2.5M units.", "Sales totalled 2,500,000 units.", PASSES),
            ("Sales totalled 0.3M units.", "Sales totalled 300,000 units.", PASSES),
            ("Sales totalled 2.5 million units.", "Sales totalled 2.5M units.", PASSES),
            (
                "Sales totalled 2.5 billion units.",
                "Sales totalled 2.5M units.",
                fg001("2.5 billion"),
            ),
            ("She ran 100m in 10.5 seconds.", "She ran 100 m in 10.5 seconds.", PASSES),
            ("They sold 3B units.", "They sold 3 billion units.", PASSES),
            ("They sold 3B units.", "They sold 3 million units.", fg001("3B")),
            ("They sold 3B units.", "They sold 3 units.", fg001("3B")),
            ("It is worth 1.5B.", "It is worth 1.5 billion.", PASSES),
            ("They sold 3 billion units.", "They sold 3B units.", PASSES),
            ("See Form 3B.", "See Form 3B.", PASSES),  # a label, read as one
            ("The app has 62m users.", "The app has 62 million users.", PASSES),
            ("The app has 62m users.", "The app has 62 users.", fg001("62m")),
            ("The app has 62m users.", "The app has 15 million users.", fg001("62m")),
            ("The app has 62 million users.", "The app has 62m users.", PASSES),
            ("They shipped 5m tonnes.", "They shipped 5 million tonnes.", PASSES),
            ("She won the 400m hurdles.", "She won the 400 metres hurdles.", PASSES),
            ("She won the 400 metres hurdles.", "She won the 400m hurdles.", PASSES),
        ],
    )
    def test_scale_letter(self, answer: str, chunk: str, expected: object) -> None:
        assert flagged(chunk, answer) == expected


# from test_quantity_writings.py (issue 21)
class TestMoreScalesAndShares:
    """``mln`` and ``$4.2MM`` are scales, ``2,5 × 10⁶`` a decimal comma, ``0.6`` a share."""

    @pytest.mark.parametrize(
        ("answer", "chunk", "expected"),
        [
            ("Revenue was $4.2 mln.", "Revenue was $4.2 billion.", fg001("$4.2 mln")),
            ("Revenue was $4.2 mln.", "Revenue was $4.2 million.", PASSES),
            ("Revenue was $4.2 bln.", "Revenue was $4.2 billion.", PASSES),
            ("Revenue was 4.2 million euros.", "Revenue was 4.2 mln euros.", PASSES),
            ("Revenue was $4.2MM.", "Revenue was $4.2 billion.", fg001("$4.2MM")),
            ("Revenue was $4.2MM.", "Revenue was $4.2 million.", PASSES),
            ("It is 5mm thick.", "It is 5 mm thick.", PASSES),  # no currency: millimetres
            ("The count was 2,5 × 10⁶.", "The count was 2.5 million.", PASSES),
            ("The count was 2,6 × 10⁶.", "The count was 2.5 million.", fg001("2,6 × 10⁶")),
            ("The count was 2,5 × 10⁶.", "The count was 25 million.", fg001("2,5 × 10⁶")),
            ("The share was 0.6.", "60% of voters agreed.", PASSES),
            ("The share was 0.7.", "60% of voters agreed.", fg001("0.7")),
            ("The layer was 0.6 mm.", "60% of voters agreed.", fg001("0.6")),
            ("The share was 0.6.", "60 voters agreed.", fg001("0.6")),
        ],
    )
    def test_writings(self, answer: str, chunk: str, expected: object) -> None:
        assert flagged(chunk, answer) == expected


# from test_quantity_writings.py (issue 21)
class TestWhatTheseReadingsLeaveAlone:
    """Writings next to the ones above that a careful reader reads otherwise (a regression hunt)."""

    @pytest.mark.parametrize(
        ("answer", "chunk"),
        [
            # Durations written as a clock: 2 hours 30 minutes.
            ("It has a run time of 02:30.", "The film runs 2 hours 30 minutes."),
            ("The race lasted 01:05.", "The race lasted 1 hour 5 minutes."),
            ("The film runs 2 hours 30 minutes.", "The film has a run time of 02:30."),
            ("The film runs 2 hours 30 minutes.", "The film has a run time of 2:30."),
            ("The video is 4 minutes 15 seconds long.", "The video is 4:15 long."),
            # A list of small numbers written without spaces.
            ("Weeks 0, 4 and 8 were measured.", "Weeks 0,4 and 8 were measured."),
            ("Entry (0, 3) is nonzero.", "The matrix entry (0,3) is nonzero."),
            # A capital M glued that is no million: molar, metres, megaohms.
            ("Add 5M HCl to the flask.", "Add 5 M HCl to the flask."),
            ("She won the 100M sprint.", "She won the 100m sprint."),
            ("Use a 10M resistor.", "Use a 10 M resistor."),
            # "minus" and "negative" before a number in words that no sign.
            ("The score was minus three.", "The score was minus three."),
            ("Sentiment turned negative three months ago.", "It turned negative three months ago."),
            ("He got an A minus three times.", "He got an A minus three times."),
        ],
    )
    def test_still_supported(self, answer: str, chunk: str) -> None:
        assert flagged(chunk, answer) == PASSES

    @pytest.mark.parametrize(
        ("answer", "chunk", "expected"),
        [
            ("9 people arrived.", "At 9.30am, 30 people arrived.", fg001("9")),
            ("The meeting lasted 10 hours.", "The meeting began at 10.15am.", fg001("10")),
            (
                "Built in the 5th century AD.",
                "Built in the fifth century BC.",
                fg002("5th century AD"),
            ),
            (
                "The temple dates to the 3rd century BCE.",
                "The temple dates to the third century AD.",
                fg002("3rd century BCE"),
            ),
            ("They upgraded to version 0.6.", "60% of users upgraded.", fg001("0.6")),
            ("The p-value was 0.6.", "The treatment reduced risk by 60%.", fg001("0.6")),
            ("Prices rose 0.6 percentage points.", "Prices rose 60%.", fg001("0.6")),
            ("Battery at 0.6 V.", "Battery at 60%.", fg001("0.6")),
            ("Add 5 million HCl.", "Add 5M HCl to the flask.", fg001("5 million")),
        ],
    )
    def test_still_flagged(self, answer: str, chunk: str, expected: object) -> None:
        assert flagged(chunk, answer) == expected


# from test_quantity_writings.py (issue 21)
class TestTrillionAbbreviated:
    """``trn`` and ``trln`` (news agencies) are trillions, as ``tn`` is."""

    @pytest.mark.parametrize("written", ["trn", "trln", "tn"])
    def test_trillion(self, written: str) -> None:
        chunk = f"Debt hit $3 {written} this year."
        assert failing_spans(chunk, "Debt hit $3 trillion.") == ()
        assert failing_spans(chunk, "Debt hit $3,000 billion.") == ()
        assert failing_spans("Debt hit $3 billion.", f"Debt hit $3 {written}.") == (
            f"$3 {written}",
        )
