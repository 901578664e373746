"""Dates compared as (year, month, day), missing parts as wildcards; the month before a number."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grounding_verdicts import verdict
from relapse.grounding._values.calendar import (
    MONTH_BEFORE,
    MONTH_CAPITALS,
    MONTH_LEAD,
    MONTH_WINDOW,
)

_LEAD = re.compile(f"[{MONTH_CAPITALS}]{MONTH_LEAD}")


def _lead_ends(text: str) -> set[int]:
    """Return the digit positions the scanner's forward month pattern reaches."""
    return {match.end() for match in _LEAD.finditer(text)}


def _before_ends(text: str) -> set[int]:
    """Return the digit positions before which MONTH_BEFORE finds a month name."""
    return {
        index
        for index, char in enumerate(text)
        if char.isdecimal() and MONTH_BEFORE.search(text, max(0, index - MONTH_WINDOW), index)
    }


# Month names, near misses, gaps and digits.
_MONTH_PIECES = [
    *("May", "MAY", "Sept.", "Sep", "September", "Jan", "x", "the", "of", "A", "Ma", "é"),
    *("5", "12", "٣", ",", ".", " ", "  ", "\u00a0"),
]


# from test_dates.py
class TestConflicts:
    def test_same_year_is_not_enough(self) -> None:
        """``3 March 2021`` against a chunk's ``5 January 2021`` is FG002 ``3 March 2021``."""
        chunk = "The law took effect on 5 January 2021."
        assert [("FG002", ("3 March 2021",))] == verdict(chunk, "It took effect on 3 March 2021.")

    def test_wrong_year_alone(self) -> None:
        """A year no chunk mentions is FG002."""
        assert [("FG002", ("1944",))] == verdict("The war ended in 1945.", "It ended in 1944.")


# from test_dates.py
class TestPartialDates:
    def test_partial_date_is_supported_by_a_fuller_one(self) -> None:
        """``July 1969`` is supported by ``July 20, 1969``."""
        chunk = "Apollo 11 landed on July 20, 1969."
        assert [] == verdict(chunk, "It landed in July 1969.")
        assert [] == verdict(chunk, "It landed on July 20.")
        assert [] == verdict(chunk, "It landed in 1969.")

    def test_fuller_date_is_not_supported_by_a_partial_one(self) -> None:
        """``July 20, 1969`` is not supported by ``July 1969`` alone."""
        chunk = "Apollo 11 landed in July 1969."
        assert [("FG002", ("July 20, 1969",))] == verdict(chunk, "It landed on July 20, 1969.")

    def test_conflicting_parts_are_flagged(self) -> None:
        """``June 1969`` conflicts with ``July 20, 1969``."""
        chunk = "Apollo 11 landed on July 20, 1969."
        assert [("FG002", ("June 1969",))] == verdict(chunk, "It landed in June 1969.")

    def test_chunk_date_without_year_is_completed_by_a_chunk_year(self) -> None:
        """``On July 20, ...`` after ``In 1969, ...`` supports ``July 20, 1969``."""
        chunk = "In 1969, NASA flew to the Moon. On July 20, the crew landed."
        assert [] == verdict(chunk, "The crew landed on July 20, 1969.")


# from test_dates.py
class TestMonthBeforeANumber:
    """The scanner's forward month pattern agrees with the backward search it replaces."""

    @pytest.mark.parametrize(
        ("text", "digits"),
        [
            ("Sept. 2", {6}),
            ("SEPT. 2", {6}),
            ("September of 1945", {13}),
            ("MAY the 5th", {8}),
            ("March, 3", {7}),
            ("Aug 23", {4}),
            ("xMay 5", set()),  # a longer word, not a month
            ("Mayo 5", set()),
            ("July. 5", set()),  # only abbreviations take a period
            ("may 5", set()),  # lower case: the verb
            ("Dpril 5", set()),  # the right tail after the wrong capital
            ("5May 5", {5}),  # a digit is not a letter: the month stands
        ],
    )
    def test_examples(self, text: str, digits: set[int]) -> None:
        """Each example: the digit positions a month name precedes, read both ways."""
        assert digits == _lead_ends(text)
        assert digits == _before_ends(text)

    @settings(max_examples=400, deadline=None)
    @given(
        pieces=st.lists(
            st.sampled_from(_MONTH_PIECES),
            max_size=16,
        )
    )
    def test_same_positions_as_the_backward_search(self, pieces: list[str]) -> None:
        """On dense mixes of month names, gaps and digits, both find the same numbers."""
        text = "".join(pieces)
        assert _before_ends(text) == _lead_ends(text)
