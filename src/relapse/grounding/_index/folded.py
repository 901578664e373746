"""
The chunks folded on demand: only those that may hold a folded fragment.

FG004's copy rule (:func:`relapse.grounding._echo.is_copy`) compares the
folded answer with the folded chunks. Folding every chunk costs tens of C
passes and a string per word over the whole context, for every prepared
check, though an answer can only copy the chunks its probes are in. Folding
changes only case and characters the digest deletes
(:func:`relapse.grounding._index.prefilter.digest`: every one but ASCII
letters, digits, ``/`` and the separator), so a chunk's folded text has the
digest of the chunk case-folded; and a digest of a substring is a substring
of the digest. A chunk whose folded text holds a fragment therefore holds
the fragment's digest in the digest of its case-folded text: a few C passes
(``encode``, ``lower``, ``translate``; ``casefold`` first only for the few
characters it turns into ASCII letters) find the chunks that may, and only
those are folded, one at a time as the rule asks for them
(:meth:`FoldedChunks.candidates`). A lazy index's digests
(:class:`.digests.Digests`) are the same bytes: they are reused.

Twin: every chunk folded (:meth:`FoldedChunks.every`);
``tests/grounding/index/test_folded.py`` (``TestFoldedChunks``) proves the two give
the same copies.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence

from relapse.grounding._index.digests import Digests, separator_starts
from relapse.grounding._index.prefilter import digest, encode
from relapse.grounding._text import ASCII_BYTES, CHUNK_SEPARATOR, fold

#: The characters other than ASCII that case folding turns into ASCII
#: letters or digits, or whose folding holds one (``ß`` is ``ss``, the Kelvin
#: sign ``k``, ``ﬁ`` ``fi``, ``İ`` ``i`` and a combining dot):
#: ``tests/grounding/index/test_folded.py`` derives them from every code point.
FOLDS_TO_ASCII = (
    "\u00df\u0130\u0149\u017f\u01f0\u1e96\u1e97\u1e98\u1e99\u1e9a\u1e9e\u212a"
    "\ufb00\ufb01\ufb02\ufb03\ufb04\ufb05\ufb06"
)
_FOLDS_TO_ASCII = re.compile(b"|".join(re.escape(encode(char)) for char in FOLDS_TO_ASCII))


class FoldedChunks:
    """
    The texts of some chunks, folded (:func:`relapse.grounding._text.fold`) when asked for.

    Its positions are those of the pieces :meth:`every` gives: the texts
    themselves unless one holds the separator. Not thread-safe on its own:
    one prepared check's copy rule uses it.
    """

    __slots__ = (
        "_digest",
        "_digests",
        "_encoded",
        "_every",
        "_folded",
        "_joined",
        "_starts",
        "_texts",
    )

    def __init__(
        self,
        texts: Sequence[str],
        joined: str | None = None,
        digests: Digests | None = None,
        encoded: Callable[[], bytes] | None = None,
    ) -> None:
        """
        Keep ``texts``; nothing is folded or digested yet.

        Args:
            texts: The chunk texts, in order.
            joined: ``texts`` joined by :data:`CHUNK_SEPARATOR`, when the
                caller has it already (a :class:`.text_index.TextIndex`'s
                ``joined``); else joined on first use.
            digests: The texts' lazy index digests, when they have one: their
                digest is this one's wherever case folding turns no
                character into ASCII, so it is reused, not computed again.
            encoded: Returns ``joined`` encoded (:func:`.prefilter.encode`),
                when the caller keeps it for other uses (a
                :class:`.text_index.TextIndex`'s ``encoded``); called only
                when the digest is computed.
        """
        self._texts = texts
        self._joined = joined
        self._digests = digests
        self._encoded = encoded
        self._folded: dict[int, str] = {}
        self._every: tuple[list[str], str] | None = None
        # The digest of the texts case-folded and joined, and where each
        # text's starts in it (and the end); None until first used, b"" with
        # no starts when a text holds the separator itself.
        self._digest: bytes | None = None
        self._starts: list[int] = []

    def every(self) -> tuple[list[str], str]:
        """
        Return every text folded, joined by :data:`CHUNK_SEPARATOR` and split again at it.

        Returns:
            ``(pieces, joined)``: ``joined`` is the folded texts joined, and
            ``pieces`` is ``joined`` split at the separator (the texts
            themselves unless one holds the separator).
        """
        if self._every is None:
            joined = CHUNK_SEPARATOR.join(self._fold(i) for i in range(len(self._texts)))
            self._every = joined.split(CHUNK_SEPARATOR), joined
        return self._every

    def candidates(self, fragment: str, start: int = 0) -> Iterator[int]:
        """
        Yield, in order, the pieces from ``start`` on whose folded text may hold ``fragment``.

        Every piece (of :meth:`every`) from ``start`` on whose folded text
        holds the folded ``fragment`` is among them; the others are pieces
        whose digest holds the fragment's. Lazy: the digests are searched
        only as far as the pieces asked for. When a text or the fragment
        holds the separator itself, every piece from ``start`` on.

        Args:
            fragment: A folded fragment (a probe of an answer, or the answer).
            start: The first position to consider.

        Yields:
            Positions of pieces, increasing.
        """
        whole = self._digested()
        starts = self._starts
        if not starts or CHUNK_SEPARATOR in fragment:
            yield from range(start, len(self.every()[0]))
            return
        needle = digest(fragment)
        find = whole.find
        at = find(needle, starts[min(start, len(starts) - 1)])
        while at >= 0:
            position = bisect_right(starts, at) - 1
            yield position
            # The next piece: where this one holds the needle again is no news.
            at = find(needle, starts[position + 1])

    def folded(self, position: int) -> str:
        """Return the folded text of one piece (of :meth:`every`; cached)."""
        self._digested()
        if self._starts:
            return self._fold(position)
        return self.every()[0][position]

    def _digested(self) -> bytes:
        """Return the digest of the texts case-folded and joined (computed on first use)."""
        if self._digest is None:
            texts, digests = self._texts, self._digests
            joined = self._joined
            if joined is None:
                joined = self._joined = CHUNK_SEPARATOR.join(texts)
            if digests is not None:
                encoded = digests.encoded
            elif self._encoded is not None:
                encoded = self._encoded()
            else:
                encoded = encode(joined)
            # Case folding neither makes nor deletes the separator, and
            # changes the digest only where it turns a character other than
            # ASCII into ASCII letters (the digest lowers ASCII itself): most
            # texts hold none, and case folding costs a table lookup per
            # character where they are not all ASCII. The bytes other than
            # ASCII are few in most texts; UTF-8 keeps each character's bytes
            # together, so a character's encoding is found among them exactly
            # where it was in the text.
            if not joined.isascii() and _FOLDS_TO_ASCII.search(
                encoded.translate(None, ASCII_BYTES)
            ):
                whole = digest(joined.casefold())
            elif digests is None:
                whole = digest(encoded)
            elif digests.separated:
                # The same digest of the same bytes, which the lazy index
                # may have computed already (and keeps for its lookups).
                whole, self._starts = digests.digests()
            else:
                whole = None  # a text holds the separator
            if whole is not None and not self._starts:
                self._starts = separator_starts(whole, len(texts))
            self._digest = whole if whole is not None and self._starts else b""
        return self._digest

    def _fold(self, position: int) -> str:
        """Return one text folded (cached)."""
        folded = self._folded.get(position)
        if folded is None:
            folded = self._folded[position] = fold(self._texts[position])
        return folded
