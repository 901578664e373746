"""
Dates: month names around a number, and the keys a date needs or provides.

A date is ``(year, month, day)`` with missing parts as wildcards. A chunk's
date provides every pattern its parts can fill (``July 20, 1969`` provides
``(1969, 7, 20)``, ``(1969, 7, *)``, ``(*, 7, 20)``, ``(1969, *, *)``...), so
an answer's partial date is supported by a fuller one with one set lookup,
and never the other way round.
"""

from __future__ import annotations

import re

from relapse.grounding._text import SPACES, spellings, trie_pattern
from relapse.grounding._values.keys import Key, int_key

MONTHS = {
    "january": 1,
    "february": 2,
    "march": 3,
    "april": 4,
    "may": 5,
    "june": 6,
    "july": 7,
    "august": 8,
    "september": 9,
    "october": 10,
    "november": 11,
    "december": 12,
    "jan": 1,
    "feb": 2,
    "mar": 3,
    "apr": 4,
    "jun": 6,
    "jul": 7,
    "aug": 8,
    "sep": 9,
    "sept": 9,
    "oct": 10,
    "nov": 11,
    "dec": 12,
}

#: Years a four-digit number may be taken for, inclusive.
YEAR_RANGE = (1500, 2099)

# Month names count only capitalized or in capitals: "may" and "march" are
# ordinary words far more often than dates. Only an abbreviation takes a
# period ("Sept. 2"): after a full name ("in July. 20 people came") the
# period ends a sentence.
_ABBREVIATIONS = [
    "jan",
    "feb",
    "mar",
    "apr",
    "jun",
    "jul",
    "aug",
    "sep",
    "sept",
    "oct",
    "nov",
    "dec",
]
_FULL_NAMES = [name for name in MONTHS if name not in _ABBREVIATIONS]


# The lookahead rejects, in one step, every position that cannot start a
# month name, before the alternation tries its 48 spellings one by one.
_MONTH_ALTERNATION = (
    rf"(?=[JFMASOND])(?:(?:{trie_pattern(spellings(_FULL_NAMES, lower=False))})(?![^\W\d_])"
    rf"|(?:{trie_pattern(spellings(_ABBREVIATIONS, lower=False))})(?![^\W\d_])\.?)"
)
_SPACE = rf"[{SPACES}]"
#: Characters searched before a number for a month name.
MONTH_WINDOW = 20

#: Every month spelling, as a trie pattern with no flags or groups, for the
#: scanner's lookahead that flags a number a month name may follow.
MONTH_NAMES = trie_pattern(spellings(MONTHS, lower=False))

# "September 2", "Sept. 2nd", "July 1969", "September of 1945" (searched in
# a window ending at the number).
MONTH_BEFORE = re.compile(
    rf"(?=[JFMASOND])(?<![^\W\d_])(?P<month>{_MONTH_ALTERNATION}),?{_SPACE}{{1,3}}"
    rf"(?:(?:the|of){_SPACE}{{1,3}})?\Z"
)


def _after_capital() -> str:
    """
    Return every month spelling as a pattern read after its capital.

    The alternatives are grouped by the letter after the capital, so the
    regex engine rejects a capital that starts no month name ("Ann", "Dr")
    with one comparison per group; a lookbehind on the whole name then checks
    the capital and that no letter comes before it. Full names end at a word
    boundary; abbreviations may take a period (``Sept. 2``).
    """
    groups: dict[str, list[tuple[str, str]]] = {}
    for name in MONTHS:
        period = r"\.?" if name in _ABBREVIATIONS else ""
        for form in (name.capitalize(), name.upper()):
            tail = form[1:]
            piece = rf"{tail[1:]}(?<={form})(?<![^\W\d_]{form})(?![^\W\d_]){period}"
            groups.setdefault(tail[0], []).append((tail, piece))
    rendered = [
        f"{letter}(?:{'|'.join(piece for _, piece in sorted(pieces, key=lambda p: -len(p[0])))})"
        for letter, pieces in sorted(groups.items())
    ]
    return f"(?:{'|'.join(rendered)})"


#: Capitals that start a month name.
MONTH_CAPITALS = "".join(sorted({name[0].upper() for name in MONTHS}))
#: :data:`MONTH_BEFORE` read forwards, for a scanner that has just consumed a
#: month's capital: the rest of the name and the gap up to the number's first
#: digit. It matches exactly where ``MONTH_BEFORE`` finds a month before that
#: digit, so a scanner that tries it at every capital knows that a number it
#: meets without it has no month name before.
MONTH_LEAD = rf"{_after_capital()},?{_SPACE}{{1,3}}(?:(?:the|of){_SPACE}{{1,3}})?(?=\d)"
# "2 September 1945", "2nd of September", "20 Jul. 1969" (matched right after
# the day and its ordinal suffix).
MONTH_AFTER = re.compile(
    rf"{_SPACE}{{1,3}}(?:of{_SPACE}{{1,3}})?(?P<month>{_MONTH_ALTERNATION})"
    rf"(?:,?{_SPACE}{{1,3}}(?P<year>\d{{4}})(?![\d]))?"
)
# ", 1945" after "September 2".
YEAR_AFTER = re.compile(rf",?{_SPACE}{{1,3}}(?P<year>\d{{4}})(?![\d])")


