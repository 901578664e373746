"""
Quotations: the text to look up for each quotation of an answer.

Where quotations open and close (the pairing of the marks) is
:mod:`relapse._read.quotation_marks`, shared with the streaming release;
:func:`find_quotations` is re-exported from there.
"""

from __future__ import annotations

import re

from relapse._read.quotation_marks import CJK, is_cjk
from relapse._read.quotation_marks import find_quotations as find_quotations
from relapse.grounding._text import fold

# Strip from the ends of a quotation's text before looking it up: the
# punctuation American style puts inside the quotes.
_EDGE_PUNCTUATION = " .,;:!?-"
_ELLIPSIS = re.compile(r"\[\.\.\.\]|\.\.\.+|\.[ \u00a0]\.[ \u00a0]\.")
_QUESTION_BEFORE = re.compile(
    r"(?i:question|query|prompt|asked)[\s\u00a0]*(?:is|was|of|:|,|-|\u2013|\u2014)?[\s\u00a0]*$"
)
#: Characters before a quotation searched for "the question".
QUESTION_WINDOW = 32


def quote_fragments(quotation: str) -> list[str]:
    """
    Return the folded pieces of a quotation that must each be in the chunks.

    An ellipsis (``…``, ``...``, ``[...]``) marks omitted text, so the pieces
    around it are looked up separately.

    Args:
        quotation: The quotation's text.

    Returns:
        The folded pieces, without edge punctuation; empty pieces dropped.
    """
    pieces = _ELLIPSIS.split(quotation.replace("\u2026", "..."))
    return [stripped for piece in pieces if (stripped := fold(piece).strip(_EDGE_PUNCTUATION))]


def word_count(text: str) -> int:
    """
    Count the words of a quotation: its words between spaces, Chinese and Japanese included.

    A run of Han or kana characters counts one word per two characters (their
    words are mostly one or two characters long, with no spaces between
    them), so ``「東京」`` is one word and ``「計画は否決された」`` four.
    """
    words = text.split()
    if text.isascii():
        return len(words)
    count = 0
    for word in words:
        runs = _CJK_RUN.findall(word)
        rest = _CJK_RUN.sub(" ", word).split()
        count += len(rest) + sum((len(run) + 1) // 2 for run in runs)
    return count


_CJK_RUN = re.compile(f"{CJK.pattern}+")


def introduces_question(text: str, start: int) -> bool:
    """
    Tell whether the quotation opening before ``start`` restates the question.

    ``the answer to the question "What does the color of urine mean?"``
    paraphrases the user's question: it claims nothing about the world.

    Args:
        text: The answer.
        start: The quotation's opening delimiter offset.

    Returns:
        True when ``question``, ``query``, ``prompt`` or ``asked`` comes right
        before the quotation.
    """
    return _QUESTION_BEFORE.search(text, max(0, start - QUESTION_WINDOW), start) is not None


#: Occurrences of a quotation fragment inside longer words looked past with
#: ``str.find`` before one regex search takes over.
MAX_WORD_MISSES = 16


def occurs_as_words(text: str, fragment: str) -> bool:
    """
    Tell whether ``fragment`` occurs in ``text`` on word boundaries.

    ``he is guilty`` is in ``she is guilty`` as characters, not as words: an
    edge of the fragment that is a letter or a digit must not touch another
    letter or digit in ``text``.

    Args:
        text: Folded text (the chunks, or the question).
        fragment: A folded quotation fragment.

    Returns:
        True when some occurrence starts and ends on a word boundary.
    """
    return word_occurrence(text, fragment) >= 0


def word_occurrence(text: str, fragment: str) -> int:
    """
    Return where ``fragment`` first occurs in ``text`` on word boundaries, or -1.

    See :func:`occurs_as_words`; an empty fragment occurs at 0.
    """
    if not fragment:
        return 0
    # Chinese and Japanese put no spaces between words: a character of theirs
    # has no word boundary to check.
    check_before = fragment[0].isalnum() and not is_cjk(fragment[0])
    check_after = fragment[-1].isalnum() and not is_cjk(fragment[-1])
    # str.find runs in C and costs no compiled pattern per fragment; past a
    # few occurrences that touch other words, one regex search does the rest
    # in linear time, where a loop over find hits could be quadratic.
    position = text.find(fragment)
    for _ in range(MAX_WORD_MISSES):
        if position < 0:
            return -1
        end = position + len(fragment)
        if not (check_before and position and text[position - 1].isalnum()) and not (
            check_after and end < len(text) and text[end].isalnum()
        ):
            return position
        position = text.find(fragment, position + 1)
    if position < 0:
        return -1
    # The fragment comes first, so that the engine skips to its occurrences
    # with a fast literal search; the test of the character before it is a
    # lookbehind over the fragment's length.
    before = rf"(?<![^\W_][\s\S]{{{len(fragment)}}})" if check_before else ""
    after = r"(?![^\W_])" if check_after else ""
    pattern = re.compile(re.escape(fragment) + before + after)
    match = pattern.search(text, position)
    return -1 if match is None else match.start()


def unfold_span(
    text: str, folded: tuple[str, list[int]], start: int, end: int
) -> tuple[int, int] | None:
    """
    Map a span of ``fold(text)`` back to ``text`` as written.

    Folding deletes and merges characters (quote glyphs, runs of spaces,
    dashes), so offsets in the folded text are not offsets in the text.

    Args:
        text: A chunk's text.
        folded: ``fold_map(text)`` (:func:`relapse.grounding._text.fold_map`).
        start: The span's start in ``fold(text)``.
        end: Its end (exclusive), greater than ``start``.

    Returns:
        ``(start, end)`` in ``text``: from the source of the span's first
        character to just past the source of its last; None when that
        text does not fold to the span (a span ending inside a merged
        run of characters).
    """
    string, origin = folded
    if not 0 <= start < end <= len(string):
        return None
    first, last = origin[start], origin[end - 1] + 1
    if fold(text[first:last]) != string[start:end]:
        return None
    return first, last
