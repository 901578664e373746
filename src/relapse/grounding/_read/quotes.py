"""
Quotations: where they are in an answer, and the text to look up for each.

Delimiters are straight ``"…"``, curly ``“…”``, guillemets ``«…»``, German
``„…“``, single curly ``‘…’`` and the corner brackets of Chinese and
Japanese, ``「…」`` and ``『…』`` (and their vertical and half-width forms,
``﹁…﹂``, ``﹃…﹄``, ``｢…｣``). A straight ``"`` opens a quotation only
after a space, a bracket or a dash and before a non-space, and closes one only
after a non-space and before a space or punctuation: so the inch marks of
``24" wide and 36" tall`` open nothing. ``’`` inside or at the end of a word
(``CEO’s``, ``auditors’ review``) closes a ``‘`` quotation at most, never opens
one, and straight ``'`` is never a delimiter (apostrophes, feet).

Finding them is linear: one pass collects the delimiter positions, and each
opener finds its closer by binary search in the closer positions.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator

from relapse.grounding._text import fold

_DELIMITERS = re.compile(
    '["\u201c\u201d\u201e\u00ab\u00bb\u2018\u2019\uff02\u300c\u300d\u300e\u300f'
    "\ufe41\ufe42\ufe43\ufe44\uff62\uff63]"
)
_PARAGRAPH_BREAK = re.compile(r"\n[ \t\r\f\v]*\n")
#: Longest quotation read, in characters: a "quotation" longer than this is
#: an unmatched delimiter far from its false closer.
MAX_QUOTE = 2000
# Before an opener: start, space, bracket, dash, slash or colon.
_OPEN_AFTER = frozenset(" \t\n\r\f\v\u00a0\u202f([{<-\u2013\u2014/:;,")
# After a closer: end, space or punctuation.
_CLOSE_BEFORE = frozenset(" \t\n\r\f\v\u00a0\u202f.,;:!?)]}>-\u2013\u2014/'\u2019\u2026*")
# The closers each opener accepts.
# A curly opener may close with a straight quote and the reverse: models
# and editors mix the glyphs.
_CLOSERS = {
    '"': '"\u201d',
    "\uff02": "\uff02",
    "\u201c": '\u201d"',
    "\u201e": '\u201c\u201d"',
    "\u00ab": "\u00bb",
    "\u2018": "\u2019",
    # Corner brackets, the quotation marks of Chinese and Japanese.
    "\u300c": "\u300d",
    "\u300e": "\u300f",
    # Their vertical presentation forms and the half-width corner brackets.
    "\ufe41": "\ufe42",
    "\ufe43": "\ufe44",
    "\uff62": "\uff63",
}

# Openers that open whatever follows them (never an apostrophe or an inch mark),
# and those of them a space may follow (French « guillemets », corner brackets).
_ALWAYS_OPEN = "\u201c\u201e\u00ab\u300c\u300e\ufe41\ufe43\uff62"
_OPEN_BEFORE_SPACE = "\u201e\u00ab\u300c\u300e\ufe41\ufe43\uff62"
# Strip from the ends of a quotation's text before looking it up: the
# punctuation American style puts inside the quotes.
_EDGE_PUNCTUATION = " .,;:!?-"
_ELLIPSIS = re.compile(r"\[\.\.\.\]|\.\.\.+|\.[ \u00a0]\.[ \u00a0]\.")
_QUESTION_BEFORE = re.compile(
    r"(?i:question|query|prompt|asked)[\s\u00a0]*(?:is|was|of|:|,|-|\u2013|\u2014)?[\s\u00a0]*$"
)
#: Characters before a quotation searched for "the question".
QUESTION_WINDOW = 32


def _is_opener(text: str, index: int, char: str) -> bool:
    """Tell whether the delimiter ``char`` at ``index`` opens a quotation."""
    if char not in _CLOSERS:
        return False
    following = text[index + 1 : index + 2]
    if not following or (following.isspace() and char not in _OPEN_BEFORE_SPACE):
        return False
    if char in _ALWAYS_OPEN:
        return True
    previous = text[index - 1] if index else " "
    if previous not in _OPEN_AFTER:
        return False
    # ‘90s is an elision, not a quotation.
    return not (char == "\u2018" and re.match(r"\d\ds\b", text[index + 1 : index + 4]))


def _is_closer(text: str, index: int, char: str) -> bool:
    """Tell whether the delimiter ``char`` at ``index`` can close a quotation."""
    if char in "\u201d\u00bb\u201c\u300d\u300f\ufe42\ufe44\uff63":
        return True
    previous = text[index - 1] if index else " "
    if previous.isspace() and previous not in "\u00a0\u202f":
        return False
    following = text[index + 1 : index + 2]
    return not following or following in _CLOSE_BEFORE


def find_quotations(text: str) -> Iterator[tuple[int, int]]:
    """
    Yield the span of each quotation's text (without its delimiters).

    Args:
        text: An answer.

    Yields:
        ``(start, end)`` of each quotation's inner text, stripped of spaces,
        in text order.
    """
    openers, closers = delimiters(text, len(text))
    if not openers or not closers:
        return
    breaks = [match.start() for match in _PARAGRAPH_BREAK.finditer(text)]
    resume = 0
    for index, char in openers:
        if index < resume:
            continue
        close = _next_closer(closers, _CLOSERS[char], index)
        if close is None or close - index > MAX_QUOTE:
            continue
        next_break = bisect_right(breaks, index)
        if next_break < len(breaks) and breaks[next_break] < close:
            continue
        start, end = index + 1, close
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        resume = close + 1
        if start < end:
            yield start, end


def delimiters(text: str, end: int) -> tuple[list[tuple[int, str]], dict[str, list[int]]]:
    """
    The quotation marks in ``text[:end]``, by the role their neighbours give them.

    A mark may both open and close (a straight ``"``); its neighbours are
    read in the whole ``text``, so ``end`` only bounds where marks are taken.

    Returns:
        ``(openers, closers)``: the ``(offset, mark)`` of each opening mark in
        text order, and the offsets of each closing mark, by mark.
    """
    openers: list[tuple[int, str]] = []
    closers: dict[str, list[int]] = {}
    if '"' not in text and text.isascii():
        # The straight double quote is the only ASCII mark: two memchr-speed
        # passes tell that an ASCII text has none, where the search tries
        # every character.
        return openers, closers
    for match in _DELIMITERS.finditer(text, 0, end):
        index = match.start()
        char = match.group()
        if _is_closer(text, index, char):
            closers.setdefault(char, []).append(index)
        if _is_opener(text, index, char):
            openers.append((index, char))
    return openers, closers


def _next_closer(closers: dict[str, list[int]], accepted: str, index: int) -> int | None:
    """Return the first position after ``index`` of any of the ``accepted`` closers."""
    best: int | None = None
    for char in accepted:
        positions = closers.get(char)
        if not positions:
            continue
        found = bisect_right(positions, index)
        if found < len(positions) and (best is None or positions[found] < best):
            best = positions[found]
    return best


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


# Han ideographs and kana: the scripts written without spaces between words.
_CJK = re.compile(
    "[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f\U00020000-\U0002ffff]"
)


def is_cjk(char: str) -> bool:
    """Tell whether ``char`` is a Han ideograph or a kana (written without spaces)."""
    return _CJK.match(char) is not None


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


_CJK_RUN = re.compile(f"{_CJK.pattern}+")


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
