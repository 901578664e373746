"""dateutil as an oracle (issue 21): English dates in eleven forms read as the day it parses."""

from __future__ import annotations

from datetime import date

import pytest
from dateutil import parser as dateutil_parser
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from grounding_oracles import WORDS_EXAMPLES, grounded

#: The oracle properties run in the full suite; `bash scripts/test.sh --fast` leaves them out.
pytestmark = pytest.mark.oracle


def _ordinal(day: int) -> str:
    """``4th``, ``21st``: a day with its English ordinal suffix."""
    suffix = "th" if 10 <= day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return f"{day}{suffix}"


#: English writings of a date, as ``strftime`` patterns (``{ord}``: the day as an ordinal).
_DATE_FORMS = (
    "%B %-d, %Y",
    "%B %d, %Y",
    "%-d %B %Y",
    "%d %b %Y",
    "%b. %-d, %Y",
    "%A, %B %-d, %Y",
    "%-d %B, %Y",
    "%B {ord}, %Y",
    "the {ord} of %B %Y",
    "%Y-%m-%d",
    "%m/%d/%Y",
)


# from test_oracles.py (issue 21)
class TestDateutilDates:
    """English dates as dateutil parses them: the check reads the same day."""

    @settings(max_examples=WORDS_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
    @given(form=st.sampled_from(_DATE_FORMS), day=st.dates(date(1600, 1, 1), date(2098, 12, 31)))
    def test_an_english_date(self, form: str, day: date) -> None:
        written = day.strftime(form.replace("{ord}", _ordinal(day.day)))
        parsed = dateutil_parser.parse(written, fuzzy=True).date()
        assert parsed == day, written  # the oracle reads what was written
        answer = f"It opened on {written}."
        assert grounded(f"It opened on {parsed.isoformat()}.", answer), written
        assume((day.month, day.day) != (2, 29))
        later = parsed.replace(year=parsed.year + 1)
        assert not grounded(f"It opened on {later.isoformat()}.", answer), written
