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
its verb, the question stating the number. The subject reader itself is
tested in read/test_sentences.py.
"""

from __future__ import annotations

import pytest

from relapse.grounding import default_grounding_check
from relapse.grounding._read.subjects import SENTENCE_WINDOW, Sentences

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


# from test_subjects.py (issue 21)
def test_a_number_moved_to_another_kind_of_twins_fails() -> None:
    # RAGTruth 15010, shortened: "8" at len("Monozygotic (identical) twins occur within ") = 43.
    answer = "Monozygotic (identical) twins occur within 8 days of fertilization."
    assert answer[43] == "8"
    assert findings(TWINS, answer) == (("FG001", ("8",), ((43, 44),)),)


# from test_subjects.py (issue 21)
def test_a_number_moved_to_another_kind_of_trees_fails() -> None:
    # "3" at len("Seedling trees bear fruit within ") = 33; "7" is the seedlings'.
    answer = "Seedling trees bear fruit within 3 years."
    assert findings(TREES, answer) == (("FG001", ("3",), ((33, 34),)),)
    assert findings(TREES, "Seedling trees bear fruit after 7 years.") == ()


# from test_subjects.py (issue 21)
def test_the_same_kind_passes() -> None:
    assert findings(TREES, "Grafted trees bear fruit within 3 years.") == ()
    assert findings(TWINS, "Conjoined twins form within 8 days of fertilization.") == ()


# from test_subjects.py (issue 21)
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


# from test_subjects.py (issue 21)
def test_the_number_spelled_out_for_the_answers_kind_passes() -> None:
    chunks = [
        "Grafted trees bear fruit within 3 years. "
        "In a warm climate, seedling trees bear fruit within three years."
    ]
    assert findings(chunks, "Seedling trees bear fruit within 3 years.") == ()


# from test_subjects.py (issue 21)
def test_the_number_stated_of_both_kinds_passes() -> None:
    chunks = ["Grafted trees bear fruit within 3 years.", "Seedling trees flower within 3 years."]
    assert findings(chunks, "Seedling trees bear fruit within 3 years.") == ()


# from test_subjects.py (issue 21)
def test_a_plural_subject_and_its_verb_tell_no_kind() -> None:
    # "Scientists found" and "Researchers found": the shared word is the verb.
    chunks = ["Scientists found 40 species in the lake. Researchers found that the lake shrinks."]
    assert findings(chunks, "Researchers found 40 species in the lake.") == ()


# from test_subjects.py (issue 21)
def test_a_name_and_the_noun_that_stands_for_it_pass() -> None:
    # "The company" is Apple: no plural noun is shared, and the name is a name.
    chunks = ["The company reported revenue of $30 billion. Apple reported its results on Tuesday."]
    assert findings(chunks, "Apple reported revenue of $30 billion.") == ()


# from test_subjects.py (issue 21)
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


# from test_subjects.py (issue 21)
def test_a_capitalised_word_inside_a_sentence_is_a_name() -> None:
    # "Fuji" inside the sentence may be a name (a company, a place): the
    # chunks then do not tell of Fuji trees as a kind.
    chunks = ["Gala trees bear fruit within 3 years. Growers at Fuji trees farms disagree."]
    assert findings(chunks, "Fuji trees bear fruit within 3 years.") == ()


# from test_subjects.py (issue 21)
def test_the_kind_stated_passes_whatever_its_case() -> None:
    chunks = ["Public schools enrolled 500 students in 2020. Private schools enrolled fewer."]
    assert findings(chunks, "The public schools enrolled 500 students in 2020.") == ()
    chunks = ["Early symptoms appear within 3 days. Severe symptoms need care."]
    assert findings(chunks, "Symptoms appear within 3 days.") == ()


# from test_subjects.py (issue 21)
def test_the_question_stating_the_number_passes() -> None:
    question = "Do seedling trees bear fruit within 3 years?"
    assert findings(TREES, "Seedling trees bear fruit within 3 years.", question) == ()


# from test_subjects.py (issue 21)
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
