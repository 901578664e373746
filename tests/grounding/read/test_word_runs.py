"""Runs of number words found at their possible starts only: the runs ``finditer`` finds."""

# from test_word_runs.py, moved whole (issue 40's layout)
from __future__ import annotations

import re
import sys
from collections.abc import Iterator

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from grounding_texts import real_texts
from relapse.grounding._read import words
from relapse.grounding._read.words import (
    LOWER_EXPANDS,
    RUN_STARTS,
    WORDS_RE,
    word_numbers,
    word_runs,
)


def _spans(text: str) -> list[tuple[int, int]]:
    return [run.span() for run in word_runs(text)]


def _reference(text: str) -> list[tuple[int, int]]:
    return [run.span() for run in WORDS_RE.finditer(text)]


class TestTheStarts:
    def test_only_the_dotted_capital_i_lowers_to_more_than_one_character(self) -> None:
        # Every code point, surrogates included: str.lower keeps the offsets
        # of any text without these.
        expands = "".join(
            chr(code) for code in range(sys.maxunicode + 1) if len(chr(code).lower()) != 1
        )
        assert expands == LOWER_EXPANDS == "\u0130"

    def test_every_word_a_run_may_start_with_begins_with_a_start(self) -> None:
        first_words = {
            *words._NUMBER_WORDS,
            *words._ARTICLE_SCALES,
            *words._SINGULAR_DENOMINATORS,
        }
        for word in first_words:
            assert any(word.startswith(start) for start in RUN_STARTS), word

    def test_every_start_begins_with_a_needle_and_no_needle_with_another(self) -> None:
        needles = words._NEEDLES
        for start in RUN_STARTS:
            assert sum(start.startswith(needle) for needle in needles) == 1, start
        for needle in needles:
            # At least 3 letters, none an "a": no needle lies inside "an" and spaces.
            assert len(needle) >= 3
            assert not needle.startswith("a")
        assert len(needles) == 30

    def test_no_start_begins_with_another(self) -> None:
        for start in RUN_STARTS:
            assert not any(start != other and start.startswith(other) for other in RUN_STARTS)
        assert "six" in RUN_STARTS
        assert "sixty" not in RUN_STARTS


class TestSameRunsAsFinditer:
    def test_hand_worked(self) -> None:
        # A run is the regex's: "and" and the article go on with it; the
        # reading of a run splits it into numbers later.
        text = "Someone wrote twenty-one, then A dozen and an eighth; often THREE HUNDRED."
        assert [text[start:end] for start, end in _spans(text)] == [
            "twenty-one",
            "A dozen and an eighth",
            "THREE HUNDRED",
        ]
        assert _spans(text) == _reference(text)

    def test_a_word_inside_another_is_no_run(self) -> None:
        # "one" in "someone", "ten" in "often" and "Tenant", "one" in "money" and "phones".
        for text in ("someone", "often", "money", "Tenant", "phones"):
            assert _spans(text) == _reference(text) == []

    def test_article_after_a_long_run_of_spaces_and_tabs(self) -> None:
        text = "x a \t   \t hundred y An\tthird"
        assert _spans(text) == _reference(text)
        assert [text[start:end] for start, end in _spans(text)] == [
            "a \t   \t hundred",
            "An\tthird",
        ]

    def test_a_text_that_lower_case_moves_falls_back_to_finditer(self) -> None:
        text = "\u0130 two and twenty \u0130stanbul three"
        assert _spans(text) == _reference(text)
        assert len(_spans(text)) == 2

    def test_texts_with_few_letters_short_and_long_texts_fall_back_to_finditer(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        digits = "7 " * 100 + "seven"
        assert words.SHORT_TEXT <= len(digits)
        assert digits.count("e") * words.FEW_LETTERS < len(digits)
        short = "one e"
        assert len(short) < words.SHORT_TEXT
        long = "twenty one " * (words.LONG_TEXT // 11 + 1)
        assert len(long) >= words.LONG_TEXT
        dotted = "\u0130 " + "one and twenty e " * 20

        def searched(text: str) -> Iterator[re.Match[str]]:
            raise AssertionError(f"searched {text[:20]!r}")

        monkeypatch.setattr(words, "_searched_runs", searched)
        assert _spans(digits) == [(200, 205)]
        assert _spans(short) == [(0, 3)]
        assert _spans(long) == [(0, len(long) - 1)]
        assert _spans(dotted) == _reference(dotted)

    def test_prose_is_searched(self, monkeypatch: pytest.MonkeyPatch) -> None:
        prose = "The committee met twenty-one times over the seven years of the review. " * 3
        expected = _reference(prose)
        searched: list[str] = []
        original = words._searched_runs

        def spy(text: str) -> Iterator[re.Match[str]]:
            searched.append(text)
            return original(text)

        monkeypatch.setattr(words, "_searched_runs", spy)
        assert _spans(prose) == expected
        assert searched == [prose]
        assert [prose[start:end] for start, end in expected[:2]] == ["twenty-one", "seven"]

    def test_the_kelvin_sign_lowers_to_k_and_changes_nothing(self) -> None:
        text = "\u212a one \u212aone tho\u212a usand"
        assert _spans(text) == _reference(text)

    @settings(max_examples=600, deadline=None)
    @given(
        st.lists(
            st.one_of(
                st.sampled_from(
                    [
                        *RUN_STARTS,
                        "sixty",
                        "hundredths",
                        "Thousand",
                        "MILLION",
                        "Twenty",
                        "a",
                        "A",
                        "an",
                        "An",
                        "AN",
                        "and",
                        "of",
                        "oh",
                        "half",
                        "quarters",
                        "someone",
                        "often",
                    ]
                ),
                st.sampled_from([" ", "  ", "\t", "-", " - ", ", ", ",", ".", "\n", "_", "é"]),
                st.text(alphabet="aenotsixhr \u0130\u212a\u00e9-", max_size=6),
            ),
            max_size=30,
        ).map("".join)
    )
    @example("a dozen")
    @example("An eighth of a million")
    @example("\u0130 one")
    def test_generated_texts(self, text: str) -> None:
        assert _spans(text) == _reference(text)
        if LOWER_EXPANDS not in text:
            # The searches themselves, whatever word_runs would pick.
            assert [run.span() for run in words._searched_runs(text)] == _reference(text)

    def test_the_real_passages(self) -> None:
        checked = 0
        for text in real_texts():
            assert _spans(text) == _reference(text), text[:80]
            assert [run.span() for run in words._searched_runs(text)] == _reference(text)
            checked += bool(_reference(text))
        assert checked >= 80  # 83 of the texts hold numbers in words

    def test_word_numbers_reads_the_runs(self) -> None:
        values = [number.value for number in word_numbers("about three hundred and a dozen")]
        assert values == [300, 12]
