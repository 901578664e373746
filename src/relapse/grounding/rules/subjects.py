"""Subjects: a supported number that every chunk states of another kind of subject fails."""

from __future__ import annotations

import re

from relapse.grounding._codes import FG001
from relapse.grounding._index.blocks import Supported
from relapse.grounding._read.context import CONTEXT_AFTER
from relapse.grounding._read.subjects import (
    SENTENCE_WINDOW,
    Sentences,
    may_tell_kind,
    other_kind,
    shares_kind,
    subject,
    words_of,
)
from relapse.grounding._values.keys import Key, key_value
from relapse.grounding.rules._lookup import Lookup
from relapse.grounding.rules._rule import Phase, Reads, Role, rule

#: Occurrences of a number in the chunks, and of a modifier, that the
#: subject rule (:meth:`BoundGroundingCheck._moved`) reads at most: a number
#: stated more often than that is taken as supported.
MAX_SUBJECT_OCCURRENCES = 8

_NO_WORDS: frozenset[str] = frozenset()

#: What may stand before a sentence's first word: space, opening quotes and
#: brackets (a capitalised modifier there is an ordinary word, not a name).
_OPENING_MARKS = " \t\r\n\"'\u201c\u2018([\u00ab"


def moved(lookup: Lookup, answer: str, supported: list[Supported]) -> set[tuple[int, int]]:
    """
    Return the spans of supported numbers that every chunk states of another kind of subject.

    ``Monozygotic (identical) twins occur ... within 8 days``, against a
    chunk's only ``Conjoined twins: ... within 8 days of fertilization``:
    the digits and the unit are the chunk's, the subject is not. A number
    (FG001) supported by a key of the chunks fails when its answer
    sentence opens with a run of words (:func:`.subjects.subject`) and
    every occurrence of the number in the chunks, in digits, is in a
    sentence whose run names another kind of the same thing
    (:func:`.subjects.other_kind`), and the chunks name the answer's kind
    with that thing elsewhere (:meth:`_names_kind`). It passes when the
    question states the number, a chunk spells it out, it occurs more
    than :data:`MAX_SUBJECT_OCCURRENCES` times, or a sentence is too long
    to read (:data:`.subjects.SENTENCE_WINDOW`): when in doubt, pass.

    Args:
        lookup: The prepared chunks and question.
        answer: The answer.
        supported: The supported digit claims, as the judge gives them.

    Returns:
        The ``(start, end)`` spans that fail.
    """
    moved: set[tuple[int, int]] = set()
    runs: dict[tuple[int, int], tuple[tuple[str, ...], frozenset[str]]] = {}
    verdicts: dict[tuple[Key, tuple[int, int]], bool] = {}
    question = lookup.question
    sentences: Sentences | None = None  # found at the first number the rule reads
    for code, start, end, support in supported:
        if (
            code != FG001
            or not isinstance(support, tuple)
            or support[0] != "n"
            or (question is not None and support in question.keys)
        ):
            continue
        if sentences is None:
            sentences = Sentences(answer)
        sentence = sentences.at(start, end)
        if sentence is None:
            continue
        read = runs.get(sentence)
        if read is None:
            run = subject(answer, *sentence)
            # The answer is read at most CONTEXT_AFTER past the number,
            # as every rule reads it: a streamed sentence's verdict is
            # final once the text reaches that far.
            read = runs[sentence] = (
                run,
                words_of(answer, sentence[0], min(sentence[1], end + CONTEXT_AFTER))
                if may_tell_kind(run)
                else _NO_WORDS,
            )
        run, words = read
        if not words:
            continue
        verdict = verdicts.get((support, sentence))
        if verdict is None:
            verdict = verdicts[(support, sentence)] = _other_kind_only(lookup, support, run, words)
        if verdict:
            moved.add((start, end))
    return moved


def _other_kind_only(lookup: Lookup, key: Key, run: tuple[str, ...], words: frozenset[str]) -> bool:
    """Tell whether every chunk occurrence of ``key`` is in a sentence about another kind."""
    chunks = lookup.chunks
    kinds: set[tuple[tuple[str, ...], str]] = set()
    for count, (position, start) in enumerate(chunks.units.occurrences(key)):
        if count == MAX_SUBJECT_OCCURRENCES:
            return False
        text = chunks.texts[position]
        sentence = lookup.sentence_in_chunk(position, start, start + 1)
        if sentence is None:
            return False
        chunk_run = subject(text, *sentence)
        if not shares_kind(run, chunk_run):
            return False
        kind = other_kind(run, words, chunk_run, words_of(text, *sentence))
        if kind is None:
            return False
        kinds.add(kind)
    if not kinds:
        return False
    value = key_value(key)
    if value is None or chunks.words.has(value):
        return False
    return all(_names_kind(lookup, mods, head) for mods, head in kinds)


