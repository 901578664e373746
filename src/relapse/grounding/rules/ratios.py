"""Ratios and shares: a percent is its ratio (``45%``: ``0.45``), a fraction its percent."""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from fractions import Fraction

from relapse.grounding._codes import FG001
from relapse.grounding._read.quantity import Quantity
from relapse.grounding._values.keys import Key, key_decimal, key_value, value_key
from relapse.grounding._values.tags import (
    NUMBER,
    PERCENT_MARK,
    RATIO_MARK,
    RATIONAL,
    TOKEN,
    Kind,
)
from relapse.grounding.rules._lookup import Lookup
from relapse.grounding.rules._rule import Phase, Reads, Role, Support, rule


def percent_ratio(lookup: Lookup, value: Quantity, verdict: Support | None) -> Support | None:
    """
    A percent is stated by its ratio, and a fraction by its percent.

    Accepts:
        ``45%`` when a chunk writes ``0.45`` with no unit, or the fraction
        ``9/20`` or ``a quarter`` for ``25%``; ``33%`` or ``33.3%`` for a
        chunk's ``one third`` (the fraction rounded to the percent's last
        written digit, not ``34%``); ``two thirds`` in the answer for a
        chunk's ``67%`` or ``sixty-seven percent``.

    Why:
        A share is written either way; ``0.45 mm`` measures something else,
        so a ratio with a unit states no percent.

        A fraction stated as one (``9/20``, ``a quarter``, ``half``; denominators 2 to 12, 16 and
        20) states its percent. A fraction without an exact decimal (1/3, 2/3, 1/6, 1/7...) has no
        exact percent: a percent is held by it when it is that fraction rounded half up to the
        percent's last written digit, so one third states ``33%``, ``33.3%`` and ``33.33%``, not
        ``34%``, ``33.4%`` or ``33.0%``; two thirds states ``67%`` and ``66.7%``, not ``66%``. This
        is the only rounding an unhedged claim gets: no percent can state 1/3 exactly, and writing
        it to whole percents is the convention; a fraction with an exact value gets none (one eighth
        is ``12.5%``, not ``13%``), nor does a decimal (``1.33 cups`` is still not ``1 1/3 cups``).
        The other way round, a fraction in words (``two thirds``, ``one quarter``) is held by a
        chunk's percent that states it so (``67%``, ``66.7%``, ``25%``), written with ``%`` or a
        percent word.

    Examples:
        | answer | chunks | verdict |
        | --- | --- | --- |
        | `45% of voters agreed.` | `A share of 0.45 of voters agreed.` | passes |
        | `Two thirds of them left.` | `67% of them left.` | passes |
        | `45%` | `a share of 0.45 ‖ 9/20 ‖ a quarter ‖ half of them` | passes |
        | `25%` | `a share of 0.45 ‖ 9/20 ‖ a quarter ‖ half of them` | passes |
        | `50%` | `a share of 0.45 ‖ 9/20 ‖ a quarter ‖ half of them` | passes |
        | `33%` | `One third` | passes |
        | `33.3%` | `1/3` | passes |
        | `67%` | `two thirds` | passes |
        | `two thirds` | `67% ‖ 33.3% ‖ 1/3 ‖ Sixty percent` | passes |
        | `three fifths` | `67% ‖ 33.3% ‖ 1/3 ‖ Sixty percent` | passes |
    """
    claim = value.claim
    if claim.code != FG001 or claim.unit not in _SHARE_MARKS:
        return None
    key = claim.key
    assert key is not None  # the century rule decided every claim without one
    return True if ratio(lookup, key, claim.unit) else None


