"""
Babel as an oracle (issue 21): decimals in every ASCII-digit locale, percents, times and dates.

Each property writes a number the way Babel writes it
(``babel.numbers.format_decimal``, ``format_percent``, ``format_time``,
``format_date``) and asks the check to read it as the same value as its plain
digits. What the check deliberately reads otherwise is listed in
docs/findings.md ("Limits of the quantity reading"); the properties exclude
exactly those cases, by the rule stated there.
"""

from __future__ import annotations

import re
from datetime import date, time
from decimal import Decimal

import pytest
from babel import localedata
from babel.dates import format_date, format_time, get_date_format
from babel.numbers import format_decimal, format_percent
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from grounding_oracles import BABEL_EXAMPLES, grounded
from relapse.grounding._read.numbers import written_without_spaces

#: The oracle properties run in the full suite; `bash scripts/test.sh --fast` leaves them out.
pytestmark = pytest.mark.oracle


def _ascii_digit_locales() -> list[str]:
    """The Babel locales whose decimal format writes ASCII digits."""
    found = []
    for locale in localedata.locale_identifiers():
        written = format_decimal(Decimal("1234567.891"), locale=locale)
        if all(char.isascii() for char in written if char.isdigit()):
            found.append(locale)
    return sorted(found)


LOCALES = _ascii_digit_locales()


def _plain(value: Decimal) -> str:
    """A value in plain digits: no grouping, a point, its sign."""
    return format(value.normalize(), "f") if value != value.to_integral() else str(int(value))


# Toki Pona's and Anii's Babel data group digits by two ("1 23 45").
_PAIRS = re.compile(r"\d[\xa0\u202f]\d\d(?:[\xa0\u202f]|,|$)")


# Babel's fr_CH writes long numbers ungrouped or grouped only at the end
# ("557279364,814", "1000000'000"): a comma, apostrophe or space after more
# than three digits separates two numbers for the check.
_LONG_LEAD = re.compile(r"\d{4}(?:,\d|['\u2019\xa0\u202f]\d{3})")


def _babel_non_goal(written: str) -> bool:
    """Tell whether a Babel writing falls under a documented limit of the check."""
    return bool(_PAIRS.search(written) or _LONG_LEAD.search(written))


_VALUES = st.one_of(
    st.integers(3, 10**12).map(Decimal),
    st.decimals(3, 10**9, places=3, allow_nan=False, allow_infinity=False),
    st.decimals(Decimal("0.001"), 3, places=3, allow_nan=False, allow_infinity=False),
)


def _foreign_word_before(written: str) -> bool:
    """
    Tell whether a Babel time writes a word of another script before the hour.

    Assamese ``অপৰাহ্ন 7.30`` and Dzongkha ``ཆུ་ཚོད་ 7 ...``: the check reads
    English day periods only (a documented limit); Latin letters and the
    scripts written without spaces (``下午7:30``) are read.
    """
    first_digit = next(index for index, char in enumerate(written) if char.isdigit())
    return any(
        char.isalpha() and not char.isascii() and not written_without_spaces(char)
        for char in written[:first_digit]
    )


def _date_non_goal(locale: str) -> bool:
    """
    Tell whether a locale's short date pattern is one the check documents it reads otherwise.

    A two-digit year first (``yy/MM/dd``: ``17/03/04`` reads as a day first),
    fields parted by a space alone (``dd/MM y``), or an era (``G``).
    """
    pattern = get_date_format("short", locale=locale).pattern
    return (pattern.startswith("yy") and not pattern.startswith("yyy")) or (
        "G" in pattern or re.search(r"[dMy] [dMy]", pattern) is not None
    )


