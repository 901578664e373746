"""
The chunks' numbers by magnitude: a view of the index built when an answer hedges a number.

``about 1.2 million`` is supported by ``1,234,567`` and ``at least 200`` by
``250``: a comparison with the numbers the chunks state, not a lookup of a
key. The view sorts the stated numbers by magnitude on first use, so a hedged
number compares with its few neighbours only, and keeps the lists current as
a lazy index reads more chunks. Its reference twin is comparing with every
number (the hedge tests of ``tests/grounding/rules/test_hedges.py`` and the lazy
index's agreement with a full reading).
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING

from relapse.grounding._values.keys import DECIMAL_CONTEXT, Key, key_decimal, rounding_interval

if TYPE_CHECKING:
    from relapse.grounding._index.text_index import TextIndex


class NumberLine:
    """The numbers an index's texts state, by magnitude, and the hedged comparisons on them."""

    __slots__ = ("_decimals", "_index", "_magnitudes")

    def __init__(self, index: TextIndex) -> None:
        """
        Prepare the view of ``index`` (the lists are built on first comparison).

        Args:
            index: The texts' index.
        """
        self._index = index
        self._magnitudes: dict[int, list[Key]] | None = None
        self._decimals: dict[int, list[Decimal]] = {}

    def add(self, number: Key) -> None:
        """Add a number the index has just read (once the lists are built)."""
        if self._magnitudes is None or number[0] != "n":
            return
        magnitude = magnitude_of(number)
        self._magnitudes.setdefault(magnitude, []).append(number)
        converted = self._decimals.get(magnitude)
        if converted is not None:
            value = key_decimal(number)
            if value is not None:
                converted.append(value)

    def rounds_to(self, key: Key, precision: int) -> bool:
        """
        Tell whether some number in the texts rounds to ``key`` at ``precision``.

        Args:
            key: A hedged number's key (``about 1.2 million``).
            precision: The power of ten of its last written digit.

        Returns:
            True when a number the texts state lies within half a unit of
            that digit (``1,234,567`` for ``about 1.2 million``).
        """
        interval = rounding_interval(key, precision)
        return interval is not None and self.has_number_between(*interval)

    def bounds(self, key: Key, direction: str) -> bool:
        """
        Tell whether the texts state a number a bound (``at least 200``) is true of.

        Args:
            key: The bound's key.
            direction: ``"above"`` (``at least``, ``more than``): a number at
                or above it, up to ten times it; ``"below"`` (``up to``,
                ``fewer than``): a number at or below it, down to a tenth.

        Returns:
            True when such a number is stated. The factor of ten keeps an
            unrelated number (a year, a count of something else) from
            supporting any bound below it.
        """
        value = key_decimal(key)
        if value is None:
            return False
        ten = DECIMAL_CONTEXT.multiply(value, Decimal(10))
        tenth = DECIMAL_CONTEXT.divide(value, Decimal(10))
        if direction == "above":
            return self.has_number_between(value, ten)
        return self.has_number_between(tenth, value)

    def has_number_between(self, low: Decimal, high: Decimal) -> bool:
        """
        Tell whether the texts state a number in the closed interval ``[low, high]``.

        Args:
            low: The lowest value accepted.
            high: The highest value accepted.

        Returns:
            True when some number the texts state lies in the interval.
        """
        index = self._index
        if not index.complete:
            index.read_interval(low, high)
        if self._magnitudes is None:
            # Built aside and assigned once: concurrent checks never see it half-built.
            magnitudes: dict[int, list[Key]] = {}
            for number in index.numbers_stated:
                if number[0] == "n":
                    magnitudes.setdefault(magnitude_of(number), []).append(number)
            self._magnitudes = magnitudes
        if high < low or high < 0:
            return False
        for magnitude in _magnitudes_between(low, high):
            if any(low <= value <= high for value in self._values_of(magnitude)):
                return True
        return False

    def numbers_between(self, low: Decimal, high: Decimal) -> list[Key]:
        """
        Return the numbers the texts state in the closed interval ``[low, high]``.

        The numbers :meth:`has_number_between` compares with, as keys: a
        caller that must read more of them (their unit) than whether one is
        there. For a few lookups: each key's value is computed on each call.

        Args:
            low: The lowest value accepted (at least 0).
            high: The highest value accepted.

        Returns:
            The keys, by magnitude.
        """
        if not self.has_number_between(low, high):  # builds the lists, reads the texts
            return []
        assert self._magnitudes is not None
        return [
            key
            for magnitude in _magnitudes_between(low, high)
            for key in self._magnitudes.get(magnitude, ())
            if (value := key_decimal(key)) is not None and low <= value <= high
        ]

    def _values_of(self, magnitude: int) -> list[Decimal]:
        """Return the stated numbers of one magnitude, as Decimals (converted once)."""
        values = self._decimals.get(magnitude)
        if values is None:
            assert self._magnitudes is not None  # filled by has_number_between first
            converted = (key_decimal(key) for key in self._magnitudes.get(magnitude, ()))
            values = [value for value in converted if value is not None]
            self._decimals[magnitude] = values
        return values


def _magnitudes_between(low: Decimal, high: Decimal) -> range:
    """The magnitudes (:func:`magnitude_of`) of the numbers in ``[low, high]``, three at most."""
    first, last = (low.adjusted() + 1 if low > 0 else 1), high.adjusted() + 1
    if high == 0:
        last = 1  # zero, the only number at or below 0, has magnitude 1
    return range(first, min(last, first + 2) + 1)


def magnitude_of(number: Key) -> int:
    """The power of ten of a number key's first digit, plus one."""
    _, digits, exponent = number  # number keys: ("n", digits, exponent)
    return len(digits) + exponent  # type: ignore[arg-type,operator]
