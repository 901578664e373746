"""FG002: dates compared as (year, month, day), missing parts as wildcards."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from relapse.grounding import default_grounding_check
from relapse.grounding._values.calendar import (
    MONTH_BEFORE,
    MONTH_CAPITALS,
    MONTH_LEAD,
    MONTH_WINDOW,
)


def findings(
    chunks: str | list[str], answer: str, query: str = ""
) -> list[tuple[str, tuple[str, ...]]]:
    """Return ``(code, spans)`` of every finding of the default check."""
    texts = [chunks] if isinstance(chunks, str) else chunks
    result = default_grounding_check(query, texts, answer)
    return [(finding.code, finding.spans) for finding in result.findings]


SURRENDER = "Japan signed the surrender on September 2, 1945, aboard the Missouri."


class TestFormats:
    @pytest.mark.parametrize(
        "date",
        [
            "September 2, 1945",
            "2 September 1945",
            "Sept. 2nd, 1945",
            "Sep 2 1945",
            "2nd of September 1945",
            "1945-09-02",
            "1945/09/02",
            "02.09.1945",
            "SEPTEMBER 2, 1945",
        ],
    )
    def test_formats_of_one_date(self, date: str) -> None:
        """Every format of 2 September 1945 is the same date."""
        assert [] == findings(SURRENDER, f"The surrender was signed on {date}.")

    @pytest.mark.parametrize("chunk_date", ["2 September 1945", "1945-09-02", "Sept. 2nd, 1945"])
    def test_chunk_formats(self, chunk_date: str) -> None:
        """The chunk's format does not matter either."""
        assert [] == findings(f"Signed on {chunk_date}.", "Signed on September 2, 1945.")

    @pytest.mark.parametrize("numeric", ["9/2/1945", "2/9/1945", "9/2/45"])
    def test_numeric_date_accepts_either_reading(self, numeric: str) -> None:
        """``9/2/1945`` may be 2 September or 9 February: either reading is accepted."""
        assert [] == findings(SURRENDER, f"It was signed on {numeric}.")

    def test_numeric_date_with_no_matching_reading(self) -> None:
        """``9/3/1945`` is neither 2 September nor any chunk date."""
        assert [("FG002", ("9/3/1945",))] == findings(SURRENDER, "It was signed on 9/3/1945.")

    def test_date_digits_are_not_rechecked_as_numbers(self) -> None:
        """A wrong date is one FG002, never also FG001 for its day or year."""
        assert [("FG002", ("September 3, 1946",))] == findings(SURRENDER, "On September 3, 1946.")

    def test_lowercase_may_is_not_a_month(self) -> None:
        """``may 5`` is the verb and a number; capitalized ``May 5`` is a date."""
        assert [("FG001", ("5",))] == findings("Nothing.", "Some may 5 times.")
        assert [("FG002", ("May 5",))] == findings("Nothing.", "It opened on May 5.")


class TestConflicts:
    def test_same_year_is_not_enough(self) -> None:
        """``3 March 2021`` against a chunk's ``5 January 2021`` is FG002 ``3 March 2021``."""
        chunk = "The law took effect on 5 January 2021."
        assert [("FG002", ("3 March 2021",))] == findings(chunk, "It took effect on 3 March 2021.")

    def test_wrong_year_alone(self) -> None:
        """A year no chunk mentions is FG002."""
        assert [("FG002", ("1944",))] == findings("The war ended in 1945.", "It ended in 1944.")


class TestPartialDates:
    def test_partial_date_is_supported_by_a_fuller_one(self) -> None:
        """``July 1969`` is supported by ``July 20, 1969``."""
        chunk = "Apollo 11 landed on July 20, 1969."
        assert [] == findings(chunk, "It landed in July 1969.")
        assert [] == findings(chunk, "It landed on July 20.")
        assert [] == findings(chunk, "It landed in 1969.")

    def test_fuller_date_is_not_supported_by_a_partial_one(self) -> None:
        """``July 20, 1969`` is not supported by ``July 1969`` alone."""
        chunk = "Apollo 11 landed in July 1969."
        assert [("FG002", ("July 20, 1969",))] == findings(chunk, "It landed on July 20, 1969.")

    def test_conflicting_parts_are_flagged(self) -> None:
        """``June 1969`` conflicts with ``July 20, 1969``."""
        chunk = "Apollo 11 landed on July 20, 1969."
        assert [("FG002", ("June 1969",))] == findings(chunk, "It landed in June 1969.")

    def test_chunk_date_without_year_is_completed_by_a_chunk_year(self) -> None:
        """``On July 20, ...`` after ``In 1969, ...`` supports ``July 20, 1969``."""
        chunk = "In 1969, NASA flew to the Moon. On July 20, the crew landed."
        assert [] == findings(chunk, "The crew landed on July 20, 1969.")


