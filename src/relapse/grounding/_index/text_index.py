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
import threading
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator
from decimal import Decimal
from functools import partial
from itertools import accumulate, chain
from typing import AnyStr

from relapse.grounding._index.prefilter import (
    Alternative,
    TextTest,
    date_digest,
    digest,
    digit_count,
    encode,
    evidence,
    interval_evidence,
    opaque_positions,
)
from relapse.grounding._index.unit_lookup import (
    search_units,
    search_verdict,
    units_by_number,
    verdict_of,
    writings,
)
from relapse.grounding._read.claims import Claim, plain_number_keys
from relapse.grounding._read.quotes import unfold_span, word_occurrence
from relapse.grounding._read.scan import scan
from relapse.grounding._read.words import (
    MAX_WORD_NUMBER,
    WORDS_RE,
    Value,
    head_words,
    read_run,
    run_start,
    word_values,
)
from relapse.grounding._text import CHUNK_SEPARATOR, fold, fold_map
from relapse.grounding._values.keys import (
    DECIMAL_CONTEXT,
    Key,
    key_decimal,
    rounding_interval,
    value_key,
)


class TextIndex:
    """
    The claims held by some texts: the chunks, or the question.

    With ``lazy`` (the chunks), a chunk is read by the scanner only when a
    lookup needs a key it may provide (:mod:`relapse.grounding._index.prefilter`), so a check costs
    the answer's claims and a few searches in C, not a reading of every
    number in the chunks. A lookup that finds no selective evidence, or a
    check that has searched more than :data:`SEARCH_BUDGET` times the
    chunks' length, reads every chunk left: the cost stays linear in the
    chunks and the answer, and every answer is judged as a full reading
    would judge it.
    """

    __slots__ = (
        "_absent",
        "_date_digest_starts",
        "_date_digests",
        "_decimals",
        "_digest",
        "_digest_starts",
        "_encoded",
        "_fold_maps",
        "_folded",
        "_folded_texts",
        "_heads_read",
        "_joined_starts",
        "_lock",
        "_lowered_text",
        "_magnitudes",
        "_non_ascii",
        "_numbers",
        "_places",
        "_read",
        "_readings",
        "_searched",
        "_separated",
        "_units",
        "_units_by_number",
        "_units_searched",
        "_unread",
        "_word_places",
        "_word_starts",
        "_word_values",
        "_words_cost",
        "_words_seen",
        "joined",
        "keys",
        "texts",
    )

    def __init__(
        self,
        texts: list[str],
        *,
        eager_words: bool = False,
        lazy: bool = False,
        places: bool = False,
    ) -> None:
        """
        Index ``texts``: all at once, or with ``lazy`` on demand.

        Args:
            texts: The texts (chunks, or the question alone).
            eager_words: Also index number words now (for the short question);
                for chunks they are looked up on demand.
            lazy: Read a text's claims only when a lookup may need them
                (chunks); texts whose digest cannot show their values
                (:func:`opaque_positions`) are read at once.
            places: Also record, as the texts are read, where each key is
                first provided (:meth:`place`), for the evidence of the
                claims it supports.
        """
        #: The texts, in order.
        self.texts = texts
        #: The texts joined by :data:`CHUNK_SEPARATOR`.
        self.joined = CHUNK_SEPARATOR.join(texts)
        #: Every key the texts read so far provide (all of them once
        #: :attr:`complete`).
        self.keys: set[Key] = set()
        # The values of the numbers stated, for hedged numbers ("about 30").
        self._numbers: set[Key] = set()
        self._magnitudes: dict[int, list[Key]] | None = None
        self._decimals: dict[int, list[Decimal]] = {}
        self._read = bytearray(len(texts))
        self._unread = len(texts)
        self._absent: set[Key] = set()
        # Where each key is provided: (reading, start, end), offsets into the
        # text that reading scanned; _readings[reading] holds the positions of
        # the texts it joined and where each starts (see place()).
        self._places: dict[Key, tuple[int, int, int]] | None = {} if places else None
        self._readings: list[tuple[list[int], list[int]]] = []
        self._word_places: dict[Value, tuple[int, int]] = {}
        self._separated: bool | None = None  # no text holds the separator (found on first use)
        self._digest: bytes | None = None
        self._digest_starts: list[int] = []
        self._date_digests: bytes | None = None
        self._date_digest_starts: list[int] = []
        self._joined_starts: list[int] = []
        self._searched = 0
        self._lock = threading.RLock()
        self._encoded = b""
        if lazy and len(self.joined) >= LAZY_FROM and _dense(self.joined):
            self._encoded = encode(self.joined)
        if not self._encoded:
            self._read_joined()
        else:
            starts = self._joined_starts = _starts(len(text) for text in texts)
            for offset in opaque_positions(self.joined, self._encoded):
                self._read_text(bisect_right(starts, offset) - 1)
        if eager_words:
            spelled = {
                key for value in word_values(self.joined) if (key := value_key(value)) is not None
            }
            self.keys |= spelled
            self._numbers |= {key for key in spelled if key[0] == "n"}
        self._folded: str | None = None
        self._folded_texts: dict[int, str] = {}
        self._fold_maps: dict[int, tuple[str, list[int]]] = {}
        self._non_ascii: list[int] | None = None
        self._word_values: set[Value] | None = None
        self._words_seen: set[Value] = set()
        self._word_starts: set[int] = set()
        self._heads_read: set[str] = set()
        self._words_cost = 0
        self._lowered_text: str | None = None
        self._units: dict[tuple[Key, str], str] = {}
        self._units_searched = 0
        self._units_by_number: dict[Key, frozenset[str | None]] | None = None

    @property
    def complete(self) -> bool:
        """True once every text is read: :attr:`keys` then holds every key."""
        return not self._unread

    def _read_joined(self) -> None:
        """Read every unread text in one pass of the scanner over them, joined."""
        unread = [position for position, done in enumerate(self._read) if not done]
        joined = (
            self.joined
            if len(unread) == len(self.texts)
            else CHUNK_SEPARATOR.join(self.texts[position] for position in unread)
        )
        plain: list[str] = []
        starts: list[int] = []
        # One pass over the joined texts costs less than a call per text, and
        # reads the same claims: none crosses the separator.
        claims = scan(joined, plain_numbers=plain, plain_starts=starts)
        reading = len(self._readings)
        if self._places is not None:
            self._readings.append((unread, _starts(len(self.texts[p]) for p in unread)))
        self._add(claims, plain, starts, reading)
        for position in unread:
            self._read[position] = 1
        self._unread = 0

    def _read_text(self, position: int) -> None:
        """Read one text's claims into the index (once)."""
        if self._read[position]:
            return
        plain: list[str] = []
        starts: list[int] = []
        text = self.texts[position]
        claims = scan(text, plain_numbers=plain, plain_starts=starts)
        reading = len(self._readings)
        if self._places is not None:
            self._readings.append(([position], [0, len(text) + 1]))
        self._add(claims, plain, starts, reading)
        # Marked only once its keys are in: a concurrent lookup that sees the
        # mark also sees the keys.
        self._read[position] = 1
        self._unread -= 1

    def _add(self, claims: list[Claim], plain: list[str], starts: list[int], reading: int) -> None:
        """
        Add the keys and numbers of ``claims`` and of the plain digit runs ``plain``.

        ``starts`` holds where each of ``plain`` starts, and ``reading`` names
        the texts scanned (see :meth:`place`).
        """
        keys = self.keys
        keys.update(chain.from_iterable(claim.provides for claim in claims))
        numbers = [claim.key for claim in claims if claim.key is not None]
        places = self._places
        if places is None:
            for raw in set(plain):  # numbers repeat: each is read once
                provides, key = plain_number_keys(raw)
                keys.update(provides)
                numbers.append(key)
        else:
            # The first place of each key in this reading; a key an earlier
            # reading provides keeps its place there.
            setdefault = places.setdefault
            for claim in claims:
                at = (reading, claim.start, claim.end)
                for provided in claim.provides:
                    setdefault(provided, at)
            # Each distinct run once, at its first occurrence (the reversed
            # pairs leave the first one in the dict, built in C).
            for raw, start in dict(zip(reversed(plain), reversed(starts), strict=True)).items():
                provides, key = plain_number_keys(raw)
                keys.update(provides)
                numbers.append(key)
                at = (reading, start, start + len(raw))
                for provided in provides:
                    setdefault(provided, at)
        for number in numbers:
            self._add_number(number)

    def place(self, key: Key) -> tuple[int, int, int] | None:
        """
        Return where the texts read so far first provide ``key``, without reading any.

        Only an index built with ``places`` records places; a lazy index
        knows the texts it has read, which a lookup of the key read first.

        Args:
            key: An index key.

        Returns:
            ``(text, start, end)``: the text's position and the offsets in it
            of the claim that provides the key; None when no text read does.
        """
        if self._places is None:
            return None
        found = self._places.get(key)
        if found is None:
            return None
        reading, start, end = found
        positions, starts = self._readings[reading]
        ordinal = bisect_right(starts, start) - 1
        return positions[ordinal], start - starts[ordinal], end - starts[ordinal]

    def word_place(self, value: Value) -> tuple[int, int, int] | None:
        """
        Return where the texts spell out ``value`` in words, as :meth:`has_words_for` found it.

        Args:
            value: A value :meth:`has_words_for` was asked about.

        Returns:
            ``(text, start, end)`` as :meth:`place` gives it; None when the
            index records no places, or read every run at once past its
            budget (which keeps no offsets).
        """
        if self._places is None:
            return None
        found = self._word_places.get(value)
        if found is None:
            return None
        start, end = found
        starts = self._all_starts()
        ordinal = bisect_right(starts, start) - 1
        return ordinal, start - starts[ordinal], end - starts[ordinal]

    def _all_starts(self) -> list[int]:
        """Where each text starts in :attr:`joined` (and the end)."""
        if not self._joined_starts:
            self._joined_starts = _starts(len(text) for text in self.texts)
        return self._joined_starts

    def _add_number(self, number: Key) -> None:
        """Add one stated number, and to the magnitude lists once they are built."""
        if number in self._numbers:
            return
        self._numbers.add(number)
        if self._magnitudes is None or number[0] != "n":
            return
        magnitude = _magnitude(number)
        self._magnitudes.setdefault(magnitude, []).append(number)
        converted = self._decimals.get(magnitude)
        if converted is not None:
            value = key_decimal(number)
            if value is not None:
                converted.append(value)

    def read_all(self) -> None:
        """Read every text not read yet."""
        with self._lock:
            if self._unread:
                self._read_joined()

    def has(self, key: Key) -> bool:
        """
        Tell whether the texts provide ``key``, reading the texts that may.

        Args:
            key: An index key.

        Returns:
            True when some text's claims provide it.
        """
        if key in self.keys:
            return True
        if not self._unread or key in self._absent:
            return False
        with self._lock:
            alternatives = evidence(key)
            if alternatives is None:
                self.read_all()
                return key in self.keys
            for alternative in alternatives:
                for position in self._candidates(alternative):
                    self._read_text(position)
                    if key in self.keys:
                        return True
            if key in self.keys:  # read by a concurrent lookup meanwhile
                return True
            self._absent.add(key)
            return False

    def warm(self, needs: Iterable[tuple[Key, ...]]) -> None:
        """
        Look up first the keys whose evidence is most selective.

        An answer copied from a chunk holds long numbers and short ones; the
        chunk a long number points to (``4,567,123``: one chunk in a
        hundred) usually also holds the short ones (``45``, which a third of
        the chunks may hold), so reading it first saves reading the others.

        Args:
            needs: For each claim, the keys of its first alternative.
        """
        strong: list[tuple[int, Key]] = []
        for keys in needs:
            for key in keys:
                if key[0] in ("n", "-n") and isinstance(key[1], str):
                    if len(key[1]) >= STRONG_DIGITS:
                        strong.append((len(key[1]), key))
                elif key[0] == "d" and key[1] is not None:
                    strong.append((4, key))
        for _, key in sorted(strong, key=lambda item: -item[0]):
            self.has(key)

    def _candidates(self, alternative: Alternative) -> Iterator[int]:
        """
        Yield the unread texts that satisfy one alternative of some evidence.

        The first byte string is searched in the joined digests (or, with
        none, the first pattern in the joined texts); each text found is
        then tested against the rest. Each text is yielded at most once:
        after a match the search resumes at the next text. Past the search
        budget, every unread text is read and nothing is yielded.
        """
        if self._searched > SEARCH_BUDGET * (len(self.joined) + 1):
            self.read_all()
            return
        needles = sorted((part for part in alternative if isinstance(part, bytes)), key=len)
        date_patterns: list[re.Pattern[bytes]] = []
        text_tests: list[TextTest] = []
        for part in alternative:
            if isinstance(part, bytes):
                continue
            if isinstance(part, re.Pattern) and isinstance(part.pattern, bytes):
                date_patterns.append(part)
            else:
                text_tests.append(part)  # type: ignore[arg-type]  # a str pattern or a test
        hits: Iterator[int]
        if needles:
            digests = self._digests()
            hits = _hits(partial(digests.find, needles.pop()), self._digest_starts)
            self._searched += len(digests)
        elif date_patterns:
            dates = self._date_digest()
            hits = _hits(partial(_search, date_patterns.pop(), dates), self._date_digest_starts)
            self._searched += len(dates)
        else:
            first = text_tests.pop()
            assert isinstance(first, re.Pattern)  # an alternative of tests alone starts with one
            hits = _hits(partial(_search, first, self.joined), self._joined_starts)
            self._searched += len(self.joined)
        for text in hits:
            if (
                not self._read[text]
                and all(needle in self._digest_of(text) for needle in needles)
                and all(pattern.search(self._date_digest_of(text)) for pattern in date_patterns)
                and all(test.search(self.texts[text]) for test in text_tests)
            ):
                yield text

    def _holding(self, needle: bytes) -> Iterator[int]:
        """Yield, in order, every text (read or not) whose digest holds ``needle``."""
        return _hits(partial(self._digests().find, needle), self._digest_starts)

    def _date_digest(self) -> bytes:
        """Return the texts' date digests, joined (computed on first use)."""
        if self._date_digests is None:
            self._date_digests, self._date_digest_starts = self._joined_digest(date_digest)
        return self._date_digests

    def _joined_digest(self, function: Callable[[str | bytes], bytes]) -> tuple[bytes, list[int]]:
        """Return ``function`` of the joined texts and where each text starts in it."""
        joined = self.joined
        if joined.count(CHUNK_SEPARATOR) == len(self.texts) - 1:
            # One call over the joined texts; the separator survives it.
            whole = function(self._encoded or joined)
            return whole, _starts(len(part) for part in whole.split(b"\x00"))
        # A text holding the separator itself: one call per text.
        parts = [function(text).replace(b"\x00", b"") for text in self.texts]
        return b"\x00".join(parts), _starts(len(part) for part in parts)

    def _date_digest_of(self, text: int) -> bytes:
        """Return one text's date digest."""
        dates = self._date_digest()
        starts = self._date_digest_starts
        return dates[starts[text] : starts[text + 1] - 1]

    def _digest_of(self, text: int) -> bytes:
        """Return one text's digest."""
        digests = self._digests()
        starts = self._digest_starts
        return digests[starts[text] : starts[text + 1] - 1]

    def _digests(self) -> bytes:
        """Return the texts' digests, joined (computed on first use)."""
        if self._digest is None:
            self._digest, self._digest_starts = self._joined_digest(digest)
        return self._digest

    @property
    def folded(self) -> str:
        """The texts folded for quotation lookup (built on first use)."""
        if self._folded is None:
            self._folded = CHUNK_SEPARATOR.join(fold(text) for text in self.texts)
        return self._folded

    def folded_for(self, fragment: str) -> str:
        """
        Return the folded texts that may hold the folded ``fragment``, joined.

        Folding an ASCII text only lower-cases it and changes or deletes
        characters the digest deletes anyway, so an ASCII text whose folded
        form holds the fragment has a digest holding the fragment's digest; a
        text with other characters (which folding may turn into ASCII
        letters: ``ß`` is ``ss``) is always included. Without digests (a text
        read at once), every folded text.

        Args:
            fragment: A folded quotation fragment.

        Returns:
            The folded texts, in order, joined by :data:`CHUNK_SEPARATOR`.
        """
        return self._folded_candidates(fragment)[0]

    def _folded_candidates(self, fragment: str) -> tuple[str, list[int] | None]:
        """:meth:`folded_for`, and the positions of the texts joined (None: all of them)."""
        needle = digest(fragment)
        if not self._encoded or not needle:
            return self.folded, None
        if self._non_ascii is None:
            self._non_ascii = [i for i, text in enumerate(self.texts) if not text.isascii()]
        holding = sorted(set(self._non_ascii).union(self._holding(needle)))
        joined = CHUNK_SEPARATOR.join(self._folded_text(position) for position in holding)
        return joined, holding

    def find_quoted(self, fragment: str) -> tuple[int, int, int] | None:
        """
        Find a folded quotation fragment in the texts, as words.

        The words are matched as
        :func:`relapse.grounding._read.quotes.occurs_as_words` matches them.

        Args:
            fragment: A folded quotation fragment.

        Returns:
            ``(text, start, end)``: the position of the first text holding it
            and the fragment's offsets in that text *folded* (see
            :func:`relapse.grounding._read.quotes.unfold_span`); the position is -1 when a text
            holds the separator itself, which hides where each text starts.
            None when no text holds it.
        """
        joined, positions = self._folded_candidates(fragment)
        at = word_occurrence(joined, fragment)
        if at < 0:
            return None
        end = at + len(fragment)
        if self._separated is None:
            self._separated = self.joined.count(CHUNK_SEPARATOR) == len(self.texts) - 1
        if not self._separated:
            return -1, at, end
        ordinal = joined.count(CHUNK_SEPARATOR, 0, at)
        text_start = joined.rfind(CHUNK_SEPARATOR, 0, at) + 1
        text = ordinal if positions is None else positions[ordinal]
        return text, at - text_start, end - text_start

    def unfolded(self, position: int, start: int, end: int) -> tuple[int, int] | None:
        """
        Map a span of one text folded back to the text as written.

        Args:
            position: The text's position.
            start: The span's start in the folded text (:meth:`find_quoted`).
            end: Its end (exclusive).

        Returns:
            ``(start, end)`` in the text, or None (see
            :func:`relapse.grounding._read.quotes.unfold_span`).
        """
        folded = self._fold_maps.get(position)
        if folded is None:
            folded = self._fold_maps[position] = fold_map(self.texts[position])
        return unfold_span(self.texts[position], folded, start, end)

    def _folded_text(self, position: int) -> str:
        """Return one text folded (cached)."""
        folded = self._folded_texts.get(position)
        if folded is None:
            folded = self._folded_texts[position] = fold(self.texts[position])
        return folded

    def has_words_for(self, value: Value) -> bool:
        """
        Tell whether the texts spell out ``value`` in words (``Seventy`` for 70).

        The words one of which every writing of the value holds
        (:func:`relapse.grounding._read.words.head_words`) are searched for, in lower case,
        capitalized and in capitals, and each run of number words they occur
        in is read whole, once, with the grammar the answer is read with: so
        ``seventy`` in ``three hundred seventy`` and ``billion`` in ``3
        billion`` are no numbers of their own here either. Past a budget of
        twice the texts' length, every run of the texts is read at once
        instead (:func:`relapse.grounding._read.words.word_values`): the same values, at a cost
        linear in the texts.

        Args:
            value: A whole number or a fraction.

        Returns:
            True when some run of number words in the texts reads ``value``.
        """
        if self._word_values is None:
            with self._lock:
                for head in head_words(value):
                    if head not in self._heads_read and self._word_values is None:
                        self._read_head(head)
                        self._heads_read.add(head)
        values = self._word_values if self._word_values is not None else self._words_seen
        return value in values

    def _read_head(self, head: str) -> None:
        """Read every run of number words that holds ``head`` (or all of them, past the budget)."""
        text = self.joined
        budget = 2 * len(text) + MAX_WORD_NUMBER
        spellings = {head, head.capitalize(), head.upper()}
        # One search of the lowered text finds all three spellings at their
        # offsets; the spelling is then checked there.
        lowered = self._lowered()
        for spelling in (head,) if lowered is not None else spellings:
            haystack = lowered if lowered is not None else text
            position = haystack.find(spelling)
            while position >= 0:
                if (
                    position not in self._word_starts
                    and not (position and text[position - 1].isalnum())
                    and text[position : position + len(head)] in spellings
                ):
                    start = run_start(text, position, MAX_WORD_NUMBER)
                    if start is None or self._words_cost > budget:
                        self._word_values = word_values(text)
                        return
                    self._words_cost += position - start
                    self._read_runs(start, position)
                position = haystack.find(spelling, position + len(spelling))

    def _lowered(self) -> str | None:
        """Return the joined texts lowered, offsets kept (built on first use), else None."""
        if self._lowered_text is None:
            joined = self.joined
            lowered = joined.lower()
            # Lowering never shortens a character; of the same length, the
            # lowered text has every character at its offset ("İ" lowers to two).
            self._lowered_text = lowered if len(lowered) == len(joined) else ""
        return self._lowered_text or None

    def _read_runs(self, start: int, position: int) -> None:
        """Read the runs of number words from ``start`` up to the one holding ``position``."""
        text = self.joined
        for run in WORDS_RE.finditer(text, start):
            if run.start() > position:
                return
            numbers, words = read_run(text, run.start(), run.end())
            self._words_cost += run.end() - run.start()
            self._word_starts.update(words)
            for number in numbers:
                self._words_seen.add(number.value)
                self._words_seen.update(number.also)
                if self._places is not None:
                    at = (number.start, number.end)
                    self._word_places.setdefault(number.value, at)
                    for also in number.also:
                        self._word_places.setdefault(also, at)
            if run.end() > position:
                return

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
        if self._unread:
            with self._lock:
                self._read_interval(low, high)
        if self._magnitudes is None:
            # Numbers by magnitude (the power of ten of their first digit + 1),
            # so a hedged number compares with its few neighbours only. Built
            # aside and assigned once: concurrent checks never see it half-built.
            magnitudes: dict[int, list[Key]] = {}
            for number in self._numbers:
                if number[0] == "n":
                    magnitudes.setdefault(_magnitude(number), []).append(number)
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

    def _read_interval(self, low: Decimal, high: Decimal) -> None:
        """Read every unread text that may state a number in ``[low, high]``."""
        alternatives = interval_evidence(low, high) if low <= high else ()
        if alternatives is None:
            self.read_all()
            return
        for alternative in alternatives:
            for position in self._candidates(alternative):
                self._read_text(position)

    def unit_verdict(self, key: Key, unit: str) -> str:
        """
        Tell whether the texts write the number ``key`` with ``unit`` (cached per key and unit).

        The texts that may write the number are searched for it
        (:func:`relapse.grounding._index.unit_lookup.search_verdict`). Once unit lookups have
        searched more than :data:`SEARCH_BUDGET` times the texts' length,
        every number of the texts is read once instead
        (:func:`relapse.grounding._index.unit_lookup.units_by_number`): the same verdicts, at a
        cost linear in the texts however many numbers an answer holds.

        Args:
            key: A number key (``("n", digits, exponent)``).
            unit: The answer's binding of it (:func:`relapse.grounding._values.units.binding_of`): a
                canonical unit name or ``"#people"``.

        Returns:
            :data:`.unit_lookup.AGREE`, :data:`.unit_lookup.CONFLICT`,
            :data:`.unit_lookup.FOREIGN` or :data:`.unit_lookup.UNRELATED`.
        """
        cache_key = (key, unit)
        verdict = self._units.get(cache_key)
        if verdict is None:
            if self._units_searched > SEARCH_BUDGET * (len(self.joined) + 1):
                if self._units_by_number is None:
                    self._units_by_number = units_by_number(self.texts)
                verdict = verdict_of(self._units_by_number.get(key, frozenset()), unit)
            else:
                verdict = search_verdict(self._texts_writing(key), key, unit)
            self._units[cache_key] = verdict
        return verdict

    def units_written(self, key: Key) -> frozenset[str | None]:
        """
        Return what the texts bind the number ``key`` to: units, references, people (None: nothing).

        The same occurrences as :meth:`unit_verdict`, under the same budget.

        Args:
            key: A number key.

        Returns:
            The bindings (:func:`relapse.grounding._values.units.binding_of`) of
            the key's occurrences in digits; empty when the texts do not write it
            in digits.
        """
        if self._units_searched > SEARCH_BUDGET * (len(self.joined) + 1):
            if self._units_by_number is None:
                self._units_by_number = units_by_number(self.texts)
            return self._units_by_number.get(key, frozenset())
        return search_units(self._texts_writing(key), key)

    def _texts_writing(self, key: Key) -> Iterator[str]:
        """
        Yield, in order, the texts that may write the number ``key`` in digits.

        Every writing the unit lookup looks for holds the key's digits once
        its separators are deleted, so a lazy index yields only the texts
        whose digest holds them; the others hold no occurrence. What is
        searched (the digests up to each text, each text once per writing)
        counts towards the lookups' budget.
        """
        digits = key[1]
        searches = len(writings(key))
        if not self._encoded or not isinstance(digits, str):
            for text in self.texts:
                self._units_searched += searches * len(text)
                yield text
            return
        digests = self._digests()
        starts = self._digest_starts  # filled by _digests
        searched = 0
        for position in self._holding(digits.encode("ascii")):
            text = self.texts[position]
            self._units_searched += starts[position + 1] - searched + searches * len(text)
            searched = starts[position + 1]
            yield text
        self._units_searched += len(digests) - searched

    def _values_of(self, magnitude: int) -> list[Decimal]:
        """Return the indexed numbers of one magnitude, as Decimals (converted once)."""
        values = self._decimals.get(magnitude)
        if values is None:
            assert self._magnitudes is not None  # filled by rounds_to first
            converted = (key_decimal(key) for key in self._magnitudes.get(magnitude, ()))
            values = [value for value in converted if value is not None]
            self._decimals[magnitude] = values
        return values


