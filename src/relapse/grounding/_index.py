"""
The chunk index: built in one pass, then every answer claim is a lookup.

The digit scanner runs once over the chunks (joined by a separator no claim
can cross) and the keys of every number, date and token go into one set.
What only some answers need is built on first use, once: the folded text for
quotations, the values of number words for spelled-out numbers, the
sorted values for hedged numbers. Memory is linear in the chunks.
"""

from __future__ import annotations

from decimal import Decimal
from itertools import chain

from relapse.grounding._numbers import (
    MAX_WORD_NUMBER,
    WORDS_RE,
    Key,
    head_words,
    int_key,
    key_decimal,
    parse_word_run,
    rounding_interval,
    word_numbers,
)
from relapse.grounding._scan import plain_number_keys, scan
from relapse.grounding._text import CHUNK_SEPARATOR, fold


class TextIndex:
    """The claims held by some texts: the chunks, or the question."""

    __slots__ = (
        "_decimals",
        "_folded",
        "_head_values",
        "_magnitudes",
        "_numbers",
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
        if interval is None:
            return False
        low, high = interval
        if self._magnitudes is None:
            # Numbers by magnitude (the power of ten of their first digit + 1),
            # so a hedged number compares with its few neighbours only. Built
            # aside and assigned once: concurrent checks never see it half-built.
            magnitudes: dict[int, list[Key]] = {}
            for number in self._numbers:
                _, digits, exponent = number  # number keys: ("n", digits, exponent)
                magnitude = len(digits) + exponent  # type: ignore[arg-type,operator]
                magnitudes.setdefault(magnitude, []).append(number)
            self._magnitudes = magnitudes
        first, last = low.adjusted() + 1, high.adjusted() + 1
        if high <= 0:
            first = last = 1  # zero, the only number at or below 0, has magnitude 1
        elif low <= 0:
            first = 1
        for magnitude in range(first, min(last, first + 2) + 1):
            if any(low <= value <= high for value in self._values_of(magnitude)):
                return True
        return False

    def _values_of(self, magnitude: int) -> list[Decimal]:
        """Return the indexed numbers of one magnitude, as Decimals (converted once)."""
        values = self._decimals.get(magnitude)
        if values is None:
            assert self._magnitudes is not None  # filled by rounds_to first
            converted = (key_decimal(key) for key in self._magnitudes.get(magnitude, ()))
            values = [value for value in converted if value is not None]
            self._decimals[magnitude] = values
        return values
