"""
Date readers: a number the scanner met, read as a day, a year, a decade or a date.

``September 2, 1945``, ``2nd of September``, ``July 1969``, ``1945-09-02``,
``9/2/45``, ``1939–1945``, ``the 1940s``, ``the 19th century``: each becomes
an FG002 claim whose keys are the date patterns of :mod:`relapse.grounding._values.calendar`.
"""

from __future__ import annotations

import functools
import re

from relapse.grounding._codes import FG001, FG002
from relapse.grounding._read.claims import (
    Claim,
    digit_run_claim,
    digit_run_parts,
    new_claim,
    short_int,
    year_parts,
)
from relapse.grounding._text import SPACES, ascii_digits_in
from relapse.grounding._values.calendar import (
    MONTH_AFTER,
    MONTH_BEFORE,
    MONTH_CAPITALS,
    MONTH_WINDOW,
    YEAR_AFTER,
    date_needs,
    date_provides,
    is_year,
    month_number,
    period_keys,
)
from relapse.grounding._values.keys import Key, int_key, number_key
from relapse.grounding._values.tags import CENTURY_BC


def numeric_date(match: re.Match[str], readings: list[tuple[int, int, int]]) -> Claim:
    """Build the claim of ``1945-09-02`` or ``9/2/1945``: any valid reading supports it."""
    start, end = match.span()
    readings = [r for r in readings if is_year(r[0]) and 1 <= r[1] <= 12 and 1 <= r[2] <= 31]
    if not readings:
        token: Key = ("t", ascii_digits_in(match.group()))
        return Claim(FG001, start, end, ((token,),), (token,))
    needs, provides = _readings_parts(tuple(readings))
    return new_claim(Claim, (FG002, start, end, needs, provides, None, 0, False, (), ""))


@functools.lru_cache(maxsize=1024)
def _readings_parts(
    readings: tuple[tuple[int, int, int], ...],
) -> tuple[tuple[tuple[Key, ...], ...], tuple[Key, ...]]:
    """Return the needs and provides of a numeric date's readings (cached: dates repeat)."""
    needs: list[tuple[Key, ...]] = []
    provides: list[Key] = []
    for year, month, day in readings:
        needs.extend(date_needs(year, month, day))
        provides.extend(date_provides(year, month, day))
    return tuple(needs), tuple(provides)


def year_range(text: str, match: re.Match[str], start: int) -> Claim:
    """Read ``1939–1945`` or ``2013-14``: a range of years, else two numbers."""
    end = match.end("range_b")
    first = short_int(text[start : start + 4])
    second_digits = match["range_b"]
    second = short_int(second_digits)
    if len(second_digits) == 2:
        full = first // 100 * 100 + second
        if full <= first:
            full += 100
        if is_year(first) and 0 < full - first <= 20:
            second = full
        elif is_year(first) and 1 <= second <= 12:
            # "2019-12": a year and a month.
            needs = date_needs(first, second, None)
            return Claim(FG002, start, end, needs, tuple(date_provides(first, second, None)))
        else:
            return digit_run_claim(text, start, start + 4)
    if not (is_year(first) and is_year(second) and first < second):
        return digit_run_claim(text, start, start + 4)
    years = (int_key(first), int_key(second))
    provides = (*years, *period_keys(first), *period_keys(second))
    return Claim(FG002, start, end, (years,), provides)


# "century" after an ordinal: "19th century", "19th-century", "20th Century".
CENTURY_AFTER = re.compile(r"[\ \u00a0-]?(?:[Cc]entur(?:y|ies)|CENTUR(?:Y|IES))(?![^\W\d_])")


