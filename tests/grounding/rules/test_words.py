"""
Words and ordinals: a number stated in words, and an ordinal in its slot (rules/words.py).

How the cases are made and where they came from: ``tests/grounding/README.md``.
"""

from __future__ import annotations

import pytest

from grounding_verdicts import PASSES, fg001, flagged, flagged_spans
from relapse.grounding._read.ordinal_slots import MAX_SLOT_WORDS


# from test_numbers.py
class TestNumberWords:
    def test_word_number_is_a_claim(self) -> None:
        """``seventy people`` against a chunk that says ``77`` is FG001 ``seventy``."""
        assert ("seventy",) == flagged_spans(
            "The hall held 77 people.", "The hall held seventy people."
        )

    def test_chunk_words_ground_digits(self) -> None:
        """``Seventy years ago`` in a chunk grounds ``70 years``."""
        assert () == flagged_spans(
            "Seventy years ago the town was founded.", "It was 70 years ago."
        )

    def test_chunk_digits_ground_words(self) -> None:
        """A chunk's ``77`` grounds ``seventy-seven``."""
        assert () == flagged_spans("The hall held 77 people.", "It held seventy-seven people.")

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
        assert () == flagged_spans(f"There were {digits} of them.", f"There were {words} of them.")

    def test_chunk_compound_words_ground_digits(self) -> None:
        """A chunk's ``two hundred and twelve`` grounds ``212``."""
        assert () == flagged_spans(
            "They built two hundred and twelve homes.", "They built 212 homes."
        )

    def test_bare_scale_word_is_not_a_number(self) -> None:
        """``hundred-year flood`` and ``million-dollar question`` count nothing."""
        assert () == flagged_spans(
            "A flood.", "The hundred-year flood, the million-dollar question."
        )

    def test_words_inside_other_words_are_not_numbers(self) -> None:
        """``often``, ``someone`` and ``canine`` hold no number."""
        assert () == flagged_spans("A dog.", "Someone often sees a canine.")


# from test_quantities.py (issue 21)
class TestSmallOrdinalsAsRanks:
    """
    ``first`` to ``tenth`` after a word that is no function word: a rank the chunks may contradict.

    It fails only where the chunks write other ordinals after the same word
    and not its own (``docs/findings.md``, "Small ordinals").
    """

    @pytest.mark.parametrize(
        ("answer", "chunk", "expected"),
        [
            ("She finished fourth.", "She finished 3rd.", fg001("fourth")),
            ("She finished fourth.", "She finished third.", fg001("fourth")),
            ("She finished second.", "She finished 3rd.", fg001("second")),
            ("She finished first.", "She finished 2nd.", fg001("first")),
            ("He came sixth in the race.", "He came 5th in the race.", fg001("sixth")),
            ("She finished third.", "She finished 3rd.", PASSES),
            ("She finished first.", "She finished 1st.", PASSES),
            ("He came fifth in the race.", "He came 5th in the race.", PASSES),
            ("The team ranked second.", "The team Ranked 2nd.", PASSES),
            # Its own among others: another race, another year.
            ("She finished fourth.", "She finished 3rd in 2019 and finished 4th in 2020.", PASSES),
            # No ordinal after the same word: nothing to contradict.
            ("She finished fourth.", "She ran well.", PASSES),
            # After a function word, or opening a sentence: no rank.
            ("It was the third time.", "It was the 4th time.", PASSES),
            ("First, mix the flour.", "Mix the flour 2nd.", PASSES),
            # Before a noun: another slide, not another statement of the same one.
            ("Push the second slide along the first slide.", "Push along the first slide.", PASSES),
        ],
    )
    def test_ranks(self, answer: str, chunk: str, expected: object) -> None:
        assert flagged(chunk, answer) == expected

    @pytest.mark.parametrize(
        ("answer", "chunk", "expected"),
        [
            # Ranks coordinated with the one after the word rank the same slot
            # (issue 38: "fourth" after "and" was not read, so it was flagged).
            (
                "She finished fourth in 2012.",
                "She finished third in 2010 and fourth in 2012.",
                PASSES,
            ),
            ("She finished fourth.", "She finished 3rd, 4th and 9th.", PASSES),
            ("She finished ninth.", "She finished 3rd, 4th and 9th.", PASSES),
            ("She finished fourth.", "She finished 3rd or 4th.", PASSES),
            # Neither of the chunk's ranks: still contradicted.
            (
                "She finished fifth in 2012.",
                "She finished third in 2010 and fourth in 2012.",
                fg001("fifth"),
            ),
            # A rank in the next sentence ranks something else.
            ("She finished fourth.", "She finished third. And fourth came Ann.", fg001("fourth")),
            # A word after "and" that is no rank adds nothing.
            ("She finished fourth.", "She finished third and retired.", fg001("fourth")),
        ],
    )
    def test_ranks_coordinated_after_and(self, answer: str, chunk: str, expected: object) -> None:
        assert flagged(chunk, answer) == expected

    def test_words_searched_at_most(self) -> None:
        """
        Past ``MAX_SLOT_WORDS`` distinct words, an ordinal after a new word passes.

        Each word costs a search of the chunks: a megabyte of ranks after
        distinct words stays linear. Repeated words are searched once.
        """
        words = [f"w{chr(97 + i // 26)}{chr(97 + i % 26)}" for i in range(MAX_SLOT_WORDS + 1)]
        chunk = " ".join(f"It {word} 3rd." for word in words)
        answer = " ".join(f"It {word} fourth." for word in words)
        assert flagged(chunk, answer) == fg001(*["fourth"] * MAX_SLOT_WORDS)
        # The same word again is searched once, and judged each time.
        assert flagged("It came 3rd.", "It came fourth. " * 40) == fg001(*["fourth"] * 40)
