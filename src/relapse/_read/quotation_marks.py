"""
Quotation marks: where a quotation opens and closes in a text, and the scripts without spaces.

The pairing of quotation marks is read the same way by the default check
(FG003 looks up each quotation's text, :mod:`relapse.grounding._read.quotes`)
and by the streaming release, which holds the text from a quotation that may
still close (:func:`open_quotation`) whatever the check. It needs nothing of
any check, so it lives with the other readers of an answer's text.

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

#: Every quotation mark, opening or closing.
DELIMITERS = re.compile(
    '["\u201c\u201d\u201e\u00ab\u00bb\u2018\u2019\uff02\u300c\u300d\u300e\u300f'
    "\ufe41\ufe42\ufe43\ufe44\uff62\uff63]"
)
#: A blank line: no quotation runs across one.
PARAGRAPH_BREAK = re.compile(r"\n[ \t\r\f\v]*\n")
#: Longest quotation read, in characters: a "quotation" longer than this is
#: an unmatched delimiter far from its false closer.
MAX_QUOTE = 2000
# Before an opener: start, space, bracket, dash, slash or colon.
_OPEN_AFTER = frozenset(" \t\n\r\f\v\u00a0\u202f([{<-\u2013\u2014/:;,")
# After a closer: end, space or punctuation.
_CLOSE_BEFORE = frozenset(" \t\n\r\f\v\u00a0\u202f.,;:!?)]}>-\u2013\u2014/'\u2019\u2026*")
#: The closers each opener accepts. A curly opener may close with a straight
#: quote and the reverse: models and editors mix the glyphs.
CLOSERS = {
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


def is_opener(text: str, index: int, char: str) -> bool:
    """Tell whether the delimiter ``char`` at ``index`` opens a quotation."""
    if char not in CLOSERS:
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


def is_closer(text: str, index: int, char: str) -> bool:
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
    breaks = [match.start() for match in PARAGRAPH_BREAK.finditer(text)]
    resume = 0
    for index, char in openers:
        if index < resume:
            continue
        close = next_closer(closers, CLOSERS[char], index)
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
    for match in DELIMITERS.finditer(text, 0, end):
        index = match.start()
        char = match.group()
        if is_closer(text, index, char):
            closers.setdefault(char, []).append(index)
        if is_opener(text, index, char):
            openers.append((index, char))
    return openers, closers


def next_closer(closers: dict[str, list[int]], accepted: str, index: int) -> int | None:
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


#: Han ideographs and kana: the scripts written without spaces between words.
CJK = re.compile(
    "[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f\U00020000-\U0002ffff]"
)


def is_cjk(char: str) -> bool:
    """Tell whether ``char`` is a Han ideograph or a kana (written without spaces)."""
    return CJK.match(char) is not None


def open_quotation(text: str) -> int | None:
    """
    Where a quotation opens in ``text`` that may still close in text to come.

    The pairing is :func:`find_quotations`'s: a quotation mark that opens
    (its neighbours known: the last character's role is not) and finds no
    closer yet, with no paragraph break after it and fewer than
    :data:`MAX_QUOTE` characters since, holds the text from it.

    Args:
        text: The text fed so far (not complete).

    Returns:
        The offset of the opening mark, or None.
    """
    last = len(text) - 1
    # A mark at the very end opens or closes depending on what follows: hold it as an opener.
    pending = last if last >= 0 and DELIMITERS.match(text, last) else None
    openers, closers = delimiters(text, max(last, 0))
    if not openers:
        return pending
    breaks = [match.start() for match in PARAGRAPH_BREAK.finditer(text)]
    resume = 0
    for index, char in openers:
        if index < resume:
            continue
        close = next_closer(closers, CLOSERS[char], index)
        next_break = bisect_right(breaks, index)
        if close is None:
            if next_break == len(breaks) and len(text) - index <= MAX_QUOTE:
                return index
            continue
        if close - index > MAX_QUOTE or (next_break < len(breaks) and breaks[next_break] < close):
            continue
        resume = close + 1
    return pending