def century_claim(start: int, end: int, ordinal: int, *, before_christ: bool = False) -> Claim:
    """
    Read ``19th century`` (FG002): the years 1800 to 1899, as ``the 1800s`` reads them.

    A century before Christ (``5th century BC``) is another century: it
    needs the same century before Christ, as a year before Christ does. A
    chunk's century also provides its ordinal as a number (``19th``).
    """
    century: Key = (CENTURY_BC, ordinal) if before_christ else ("cent", ordinal - 1)
    _, provides, _, _ = digit_run_parts(str(ordinal))
    return new_claim(
        Claim, (FG002, start, end, ((century,),), (century, *provides), None, 0, False, (), "")
    )


def decade_claim(start: int, end: int, integer: str) -> Claim | None:
    """
    Read ``1940s`` (a decade, FG002) or ``40s`` (FG001: ages and temperatures too).

    ``the 1800s`` names the century more often than the decade 1800 to 1809:
    either reading supports it.
    """
    if integer.endswith("0") and len(integer) == 4 and is_year(int(integer)):
        decade: Key = ("dec", int(integer) // 10)
        # A chunk's "1980s" is also the "'80s" of an answer, as its years are.
        short_decade: Key = ("dec2", int(integer) % 100 // 10)
        if integer.endswith("00"):
            century: Key = ("cent", int(integer) // 100)
            return Claim(
                FG002, start, end, ((decade,), (century,)), (decade, century, short_decade)
            )
        return Claim(FG002, start, end, ((decade,),), (decade, short_decade))
    if integer.endswith("0") and len(integer) == 2:
        short: Key = ("dec2", int(integer) // 10)
        key = number_key(integer)
        return Claim(FG001, start, end, ((short,), (key,)), (short, key), key, 1, True)
    return None


# "AD 79", "A.D. 79": the era before a year, and a space.
_ERA_BEFORE = ("AD ", "AD\u00a0", "A.D. ", "A.D.\u00a0")


def era_before(text: str, start: int) -> int | None:
    """Return where ``AD`` or ``A.D.`` starts right before the year at ``start``, if it does."""
    if not text.endswith(_ERA_BEFORE, 0, start):  # one test in C
        return None
    era = start - (3 if text[start - 2] == "D" else 5)
    return None if era and text[era - 1].isalnum() else era


def era_claim(start: int, end: int, digits: str, era: str) -> Claim:
    """
    Read ``753 BC``, ``79 AD``, ``AD 79`` or ``300 years BC``: a year of an era (FG002).

    A year before Christ needs the same year before Christ, and provides
    nothing else: ``753 BC`` is neither 753 AD nor a count of 753 (``300
    years ago`` is not ``300 years BC``). A year of our era (``AD``, ``CE``)
    needs that year of our era, which a chunk's plain year in the years the
    scanner reads (1500 to 2099) states too; it provides its number as well.

    Args:
        start: Where the claim starts (the year, or ``AD`` before it).
        end: Where it ends.
        digits: The year's ASCII digits.
        era: The era as written (``BC``, ``B.C.``, ``years BC``, ``AD``...).
    """
    year = digits.lstrip("0") or "0"
    if "B" in era or "before" in era:
        before: Key = ("bc", year)
        return Claim(FG002, start, end, ((before,),), (before,))
    ours: Key = ("ad", year)
    number = number_key(year)
    if len(year) == 4 and is_year(int(year)):
        needs, provides, _ = year_parts(int(year))
        return Claim(FG002, start, end, ((ours,), *needs), (ours, *provides), number, 0, False)
    return Claim(FG002, start, end, ((ours,),), (ours, number), number, 0, False)


_MONTH_CAPITAL_SET = frozenset(MONTH_CAPITALS)


def month_may_precede(text: str, start: int) -> bool:
    """
    Tell whether a month name may end right before ``start`` (a cheap test).

    The month regex runs only where this is true, which changes no result,
    only the cost: the name is the previous word (or the word before "the"
    or "of"), so that word must hold one of the month capitals.
    """
    # The last two words are enough: the month, or "the"/"of" after it.
    words = text[max(0, start - MONTH_WINDOW) : start].rsplit(None, 2)
    if not words:
        return False
    word = words[-1]
    if word in ("the", "of") and len(words) > 1:
        word = words[-2]
    return not _MONTH_CAPITAL_SET.isdisjoint(word)


def month_before(text: str, start: int) -> re.Match[str] | None:
    """Find a month name right before ``start`` (``Sept. `` in ``Sept. 2``)."""
    if not start or text[start - 1] not in SPACES or not month_may_precede(text, start):
        return None
    return MONTH_BEFORE.search(text, max(0, start - MONTH_WINDOW), start)


def month_day(
    text: str, start: int, end: int, day: int, after: bool, look_back: bool = True
) -> Claim | None:
    """
    Read ``September 2[, 1945]`` or ``2[nd] [of] September[ 1945]`` around a day number.

    A month name before the day is searched for unless ``look_back`` is False;
    one after it only when ``after`` (the scanner saw one).
    """
    before = month_before(text, start) if look_back else None
    if before is not None:
        return month_then_day(text, before.start("month"), month_number(before["month"]), end, day)
    # The scan's lookahead ("after") saw a month capital after the number.
    following = MONTH_AFTER.match(text, end) if after else None
    if following is None:
        return None
    month = month_number(following["month"])
    year_digits = following["year"]
    if year_digits is not None and is_year(short_int(year_digits)):
        return date_claim(start, following.end(), short_int(year_digits), month, day)
    return date_claim(start, following.end("month"), None, month, day)


def month_then_day(text: str, month_start: int, month: int, end: int, day: int) -> Claim:
    """Build the claim of ``September 2`` ending at ``end``, with ``, 1945`` if a year follows."""
    year: int | None = None
    year_match = YEAR_AFTER.match(text, end)
    if year_match is not None and is_year(short_int(year_match["year"])):
        year = short_int(year_match["year"])
        end = year_match.end()
    return date_claim(month_start, end, year, month, day)


def month_led(text: str, month_start: int, start: int, end: int) -> Claim | None:
    """
    Read the day or year after a month name the scanner matched, or return None.

    Gives exactly the claim :func:`month_day` and :func:`year_claim` give for a
    bare ASCII day (1 to 31) or year after a month name, without searching
    back for the name.

    Args:
        text: The text.
        month_start: Where the month name starts.
        start: Where the number starts.
        end: Where its digits end (nothing is glued after them).
    """
    raw = text[start:end]
    length = len(raw)
    # Neither a day nor a year has more than four digits; a longer run is
    # read the general way, never through int() (which refuses 4,300 digits).
    if length > 4 or not (raw.isascii() and raw.isdigit()):
        return None
    value = int(raw)
    month = month_number(text[month_start:start].split(None, 1)[0].rstrip(","))
    if length <= 2 and 1 <= value <= 31:
        return month_then_day(text, month_start, month, end, value)
    if length == 4 and is_year(value):
        return date_claim(month_start, end, value, month, None)
    return None


def year_claim(text: str, start: int, end: int, year: int, look_back: bool = True) -> Claim:
    """Read a year, or ``July 1969`` when a month name comes before it (if ``look_back``)."""
    before = month_before(text, start) if look_back else None
    if before is not None:
        return date_claim(before.start("month"), end, year, month_number(before["month"]), None)
    needs, provides, key = year_parts(year)
    return new_claim(Claim, (FG002, start, end, needs, provides, key, 0, True, (), ""))


def date_claim(start: int, end: int, year: int | None, month: int, day: int | None) -> Claim:
    """Build the claim of a date with a month name."""
    needs, provides = _date_parts(year, month, day)
    return new_claim(Claim, (FG002, start, end, needs, provides, None, 0, False, (), ""))


@functools.lru_cache(maxsize=1024)
def _date_parts(
    year: int | None, month: int, day: int | None
) -> tuple[tuple[tuple[Key, ...], ...], tuple[Key, ...]]:
    """Return the needs and provides of a date (cached: dates repeat)."""
    return date_needs(year, month, day), tuple(date_provides(year, month, day))
