"""
The subject reader: a sentence's subject run, its kind and the sentence around a number.

The reading the subjects rule (rules/test_subjects.py) rests on, tested on its own;
``Sentences.at`` against its reference twin, a search per mark.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from relapse.grounding._read.subjects import (
    SENTENCE_ENDS,
    SENTENCE_WINDOW,
    Sentences,
    other_kind,
    singular,
    subject,
    words_of,
)


def reference_sentence_at(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The rule of :meth:`Sentences.at` as its docstring states it: one search per mark and side."""
    low = max(0, start - SENTENCE_WINDOW)
    first = -1
    for mark in SENTENCE_ENDS:
        found = text.rfind(mark, low, start)
        if found >= 0:
            first = max(first, found + len(mark))
    if first < 0:
        if low:
            return None
        first = 0
    high = min(len(text), end + SENTENCE_WINDOW)
    last = high
    for mark in SENTENCE_ENDS:
        found = text.find(mark, end, high)
        if 0 <= found < last:
            last = found + len(mark.rstrip())
    if last == high and high < len(text):
        return None
    while first < start and text[first].isspace():
        first += 1
    while last > end and text[last - 1].isspace():
        last -= 1
    return first, last


# Sentence marks and their parts, in runs long enough to cross the window.
_MARKED = st.text(alphabet=list('.?!")\u201d \nab\u00a0'), max_size=60)


_FILLER = st.sampled_from(["", "x" * (SENTENCE_WINDOW - 3), "word " * 70])


# from test_subjects.py (issue 21)
def test_subject_reads_the_opening_run() -> None:
    text = "Monozygotic (identical) twins occur when the split takes place."
    assert subject(text, 0, len(text)) == ("monozygotic", "identical", "twins", "occur")
    text = "- **The** grafted trees, grown high, bear fruit."
    # Markdown emphasis is a mark: the run ends at it, before any word.
    assert subject(text, 0, len(text)) == ()
    text = "3. The Grafted trees bear fruit."
    assert subject(text, 0, len(text)) == ("grafted", "trees", "bear", "fruit")
    text = "Within 8 days, conjoined twins form."
    assert subject(text, 0, len(text)) == ()


# from test_subjects.py (issue 21)
def test_other_kind_compares_modifiers_of_the_shared_word() -> None:
    answer = ("arabica", "plants", "yield")
    chunk = ("robusta", "plants", "yield")
    answer_words = frozenset({"arabica", "plant", "yield", "bag"})
    chunk_words = frozenset({"robusta", "plant", "yield", "bag"})
    assert other_kind(answer, answer_words, chunk, chunk_words) == (("arabica",), "plant")
    # The chunk's sentence holds the answer's modifier, or the answer's the chunk's.
    assert other_kind(answer, answer_words, chunk, chunk_words | {"arabica"}) is None
    assert other_kind(answer, answer_words | {"robusta"}, chunk, chunk_words) is None
    # No modifier before the shared word on one side.
    assert other_kind(("plants", "yield"), answer_words, chunk, chunk_words) is None
    # The shared word is no plural noun: "The company reported", "Apple reported".
    apple = frozenset({"apple", "reported", "revenue"})
    company = frozenset({"company", "reported", "revenue"})
    assert other_kind(("apple", "reported"), apple, ("company", "reported"), company) is None
    # No shared word.
    bushes = ("robusta", "bushes")
    assert other_kind(("arabica", "trees"), answer_words, bushes, chunk_words) is None


# from test_subjects.py (issue 21)
def test_singular_and_sentences() -> None:
    assert [singular(w) for w in ("twins", "babies", "glass", "virus", "bags")] == [
        "twin",
        "baby",
        "glass",
        "virus",
        "bag",
    ]
    text = "First one. Robusta plants yield 35 bags. Last one."
    start = text.index("35")
    assert Sentences(text).at(start, start + 2) == (11, 40)
    assert text[11:40] == "Robusta plants yield 35 bags."
    assert words_of(text, 11, 40) == frozenset({"robusta", "plant", "yield", "bag"})


# from test_subjects.py (issue 21)
class TestSentences:
    """``Sentences.at`` finds, by bisection, the sentence a search per mark finds."""

    @settings(max_examples=400, deadline=None)
    @given(
        parts=st.lists(st.tuples(_MARKED, _FILLER), max_size=8),
        data=st.data(),
    )
    def test_agrees_with_a_search_per_mark(
        self, parts: list[tuple[str, str]], data: st.DataObject
    ) -> None:
        text = "".join(marked + filler for marked, filler in parts)
        sentences = Sentences(text)
        for _ in range(5):
            start = data.draw(st.integers(0, len(text)))
            end = data.draw(st.integers(start, min(len(text), start + 5)))
            assert sentences.at(start, end) == reference_sentence_at(text, start, end)

    def test_hand_worked(self) -> None:
        # Marks: '." ' at 7 (the sentence ends after its quote), ".) " at 21, "\n" at 29.
        text = 'He "ran." Then (a 5 b.) c 7 d\ne 9'
        assert text.index('." ') == 7
        five, seven, nine = text.index("5"), text.index("7"), text.index("9")
        assert Sentences(text).at(five, five + 1) == (10, 23)  # "Then (a 5 b.)"
        assert text[10:23] == "Then (a 5 b.)"
        assert Sentences(text).at(seven, seven + 1) == (24, 29)  # "c 7 d", the break excluded
        assert Sentences(text).at(nine, nine + 1) == (30, 33)  # "e 9", to the text's end
        # A sentence longer than the window on a side that is not the text's edge.
        long = "a. " + "w" * SENTENCE_WINDOW + " 5 " + "w" * SENTENCE_WINDOW + " b. c"
        at = long.index(" 5 ") + 1
        assert Sentences(long).at(at, at + 1) is None
