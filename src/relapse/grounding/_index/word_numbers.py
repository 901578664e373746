"""
Numbers the chunks spell out in words: a view of the index built when an answer needs one.

An answer's ``70`` is supported by a chunk's ``seventy``. Reading every run
of number words in the chunks costs a grammar's work per word, so the view
searches only for the words every writing of the value holds and reads the
runs they occur in; past a budget it reads every run at once. Its reference
twin is that full reading (``tests/grounding/index/test_word_numbers.py``,
``test_looking_words_up_reads_what_a_full_reading_reads``).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from typing import TYPE_CHECKING

from relapse.grounding._read.words import (
    MAX_WORD_NUMBER,
    WORDS_RE,
    Value,
    head_words,
    read_run,
    run_start,
    word_values,
)

if TYPE_CHECKING:
    from relapse.grounding._index.text_index import TextIndex

# "point" as a decimal in words writes it ("sixty-six point seven"), and a
# digit word after it.
_DIGIT_WORD_AFTER = re.compile(
    r"[ \t]+(?i:zero|oh|nought|one|two|three|four|five|six|seven|eight|nine)(?![^\W_])"
)


class WordNumbers:
    """The values the texts of an index spell out in words, read by head word on demand."""

    __slots__ = (
        "_cost",
        "_decimals",
        "_heads_read",
        "_index",
        "_lowered_text",
        "_places",
        "_seen",
        "_starts",
        "_values",
    )

    def __init__(self, index: TextIndex) -> None:
        """
        Prepare the view of ``index`` (no word is read yet).

        Args:
            index: The texts' index; with places, the view records where each
                value is spelled (:meth:`place`).
        """
        self._index = index
        self._values: set[Value] | None = None  # every run read at once, past the budget
        self._seen: set[Value] = set()
        self._starts: set[int] = set()
        self._heads_read: set[str] = set()
        self._cost = 0
        self._lowered_text: bytes | None = None
        self._decimals: bool | None = None
        self._places: dict[Value, tuple[int, int]] | None = {} if index.records_places else None

    def has(self, value: Value) -> bool:
        """
        Tell whether the texts spell out ``value`` in words (``Seventy`` for 70).

        The words one of which every writing of the value holds
        (:func:`relapse.grounding._read.words.head_words`) are searched for,
        in lower case, capitalized and in capitals, and each run of number
        words they occur in is read whole, once, with the grammar the answer
        is read with: so ``seventy`` in ``three hundred seventy`` and
        ``billion`` in ``3 billion`` are no numbers of their own here either.
        Past a budget of twice the texts' length, every run of the texts is
        read at once instead (:func:`relapse.grounding._read.words.word_values`):
        the same values, at a cost linear in the texts.

        Args:
            value: A whole number or a fraction.

        Returns:
            True when some run of number words in the texts reads ``value``.
        """
        if self._values is None:
            with self._index.lock:
                # Sorted: a set's order follows PYTHONHASHSEED, and the head read
                # first decides which place is cited (the same verdict either way).
                for head in sorted(head_words(value)):
                    if head not in self._heads_read and self._values is None:
                        self._read_head(head)
                        self._heads_read.add(head)
        values = self._values if self._values is not None else self._seen
        return value in values

    def place(self, value: Value) -> tuple[int, int, int] | None:
        """
        Return where the texts spell out ``value`` in words, as :meth:`has` found it.

        Args:
            value: A value :meth:`has` was asked about.

        Returns:
            ``(text, start, end)`` as :meth:`.text_index.TextIndex.place`
            gives it; None when the index records no places, or read every run
            at once past its budget (which keeps no offsets).
        """
        if self._places is None:
            return None
        found = self._places.get(value)
        if found is None:
            return None
        start, end = found
        starts = self._index.all_starts()
        ordinal = bisect_right(starts, start) - 1
        return ordinal, start - starts[ordinal], end - starts[ordinal]

    def spells_decimals(self) -> bool:
        """
        Tell whether the texts may spell a decimal with ``point`` (found on first use, once).

        True when ``point``, in lower case, as a word, has a digit word after
        it (``point seven``, ``point oh five``): a necessary condition of every
        decimal in words above one as prose writes it, which costs one search
        of the texts where :meth:`has` would read the runs of the whole
        part's common words. ``Point`` and ``POINT`` (a title, capitals) are
        not looked for: a search of the texts each.
        """
        if self._decimals is None:
            text = self._index.joined
            found = False
            at = text.find("point")
            while at >= 0 and not found:
                found = not (at and text[at - 1].isalnum()) and bool(
                    _DIGIT_WORD_AFTER.match(text, at + 5)
                )
                at = text.find("point", at + 5)
            self._decimals = found
        return self._decimals

    def _read_head(self, head: str) -> None:
        """Read every run of number words that holds ``head`` (or all of them, past the budget)."""
        text = self._index.joined
        budget = 2 * len(text) + MAX_WORD_NUMBER
        spellings = {head, head.capitalize(), head.upper()}
        for position in self._written(head):
            if (
                position not in self._starts
                and not (position and text[position - 1].isalnum())
                and text[position : position + len(head)] in spellings
            ):
                start = run_start(text, position, MAX_WORD_NUMBER)
                if start is None or self._cost > budget:
                    self._values = word_values(text)
                    return
                self._cost += position - start
                self._read_runs(start, position)

    def _written(self, head: str) -> Iterator[int]:
        """
        Yield, in order, where the joined texts write ``head`` in ASCII letters of any case.

        One search of the texts' UTF-8 with its ASCII letters lowered
        (``bytes.lower``, a C pass that keeps every offset) finds every
        spelling; ``str.lower`` costs a table lookup per character of a text
        that is not all ASCII. Each search starts after the last occurrence
        found.
        """
        lowered = self._lowered_text
        if lowered is None:
            lowered = self._lowered_text = self._index.encoded.lower()
        needle = head.encode("ascii")
        at = lowered.find(needle)
        if self._index.joined.isascii():
            while at >= 0:
                yield at
                at = lowered.find(needle, at + len(needle))
            return
        # A byte offset to a character offset: the characters of the bytes
        # between two occurrences, counted as they are passed. An ASCII
        # needle starts on a character's first byte, and lowering ASCII
        # letters leaves every character's bytes and their count.
        characters = passed = 0
        while at >= 0:
            characters += len(lowered[passed:at].decode("utf-8", "surrogatepass"))
            passed = at
            yield characters
            at = lowered.find(needle, at + len(needle))

    def _read_runs(self, start: int, position: int) -> None:
        """Read the runs of number words from ``start`` up to the one holding ``position``."""
        text = self._index.joined
        places = self._places
        for run in WORDS_RE.finditer(text, start):
            if run.start() > position:
                return
            numbers, words = read_run(text, run.start(), run.end())
            self._cost += run.end() - run.start()
            self._starts.update(words)
            for number in numbers:
                self._seen.add(number.value)
                self._seen.update(number.also)
                if places is not None:
                    at = (number.start, number.end)
                    places.setdefault(number.value, at)
                    for also in number.also:
                        places.setdefault(also, at)
            if run.end() > position:
                return
