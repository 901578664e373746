"""
num2words as an oracle (issue 21): cardinals, ordinals, years, decimals and every phrase shape.

Each property writes a number the way num2words writes it in English and asks
the check to read it as the same value as its plain digits: supported by a
chunk stating that value, unsupported by a chunk stating another one. What the
check deliberately reads otherwise is listed in docs/findings.md ("Limits of
the quantity reading"), with the volume of each property.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st
from num2words import num2words

from grounding_oracles import WORDS_EXAMPLES, grounded
from relapse.grounding._read.words import word_numbers

#: The oracle properties run in the full suite; `bash scripts/test.sh --fast` leaves them out.
pytestmark = pytest.mark.oracle


def _assert_read_as(number: int, answer: str, chunk: str) -> None:
    """
    ``answer`` states ``number``: ``chunk`` with its digits supports it, with ``number + 1`` not.

    ``chunk`` has one ``{}``, where the digits go.
    """
    assert grounded(chunk.format(number), answer), answer
    assert not grounded(chunk.format(number + 1), answer), answer


def _ordinal_word(number: int) -> str:
    """num2words' ordinal without a leading ``one``: ``third``, ``hundredth``, ``millionth``."""
    return num2words(number, to="ordinal").removeprefix("one ")


def _scale_word(power: int) -> str:
    """num2words' word for ``10**power``: ``thousand``, ``million``, ``billion``, ``trillion``."""
    return num2words(10**power).removeprefix("one ")


def _with_article(words: str) -> str:
    """``one million and a half`` as ``a million and a half``: the article is one."""
    return "a " + words.removeprefix("one ") if words.startswith("one ") else words


#: The fractions a scale takes (``half a million``, ``two thirds of a million``), and
#: how English writes each before the scale.
_SCALE_FRACTIONS = (
    (Fraction(1, 2), ("half a", "a half")),
    (Fraction(1, 3), ("a third of a", "one third of a")),
    (Fraction(2, 3), ("two thirds of a", "two-thirds of a")),
    (Fraction(1, 4), ("a quarter of a", "a quarter", "one quarter of a")),
    (Fraction(3, 4), ("three quarters of a", "three-quarters of a")),
)


#: Halves, thirds and quarters after a whole: ``and a half``.
_AND_A = ((2, "half"), (3, "third"), (4, "quarter"))


@st.composite
def _phrase(draw: st.DrawFn) -> tuple[str, int | Fraction]:
    """
    A number in words of one of the shapes the reader accepts, and its value by hand.

    Every number word comes from num2words (cardinals, ordinals as
    denominators, scale words); the shape joins them as English does, and the
    value is the shape's arithmetic on the parts' values.
    """
    shape = draw(st.sampled_from(_PHRASE_SHAPES))
    power = draw(st.sampled_from((3, 6, 9, 12)))
    scale = 10**power
    if shape == "fraction":
        # "one third", "two fifths", "seven nineteenths", "three hundredths".
        denominator = draw(st.sampled_from((*range(3, 21), 100, 1000)))
        numerator = draw(st.integers(1, 19).filter(lambda n: n % denominator))
        name = _ordinal_word(denominator) + ("s" if numerator > 1 else "")
        # "one hundredth" is the ordinal 100th (num2words' own ordinal): the
        # fraction is "a hundredth".
        count = "a" if numerator == 1 and denominator >= 100 else num2words(numerator)
        return f"{count} {name}", Fraction(numerator, denominator)
    if shape == "fraction of a scale":
        # "half a million", "two thirds of a billion", "a quarter million".
        fraction, writings = draw(st.sampled_from(_SCALE_FRACTIONS))
        return f"{draw(st.sampled_from(writings))} {_scale_word(power)}", fraction * scale
    if shape == "and a fraction, then a scale":
        # "two hundred and five and a half million".
        whole = draw(st.integers(1, 999))
        denominator, name = draw(st.sampled_from(_AND_A))
        words = f"{num2words(whole)} and a {name} {_scale_word(power)}"
        return words, (whole + Fraction(1, denominator)) * scale
    if shape == "a scale and a fraction":
        # "one million and a half", "a billion and a quarter", "two thousand and a third".
        whole = draw(st.integers(1, 999))
        denominator, name = draw(st.sampled_from(_AND_A))
        words = f"{num2words(whole * scale)} and a {name}"
        if draw(st.booleans()):
            words = _with_article(words)
        return words, whole * scale + Fraction(scale, denominator)
    if shape == "an article for one":
        # "a hundred and twelve", "a thousand, two hundred", "a million".
        unit = draw(st.sampled_from((100, 1000, 10**6, 10**9)))
        number = unit + draw(st.integers(0, min(unit - 1, 999)))
        return _with_article(num2words(number)), number
    if shape == "dozens":
        # "a dozen", "twenty-one dozen", "a dozen and a half".
        dozens = draw(st.integers(1, 99))
        half = draw(st.booleans())
        words = num2words(dozens) + " dozen" + (" and a half" if half else "")
        if draw(st.booleans()):
            words = _with_article(words)
        return words, 12 * dozens + (6 if half else 0)
    if shape == "multiplier":
        # "sevenfold", "twentyfold", "hundredfold", "millionfold".
        number = draw(st.sampled_from((*range(2, 20), *range(20, 100, 10), 100, 1000, 10**6)))
        return num2words(number).removeprefix("one ") + "fold", number
    assert shape == "decimal and a scale"
    # "one point two million", "sixty-six point seven billion".
    tenths = draw(st.integers(1, 9_999).filter(lambda n: n % 10))
    decimal = Decimal(tenths) / 10
    return f"{num2words(decimal)} {_scale_word(power)}", Fraction(tenths, 10) * scale


