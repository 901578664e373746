"""
The chunk index: built in one pass, then every answer claim is a lookup.

The digit scanner runs once over the chunks (joined by a separator no claim
can cross) and the keys of every number, date and token go into one set:
that is the core, :class:`TextIndex`. What only some answers need is a view
built on first use, once, each in a module of its own: the folded text for
quotations (:mod:`.quotations`), the numbers spelled in words
(:mod:`.word_numbers`), the numbers by magnitude for hedged numbers
(:mod:`.number_line`), and the units the chunks write numbers with
(:mod:`.unit_bindings`). A lazy index also searches the chunks' digests
(:mod:`.digests`) before reading a chunk. Memory is linear in the chunks.
"""

from __future__ import annotations

import threading
from bisect import bisect_right
from collections.abc import Iterable
from decimal import Decimal
from itertools import chain

from relapse.grounding._index.digests import Digests, starts_of
from relapse.grounding._index.number_line import NumberLine
from relapse.grounding._index.prefilter import (
    Alternative,
    digit_count,
    encode,
    evidence,
    interval_evidence,
    opaque_positions,
)
from relapse.grounding._index.quotations import Quotations
from relapse.grounding._index.unit_bindings import UnitBindings
from relapse.grounding._index.word_numbers import WordNumbers
from relapse.grounding._read.claims import Claim, plain_number_keys
from relapse.grounding._read.scan import scan
from relapse.grounding._read.words import word_values
from relapse.grounding._text import CHUNK_SEPARATOR
from relapse.grounding._values.keys import Key, value_key


class TextIndex:
    """
    The claims held by some texts: the chunks, or the question.

    With ``lazy`` (the chunks), a chunk is read by the scanner only when a
    lookup needs a key it may provide (:mod:`.prefilter`), so a check costs
    the answer's claims and a few searches in C, not a reading of every
    number in the chunks. A lookup that finds no selective evidence, or a
    check that has searched more than :data:`SEARCH_BUDGET` times the
    chunks' length, reads every chunk left: the cost stays linear in the
    chunks and the answer, and every answer is judged as a full reading
    would judge it.

    The views :attr:`quotations`, :attr:`words`, :attr:`numbers` and
    :attr:`units` build what they hold on first use, once.
    """

    __slots__ = (
        "_absent",
        "_encoded",
        "_joined_starts",
        "_numbers",
        "_places",
        "_read",
        "_readings",
        "_unread",
        "digests",
        "joined",
        "keys",
        "lock",
        "numbers",
        "quotations",
        "texts",
        "units",
        "words",
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
                (:func:`.prefilter.opaque_positions`) are read at once.
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
        #: Held while texts are read or a view is built; reentrant.
        self.lock = threading.RLock()
        #: The digests a lazy index searches before reading a text; None when
        #: every text is read at once.
        self.digests: Digests | None = None
        # The values of the numbers stated, for hedged numbers ("about 30").
        self._numbers: set[Key] = set()
        self._read = bytearray(len(texts))
        self._unread = len(texts)
        self._absent: set[Key] = set()
        # Where each key is provided: (reading, start, end), offsets into the
        # text that reading scanned; _readings[reading] holds the positions of
        # the texts it joined and where each starts (see place()).
        self._places: dict[Key, tuple[int, int, int]] | None = {} if places else None
        self._readings: list[tuple[list[int], list[int]]] = []
        self._joined_starts: list[int] = []
        self._encoded: bytes | None = None
        # The views: each costs a few fields now and builds what it holds on
        # first use, so a plain attribute serves every lookup with no lock.
        #: The texts folded for quotation lookup (:mod:`.quotations`).
        self.quotations = Quotations(self)
        #: The numbers the texts spell out in words (:mod:`.word_numbers`).
        self.words = WordNumbers(self)
        #: The stated numbers by magnitude, for hedged numbers (:mod:`.number_line`).
        self.numbers = NumberLine(self)
        #: What the texts write each number with (:mod:`.unit_bindings`).
        self.units = UnitBindings(self)
        if lazy and len(self.joined) >= LAZY_FROM and _dense(self.joined):
            self.digests = Digests(texts, self.joined, encode(self.joined))
        if self.digests is None:
            self._read_joined()
        else:
            starts = self._joined_starts = self.digests.joined_starts
            for offset in opaque_positions(self.joined, self.digests.encoded):
                self._read_text(bisect_right(starts, offset) - 1)
        if eager_words:
            spelled = {
                key for value in word_values(self.joined) if (key := value_key(value)) is not None
            }
            self.keys |= spelled
            self._numbers |= {key for key in spelled if key[0] == "n"}

    @property
    def complete(self) -> bool:
        """True once every text is read: :attr:`keys` then holds every key."""
        return not self._unread

    @property
    def records_places(self) -> bool:
        """True when the index records where each key is provided (:meth:`place`)."""
        return self._places is not None

    @property
    def numbers_stated(self) -> set[Key]:
        """The keys of the numbers the texts read so far state (for :attr:`numbers`)."""
        return self._numbers

    def over_budget(self, searched: int) -> bool:
        """Tell whether ``searched`` characters exceed the search budget for these texts."""
        return searched > SEARCH_BUDGET * (len(self.joined) + 1)

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
            self._readings.append((unread, starts_of(len(self.texts[p]) for p in unread)))
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
        stated = self._numbers
        line = self.numbers
        for number in numbers:
            if number not in stated:
                stated.add(number)
                line.add(number)

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

    @property
    def encoded(self) -> bytes:
        """:attr:`joined` in UTF-8 (:func:`.prefilter.encode`; encoded on first use, once)."""
        encoded = self._encoded
        if encoded is None:
            digests = self.digests
            encoded = self._encoded = encode(self.joined) if digests is None else digests.encoded
        return encoded

    def all_starts(self) -> list[int]:
        """Where each text starts in :attr:`joined` (and the end)."""
        if not self._joined_starts:
            self._joined_starts = starts_of(len(text) for text in self.texts)
        return self._joined_starts

    def read_all(self) -> None:
        """Read every text not read yet."""
        with self.lock:
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
        with self.lock:
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

    def read_interval(self, low: Decimal, high: Decimal) -> None:
        """Read every unread text that may state a number in ``[low, high]``."""
        with self.lock:
            alternatives = interval_evidence(low, high) if low <= high else ()
            if alternatives is None:
                self.read_all()
                return
            for alternative in alternatives:
                for position in self._candidates(alternative):
                    self._read_text(position)

    def _candidates(self, alternative: Alternative) -> Iterable[int]:
        """
        The unread texts that satisfy one alternative of some evidence.

        The digests are searched (:meth:`.digests.Digests.candidates`);

        past the search budget, every unread text is read and none is given.
        """
        digests = self.digests
        if digests is None or self.over_budget(digests.searched):
            self.read_all()
            return ()
        return digests.candidates(alternative, self._read)


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