def _search(pattern: re.Pattern[AnyStr], text: AnyStr, start: int) -> int:
    """Return where ``pattern`` first matches ``text`` from ``start``, or -1."""
    match = pattern.search(text, start)
    return -1 if match is None else match.start()


def _hits(find: Callable[[int], int], starts: list[int]) -> Iterator[int]:
    """
    Yield the texts in which ``find`` matches, each once, in order.

    Args:
        find: ``find(start)``: the next match's position in the joined
            texts (or joined digests) from ``start``, or -1.
        starts: Where each text starts there, and the end (:func:`_starts`).

    Yields:
        Text positions; after a match the search resumes at the next text.
    """
    position = find(0)
    while position >= 0:
        text = bisect_right(starts, position) - 1
        yield text
        position = find(starts[text + 1])


def _magnitude(number: Key) -> int:
    """The power of ten of a number key's first digit, plus one."""
    _, digits, exponent = number  # number keys: ("n", digits, exponent)
    return len(digits) + exponent  # type: ignore[arg-type,operator]


def _dense(joined: str) -> bool:
    """
    Tell whether digits make up :data:`LAZY_DIGIT_SHARE` or more of ``joined``.

    Counted on :data:`DENSITY_SAMPLES` slices spread over the text (a C pass
    over a fixed number of characters): the answer only picks the cheaper
    way to read the chunks, never the verdict.
    """
    step = max(1, len(joined) // DENSITY_SAMPLES)
    sample = "".join(joined[start : start + DENSITY_SLICE] for start in range(0, len(joined), step))
    encoded = encode(sample)
    return digit_count(encoded) >= LAZY_DIGIT_SHARE * len(encoded)


def _starts(lengths: Iterable[int]) -> list[int]:
    """Where each of texts of these lengths starts once joined by one separator, and the end."""
    return [0, *accumulate(length + 1 for length in lengths)]


#: Characters of chunks below which reading them all at once costs less than
#: computing their digests and searching them.
LAZY_FROM = 16_000

#: Share of ASCII digits among the chunks' bytes below which reading them all
#: at once costs less too: in prose (RAGTruth passages hold about 1 %, a
#: numbered list of them about 5 %) the scanner skips from number to number in
#: C; number-dense text (a table, a report: 20 % and more) is read lazily.
LAZY_DIGIT_SHARE = 0.1
#: Slices of the chunks, and characters in each, whose digits are counted.
DENSITY_SAMPLES = 16
DENSITY_SLICE = 512

#: Digits from which a number's evidence is selective enough to look it up
#: first (:meth:`TextIndex.warm`).
STRONG_DIGITS = 4

#: Characters a lazy index may search, as a multiple of the chunks' length,
#: before it reads every chunk instead: an answer with thousands of distinct
#: unsupported numbers costs one full reading, not a search per number.
SEARCH_BUDGET = 64
