"""
Dates read in every format a real answer uses (FG002), with their eras.

How the cases are made and where they came from: ``tests/grounding/README.md``.
"""

from __future__ import annotations

import pytest

from grounding_verdicts import PASSES, fg001, fg002, flagged, verdict
from relapse.grounding import default_grounding_check


# from test_quantities.py (issue 21)
class TestYearsAndEras:
    @pytest.mark.parametrize(
        ("answer", "chunk", "expected"),
        [
            ("It ended in nineteen forty-five.", "It ended in 1945.", PASSES),
            # A year in digits needs digits: chunks do not write years in words.
            ("It ended in 1945.", "It ended in nineteen forty-five.", fg002("1945")),
            ("It ended in nineteen forty-four.", "It ended in 1945.", fg002("nineteen forty-four")),
            ("Rome was founded in 753 BC.", "Rome was founded in 753 AD.", fg002("753 BC")),
            ("Rome was founded in 753 BC.", "Rome was founded in 753 B.C.", PASSES),
            ("It was built in AD 753.", "It was built in 753 CE.", PASSES),
            ("It was built in 753 AD.", "It was built in 753 BC.", fg002("753 AD")),
            ("It is from around 300 years ago.", "It is from over 300 years BC.", fg001("300")),
            ("It is from 300 years before Christ.", "It is from over 300 years BC.", PASSES),
        ],
    )
    def test_eras(self, answer: str, chunk: str, expected: object) -> None:
        assert flagged(chunk, answer) == expected


# from test_quantity_writings.py (issue 21)
class TestErasOfGroupedYears:
    """An era after a year with a thousands separator is the year's era: ``10,000 BC``."""

    @pytest.mark.parametrize(
        ("answer", "chunk", "expected"),
        [
            ("Farming began in 10,000 AD.", "Farming began in 10,000 BC.", fg002("10,000 AD")),
            ("Farming began in 12,000 BC.", "Farming began 12,000 years ago.", fg002("12,000 BC")),
            (
                "Farming began 3,000 years BC.",
                "Farming began 3,000 years ago.",
                fg002("3,000 years BC"),
            ),
            ("Farming began 12,000 years ago.", "Farming began in 12,000 BC.", fg001("12,000")),
            ("Farming began in 10,000 BCE.", "Farming began in 10000 BCE.", PASSES),
            ("Farming began in 10000 BC.", "Farming began in 10,000 BCE.", PASSES),
            ("It was built in 2560 BC.", "It was built in 2,560 BC.", PASSES),
        ],
    )
    def test_grouped_years(self, answer: str, chunk: str, expected: object) -> None:
        assert flagged(chunk, answer) == expected


# from test_quantity_writings.py (issue 21)
class TestErasWrittenOtherwise:
    """An era glued to its year (``44BC``), after a year in words; ``bc`` in lower case is none."""

    @pytest.mark.parametrize(
        ("answer", "chunk", "expected"),
        [
            ("Caesar died in 44BC.", "Caesar died in 44 BC.", PASSES),
            ("Caesar died in 44BC.", "Caesar died in 44 AD.", fg002("44BC")),
            ("It was built in 79AD.", "It was built in 79 AD.", PASSES),
            # Lower case "bc" is "because" as often: no era ("rated it 4 bc the staff").
            ("They rated it 4.", "They rated it 4 bc the staff were nice.", PASSES),
            ("Caesar died in forty-four BC.", "Caesar died in 44 BC.", PASSES),
            ("Caesar died in forty-four BC.", "Caesar died in 44 AD.", fg002("forty-four BC")),
            # "forty-four AD" is 44, which a chunk's 44 BC is not.
            ("Caesar died in forty-four AD.", "Caesar died in 44 BC.", fg001("forty-four")),
            ("Caesar died in forty-four BC.", "Caesar died in forty-four BC.", PASSES),
            (
                "About 12,000 BC Hydro customers lost power.",
                "12,000 customers of BC Hydro lost power.",
                PASSES,
            ),
            (
                "About 12,000 customers lost power.",
                "About 12,000 BC Hydro customers lost power.",
                PASSES,
            ),
        ],
    )
    def test_eras(self, answer: str, chunk: str, expected: object) -> None:
        assert flagged(chunk, answer) == expected


SURRENDER = "Japan signed the surrender on September 2, 1945, aboard the Missouri."


# from test_dates.py
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
        assert [] == verdict(SURRENDER, f"The surrender was signed on {date}.")

    @pytest.mark.parametrize("chunk_date", ["2 September 1945", "1945-09-02", "Sept. 2nd, 1945"])
    def test_chunk_formats(self, chunk_date: str) -> None:
        """The chunk's format does not matter either."""
        assert [] == verdict(f"Signed on {chunk_date}.", "Signed on September 2, 1945.")

    @pytest.mark.parametrize("numeric", ["9/2/1945", "2/9/1945", "9/2/45"])
    def test_numeric_date_accepts_either_reading(self, numeric: str) -> None:
        """``9/2/1945`` may be 2 September or 9 February: either reading is accepted."""
        assert [] == verdict(SURRENDER, f"It was signed on {numeric}.")

    def test_numeric_date_with_no_matching_reading(self) -> None:
        """``9/3/1945`` is neither 2 September nor any chunk date."""
        assert [("FG002", ("9/3/1945",))] == verdict(SURRENDER, "It was signed on 9/3/1945.")

    def test_date_digits_are_not_rechecked_as_numbers(self) -> None:
        """A wrong date is one FG002, never also FG001 for its day or year."""
        assert [("FG002", ("September 3, 1946",))] == verdict(SURRENDER, "On September 3, 1946.")

    def test_lowercase_may_is_not_a_month(self) -> None:
        """``may 5`` is the verb and a number; capitalized ``May 5`` is a date."""
        assert [("FG001", ("5",))] == verdict("Nothing.", "Some may 5 times.")
        assert [("FG002", ("May 5",))] == verdict("Nothing.", "It opened on May 5.")


# from test_dates.py
class TestOffsets:
    def test_date_span_and_offsets(self) -> None:
        """A date finding gives the span as written and its offsets."""
        answer = "Signed on Sept. 3rd, 1945."
        result = default_grounding_check("", [SURRENDER], answer)
        (finding,) = result.findings
        assert ("Sept. 3rd, 1945",) == finding.spans
        assert ((10, 25),) == finding.offsets
        assert finding.spans[0] == answer[10:25]