_PHRASE_SHAPES = (
    "fraction",
    "fraction of a scale",
    "and a fraction, then a scale",
    "a scale and a fraction",
    "an article for one",
    "dozens",
    "multiplier",
    "decimal and a scale",
)


# from test_oracles.py (issue 21)
class TestNum2WordsEnglish:
    @settings(max_examples=WORDS_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
    @given(number=st.integers(3, 10**15 - 2))
    def test_cardinals(self, number: int) -> None:
        _assert_read_as(
            number, f"There were {num2words(number)} of them.", "There were {} of them."
        )

    @settings(max_examples=WORDS_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
    @given(number=st.integers(11, 10**15 - 2))
    def test_ordinals(self, number: int) -> None:
        """Spelled ordinals from eleven up are claims (``third`` orders the answer's steps)."""
        answer = f"It was the {num2words(number, to='ordinal')} of them."
        _assert_read_as(number, answer, "It was number {} of them.")

    @settings(max_examples=WORDS_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
    @given(year=st.integers(1000, 2098))
    def test_years(self, year: int) -> None:
        _assert_read_as(year, f"It happened in {num2words(year, to='year')}.", "It happened in {}.")

    @settings(max_examples=WORDS_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
    @given(number=st.integers(3, 999).map(lambda n: n * 10 ** (n % 4)))
    def test_words_in_a_chunk_ground_digits(self, number: int) -> None:
        """
        The other way round: a chunk's words, an answer's digits (up to three significant).

        Not a year (1500 to 2099 in digits): a year in digits needs digits.
        """
        assume(not 1500 <= number <= 2099)
        chunk = f"There were {num2words(number)} of them."
        assert grounded(chunk, f"There were {number} of them."), chunk
        assert not grounded(chunk, f"There were {number + 1} of them."), chunk

    @settings(max_examples=WORDS_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
    @given(hundredths=st.integers(1, 99_999).filter(lambda n: n % 100))
    def test_decimals(self, hundredths: int) -> None:
        """
        num2words' decimals (``sixty-six point seven``, ``zero point zero five``), both ways.

        Against the next value of the last written place (``66.8``), not grounded.
        """
        number = (Decimal(hundredths) / 100).normalize()
        following = number + Decimal(1).scaleb(number.as_tuple().exponent)
        assume(following not in (1, 2))  # 1.00 and 2.00 are trivial numbers, never claims
        words = num2words(number)
        assert "point" in words, words
        answer, chunk = f"The ratio was {words}.", "The ratio was {}."
        assert grounded(chunk.format(number), answer), answer
        assert not grounded(chunk.format(following), answer), answer
        assert grounded(answer, chunk.format(number)), answer
        assert not grounded(answer, chunk.format(following)), answer


# from test_oracles.py (issue 21)
class TestNum2WordsPhraseShapes:
    """
    Every shape of number in words the reader accepts, built from num2words' words (issue 38).

    num2words writes cardinals, ordinals and scale words; the shapes the
    reader reads beyond those (fractions, fractions of a scale, ``and a
    half`` before or after a scale, an article for one, dozens, multipliers,
    decimals of a scale) join them as English does. The reader must read
    the whole phrase as one number of the value the shape's arithmetic
    gives; an integral one is supported by its digits and not by the next
    number. ``a million and a half`` read one million (and a half on its
    own) before.
    """

    @settings(max_examples=WORDS_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
    @given(phrase=_phrase(), capital=st.booleans())
    @example(phrase=("a million and a half", 1_500_000), capital=False)
    @example(phrase=("a dozen and a half", 18), capital=True)
    def test_a_phrase_reads_as_its_value(
        self, phrase: tuple[str, int | Fraction], capital: bool
    ) -> None:
        words, value = phrase
        if capital:
            words = words[0].upper() + words[1:]
        sentence = f"There were {words} of them."
        read = [(sentence[n.start : n.end], n.value) for n in word_numbers(sentence)]
        assert read == [(words, value)], sentence
        if isinstance(value, int) and value >= 3:
            _assert_read_as(value, sentence, "There were {} of them.")
