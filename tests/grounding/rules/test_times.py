"""
Times and decades: noon and midnight, decades, centuries, ranges of years (rules/times.py).

How the cases are made and where they came from: ``tests/grounding/README.md``.
"""

from __future__ import annotations

import pytest

from grounding_verdicts import PASSES, failing_spans, fg001, fg002, flagged, verdict


# from test_quantity_writings.py (issue 21)
class TestCenturiesInWordsInAChunk:
    """A chunk's ``nineteenth century`` states the answer's ``19th century``."""

    @pytest.mark.parametrize(
        ("answer", "chunk", "expected"),
        [
            ("It was built in the 21st century.", "Built in the twenty-first century.", PASSES),
            ("It was built in the 21st century.", "Built in the twenty first century.", PASSES),
            ("It emerged in the 19th century.", "It emerged in the Nineteenth Century.", PASSES),
            (
                "It emerged in the 18th century.",
                "It emerged in the nineteenth century.",
                fg002("18th century"),
            ),
            # A count of centuries is no century.
            (
                "It emerged in the 19th century.",
                "It had nineteen centuries.",
                fg002("19th century"),
            ),
        ],
    )
    def test_centuries(self, answer: str, chunk: str, expected: object) -> None:
        assert flagged(chunk, answer) == expected


# from test_quantity_writings.py (issue 21)
class TestCenturiesOfAnEra:
    """``the 5th century BC`` is another century than the 5th of ours, as ``753 BC`` is no 753."""

    @pytest.mark.parametrize(
        ("answer", "chunk", "expected"),
        [
            ("It was the 5th century BC.", "It was the 5th century BC.", PASSES),
            ("It was the 5th century BC.", "It was the 5th century BCE.", PASSES),
            ("It was the 5th century BC.", "It was the fifth century B.C.", PASSES),
            ("It was the 5th century BC.", "It was the 5th century AD.", fg002("5th century BC")),
            ("It was the 5th century AD.", "It was the 5th century BC.", fg002("5th century AD")),
            ("It was the 5th century BC.", "It was the 5th century.", fg002("5th century BC")),
            ("It was the 5th century.", "It was the 5th century BC.", fg002("5th century")),
            ("It was the 5th century BC.", "It was the 6th century BC.", fg002("5th century BC")),
            ("It was the 5th century BC.", "It was the fifth century.", fg002("5th century BC")),
            # Our era said or not, one century.
            ("It was the 5th century CE.", "It was the 5th century.", PASSES),
            ("It was the 5th century.", "It was the 5th century AD.", PASSES),
        ],
    )
    def test_era_after_a_century(self, answer: str, chunk: str, expected: object) -> None:
        assert flagged(chunk, answer) == expected


# from test_quantity_writings.py (issue 21)
class TestDecades:
    """``the '80s`` and ``the eighties`` are the 1980s, or ages from 80 to 89."""

    @pytest.mark.parametrize(
        ("answer", "chunk", "expected"),
        [
            ("It happened in the '80s.", "It happened in the 1980s.", PASSES),
            ("It happened in the eighties.", "It happened in the 1980s.", PASSES),
            ("It happened in the Eighties.", "It happened in 1985.", PASSES),
            ("It happened in the '80s.", "It happened in the eighties.", PASSES),
            ("It happened in the 1980s.", "It happened in the eighties.", PASSES),
            ("It happened in the eighties.", "It happened in the 1990s.", fg001("eighties")),
            ("It happened in the EIGHTIES.", "It happened in the 1990s.", fg001("EIGHTIES")),
            # With its century it is the decade of that century, a date.
            ("It happened in the nineteen eighties.", "It happened in the 1980s.", PASSES),
            (
                "It happened in the nineteen eighties.",
                "It happened in the 1880s.",
                fg002("nineteen eighties"),
            ),
            ("It happened in the Nineteen-Eighties.", "It happened in 1985.", PASSES),
            # Ages: a number in the decade states it.
            ("He is in his eighties.", "He is 85 years old.", PASSES),
            ("He is in his 80s.", "He is 85 years old.", PASSES),
            ("He is in his eighties.", "He is 75 years old.", fg001("eighties")),
            ("He is in his eighties.", "He is in his 80s.", PASSES),
            ("It happened in the 10s.", "It took 15 days.", fg001("10s")),  # ages from 20
            # "ties" inside other words names no decade.
            ("The parties and activities grew.", "Nothing here.", PASSES),
        ],
    )
    def test_decade(self, answer: str, chunk: str, expected: object) -> None:
        assert flagged(chunk, answer) == expected


