"""
The chunk index: built in one pass, then every answer claim is a lookup.

The digit scanner runs once over the chunks (joined by a separator no claim
can cross) and the keys of every number, date and token go into one set.
What only some answers need is built on first use, once: the folded text for
quotations, the values of number words for spelled-out numbers, the
sorted values for hedged numbers. Memory is linear in the chunks.
"""

from __future__ import annotations

import re
from decimal import Decimal
from itertools import chain

from relapse.grounding._claims import plain_number_keys
from relapse.grounding._keys import (
    DECIMAL_CONTEXT,
    SCALE_EXPONENTS,
    Key,
    int_key,
    key_decimal,
    number_key,
    rounding_interval,
)
from relapse.grounding._scan import scan
from relapse.grounding._text import CHUNK_SEPARATOR, fold
from relapse.grounding._units import unit_of
from relapse.grounding._words import (
    MAX_WORD_NUMBER,
    WORDS_RE,
    head_words,
    parse_word_run,
    word_numbers,
)

# A number written with ASCII digits, thousands commas and a decimal point,
# and a scale word after it: what the unit lookup reads around a digit match.
_NUMBER_AT = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")
_SCALE_AFTER = re.compile(r"[ \u00a0-]?(hundred|thousand|million|billion|trillion)(?![^\W\d_])")
#: Occurrences of a number's digits read for its units, at most: a bound on
#: the cost of one lookup in a text full of the same digit.
MAX_UNIT_OCCURRENCES = 2000


def _writings(key: Key) -> set[str]:
    """
    Return how a number is commonly written: ``3.8``, ``3800``, ``3,800`` (each scale).

    Args:
        key: A number key.

    Returns:
        The digit strings to look for, with and without thousands commas,
        for the number itself and as the mantissa of each scale word.
    """
    value = key_decimal(key)
    found: set[str] = set()
    if value is None:
        return found
    for exponent in (0, 2, 3, 6, 9, 12):
        mantissa = value.scaleb(-exponent, DECIMAL_CONTEXT)
        if exponent and mantissa < 1:
            break
        written = format(mantissa.normalize(DECIMAL_CONTEXT), "f")
        if len(written) > MAX_WRITTEN_DIGITS:
            continue
        found.add(written)
        integer, dot, fraction = written.partition(".")
        if len(integer) > 3:
            found.add(f"{int(integer):,}{dot}{fraction}")
    return found


#: Longest writing of a number looked for by the unit lookup.
MAX_WRITTEN_DIGITS = 40


def _units_in(text: str, key: Key) -> frozenset[str | None] | None:
    """Compute :meth:`TextIndex.units_of` over ``text``."""
    units: set[str | None] = set()
    seen = 0
    for written in _writings(key):
        position = text.find(written)
        while position >= 0 and seen < MAX_UNIT_OCCURRENCES:
            seen += 1
            following = position + 1
            before = text[position - 1 : position] if position else ""
            if not (
                before.isdigit()
                or (before in (",", ".") and position >= 2 and text[position - 2].isdigit())
            ):
                number = _NUMBER_AT.match(text, position)
                if number is not None:
                    following = number.end()
                    integer, _, fraction = number.group().replace(",", "").partition(".")
                    end = number.end()
                    scale = _SCALE_AFTER.match(text, end)
                    exponent = 0
                    if scale is not None:
                        exponent = SCALE_EXPONENTS[scale.group(1)]
                        end = scale.end()
                    if number_key(integer, fraction, exponent) == key:
                        units.add(unit_of(text, position, end))
            position = text.find(written, following)
    return frozenset(units) if units else None