# from test_oracles.py (issue 21)
class TestBabelDecimals:
    @settings(max_examples=BABEL_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
    @given(locale=st.sampled_from(LOCALES), value=_VALUES, negative=st.booleans())
    def test_a_locale_writing_is_its_plain_value(
        self, locale: str, value: Decimal, negative: bool
    ) -> None:
        value = -value if negative else value
        assume(abs(value) >= 3 or value != value.to_integral())  # 0, 1, 2 claim nothing
        written = format_decimal(value, locale=locale)
        assume(not _babel_non_goal(written))
        answer = f"The total was {written} units."
        assert grounded(f"The total was {_plain(value)} units.", answer), (locale, written)
        other = value + (1 if value == value.to_integral() else Decimal("0.001"))
        assert not grounded(f"The total was {_plain(other)} units.", answer), (locale, written)

    @settings(max_examples=BABEL_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
    @given(
        locale=st.sampled_from(LOCALES),
        whole=st.integers(3, 10**9),
        cents=st.integers(10, 99),
    )
    def test_a_chunk_writing_is_one_number(self, locale: str, whole: int, cents: int) -> None:
        """A chunk's ``5.434.012,31 kg`` supports neither ``5,434,012 kg`` nor ``31 kg``."""
        assume(cents % 10)  # "12,50" is also written "12,5": its decimals are 5, not 50
        written = format_decimal(Decimal(whole) + Decimal(cents) / 100, locale=locale)
        assume(not _babel_non_goal(written))
        chunk = f"The load was {written} kg."
        assert grounded(chunk, f"The load was {whole}.{cents} kg."), (locale, written)
        assert not grounded(chunk, f"The load was {whole} kg."), (locale, written)
        assert not grounded(chunk, f"The load was {cents} kg."), (locale, written)

    def test_every_ascii_locale_is_drawn_from(self) -> None:
        """Babel 2.x: every locale formats with ASCII digits by default."""
        assert len(LOCALES) > 1_000


# from test_oracles.py (issue 21)
class TestBabelPercentsTimesDates:
    """Babel's percents, short times and short dates in every locale read as their plain form."""

    @settings(max_examples=BABEL_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
    @given(locale=st.sampled_from(LOCALES), percent=st.integers(3, 999))
    def test_a_percent(self, locale: str, percent: int) -> None:
        written = format_percent(Decimal(percent) / 100, locale=locale)
        assume(not _babel_non_goal(written))
        answer = f"Turnout was {written}."
        assert grounded(f"Turnout was {percent}%.", answer), (locale, written)
        assert not grounded(f"Turnout was {percent + 1}%.", answer), (locale, written)

    @settings(max_examples=BABEL_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
    @given(locale=st.sampled_from(LOCALES), hour=st.integers(0, 23), minute=st.integers(0, 58))
    # Danish "01.00": its decimal reading is 1 stated on its own, which the
    # minutes of the other time ("03:01") are not.
    @example(locale="da", hour=1, minute=0)
    def test_a_time(self, locale: str, hour: int, minute: int) -> None:
        written = format_time(time(hour, minute), format="short", locale=locale)
        # Yoruba's Babel data writes "H:m" ("7:5"): one digit of minutes is a
        # ratio or a score to the check, as to most readers.
        assume(not _foreign_word_before(written) and not re.search(r"\d[:.h]\d(?!\d)", written))
        answer = f"It opens at {written}."
        assert grounded(f"It opens at {hour:02d}:{minute:02d}.", answer), (locale, written)
        # Another hour and minute: "3:00" is also the duration 3 hours, which
        # a chunk's "03:01" states in its 3.
        other = f"It opens at {(hour + 2) % 24:02d}:{minute + 1:02d}."
        assert not grounded(other, answer), (locale, written)

    @settings(max_examples=BABEL_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
    @given(locale=st.sampled_from(LOCALES), day=st.dates(date(1990, 1, 1), date(2030, 12, 31)))
    def test_a_short_date(self, locale: str, day: date) -> None:
        assume(not _date_non_goal(locale))
        written = format_date(day, format="short", locale=locale)
        answer = f"It opened on {written}."
        assert grounded(f"It opened on {day.isoformat()}.", answer), (locale, written)
        later = day.replace(year=day.year + 1) if (day.month, day.day) != (2, 29) else day
        assume(later != day)
        assert not grounded(f"It opened on {later.isoformat()}.", answer), (locale, written)
