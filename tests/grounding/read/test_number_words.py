"""
Numbers in words read by one grammar: scale words, fractions, halves, decimals, signs.

How the cases are made and where they came from: ``tests/grounding/README.md``.

The words reader's kept readings are the readings it would make anew (issue 38).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from grounding_texts import WORD_PIECES
from grounding_verdicts import PASSES, fg001, flagged
from property_budget import examples
from relapse.grounding._read.words import (
    READ_WINDOW,
    WORDS_RE,
    WordNumber,
    parse_word_run,
    word_numbers,
)


def _fields(numbers: Iterable[WordNumber]) -> list[tuple[object, ...]]:
    """Every field of each number read, to compare two readings."""
    return [
        (n.start, n.end, n.value, type(n.value), n.precision, n.kind, n.claim, n.also)
        for n in numbers
    ]


# from test_quantities.py (issue 21)
class TestScaleWordsAreNotNumbersOnTheirOwn:
    """A chunk's ``3 billion`` holds 3 × 10⁹, not "billion" (one billion) on its own."""

    @pytest.mark.parametrize(
        ("answer", "chunk", "expected"),
        [
            (
                "The deal was worth $1 billion.",
                "The deal was worth $3 billion.",
                fg001("$1 billion"),
            ),
            ("They sold 1,000 units.", "They sold 7 thousand units.", fg001("1,000")),
            ("One million people came.", "Two million people came.", fg001("One million")),
            ("A million people came.", "15 million people came.", fg001("A million")),
            ("About 1,000 people came.", "Some 7 thousand people came.", fg001("1,000")),
            ("They sold 1 million units.", "They sold 2.5 million units.", fg001("1 million")),
            ("It was worth a billion.", "It was worth 3 billion.", fg001("a billion")),
            # The same claims, supported.
            ("The deal was worth $1 billion.", "The deal was worth one billion dollars.", PASSES),
            ("They sold 1,000 units.", "They sold a thousand units.", PASSES),
            ("One million people came.", "1,000,000 people came.", PASSES),
            ("A million people came.", "One million people came.", PASSES),
            ("They sold 7,000 units.", "They sold 7 thousand units.", PASSES),
        ],
    )
    def test_scale_word_after_a_number(self, answer: str, chunk: str, expected: object) -> None:
        assert flagged(chunk, answer) == expected

    def test_words_inside_a_longer_number_are_not_a_number(self) -> None:
        """``seventy`` is no number of ``three hundred seventy``: the run reads 370."""
        assert flagged("It took three hundred seventy days.", "It took 70 days.") == fg001("70")
        assert flagged("It took three hundred seventy days.", "It took 370 days.") == PASSES


# from test_quantities.py (issue 21)
class TestFractionsInWords:
    @pytest.mark.parametrize(
        ("answer", "chunk", "expected"),
        [
            ("Half a million people came.", "500,000 people came.", PASSES),
            (
                "A quarter of a million people came.",
                "5 million people came.",
                fg001("A quarter of a million"),
            ),
            ("A quarter of a million people came.", "250,000 people came.", PASSES),
            ("Two and a half million people came.", "2.5 million people came.", PASSES),
            ("Half a dozen people came.", "6 people came.", PASSES),
            ("Half a million people came.", "A million people came.", fg001("Half a million")),
            ("500,000 people came.", "Half a million people came.", PASSES),
            ("Three quarters of a million came.", "750,000 came.", PASSES),
        ],
    )
    def test_fractions_of_a_scale(self, answer: str, chunk: str, expected: object) -> None:
        assert flagged(chunk, answer) == expected


# from test_quantities.py (issue 21)
class TestScaledHalves:
    """``one million and a half`` is 1,500,000: half of the scale the number ends with."""

    @pytest.mark.parametrize(
        ("answer", "chunk", "expected"),
        [
            ("One million and a half people came.", "1.5 million people came.", PASSES),
            (
                "One million and a half people came.",
                "1,000,000 people came.",
                fg001("One million and a half"),
            ),
            ("Two thousand and a quarter came.", "2,250 came.", PASSES),
        ],
    )
    def test_scaled_halves(self, answer: str, chunk: str, expected: object) -> None:
        assert flagged(chunk, answer) == expected

    @pytest.mark.parametrize(
        ("answer", "chunk", "expected"),
        [
            # The article is one: "a million and a half" is "one million and a
            # half" (issue 38: it read one million, then a half on its own).
            ("A million and a half people came.", "1.5 million people came.", PASSES),
            (
                "A million and a half people came.",
                "1,000,000 people came.",
                fg001("A million and a half"),
            ),
            ("It cost a billion and a half.", "It cost $1,500,000,000.", PASSES),
            ("It cost a billion and a half.", "It cost $1 billion.", fg001("a billion and a half")),
            ("A thousand and a half came.", "1,500 came.", PASSES),
            ("A thousand and a half came.", "1,000 came.", fg001("A thousand and a half")),
            ("A million and a quarter came.", "1,250,000 came.", PASSES),
            ("A million and a quarter came.", "1,500,000 came.", fg001("A million and a quarter")),
            # A dozen is a scale too: a dozen and a half is 18.
            ("We bought a dozen and a half eggs.", "We bought 18 eggs.", PASSES),
            (
                "We bought a dozen and a half eggs.",
                "We bought 12 eggs.",
                fg001("a dozen and a half"),
            ),
            # In a chunk, the same words state the same value.
            ("1.5 million people came.", "A million and a half people came.", PASSES),
            ("1 million people came.", "A million and a half people came.", fg001("1 million")),
            ("We bought 18 eggs.", "We bought a dozen and a half eggs.", PASSES),
        ],
    )
    def test_after_an_article(self, answer: str, chunk: str, expected: object) -> None:
        assert flagged(chunk, answer) == expected


