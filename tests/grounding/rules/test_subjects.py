"""
A number stated of another kind of subject (issue 21, "Numbers bound to what they count").

The chunks hold the number, with the answer's unit, only in sentences about
another kind of the thing the answer's sentence is about: ``within 8 days``
said of conjoined twins, written of identical ones. Each case is worked out
by hand from the rule in ``docs/findings.md`` ("A number stated of another
subject"): the flagged spans with their offsets, or none. The cases that
must pass are the ones a careful reader accepts: a paraphrase of the
subject, a sentence that names both kinds, the numbers stated in another
order, the number spelled out for the answer's kind, a plural subject with
its verb, the question stating the number.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from relapse.grounding import default_grounding_check
from relapse.grounding._read.subjects import (
    SENTENCE_ENDS,
    SENTENCE_WINDOW,
    Sentences,
    other_kind,
    singular,
    subject,
    words_of,
)

Findings = tuple[tuple[str, tuple[str, ...], tuple[tuple[int, int], ...]], ...]


def findings(chunks: list[str], answer: str, question: str = "") -> Findings:
    """Return ``(code, spans, offsets)`` of every finding of ``answer`` against ``chunks``."""
    result = default_grounding_check(question, chunks, answer)
    return tuple((f.code, f.spans, f.offsets) for f in result.findings)


TWINS = [
    "Monoamniotic twins occur when the split takes place after the ninth day after "
    "fertilization. Conjoined twins: When the division of the developing zygote occurs, "
    "it is within 8 days of fertilization.",
    "Twins can be either monozygotic (identical), meaning that they develop from one zygote, "
    "or dizygotic (fraternal).",
]

TREES = [
    "Grafted trees bear fruit within 3 years. "
    "Most seedling trees take longer: seedling trees bear fruit after 7 years."
]


def test_a_number_moved_to_another_kind_of_twins_fails() -> None:
    # RAGTruth 15010, shortened: "8" at len("Monozygotic (identical) twins occur within ") = 43.
    answer = "Monozygotic (identical) twins occur within 8 days of fertilization."
    assert answer[43] == "8"
    assert findings(TWINS, answer) == (("FG001", ("8",), ((43, 44),)),)


def test_a_number_moved_to_another_kind_of_trees_fails() -> None:
    # "3" at len("Seedling trees bear fruit within ") = 33; "7" is the seedlings'.
    answer = "Seedling trees bear fruit within 3 years."
    assert findings(TREES, answer) == (("FG001", ("3",), ((33, 34),)),)
    assert findings(TREES, "Seedling trees bear fruit after 7 years.") == ()


def test_the_same_kind_passes() -> None:
    assert findings(TREES, "Grafted trees bear fruit within 3 years.") == ()
    assert findings(TWINS, "Conjoined twins form within 8 days of fertilization.") == ()


@pytest.mark.parametrize(
    "answer",
    [
        # Paraphrases of the subject: no run with a modifier before the shared noun.
        "Trees that are grafted bear fruit within 3 years.",
        "When trees are grafted, they bear fruit within 3 years.",
        "A grafted tree bears fruit within 3 years.",
        # The chunk's kind first in the run: it modifies nothing the chunk's run tells apart.
        "Grafted apple trees bear fruit within 3 years.",
        # A kind the chunks never name: the answer's own word, maybe a synonym.
        "Budded trees bear fruit within 3 years.",
        # The sentence names both kinds, the numbers stated in another order.
        "Seedling trees take longer, but grafted trees bear fruit within 3 years.",
        "Within 3 years, grafted trees bear fruit; seedling trees take 7.",
        "In 3 years grafted trees bear fruit, and seedling trees in 7 years.",
    ],
)
def test_what_a_careful_reader_accepts_passes(answer: str) -> None:
    assert findings(TREES, answer) == ()


def test_the_number_spelled_out_for_the_answers_kind_passes() -> None:
    chunks = [
        "Grafted trees bear fruit within 3 years. "
        "In a warm climate, seedling trees bear fruit within three years."
    ]
    assert findings(chunks, "Seedling trees bear fruit within 3 years.") == ()


def test_the_number_stated_of_both_kinds_passes() -> None:
    chunks = ["Grafted trees bear fruit within 3 years.", "Seedling trees flower within 3 years."]
    assert findings(chunks, "Seedling trees bear fruit within 3 years.") == ()


def test_a_plural_subject_and_its_verb_tell_no_kind() -> None:
    # "Scientists found" and "Researchers found": the shared word is the verb.
    chunks = ["Scientists found 40 species in the lake. Researchers found that the lake shrinks."]
    assert findings(chunks, "Researchers found 40 species in the lake.") == ()


def test_a_name_and_the_noun_that_stands_for_it_pass() -> None:
    # "The company" is Apple: no plural noun is shared, and the name is a name.
    chunks = ["The company reported revenue of $30 billion. Apple reported its results on Tuesday."]
    assert findings(chunks, "Apple reported revenue of $30 billion.") == ()


def test_a_kind_named_as_a_sentences_first_word_is_a_kind() -> None:
    # Capitalised as a sentence's first word, a modifier is an ordinary word
    # there: the chunks tell of young cats, private schools, severe symptoms
    # (and of Fuji trees) apart from the kind the number is stated of.
    cases = [
        (
            ["Adult cats sleep 16 hours a day. Young cats play for hours."],
            "Young cats sleep 16 hours a day.",
            len("Young cats sleep "),
            "16",
        ),
        (
            ["Public schools enrolled 500 students in 2020. Private schools enrolled fewer."],
            "Private schools enrolled 500 students in 2020.",
            len("Private schools enrolled "),
            "500",
        ),
        (
            ["Early symptoms appear within 3 days. Severe symptoms need care."],
            "Severe symptoms appear within 3 days.",
            len("Severe symptoms appear within "),
            "3",
        ),
        (
            ["Gala trees bear fruit within 3 years. Fuji trees are grown in Japan."],
            "Fuji trees bear fruit within 3 years.",
            len("Fuji trees bear fruit within "),
            "3",
        ),
    ]
    for chunks, answer, start, number in cases:
        end = start + len(number)
        assert answer[start:end] == number
        assert findings(chunks, answer) == (("FG001", (number,), ((start, end),)),)


def test_a_capitalised_word_inside_a_sentence_is_a_name() -> None:
    # "Fuji" inside the sentence may be a name (a company, a place): the
    # chunks then do not tell of Fuji trees as a kind.
    chunks = ["Gala trees bear fruit within 3 years. Growers at Fuji trees farms disagree."]
    assert findings(chunks, "Fuji trees bear fruit within 3 years.") == ()


def test_the_kind_stated_passes_whatever_its_case() -> None:
    chunks = ["Public schools enrolled 500 students in 2020. Private schools enrolled fewer."]
    assert findings(chunks, "The public schools enrolled 500 students in 2020.") == ()
    chunks = ["Early symptoms appear within 3 days. Severe symptoms need care."]
    assert findings(chunks, "Symptoms appear within 3 days.") == ()


def test_the_question_stating_the_number_passes() -> None:
    question = "Do seedling trees bear fruit within 3 years?"
    assert findings(TREES, "Seedling trees bear fruit within 3 years.", question) == ()


def test_a_sentence_too_long_to_read_passes() -> None:
    # The chunk's sentence opens with the answer's kind, SENTENCE_WINDOW
    # characters and more before the number: the window around "3" starts
    # at "grafted", whose run would tell another kind. Cut by the window, the
    # sentence is not read: the number passes.
    body = "grafted trees bear "
    filler = "l" * (SENTENCE_WINDOW - len(body) - 1) + " "
    chunk = "Seedling trees grow slowly; " + body + filler + "3 fruits."
    start = chunk.index("3 fruits")
    assert chunk[start - SENTENCE_WINDOW :].startswith(body)
    chunks = [chunk, "Most seedling trees take longer."]
    assert Sentences(chunk).at(start, start + 1) is None
    assert findings(chunks, "Seedling trees bear 3 fruits.") == ()


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
