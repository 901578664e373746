"""
Names (FG005, opt-in): capitalised words of the answer that the chunks and the question lack.

Many RAG hallucinations invent a name (a person, a place, an organisation, a
product) rather than a number. A name here is a run of capitalised words;
it is flagged when one of its words appears in no chunk and not in the
question, compared after the same folding as quotations (case, quote
glyphs) and with accents removed. The first word of a sentence, the words
of the answer's own headings and a few words that are capitalised for
grammar (``I``, weekdays, months) are not names.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Iterable, Iterator

from relapse.grounding._text import fold

# A word: letters, then letters or digits, with an apostrophe inside
# ("O'Brien", "McDonald's"). Words with digits are FG001 tokens.
_WORD = re.compile(r"[^\W\d_](?:[^\W_]|['\u2019](?=[^\W\d_]))*")
# Between two words, what ends a sentence or opens a new one: the next word
# is capitalised for grammar, not because it names something.
_SENTENCE_BREAK = re.compile(r"[.!?:;\n\"\u201c\u201d(\[*#•>|]|\d")
# A heading line: markdown "#", a line of bold text, or a line ending in ":".
_HEADING = re.compile(r"^[ \t]*(?:#.*|\*\*[^*\n]+\*\*:?|[^\n.!?]{1,80}:)[ \t]*$", re.MULTILINE)
#: Words capitalised for grammar or by convention, never taken for names
#: (folded: "I'd" is "id"): the pronoun, days and months, the parts of the
#: prompt and of the answer ("Passage 2", "Option 1") and units named after
#: people ("Celsius").
NOT_NAMES = frozenset(
    {
        *("i", "im", "ive", "id", "ill", "ok", "okay"),
        *("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"),
        *("january", "february", "march", "april", "may", "june", "july", "august"),
        *("september", "october", "november", "december"),
        *("passage", "passages", "document", "documents", "source", "sources", "chunk"),
        *("context", "question", "answer", "option", "step", "note", "summary"),
        *("celsius", "fahrenheit", "kelvin", "centigrade"),
    }
)


def _key(word: str) -> str:
    """Fold a word for lookup: case, quote glyphs and apostrophes, accents."""
    folded = fold(word)
    if folded.isascii():
        return folded
    return "".join(
        char for char in unicodedata.normalize("NFKD", folded) if not unicodedata.combining(char)
    )


def vocabulary(texts: Iterable[str]) -> frozenset[str]:
    """
    Return the folded words of ``texts``, for name lookups.

    Args:
        texts: The chunks, or the question.

    Returns:
        Every word, folded as :func:`name_spans` folds the answer's words.
    """
    words: set[str] = set()
    for text in texts:
        words.update(_key(match.group()) for match in _WORD.finditer(text))
    return frozenset(words)


def _known(key: str, known: frozenset[str]) -> bool:
    """Tell whether a folded word is known, as written or with or without a plural ``s``."""
    return key in known or (key.endswith("s") and key[:-1] in known) or key + "s" in known


def name_spans(answer: str, known: frozenset[str]) -> Iterator[tuple[int, int]]:
    """
    Yield the span of each name in ``answer`` with a word not in ``known``.

    Args:
        answer: The answer.
        known: The folded words of the chunks and the question
            (:func:`vocabulary`).

    Yields:
        ``(start, end)`` of each run of capitalised words (without the
        sentence's first word) holding an unknown word, in answer order.
    """
    headings = [match.span() for match in _HEADING.finditer(answer)]
    heading_starts = [low for low, _ in headings]
    run_start = run_end = -1
    unknown = False
    previous_end = 0
    for match in _WORD.finditer(answer):
        start, end = match.span()
        word = match.group()
        gap = answer[previous_end:start]
        previous_end = end
        capital = word[0].isupper()
        sentence_start = start == 0 or _SENTENCE_BREAK.search(gap) is not None
        joined = run_end >= 0 and gap in (" ", "-", "\u00a0")
        if not joined or not capital:
            if run_end >= 0 and unknown:
                yield run_start, run_end
            run_start = run_end = -1
            unknown = False
        if not capital:
            continue
        heading = bisect_right(heading_starts, start) - 1
        if sentence_start or (heading >= 0 and start < headings[heading][1]):
            continue  # capitalised for grammar, or a heading of the answer
        key = _key(word)
        if key in NOT_NAMES:
            continue
        if run_end < 0:
            run_start = start
        run_end = end
        if not _known(key, known):
            unknown = True
    if run_end >= 0 and unknown:
        yield run_start, run_end