# from test_quantities.py (issue 21)
class TestDecimalsInWords:
    """``point`` and a digit word or more after a whole number below a thousand, then a scale."""

    @pytest.mark.parametrize(
        ("answer", "chunk", "expected"),
        [
            ("Turnout was sixty-six point seven percent.", "Turnout was 66.7%.", PASSES),
            (
                "Turnout was sixty-six point eight percent.",
                "Turnout was 66.7%.",
                fg001("sixty-six point eight"),
            ),
            ("Turnout was 66.7%.", "Turnout was sixty-six point seven percent.", PASSES),
            ("Turnout was 66.8%.", "Turnout was sixty-six point seven percent.", fg001("66.8%")),
            ("It has one point two million people.", "It has 1.2 million people.", PASSES),
            ("It has one point two million people.", "It has 1,200,000 people.", PASSES),
            (
                "It has one point three million people.",
                "It has 1.2 million people.",
                fg001("one point three million"),
            ),
            ("The ratio was two point oh five.", "The ratio was 2.05.", PASSES),
            ("The ratio was two point zero five.", "The ratio was 2.05.", PASSES),
            ("The ratio was two point five.", "The ratio was 2.05.", fg001("two point five")),
            # "point" with no digit word after it is no decimal: "one" stays trivial.
            ("At one point the team had 30 players.", "The team had 30 players.", PASSES),
        ],
    )
    def test_decimals(self, answer: str, chunk: str, expected: object) -> None:
        assert flagged(chunk, answer) == expected


# from test_quantities.py (issue 21)
class TestMultipliersInWords:
    """``threefold`` is 3, as ``3x``, ``3-fold`` and ``3 times`` are."""

    @pytest.mark.parametrize(
        ("answer", "chunk", "expected"),
        [
            ("It grew fourfold.", "It grew 3x.", fg001("fourfold")),
            ("It grew threefold.", "It grew 3x.", PASSES),
            ("It grew 3 times.", "It grew threefold.", PASSES),
            ("It grew 4 times.", "It grew threefold.", fg001("4")),
            ("It grew tenfold.", "It grew 10 times.", PASSES),
            ("A twentyfold rise.", "A 20-fold rise.", PASSES),
            ("It grew a hundredfold.", "It grew 10 times.", fg001("hundredfold")),
            ("It grew a hundredfold.", "It grew 100-fold.", PASSES),
        ],
    )
    def test_multipliers(self, answer: str, chunk: str, expected: object) -> None:
        assert flagged(chunk, answer) == expected


# from test_quantities.py (issue 21)
class TestReadingsKept:
    """
    ``word_numbers`` keeps each distinct window's reading (issue 38): the same numbers.

    A megabyte of supported number words took seconds, every run read anew;
    a run or a window of a run met again now gives the numbers read the
    first time, moved. The reference reads every run word by word.
    """

    @settings(max_examples=examples(300), deadline=None, suppress_health_check=list(HealthCheck))
    @given(
        pieces=st.lists(WORD_PIECES, max_size=400),
        repeats=st.integers(1, 6),
    )
    @example(pieces=["three hundred and twelve and seventy-seven "], repeats=60)
    @example(pieces=["one million, ", "two hundred thousand ", "and a half "], repeats=40)
    def test_kept_readings_are_the_readings(self, pieces: list[str], repeats: int) -> None:
        text = "".join(pieces) * repeats
        reference = [
            number
            for run in WORDS_RE.finditer(text)
            for number in parse_word_run(text, run.start(), run.end())
        ]
        assert _fields(word_numbers(text)) == _fields(reference)

    def test_a_run_longer_than_the_window_is_read_by_windows(self) -> None:
        """One run of 60 KB: 3,000 numbers, and the windows kept are few."""
        text = "three hundred and twelve and seventy-seven " * 1_500
        assert len(text) > 10 * READ_WINDOW
        memo: dict[tuple[str, bool], Any] = {}
        numbers = list(parse_word_run(text, 0, len(text), memo))
        assert [n.value for n in numbers] == [312, 77] * 1_500
        assert numbers[-1].end == len(text) - 1
        # The text repeats every 43 characters: two readings a period, and
        # the few near the end, where the run's end falls in the window.
        assert len(memo) <= 2 + 2 * READ_WINDOW // 43 + 2


# from test_quantity_writings.py (issue 21)
class TestSignWordsBeforeNumbersInWords:
    """``minus twelve degrees`` is -12, as ``minus 12 degrees``; ``twelve minus five`` is a sum."""

    @pytest.mark.parametrize(
        ("answer", "chunk", "expected"),
        [
            (
                "The low was negative twelve degrees.",
                "The low was 12 °C.",
                fg001("negative twelve"),
            ),
            (
                "The fund returned minus eight percent.",
                "The fund returned 8%.",
                fg001("minus eight"),
            ),
            ("The low was minus twelve degrees Celsius.", "The low was -12 °C.", PASSES),
            ("The fund returned minus eight percent.", "The fund returned -8%.", PASSES),
            ("It cost twelve minus five dollars.", "It cost 12 minus 5 dollars.", PASSES),
        ],
    )
    def test_signs(self, answer: str, chunk: str, expected: object) -> None:
        assert flagged(chunk, answer) == expected