def bare_share(lookup: Lookup, value: Quantity, verdict: Support | None) -> Support | None:
    """
    A decimal said of a share is stated by its percent.

    Accepts:
        ``a share of 0.6`` when a chunk says ``60%``: a decimal between 0 and
        1 with no unit, a share's word (``share``, ``proportion``,
        ``fraction``) within 40 characters before it and nothing it measures
        after it.

    Why:
        ``0.6`` written alone states the share ``60%`` does; ``a p-value of
        0.6``, ``version 0.6`` or ``0.6 mm`` do not.

    Examples:
        | answer | chunks | verdict |
        | --- | --- | --- |
        | `The share was 0.6.` | `60% of them stayed.` | passes |
    """
    claim = value.claim
    key = claim.key
    if claim.code != FG001 or claim.unit or key is None:
        return None
    if _bare_share(value, key) and ratio(lookup, key, RATIO_MARK):
        return True  # "a share of 0.6": a chunk's 60% states it
    return None


def ratio(lookup: Lookup, key: Key, unit: str) -> bool:
    """
    Tell whether the texts state a percent's ratio, or a ratio's percent.

    ``45%`` is the ratio 0.45: a chunk's ``0.45`` written without a unit
    supports it (``0.45 mm`` measures something else), and so does a
    fraction stated as a fraction (``9/20``, ``a quarter`` for ``25%``).
    A fraction without an exact decimal (1/3, 2/3, 1/7) has no exact
    percent either: a percent is supported by it when it is the
    fraction rounded to the percent's last written digit (``33%``,
    ``33.3%`` for one third; not ``34%`` nor ``33.4%``). The other way
    round, ``two thirds`` (unit ``"/"``: a fraction in words) is
    supported by a chunk's percent that is it, so rounded.
    """
    indexes = lookup.indexes
    if unit == PERCENT_MARK:
        percent = key_decimal(key)
        if percent is None:
            return False
        ratio: Key = (NUMBER, key[1], key[2] - 2)  # type: ignore[operator]
        if lookup.has(ratio, plain=False) and any(
            None in index.units.written(ratio) for index in indexes
        ):
            return True
        exponent = key[2]
        assert isinstance(exponent, int)  # number keys: ("n", digits, exponent)
        written = Fraction(percent)
        # The fractions within half a unit of the last written digit, found
        # by bisection in the sorted percents, then tested exactly.
        half = float(Fraction(10) ** min(exponent, 0)) / 2 + 1e-9
        low = bisect_left(_FRACTION_PERCENTS, float(written) - half)
        high = bisect_right(_FRACTION_PERCENTS, float(written) + half)
        return any(
            _rounds_to_percent(fraction, written, min(exponent, 0))
            and _states_fraction(lookup, fraction)
            for fraction in _FRACTIONS[low:high]
        )
    value = key_value(key)
    if value is None:
        return False
    percents = _percents_of(Fraction(value))
    if any(
        lookup.has(percent, plain=False)
        and any(PERCENT_MARK in index.units.written(percent) for index in indexes)
        for percent in percents
    ):
        return True
    # "three fifths" of a chunk's "sixty percent".
    in_words = lookup.percents_in_words()
    return any(key_value(percent) in in_words for percent in percents)


def _states_fraction(lookup: Lookup, fraction: Fraction) -> bool:
    """Tell whether the texts state ``fraction`` as a fraction: in words, or ``n/d``."""
    if lookup.chunks.words.has(fraction):
        return True
    written: Key = (TOKEN, f"{fraction.numerator}/{fraction.denominator}")
    key = value_key(fraction)
    exact = key is not None and key[0] == RATIONAL and lookup.has(key, plain=False)
    return exact or lookup.has(written, plain=False)


