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
those are folded.

Twin: every chunk folded (:meth:`FoldedChunks.every`);
``tests/grounding/test_echo.py`` (``TestFoldedChunks``) proves the two give
the same copies.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from itertools import accumulate

from relapse.grounding._index.prefilter import digest, encode
from relapse.grounding._text import CHUNK_SEPARATOR, fold

#: The characters other than ASCII that case folding turns into ASCII
#: letters or digits, or whose folding holds one (``ß`` is ``ss``, the Kelvin
#: sign ``k``, ``ﬁ`` ``fi``, ``İ`` ``i`` and a combining dot):
#: ``tests/grounding/test_echo.py`` derives them from every code point.
FOLDS_TO_ASCII = (
    "\u00df\u0130\u0149\u017f\u01f0\u1e96\u1e97\u1e98\u1e99\u1e9a\u1e9e\u212a"
    "\ufb00\ufb01\ufb02\ufb03\ufb04\ufb05\ufb06"
)
_FOLDS_TO_ASCII = re.compile(b"|".join(re.escape(encode(char)) for char in FOLDS_TO_ASCII))
_ASCII_BYTES = bytes(range(128))


class FoldedChunks:
    """
    The texts of some chunks, folded (:func:`relapse.grounding._text.fold`) when asked for.

    Not thread-safe on its own: one prepared check's copy rule uses it.
    """

    __slots__ = ("_digest", "_every", "_folded", "_starts", "_texts")

    def __init__(self, texts: Sequence[str]) -> None:
        """
        Keep ``texts``; nothing is folded or digested yet.

        Args:
            texts: The chunk texts, in order.
        """
        self._texts = texts
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

    def holding(self, fragments: Sequence[str]) -> tuple[list[str], str]:
        """
        Return the folded texts that may hold one of the folded ``fragments``, and them joined.

        Every text whose folded form holds one of ``fragments`` is among
        them, so the first folded text holding a fragment is the first of
        them holding it. When a text or a fragment holds the separator
        itself (a match could then cross from one text into the next), every
        text, as :meth:`every` gives them.

        Args:
            fragments: Folded fragments (an answer's probes).

        Returns:
            ``(texts, joined)``: the folded texts in order and them joined
            by :data:`CHUNK_SEPARATOR`.
        """
        whole = self._digested()
        if not self._starts or any(CHUNK_SEPARATOR in fragment for fragment in fragments):
            return self.every()
        starts = self._starts
        find = whole.find
        positions: set[int] = set()
        for fragment in fragments:
            needle = digest(fragment)
            at = find(needle)
            while at >= 0:
                text = bisect_right(starts, at) - 1
                positions.add(text)
                at = find(needle, starts[text + 1])
        texts = [self._fold(position) for position in sorted(positions)]
        return texts, CHUNK_SEPARATOR.join(texts)

    def _digested(self) -> bytes:
        """Return the digest of the texts case-folded and joined (computed on first use)."""
        if self._digest is None:
            joined = CHUNK_SEPARATOR.join(self._texts)
            if joined.count(CHUNK_SEPARATOR) == len(self._texts) - 1:
                # Case folding neither makes nor deletes the separator, and
                # changes the digest only where it turns a character other
                # than ASCII into ASCII letters (the digest lowers ASCII
                # itself): most texts hold none, and case folding costs a
                # table lookup per character where they are not all ASCII.
                encoded = encode(joined)
                # The bytes other than ASCII, few in most texts; UTF-8 keeps
                # each character's bytes together, so a character's encoding
                # is found among them exactly where it was in the text.
                if not joined.isascii() and _FOLDS_TO_ASCII.search(
                    encoded.translate(None, _ASCII_BYTES)
                ):
                    self._digest = digest(joined.casefold())
                else:
                    self._digest = digest(encoded)
                lengths = (len(part) + 1 for part in self._digest.split(CHUNK_SEPARATOR.encode()))
                self._starts = [0, *accumulate(lengths)]
            else:
                self._digest = b""
        return self._digest

    def _fold(self, position: int) -> str:
        """Return one text folded (cached)."""
        folded = self._folded.get(position)
        if folded is None:
            folded = self._folded[position] = fold(self._texts[position])
        return folded
