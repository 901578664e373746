"""Ranges: a range needs a range in the chunks, or both its ends stated apart (rules/ranges.py)."""

from __future__ import annotations

import pytest

from grounding_verdicts import flagged_spans


# from test_numbers.py
class TestRanges:
    def test_range_needs_a_range_or_both_ends_on_their_own(self) -> None:
        """``10-15 minutes`` is not supported by ``8-10 minutes`` and ``15 minutes``."""
        chunk = "Cook for 8-10 minutes. Rest for 15 minutes."
        assert ("10-15",) == flagged_spans(chunk, "Rest for 10-15 minutes.")

    def test_range_from_a_list_of_values(self) -> None:
        """``28% to 52%`` is supported by a chunk listing 28% and 52% apart."""
        chunk = "Monday: 28% chance of rain. Tuesday: 52% chance of rain."
        assert () == flagged_spans(chunk, "The chance of rain ranges from 28% to 52%.")

    @pytest.mark.parametrize("answer", ["8-10", "8 – 10", "8 to 10", "between 8 and 10"])
    def test_range_spellings(self, answer: str) -> None:
        """Hyphen, en dash, ``to`` and ``between ... and`` make the same range."""
        assert () == flagged_spans("Cook for 8-10 minutes.", f"Cook for {answer} minutes.")

    def test_range_of_trivial_numbers(self) -> None:
        """``1-2 minutes`` is a claim: a range measures something, even of small numbers."""
        assert ("1-2",) == flagged_spans("Stir well.", "Stir for 1-2 minutes.")
        assert () == flagged_spans("Stir for 1-2 minutes.", "Stir for 1-2 minutes.")

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
        assert () == flagged_spans(chunk, answer)

    def test_range_end_not_spelled_out_is_flagged(self) -> None:
        """``3-5 weeks`` is not ``three to four weeks``: 5 is nowhere."""
        assert ("3-5",) == flagged_spans("It takes three to four weeks.", "It takes 3-5 weeks.")