class TestDecadesAndRanges:
    def test_decade_supported_by_a_year_in_it(self) -> None:
        """``the 1940s`` is supported by a chunk's 1945."""
        assert [] == findings("The war ended in 1945.", "It happened in the 1940s.")

    def test_decade_not_supported_by_another_decade(self) -> None:
        """``the 1950s`` is not supported by 1945."""
        assert [("FG002", ("1950s",))] == findings("The war ended in 1945.", "In the 1950s.")

    def test_year_not_supported_by_its_decade(self) -> None:
        """A chunk's ``1940s`` does not support the more precise ``1945``."""
        assert [("FG002", ("1945",))] == findings("In the 1940s.", "It ended in 1945.")

    @pytest.mark.parametrize("decade", ["1940s", "1940's", "1940’s", "mid-1940s"])
    def test_decade_spellings(self, decade: str) -> None:
        """``1940s``, ``1940's`` and ``mid-1940s`` are the decade."""
        assert [] == findings("The war ended in 1945.", f"It ended in the {decade}.")

    @pytest.mark.parametrize("years", ["1939–1945", "1939-1945", "1939 – 1945"])
    def test_year_range_is_two_years_not_a_negative_number(self, years: str) -> None:
        """``1939–1945`` is a range of years, supported by both years."""
        chunk = "The war began in 1939 and ended in 1945."
        assert [] == findings(chunk, f"The war lasted {years}.")

    @pytest.mark.parametrize("years", ["2013–14", "2013-14"])
    def test_abbreviated_range(self, years: str) -> None:
        """``2013–14`` is 2013 to 2014."""
        assert [] == findings("Seasons 2013 and 2014 were mild.", f"The {years} season.")

    def test_range_with_an_unsupported_year(self) -> None:
        """``1939–1946`` is flagged as one date range."""
        chunk = "The war began in 1939 and ended in 1945."
        assert [("FG002", ("1939–1946",))] == findings(chunk, "It lasted 1939–1946.")

    def test_year_of_the_question_is_supported(self) -> None:
        """``a 2006 Chevy`` is supported when the question names the 2006 model."""
        query = "how to replace the battery of a 2006 chevy impala"
        assert [] == findings("Open the hood.", "On a 2006 Chevy, open the hood.", query)


class TestCenturies:
    @pytest.mark.parametrize(
        ("chunk", "answer"),
        [
            ("It was built in 1889.", "It was built in the 1800s."),
            ("It was built in 1889.", "It was built in the late 1800s."),
            ("It was built in 1950.", "It was built in the 1900s."),
            ("It was built in 1905.", "It was built in the 1900s."),
            ("It was built in 1889.", "It was built in the 19th century."),
            ("It was built in 1905.", "It is a 20th-century building."),
            ("It was built in 1905.", "It was built in the early 20th Century."),
            ("It was built in the 19th century.", "It was built in the 1800s."),
            ("It was built in the 1800s.", "It was built in the 19th century."),
        ],
    )
    def test_century_spellings(self, chunk: str, answer: str) -> None:
        """``the 1800s`` and ``the 19th century`` are the years 1800 to 1899."""
        assert [] == findings(chunk, answer)

    def test_year_outside_the_century_is_flagged(self) -> None:
        """``the 19th century`` against 1950 is FG002, span ``19th century``."""
        assert [("FG002", ("19th century",))] == findings(
            "It was built in 1950.", "It was built in the 19th century."
        )

    def test_decade_is_not_supported_by_its_century(self) -> None:
        """``the 1880s`` says more than ``the 19th century``: FG002."""
        assert [("FG002", ("1880s",))] == findings(
            "It was built in the 19th century.", "It was built in the 1880s."
        )


class TestOffsets:
    def test_date_span_and_offsets(self) -> None:
        """A date finding gives the span as written and its offsets."""
        answer = "Signed on Sept. 3rd, 1945."
        result = default_grounding_check("", [SURRENDER], answer)
        (finding,) = result.findings
        assert ("Sept. 3rd, 1945",) == finding.spans
        assert ((10, 25),) == finding.offsets
        assert finding.spans[0] == answer[10:25]


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
