"""
The chunks' digests, joined, and the searches a lazy index makes in them.

A lazy :class:`~.text_index.TextIndex` reads a chunk only when an answer
needs a key the chunk may provide; whether it may is decided by the rules of
:mod:`.prefilter` on the chunk's digest. The digests of all chunks are
computed in one C pass over the joined chunks, on first use, and each search
(``bytes.find``, one regular expression) runs over all of them at once. Its
reference twin is reading every chunk (``tests/grounding/index/test_lazy_index.py``).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from itertools import accumulate
from typing import AnyStr

from relapse.grounding._index.prefilter import Alternative, TextTest, date_digest, digest
from relapse.grounding._text import CHUNK_SEPARATOR


class Digests:
    """
    The digests and date digests of some texts, joined, and where each text starts in them.

    Built on first use and never changed, so concurrent checks may search
    them; the counter :attr:`searched` only decides when searching stops
    paying (a race on it costs one more search, never a verdict).
    """

    __slots__ = (
        "_date_digest_starts",
        "_date_digests",
        "_digest_starts",
        "_digests",
        "_separated",
        "encoded",
        "joined",
        "joined_starts",
        "searched",
        "texts",
    )

    def __init__(self, texts: list[str], joined: str, encoded: bytes) -> None:
        """
        Prepare to search ``texts``.

        Args:
            texts: The texts, in order.
            joined: The texts joined by :data:`CHUNK_SEPARATOR`.
            encoded: ``joined`` encoded (:func:`.prefilter.encode`).
        """
        self.texts = texts
        self.joined = joined
        self.encoded = encoded
        #: Where each text starts in :attr:`joined`, and the end.
        self.joined_starts = starts_of(len(text) for text in texts)
        #: Characters searched so far, for the index's search budget.
        self.searched = 0
        self._digests: bytes | None = None
        self._digest_starts: list[int] = []
        self._date_digests: bytes | None = None
        self._date_digest_starts: list[int] = []
        self._separated: bool | None = None

    @property
    def separated(self) -> bool:
        """True when no text holds the separator itself (found on first use)."""
        if self._separated is None:
            self._separated = self.joined.count(CHUNK_SEPARATOR) == len(self.texts) - 1
        return self._separated

    def digests(self) -> tuple[bytes, list[int]]:
        """The texts' digests joined by NUL, and where each starts (and the end)."""
        if self._digests is None:
            self._digests, self._digest_starts = self._joined(digest)
        return self._digests, self._digest_starts

    def date_digests(self) -> tuple[bytes, list[int]]:
        """The texts' date digests joined by NUL, and where each starts (and the end)."""
        if self._date_digests is None:
            self._date_digests, self._date_digest_starts = self._joined(date_digest)
        return self._date_digests, self._date_digest_starts

    def _joined(self, function: Callable[[str | bytes], bytes]) -> tuple[bytes, list[int]]:
        """Return ``function`` of the joined texts and where each text starts in it."""
        if self.separated:
            # One call over the joined texts; the separator survives it.
            whole = function(self.encoded or self.joined)
            # The separator's NUL is the only NUL byte of the encoded texts.
            return whole, separator_starts(whole, len(self.texts))
        # A text holding the separator itself: one call per text.
        parts = [function(text).replace(b"\x00", b"") for text in self.texts]
        return b"\x00".join(parts), starts_of(len(part) for part in parts)

    def digest_of(self, text: int) -> bytes:
        """Return one text's digest."""
        digests, starts = self.digests()
        return digests[starts[text] : starts[text + 1] - 1]

    def date_digest_of(self, text: int) -> bytes:
        """Return one text's date digest."""
        dates, starts = self.date_digests()
        return dates[starts[text] : starts[text + 1] - 1]

    def holding(self, needle: bytes) -> Iterator[int]:
        """Yield, in order, every text whose digest holds ``needle``."""
        digests, starts = self.digests()
        return hits(partial(digests.find, needle), starts)

    def candidates(self, alternative: Alternative, done: bytearray) -> Iterator[int]:
        """
        Yield the texts not ``done`` that satisfy one alternative of some evidence.

        The first byte string is searched in the joined digests (or, with
        none, the first pattern in the joined texts); each text found is
        then tested against the rest. Each text is yielded at most once:
        after a match the search resumes at the next text.

        Args:
            alternative: The parts that must all hold (:mod:`.prefilter`).
            done: One byte per text, nonzero for a text already read.
        """
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
        found: Iterator[int]
        if needles:
            digests, starts = self.digests()
            found = hits(partial(digests.find, needles.pop()), starts)
            self.searched += len(digests)
        elif date_patterns:
            dates, starts = self.date_digests()
            found = hits(partial(search, date_patterns.pop(), dates), starts)
            self.searched += len(dates)
        else:
            first = text_tests.pop()
            assert isinstance(first, re.Pattern)  # an alternative of tests alone starts with one
            found = hits(partial(search, first, self.joined), self.joined_starts)
            self.searched += len(self.joined)
        for text in found:
            if (
                not done[text]
                and all(needle in self.digest_of(text) for needle in needles)
                and all(pattern.search(self.date_digest_of(text)) for pattern in date_patterns)
                and all(test.search(self.texts[text]) for test in text_tests)
            ):
                yield text


def search(pattern: re.Pattern[AnyStr], text: AnyStr, start: int) -> int:
    """Return where ``pattern`` first matches ``text`` from ``start``, or -1."""
    match = pattern.search(text, start)
    return -1 if match is None else match.start()


def hits(find: Callable[[int], int], starts: list[int]) -> Iterator[int]:
    """
    Yield the texts in which ``find`` matches, each once, in order.

    Args:
        find: ``find(start)``: the next match's position in the joined
            texts (or joined digests) from ``start``, or -1.
        starts: Where each text starts there, and the end (:func:`starts_of`).

    Yields:
        Text positions; after a match the search resumes at the next text.
    """
    position = find(0)
    while position >= 0:
        text = bisect_right(starts, position) - 1
        yield text
        position = find(starts[text + 1])


def starts_of(lengths: Iterable[int]) -> list[int]:
    """Where each of texts of these lengths starts once joined by one separator, and the end."""
    return [0, *accumulate(length + 1 for length in lengths)]


def separator_starts(whole: bytes, texts: int) -> list[int]:
    """
    Where each of ``texts`` texts starts in their digest (or date digest) joined, and the end.

    The separator is the only character whose encoding holds a NUL byte, and
    the digests keep it: ``texts - 1`` of them unless a text holds the
    separator itself. Found with ``bytes.find`` (``memchr``), which costs
    less than splitting the digest into a copy per text.

    Returns:
        ``[0, ..., len(whole) + 1]``, or ``[]`` when ``whole`` holds more or
        fewer than ``texts - 1`` NUL bytes.
    """
    starts = [0]
    find = whole.find
    at = find(b"\x00")
    while at >= 0 and len(starts) < texts:
        starts.append(at + 1)
        at = find(b"\x00", at + 1)
    if at >= 0 or len(starts) != texts:
        return []
    starts.append(len(whole) + 1)
    return starts
