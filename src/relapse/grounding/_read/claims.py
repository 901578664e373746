"""
Claims: what the scanner finds, and the parts of the commonest one, a digit run.

A :class:`Claim` says what an answer needs (alternatives of keys) and what a
chunk holding the same text provides. A bare digit run (``1945``, ``300``)
is read into its parts once per distinct string and cached, since numbers
repeat across texts.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

from relapse.grounding._codes import FG001, FG002
from relapse.grounding._text import ascii_digits
from relapse.grounding._values.calendar import is_year, period_keys
from relapse.grounding._values.keys import Key, int_key, number_key


class Claim(NamedTuple):
    """One claim found by the scanner: what an answer needs, what a chunk provides."""

    #: ``"FG001"`` (number) or ``"FG002"`` (date).
    code: str
    #: Start offset of the claim's span.
    start: int
    #: End offset of the claim's span (exclusive).
    end: int
    #: Alternatives that support the claim; each is a conjunction of keys.
    needs: tuple[tuple[Key, ...], ...]
    #: Keys a chunk holding this text provides to the index.
    provides: tuple[Key, ...]
    #: The number's value key (None for dates and tokens).
    key: Key | None = None
    #: Power of ten of the last written digit, for hedged rounding.
    precision: int = 0
    #: True when no unit marks it (no currency, percent or scale), so the
    #: trivial numbers are exempt.
    plain: bool = False
    #: The endpoints' keys of a range (``10-15``); empty otherwise.
    parts: tuple[Key, ...] = ()
    #: ``"%"`` for a percentage, ``"$"`` for an amount of money, else empty.
    unit: str = ""


# Builds a Claim from a full tuple of fields in C, for the hot path.
new_claim = tuple.__new__

#: Longest digit string whose parts are cached: the caches stay small even
#: when a text holds numbers thousands of digits long.
MAX_CACHED_DIGITS = 32

Parts = tuple[tuple[tuple[Key, ...], ...], tuple[Key, ...], Key, int]


def digit_run_parts(raw: str) -> Parts:
    """
    Return the needs, provides, key and precision of an ASCII digit run read as a number.

    Never as a year: the callers have ruled a year out. Cached for runs of
    up to :data:`MAX_CACHED_DIGITS` digits.
    """
    return (
        _cached_digit_run_parts(raw)
        if len(raw) <= MAX_CACHED_DIGITS
        else _compute_digit_run_parts(raw)
    )


def digit_run_or_year_parts(
    raw: str,
) -> tuple[str, tuple[tuple[Key, ...], ...], tuple[Key, ...], Key, int]:
    """
    Return the code, needs, provides, key and precision of a bare ASCII digit run.

    Unlike :func:`digit_run_parts`, a four-digit run in the year range reads
    as a year (FG002): this is the reading of a digit run nothing surrounds.
    """
    if len(raw) > MAX_CACHED_DIGITS:
        return (FG001, *_compute_digit_run_parts(raw))
    return _cached_digit_run_or_year_parts(raw)


@functools.lru_cache(maxsize=4096)
def _cached_digit_run_or_year_parts(
    raw: str,
) -> tuple[str, tuple[tuple[Key, ...], ...], tuple[Key, ...], Key, int]:
    """Compute :func:`digit_run_or_year_parts` for a short digit run (they repeat across texts)."""
    if len(raw) == 4 and is_year(int(raw)):
        return (FG002, *year_parts(int(raw)), 0)
    return (FG001, *_compute_digit_run_parts(raw))


def plain_number_keys(raw: str) -> tuple[tuple[Key, ...], Key]:
    """
    Return what a bare digit run provides to an index, and its value key.

    Args:
        raw: A digit string :func:`scan` appended to ``plain_numbers``.

    Returns:
        ``(provides, key)``: the keys of the number (or year) it reads as.
    """
    _, _, provides, key, _ = digit_run_or_year_parts(raw)
    return provides, key


def _compute_digit_run_parts(raw: str) -> Parts:
    """Compute :func:`digit_run_parts`."""
    digits = raw.lstrip("0")
    significant = digits.rstrip("0")
    key: Key = ("n", significant, len(digits) - len(significant)) if digits else ("n", "0", 0)
    return ((key,),), (key, ("s", key[1], key[2])), key, key[2]  # type: ignore[return-value]


# Numbers repeat across texts (list markers, years, counts): their parts are
# computed once.
_cached_digit_run_parts = functools.lru_cache(maxsize=4096)(_compute_digit_run_parts)


@functools.lru_cache(maxsize=1024)
def year_parts(year: int) -> tuple[tuple[tuple[Key, ...], ...], tuple[Key, ...], Key]:
    """Return the needs, provides and key of a year (cached: years repeat)."""
    key = int_key(year)
    return ((key,),), (key, *period_keys(year)), key


def digit_run_claim(text: str, start: int, end: int) -> Claim:
    """
    Return the claim of the digit run ``text[start:end]``, a number or a year.

    Unlike the parts helpers above, it reads digits of any script and builds
    the claim with its offsets; used where a longer reading (a range of
    years) fell through.
    """
    digits = ascii_digits(text[start:end])
    key = number_key(digits)
    if len(digits) == 4 and is_year(int(digits)):
        year = int(digits)
        return Claim(FG002, start, end, ((key,),), (key, *period_keys(year)), key, 0, True)
    return Claim(FG001, start, end, ((key,),), (key,), key, trailing_zeros(digits), True)


def trailing_zeros(digits: str) -> int:
    """Count the trailing zeros of a digit string (the precision of ``1,200`` is 2)."""
    return len(digits) - len(digits.rstrip("0")) if digits.strip("0") else 0


def short_int(digits: str) -> int:
    """Return the value of a short run of Unicode digits."""
    return int(ascii_digits(digits))
