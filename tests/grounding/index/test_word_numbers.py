"""The index's numbers in words: a lookup by head words finds what a full reading reads."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from grounding_texts import WORD_PIECES
from relapse.grounding._index.text_index import TextIndex
from relapse.grounding._read.words import word_values


# from test_quantities.py (issue 21)
class TestWordsOfAChunk:
    @settings(max_examples=1_000, deadline=None, suppress_health_check=list(HealthCheck))
    @given(
        texts=st.lists(st.lists(WORD_PIECES, max_size=30).map("".join), min_size=1, max_size=3),
        extra=st.lists(
            st.one_of(
                st.integers(0, 3_000_000),
                st.fractions(min_value=0, max_value=5, max_denominator=12),
            ),
            max_size=5,
        ),
    )
    # A scale after "and a half" once scaled the whole again (10**12 + 500,000),
    # a value whose head words the text does not hold: now 1,500,000.
    @example(texts=["one million and a half million "], extra=[])
    # After an article too (issue 38): 18 and 30 are values of dozens.
    @example(
        texts=["a dozen and a half ", "two dozen and a half", "a million and a half"], extra=[]
    )
    def test_looking_words_up_reads_what_a_full_reading_reads(
        self, texts: list[str], extra: list[int | Fraction]
    ) -> None:
        """The lookup by head words finds exactly the values of every run read at once."""
        index = TextIndex(texts)
        full = word_values("\x00".join(texts))
        for value in [*sorted(full, key=float), *extra]:
            assert index.words.has(value) == (value in full), value