def _names_kind(lookup: Lookup, mods: tuple[str, ...], head: str) -> bool:
    """
    Tell whether the chunks name each of ``mods`` in a sentence with ``head``.

    The answer's kind (``monozygotic``) must be one the chunks tell of the
    thing (``twins``) somewhere: a modifier the chunks never use is the
    answer's own wording of theirs, and may be a synonym of the chunk's.
    It must be written in lower case there, as a common word, or
    capitalised as a sentence's first word: a name (``Apple``) elsewhere
    is a subject of its own, which the chunk's sentence may call ``the
    company``.
    Each modifier's first :data:`MAX_SUBJECT_OCCURRENCES` occurrences are
    looked at.
    """
    texts = lookup.chunks.texts
    for mod in mods:
        # In lower case, as a common word; capitalised only as a
        # sentence's first word ("Private schools enrolled fewer"), where
        # every word is.
        written = re.escape(mod)
        opening = re.escape(mod[:1].upper()) + re.escape(mod[1:])
        pattern = re.compile(rf"(?<![^\W_])(?:{written}|(?P<opening>{opening}))(?:e?s)?(?![^\W_])")
        seen = 0
        named = False
        for position, text in enumerate(texts):
            for match in pattern.finditer(text):
                seen += 1
                sentence = lookup.sentence_in_chunk(position, match.start(), match.end())
                if (
                    sentence is not None
                    and (
                        match["opening"] is None
                        or not text[sentence[0] : match.start()].strip(_OPENING_MARKS)
                    )
                    and head in words_of(text, *sentence)
                ):
                    named = True
                    break
                if seen == MAX_SUBJECT_OCCURRENCES:
                    return False
            if named:
                break
        if not named:
            return False
    return True


#: The subjects' rule.
SUBJECT = rule(
    "subject",
    frozenset({FG001}),
    Role.VETOES,
    Phase.PASS,
    frozenset({Reads.SUPPORTED}),
    (SENTENCE_WINDOW, CONTEXT_AFTER),
    doc="""
    A supported number fails when every chunk states it of another kind of the answer's subject.

    Accepts:
        Nothing: it fails a number (FG001) a key of the chunks supports when
        its answer sentence opens with a run of words
        (:func:`relapse.grounding._read.subjects.subject`) and every
        occurrence of the number in the chunks, in digits, is in a sentence
        whose run names another kind of the same thing, and the chunks name
        the answer's kind with that thing elsewhere. ``Monozygotic (identical)
        twins occur ... within 8 days`` fails against a chunk's only
        ``Conjoined twins: ... within 8 days of fertilization``.

    Why:
        The digits and the unit are the chunk's, the subject is not. It
        passes when the question states the number, a chunk spells it out, it
        occurs more than :data:`MAX_SUBJECT_OCCURRENCES` times, or a sentence
        is too long to read (:data:`relapse.grounding._read.subjects.SENTENCE_WINDOW`):
        when in doubt, pass. A modifier the chunks never use is the answer's
        own wording of theirs, and may be a synonym of the chunk's.

        A sentence's run is the content words it opens with, after bullets, list markers and
        determiners, up to the first function word (a preposition, conjunction, pronoun, auxiliary,
        quantifier, word of order or degree, number word), digit or mark, at most six words; a word
        in parentheses belongs to it (``Monozygotic (identical) twins occur``). The number fails
        when (1) its answer sentence's run and the run of every chunk sentence holding the number in
        digits share a word that ends as a plural noun in both (``twins``), with modifiers before it
        on both sides (``monozygotic identical``; ``conjoined``), none of them ending as a plural;
        (2) no modifier of the answer's is a word of that chunk sentence, and no modifier of the
        chunk's a word of the answer's sentence (read up to 80 characters past the number); (3) the
        chunks name each of the answer's modifiers, in lower case or capitalised as a sentence's
        first word, in a sentence with the shared noun: the kind is one the chunks tell of.
        Capitalised inside a sentence, the word may be a name (``Growers at Fuji trees farms``), and
        does not count.

        A sentence runs between a full stop, question or exclamation mark (and a closing quote or
        parenthesis) before a space, or a line break, read within 320 characters of the number:
        coarser than the sentence splitter of streaming (``Dr. Smith`` is cut after ``Dr.``), which
        only makes a run start later and tell a kind less often. Limits: the rule needs the subject
        at the sentence's opening and a plural noun shared by both runs, so it misses a moved number
        whose sentence opens otherwise; a present-tense verb ending in ``s`` shared after two
        lower-case subjects the chunks both use (``The study reports 30 cases`` against ``The survey
        reports 30 cases``) is read as a kind and flagged though the two may be one, and so would
        synonyms the chunks themselves use as modifiers of one noun. The rule reads the supported
        numbers the evidence lists, an answer's first 1,000 (``MAX_EVIDENCE``): in a longer answer,
        a number moved to another subject after them passes.

    Examples:
        | answer | chunks | verdict |
        | --- | --- | --- |
        | `Monozygotic twins occur when the division happens within 8 days.` | `Monozygotic twins
          are identical twins. Monoamniotic twins occur when the split takes place after the ninth
          day after fertilization. Conjoined twins: When the division of the developing zygote
          occurs, it is within 8 days of fertilization.` | fails |
        | `Private schools enrolled 500 students.` | `Public schools enrolled 500 students in 2020.
          Private schools enrolled fewer.` | fails |
    """,
)
