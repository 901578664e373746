"""
Small ordinals in words, against the ordinals the chunks write after the same word.

An answer's ``first`` to ``tenth`` claims nothing on its own: it mostly
orders the answer's own text (``First,``, ``the third step``) or tells
things of one kind apart (``the second slide``, beside a chunk's ``first
slide``). But after a word that is not a function word it states a rank:
``She finished fourth``, ``ranked second``, ``came fifth``; and a chunk's
``She finished 3rd`` says otherwise. So a small ordinal is judged only
against the chunks' ordinals right after the same word: it fails when the
chunks write ordinals there and none has its value; with no ordinal there,
or its own among them, it passes (when in doubt, pass). An ordinal before a
noun (``the fourth edition``) is not judged: editions, slides and steps of
other ranks are other things, not other statements of the same one.
"""

from __future__ import annotations

import re

from relapse.grounding._read.words import ORDINAL_WORDS, SMALL_WORDS, TENS_WORDS

#: Words after which an ordinal states no rank: ``the third``, ``of the fourth``.
_FUNCTION_WORDS = frozenset(
    (
        "a", "an", "the", "this", "that", "these", "those", "its", "his", "her", "their", "our",
        "my", "your", "of", "in", "on", "at", "for", "to", "from", "by", "with", "and", "or",
        "but", "nor", "as", "is", "was", "are", "were", "be", "been", "it", "he", "she", "they",
        "we", "you", "i", "than", "then", "also", "only", "just", "not", "every", "each",
    )
)  # fmt: skip

#: Occurrences of the word read in the chunks, at most: the verdict stays
#: linear in the chunks however often they write it.
MAX_SLOT_OCCURRENCES = 200
#: Distinct words an answer's small ordinals are judged after, at most: each
#: costs a search of the chunks, so an answer of a megabyte of ranks costs a
#: bounded number of them (an ordinal after a word past these passes).
MAX_SLOT_WORDS = 16

# An ordinal as chunks write it in digits, with its suffix.
_ORDINAL_DIGITS = re.compile(r"(\d{1,4})(?:st|nd|rd|th)\Z")
# The last word before a place (within a window), and the first after it.
_LAST_WORD = re.compile(r"([^\W_]+)[ \u00a0]+\Z")
_FIRST_WORD = re.compile(r"[ \u00a0]+([^\W_]+)")
_WINDOW = 32
#: Characters after a rank that the ranks coordinated with it are read in:
#: ``third in 2010 and fourth in 2012``, ``3rd, 5th and 9th``.
COORDINATED_WINDOW = 80
# A rank coordinated with the one before: the word after "and", "or", "then"
# or a comma, up to the end of the clause (a sentence's end, a semicolon or a
# colon ends the ranks of one slot).
_COORDINATED = re.compile(r"(?:,|[ \u00a0](?:and|or|then|but))[ \u00a0]+([^\W_]+)")
_CLAUSE_END = re.compile(r"[.;:!?\n]")


def ordinal_value(word: str) -> int | None:
    """
    Return the value of one ordinal token: ``3rd`` and ``third`` are 3, ``twentieth`` 20.

    Args:
        word: A token of letters or digits.

    Returns:
        The ordinal's value, or None for a token that is no ordinal.
    """
    digits = _ORDINAL_DIGITS.match(word)
    if digits is not None:
        return int(digits.group(1))
    cardinal = ORDINAL_WORDS.get(word.lower())
    if cardinal is None:
        return None
    return SMALL_WORDS.get(cardinal) or TENS_WORDS.get(cardinal)


def slot_word_before(answer: str, start: int) -> str | None:
    """
    Return the word right before an answer's ordinal, when it makes the ordinal a rank.

    Args:
        answer: The answer.
        start: The ordinal's start.

    Returns:
        The word, lower case (``finished`` of ``She finished fourth``); None
        when there is none in the same clause, or it is a function word or
        no word of letters.
    """
    last = _LAST_WORD.search(answer, max(0, start - _WINDOW), start)
    if last is None:
        return None
    word = last.group(1).lower()
    if word in _FUNCTION_WORDS or not word.isalpha() or ordinal_value(word) is not None:
        return None
    return word


def ordinals_after(text: str, word: str) -> set[int]:
    """
    Return the values of the ordinals ``text`` writes right after ``word``.

    Args:
        text: The chunks, joined (or the question).
        word: The word, lower case; its capitalized spelling is read too.

    Returns:
        The values, in digits or words (``finished 3rd``, ``finished
        third``), from the first :data:`MAX_SLOT_OCCURRENCES` occurrences of
        the word as a whole word.
    """
    values: set[int] = set()
    seen = 0
    for spelling in dict.fromkeys((word, word.capitalize())):
        at = text.find(spelling)
        while at >= 0 and seen < MAX_SLOT_OCCURRENCES:
            end = at + len(spelling)
            if not (at and text[at - 1].isalnum()) and not text[end : end + 1].isalnum():
                seen += 1
                found = _FIRST_WORD.match(text, end)
                value = ordinal_value(found.group(1)) if found is not None else None
                if value is not None and found is not None:
                    values.add(value)
                    values.update(_coordinated(text, found.end()))
            at = text.find(spelling, end)
    return values


def _coordinated(text: str, start: int) -> set[int]:
    """
    Return the ranks a clause states after its first, coordinated with it.

    ``She finished third in 2010 and fourth in 2012``: ``fourth`` ranks the
    same slot as ``third`` (the word before it, ``and``, states no slot of
    its own). Read up to the clause's end, within :data:`COORDINATED_WINDOW`
    characters.
    """
    stop = min(len(text), start + COORDINATED_WINDOW)
    clause_end = _CLAUSE_END.search(text, start, stop)
    if clause_end is not None:
        stop = clause_end.start()
    ranks = set()
    for word in _COORDINATED.finditer(text, start, stop):
        value = ordinal_value(word.group(1))
        if value is not None:
            ranks.add(value)
    return ranks