# from test_quantity_writings.py (issue 21)
class TestNoonAndMidnight:
    """``12 noon`` is 12 pm and ``12 midnight`` 12 am; a chunk's ``noon`` names 12 pm."""

    @pytest.mark.parametrize(
        ("chunk", "answer", "expected"),
        [
            ("Lunch is served at 12 noon.", "Lunch is served at 12 pm.", ()),
            ("Lunch is served at 12 pm.", "Lunch is served at 12 noon.", ()),
            ("Lunch is served at 12:00 noon.", "Lunch is served at 12:00 p.m.", ()),
            ("Lunch is at 12 Noon.", "Lunch is at 12:00 pm.", ()),
            ("The shop opens at 12 midnight.", "The shop opens at 12 am.", ()),
            ("Lunch is at noon.", "Lunch is at 12 pm.", ()),
            ("Lunch is at midday.", "Lunch is at 12 pm.", ()),
            ("It closes at midnight.", "It closes at 12 am.", ()),
            ("It closes at midnight.", "It closes at 00:00.", ()),
            # The other half of the day.
            ("Lunch is served at 12 noon.", "Lunch is served at 12 am.", ("12 am",)),
            ("The shop opens at 12 midnight.", "The shop opens at 12 pm.", ("12 pm",)),
            ("Lunch is at noon.", "Lunch is at 12 am.", ("12 am",)),
            # A word holding "noon" names no time; "3 noon" is no time.
            ("The afternoon is hot.", "It closes at 12 pm.", ("12 pm",)),
            ("It opens at 3 noon.", "It opens at 3 pm.", ("3 pm",)),
        ],
    )
    def test_noon_and_midnight(self, chunk: str, answer: str, expected: tuple[str, ...]) -> None:
        assert failing_spans(chunk, answer) == expected


# from test_dates.py
class TestDecadesAndRanges:
    def test_decade_supported_by_a_year_in_it(self) -> None:
        """``the 1940s`` is supported by a chunk's 1945."""
        assert [] == verdict("The war ended in 1945.", "It happened in the 1940s.")

    def test_decade_not_supported_by_another_decade(self) -> None:
        """``the 1950s`` is not supported by 1945."""
        assert [("FG002", ("1950s",))] == verdict("The war ended in 1945.", "In the 1950s.")

    def test_year_not_supported_by_its_decade(self) -> None:
        """A chunk's ``1940s`` does not support the more precise ``1945``."""
        assert [("FG002", ("1945",))] == verdict("In the 1940s.", "It ended in 1945.")

    @pytest.mark.parametrize("decade", ["1940s", "1940's", "1940’s", "mid-1940s"])
    def test_decade_spellings(self, decade: str) -> None:
        """``1940s``, ``1940's`` and ``mid-1940s`` are the decade."""
        assert [] == verdict("The war ended in 1945.", f"It ended in the {decade}.")

    @pytest.mark.parametrize("years", ["1939–1945", "1939-1945", "1939 – 1945"])
    def test_year_range_is_two_years_not_a_negative_number(self, years: str) -> None:
        """``1939–1945`` is a range of years, supported by both years."""
        chunk = "The war began in 1939 and ended in 1945."
        assert [] == verdict(chunk, f"The war lasted {years}.")

    @pytest.mark.parametrize("years", ["2013–14", "2013-14"])
    def test_abbreviated_range(self, years: str) -> None:
        """``2013–14`` is 2013 to 2014."""
        assert [] == verdict("Seasons 2013 and 2014 were mild.", f"The {years} season.")

    def test_range_with_an_unsupported_year(self) -> None:
        """``1939–1946`` is flagged as one date range."""
        chunk = "The war began in 1939 and ended in 1945."
        assert [("FG002", ("1939–1946",))] == verdict(chunk, "It lasted 1939–1946.")

    def test_year_of_the_question_is_supported(self) -> None:
        """``a 2006 Chevy`` is supported when the question names the 2006 model."""
        query = "how to replace the battery of a 2006 chevy impala"
        assert [] == verdict("Open the hood.", "On a 2006 Chevy, open the hood.", query)


# from test_dates.py
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
        assert [] == verdict(chunk, answer)

    def test_year_outside_the_century_is_flagged(self) -> None:
        """``the 19th century`` against 1950 is FG002, span ``19th century``."""
        assert [("FG002", ("19th century",))] == verdict(
            "It was built in 1950.", "It was built in the 19th century."
        )

    def test_decade_is_not_supported_by_its_century(self) -> None:
        """``the 1880s`` says more than ``the 19th century``: FG002."""
        assert [("FG002", ("1880s",))] == verdict(
            "It was built in the 19th century.", "It was built in the 1880s."
        )
