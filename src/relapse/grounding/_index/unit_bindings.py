"""
What the chunks write a number with: a view of the index built when an answer gives a unit.

An answer's ``30 minutes`` is no support of a chunk's ``30`` that is a page
number or ``30 kg``. The view searches the texts that may write the number
(:mod:`.unit_lookup`), caches each verdict per number and unit, and past a
search budget reads every number of the texts once instead. Its reference
twin is that full reading (``tests/grounding/index/test_unit_lookup.py``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from relapse.grounding._index.unit_lookup import (
    occurrence_starts,
    search_units,
    search_verdict,
    units_by_number,
    verdict_of,
    writings,
)
from relapse.grounding._values.keys import Key

if TYPE_CHECKING:
    from relapse.grounding._index.text_index import TextIndex


class UnitBindings:
    """The bindings (units, references, people) with which an index's texts write numbers."""

    __slots__ = ("_by_number", "_index", "_searched", "_verdicts")

    def __init__(self, index: TextIndex) -> None:
        """
        Prepare the view of ``index`` (nothing is searched yet).

        Args:
            index: The texts' index.
        """
        self._index = index
        self._verdicts: dict[tuple[Key, str], str] = {}
        self._searched = 0
        self._by_number: dict[Key, frozenset[str | None]] | None = None

    def verdict(self, key: Key, unit: str) -> str:
        """
        Tell whether the texts write the number ``key`` with ``unit`` (cached per key and unit).

        The texts that may write the number are searched for it
        (:func:`.unit_lookup.search_verdict`). Once unit lookups have
        searched more than the index's search budget, every number of the
        texts is read once instead (:func:`.unit_lookup.units_by_number`):
        the same verdicts, at a cost linear in the texts however many
        numbers an answer holds.

        Args:
            key: A number key (``("n", digits, exponent)``).
            unit: The answer's binding of it
                (:func:`relapse.grounding._values.units.binding_of`): a
                canonical unit name or ``"#people"``.

        Returns:
            :data:`.unit_lookup.AGREE`, :data:`.unit_lookup.CONFLICT`,
            :data:`.unit_lookup.FOREIGN` or :data:`.unit_lookup.UNRELATED`.
        """
        cache_key = (key, unit)
        verdict = self._verdicts.get(cache_key)
        if verdict is None:
            if self._index.over_budget(self._searched):
                verdict = verdict_of(self._read_all().get(key, frozenset()), unit)
            else:
                verdict = search_verdict(self._texts_writing(key), key, unit)
            self._verdicts[cache_key] = verdict
        return verdict

    def written(self, key: Key) -> frozenset[str | None]:
        """
        Return what the texts bind the number ``key`` to: units, references, people (None: nothing).

        The same occurrences as :meth:`verdict`, under the same budget.

        Args:
            key: A number key.

        Returns:
            The bindings (:func:`relapse.grounding._values.units.binding_of`)
            of the key's occurrences in digits; empty when the texts do not
            write it in digits.
        """
        if self._index.over_budget(self._searched):
            return self._read_all().get(key, frozenset())
        return search_units(self._texts_writing(key), key)

    def occurrences(self, key: Key) -> Iterator[tuple[int, int]]:
        """
        Yield where the texts write the number ``key`` in digits, as the caller reads on.

        The occurrences :meth:`written` reads; a lazy index searches only the
        texts whose digest holds the key's digits. Lazy, so a caller that
        stops early pays for the texts searched so far only.

        Args:
            key: A number key (``("n", digits, exponent)``).

        Returns:
            ``(text, start)`` of each occurrence, text by text (in a text,
            writing by writing).
        """
        texts = self._index.texts
        digests = self._index.digests
        digits = key[1]
        if digests is None or not isinstance(digits, str):
            positions: Iterable[int] = range(len(texts))
        else:
            positions = digests.holding(digits.encode("ascii"))
        for position in positions:
            for start in occurrence_starts(texts[position], key):
                yield position, start

    def _read_all(self) -> dict[Key, frozenset[str | None]]:
        """Every number of the texts with its bindings (read once, past the budget)."""
        if self._by_number is None:
            self._by_number = units_by_number(self._index.texts)
        return self._by_number

    def _texts_writing(self, key: Key) -> Iterator[str]:
        """
        Yield, in order, the texts that may write the number ``key`` in digits.

        Every writing the unit lookup looks for holds the key's digits once
        its separators are deleted, so a lazy index yields only the texts
        whose digest holds them; the others hold no occurrence. What is
        searched (the digests up to each text, each text once per writing)
        counts towards the lookups' budget.
        """
        texts = self._index.texts
        digests = self._index.digests
        digits = key[1]
        searches = len(writings(key))
        if digests is None or not isinstance(digits, str):
            for text in texts:
                self._searched += searches * len(text)
                yield text
            return
        joined, starts = digests.digests()
        searched = 0
        for position in digests.holding(digits.encode("ascii")):
            text = texts[position]
            self._searched += starts[position + 1] - searched + searches * len(text)
            searched = starts[position + 1]
            yield text
        self._searched += len(joined) - searched