def month_number(name: str) -> int:
    """
    Return the month number of a month name or abbreviation.

    Args:
        name: As matched, in any case (``"Sept"``).

    Returns:
        1 to 12.
    """
    return MONTHS[name.rstrip(".").lower()]


def is_year(value: int) -> bool:
    """
    Tell whether a four-digit number may be a year.

    Args:
        value: The number.

    Returns:
        True within :data:`YEAR_RANGE`.
    """
    return YEAR_RANGE[0] <= value <= YEAR_RANGE[1]


def date_key(year: int | None, month: int | None, day: int | None) -> Key:
    """
    Return the key of one date pattern.

    Args:
        year: The year, or None for "any".
        month: The month, or None.
        day: The day, or None.

    Returns:
        ``("d", year, month, day)``.
    """
    return ("d", year, month, day)


def period_keys(year: int) -> tuple[Key, Key, Key]:
    """
    Return the periods a year provides: its decade, its two-digit decade, its century.

    Args:
        year: The year.

    Returns:
        ``("dec", 194)``, ``("dec2", 4)`` and ``("cent", 19)`` for 1945 (the
        century as its hundreds: ``the 1900s`` and ``the 20th century`` both
        need ``("cent", 19)``).
    """
    return ("dec", year // 10), ("dec2", year % 100 // 10), ("cent", year // 100)


_ANY_DATE: Key = ("d", None, None, None)


def date_provides(year: int | None, month: int | None, day: int | None) -> list[Key]:
    """
    Return every key a date in a chunk provides.

    Args:
        year: The year, or None.
        month: The month, or None.
        day: The day, or None.

    Returns:
        The date pattern of each non-empty subset of the known parts, plus the
        year and day as numbers and the year's decades and century.
    """
    # The subsets written out (a chunk's dates are many): product() and a
    # call per key cost three times as much.
    keys: list[Key] = [
        ("d", year, month, day),
        ("d", year, month, None),
        ("d", year, None, day),
        ("d", year, None, None),
        ("d", None, month, day),
        ("d", None, month, None),
        ("d", None, None, day),
    ]
    if year is None or month is None or day is None:
        # A missing part repeats some subsets and yields the all-wildcard one.
        keys = [key for key in dict.fromkeys(keys) if key != _ANY_DATE]
    if year is not None:
        keys.append(int_key(year))
        keys.extend(period_keys(year))
    if day is not None:
        keys.append(int_key(day))
    return keys


def date_needs(year: int | None, month: int | None, day: int | None) -> tuple[tuple[Key, ...], ...]:
    """
    Return the alternatives that support a date in an answer.

    Args:
        year: The year, or None.
        month: The month, or None.
        day: The day, or None.

    Returns:
        The exact pattern; and, when the answer gives a year with a month, a
        chunk date without a year (``On July 20, ...``) together with that year
        anywhere in the chunks: a chunk often names the year once and the days
        after it.
    """
    exact: tuple[Key, ...] = (date_key(year, month, day),)
    if year is not None and month is not None:
        return (exact, (date_key(None, month, day), int_key(year)))
    return (exact,)


def numeric_readings(first: int, second: int, year: int) -> list[tuple[int, int, int]]:
    """
    Return the valid ``(year, month, day)`` readings of ``first/second/year``.

    ``9/2/1945`` is 2 September in the US and 9 February elsewhere: both
    readings are kept, and a match on either supports the date.

    Args:
        first: The first number.
        second: The second number.
        year: The year (already expanded from two digits).

    Returns:
        Zero, one or two readings.
    """
    readings: list[tuple[int, int, int]] = []
    if 1 <= first <= 12 and 1 <= second <= 31:
        readings.append((year, first, second))
    if 1 <= second <= 12 and 1 <= first <= 31 and first != second:
        readings.append((year, second, first))
    return readings


def expand_two_digit_year(year: int) -> tuple[int, ...]:
    """
    Return the years a two-digit year may stand for.

    Args:
        year: 0 to 99.

    Returns:
        Both the 1900s and the 2000s reading: ``9/2/45`` cannot tell them apart.
    """
    return (1900 + year, 2000 + year)