class TextIndex:
    """The claims held by some texts: the chunks, or the question."""

    __slots__ = (
        "_decimals",
        "_folded",
        "_head_values",
        "_magnitudes",
        "_numbers",
        "_units",
        "joined",
        "keys",
        "texts",
    )

    def __init__(self, texts: list[str], *, eager_words: bool = False) -> None:
        """
        Index ``texts`` in one pass of the digit scanner.

        Args:
            texts: The texts (chunks, or the question alone).
            eager_words: Also index number words now (for the short question);
                for chunks they are looked up on demand.
        """
        #: The texts, in order.
        self.texts = texts
        #: The texts joined by :data:`CHUNK_SEPARATOR`.
        self.joined = CHUNK_SEPARATOR.join(texts)
        plain: list[str] = []
        claims = scan(self.joined, plain_numbers=plain)
        keys: set[Key] = set(chain.from_iterable(claim.provides for claim in claims))
        # The values of the numbers stated, for hedged numbers ("about 30").
        self._numbers = {claim.key for claim in claims if claim.key is not None}
        for raw in set(plain):  # numbers repeat: each is read once
            provides, key = plain_number_keys(raw)
            keys.update(provides)
            self._numbers.add(key)
        if eager_words:
            spelled = {int_key(word.value) for word in word_numbers(self.joined)}
            keys |= spelled
            self._numbers |= spelled
        #: Every key the texts provide.
        self.keys = keys
        self._folded: str | None = None
        self._magnitudes: dict[int, list[Key]] | None = None
        self._decimals: dict[int, list[Decimal]] = {}
        self._head_values: dict[str, frozenset[int]] = {}
        self._units: dict[Key, frozenset[str | None] | None] = {}

    @property
    def folded(self) -> str:
        """The texts folded for quotation lookup (built on first use)."""
        if self._folded is None:
            self._folded = CHUNK_SEPARATOR.join(fold(text) for text in self.texts)
        return self._folded

    def has_words_for(self, value: int) -> bool:
        """
        Tell whether the texts spell out ``value`` in words (``Seventy`` for 70).

        Each candidate first word is looked up once per index, in lower case,
        capitalized and in capitals: its occurrences are parsed with the
        answer's word grammar, and the values found are kept for later claims.

        Args:
            value: A whole number.

        Returns:
            True when some run of number words in the texts reads ``value``.
        """
        return any(value in self._values_after(head) for head in head_words(value))

    def _values_after(self, head: str) -> frozenset[int]:
        """Return the values of the word numbers that start with ``head``."""
        cached = self._head_values.get(head)
        if cached is not None:
            return cached
        text = self.joined
        values: set[int] = set()
        for spelling in {head, head.capitalize(), head.upper()}:
            position = text.find(spelling)
            while position >= 0:
                # Only the number starting here is read, and no number in words
                # is longer than MAX_WORD_NUMBER: a long run of number words is
                # not re-read from every one of its words.
                run = WORDS_RE.match(text, position, position + MAX_WORD_NUMBER)
                if run is not None:
                    first = next(parse_word_run(text, run.start(), run.end()), None)
                    if first is not None:
                        values.add(first.value)
                position = text.find(spelling, position + len(spelling))
        found = frozenset(values)
        self._head_values[head] = found
        return found

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
        if self._magnitudes is None:
            # Numbers by magnitude (the power of ten of their first digit + 1),
            # so a hedged number compares with its few neighbours only. Built
            # aside and assigned once: concurrent checks never see it half-built.
            magnitudes: dict[int, list[Key]] = {}
            for number in self._numbers:
                if number[0] != "n":
                    continue
                _, digits, exponent = number  # number keys: ("n", digits, exponent)
                magnitude = len(digits) + exponent  # type: ignore[arg-type,operator]
                magnitudes.setdefault(magnitude, []).append(number)
            self._magnitudes = magnitudes
        if high < low or high < 0:
            return False
        first, last = (low.adjusted() + 1 if low > 0 else 1), high.adjusted() + 1
        if high == 0:
            last = 1  # zero, the only number at or below 0, has magnitude 1
        for magnitude in range(first, min(last, first + 2) + 1):
            if any(low <= value <= high for value in self._values_of(magnitude)):
                return True
        return False

    def units_of(self, key: Key) -> frozenset[str | None] | None:
        """
        Return the units the texts write the number ``key`` with (None: no unit).

        The digits of the key are looked for in the texts; each occurrence
        that reads as the same number contributes the unit after it (or its
        currency symbol), or None when it has none. Cached per key.

        Args:
            key: A number key (``("n", digits, exponent)``).

        Returns:
            The set of units, or None when no occurrence reads as the number
            (it is held in another writing, such as words or a date).
        """
        if key in self._units:
            return self._units[key]
        found = _units_in(self.joined, key)
        self._units[key] = found
        return found

    def _values_of(self, magnitude: int) -> list[Decimal]:
        """Return the indexed numbers of one magnitude, as Decimals (converted once)."""
        values = self._decimals.get(magnitude)
        if values is None:
            assert self._magnitudes is not None  # filled by rounds_to first
            converted = (key_decimal(key) for key in self._magnitudes.get(magnitude, ()))
            values = [value for value in converted if value is not None]
            self._decimals[magnitude] = values
        return values
