"""
The chunks folded for quotation lookup: a view of the index built when an answer quotes.

Folding (typography, case, spacing: :func:`relapse.grounding._text.fold`)
costs a pass over every character, so it is done only for an answer that
holds a quotation, and with a lazy index only for the texts whose digest may
hold the quoted words. Its reference twin is folding every text
(``tests/grounding/index/test_lazy_index.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from relapse.grounding._index.prefilter import digest
from relapse.grounding._read.quotes import unfold_span, word_occurrence
from relapse.grounding._text import CHUNK_SEPARATOR, fold, fold_map

if TYPE_CHECKING:
    from relapse.grounding._index.text_index import TextIndex


class Quotations:
    """The texts of an index, folded on demand, and where a folded quotation occurs in them."""

    __slots__ = ("_fold_maps", "_folded", "_folded_texts", "_index", "_non_ascii", "_separated")

    def __init__(self, index: TextIndex) -> None:
        """
        Prepare the view of ``index`` (nothing is folded yet).

        Args:
            index: The texts' index.
        """
        self._index = index
        self._folded: str | None = None
        self._folded_texts: dict[int, str] = {}
        self._fold_maps: dict[int, tuple[str, list[int]]] = {}
        self._non_ascii: list[int] | None = None
        self._separated: bool | None = None  # no text holds the separator (found on first use)

    @property
    def folded(self) -> str:
        """Every text folded, joined by :data:`CHUNK_SEPARATOR` (built on first use)."""
        if self._folded is None:
            self._folded = CHUNK_SEPARATOR.join(fold(text) for text in self._index.texts)
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
        return self._candidates(fragment)[0]

    def _candidates(self, fragment: str) -> tuple[str, list[int] | None]:
        """:meth:`folded_for`, and the positions of the texts joined (None: all of them)."""
        digests = self._index.digests
        needle = digest(fragment)
        if digests is None or not needle:
            return self.folded, None
        texts = self._index.texts
        if self._non_ascii is None:
            self._non_ascii = [i for i, text in enumerate(texts) if not text.isascii()]
        holding = sorted(set(self._non_ascii).union(digests.holding(needle)))
        joined = CHUNK_SEPARATOR.join(self._folded_text(position) for position in holding)
        return joined, holding

    def find(self, fragment: str) -> tuple[int, int, int] | None:
        """
        Find a folded quotation fragment in the texts, as words.

        The words are matched as
        :func:`relapse.grounding._read.quotes.occurs_as_words` matches them.

        Args:
            fragment: A folded quotation fragment.

        Returns:
            ``(text, start, end)``: the position of the first text holding it
            and the fragment's offsets in that text *folded* (see
            :meth:`unfolded`); the position is -1 when a text holds the
            separator itself, which hides where each text starts. None when
            no text holds it.
        """
        joined, positions = self._candidates(fragment)
        at = word_occurrence(joined, fragment)
        if at < 0:
            return None
        end = at + len(fragment)
        if self._separated is None:
            index = self._index
            self._separated = index.joined.count(CHUNK_SEPARATOR) == len(index.texts) - 1
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
            start: The span's start in the folded text (:meth:`find`).
            end: Its end (exclusive).

        Returns:
            ``(start, end)`` in the text, or None (see
            :func:`relapse.grounding._read.quotes.unfold_span`).
        """
        text = self._index.texts[position]
        folded = self._fold_maps.get(position)
        if folded is None:
            folded = self._fold_maps[position] = fold_map(text)
        return unfold_span(text, folded, start, end)

    def _folded_text(self, position: int) -> str:
        """Return one text folded (cached)."""
        folded = self._folded_texts.get(position)
        if folded is None:
            folded = self._folded_texts[position] = fold(self._index.texts[position])
        return folded