def _bare_share(value: Quantity, key: Key) -> bool:
    """
    Tell whether a digit claim is a decimal between 0 and 1 with no unit: a share (``0.6``).

    ``0.6`` written alone states the share ``60%`` does; ``0.6 mm`` measures
    something else, and ``0`` and ``1`` are no shares.
    """
    if key[0] != NUMBER or not isinstance(key[2], int) or key[2] >= 0:
        return False
    number = key_value(key)
    answer, claim = value.answer, value.claim
    return (
        number is not None
        and 0 < number < 1
        and value.binding is None
        # Said of a share ("the share was 0.6"), and nothing after it that it
        # measures ("a p-value of 0.6", "version 0.6", "0.6 percentage points").
        and _SHARE_BEFORE.search(answer, max(0, claim.start - SHARE_WINDOW), claim.start)
        is not None
        and _NOTHING_MEASURED_AFTER.match(answer, claim.end) is not None
    )


# The marks of a claim a ratio may state: a percent, a fraction in words.
_SHARE_MARKS = frozenset({PERCENT_MARK, RATIO_MARK})

#: Characters before a bare decimal searched for the word of a share.
SHARE_WINDOW = 40

_SHARE_BEFORE = re.compile(r"(?i)(?<![^\W\d_])(?:share|proportion|fraction)(?![^\W\d_])")

_NOTHING_MEASURED_AFTER = re.compile(
    r"[\ \u00a0]*(?:[.,;:!?)\]]|$|(?:of|and|or|in|for|among)(?![^\W\d_]))"
)

#: Denominators of the fractions a percent may restate (``one third``, ``9/20``).
_DENOMINATORS = (*range(2, 13), 16, 20)

#: The proper fractions of those denominators, in lowest terms.
_FRACTIONS = tuple(
    sorted(
        {
            Fraction(numerator, denominator)
            for denominator in _DENOMINATORS
            for numerator in range(1, denominator)
        }
    )
)

#: Their percents, as floats in the same order, for a bisection.
_FRACTION_PERCENTS = [float(fraction * 100) for fraction in _FRACTIONS]

#: Decimal places a percent of a fraction without an exact decimal is looked for with.
_PERCENT_PLACES = (0, 1, 2)


def _ends(value: Fraction) -> bool:
    """Tell whether ``value`` has an exact decimal value (its denominator divides 10**k)."""
    denominator = value.denominator
    for prime in (2, 5):
        while denominator % prime == 0:
            denominator //= prime
    return denominator == 1


def _rounds_to_percent(fraction: Fraction, percent: Fraction, exponent: int) -> bool:
    """
    Tell whether ``percent`` is ``fraction`` as a percent: exactly, or rounded when it cannot be.

    Args:
        fraction: A ratio.
        percent: The percent written (``33`` for ``33%``).
        exponent: The power of ten of its last written digit (0 for ``33%``,
            -1 for ``33.3%``).
    """
    exact = fraction * 100
    if _ends(exact):
        return exact == percent
    return abs(exact - percent) * 2 <= Fraction(10) ** exponent


def _percents_of(fraction: Fraction) -> list[Key]:
    """Return the keys of the percents that state ``fraction``: its exact one, or its roundings."""
    exact = fraction * 100
    if exact < 0:
        return []
    if _ends(exact):
        key = value_key(exact)
        return [key] if key is not None else []
    percents: list[Key] = []
    for places in _PERCENT_PLACES:
        scale = 10**places
        rounded = Fraction(int(exact * scale + Fraction(1, 2)), scale)  # half up
        key = value_key(rounded)
        if key is not None:
            percents.append(key)
    return percents


#: The ratios' rules.
PERCENT_RATIO = rule(
    "percent-ratio",
    frozenset({FG001}),
    Role.SUPPORTS,
    Phase.DECIDE,
    frozenset({Reads.DIGITS, Reads.WORDS}),
    (0, 0),
    percent_ratio,
    kinds=frozenset({Kind.PERCENT, Kind.RATIO}),
)
BARE_SHARE = rule(
    "bare-share",
    frozenset({FG001}),
    Role.SUPPORTS,
    Phase.DECIDE,
    frozenset({Reads.DIGITS, Reads.WORDS}),
    (SHARE_WINDOW, 80),
    bare_share,
    kinds=frozenset({Kind.COUNT, Kind.TIME}),
)
