"""
The answer-wide state the default check's window carries across a growing answer.

A window (:mod:`relapse.grounding._stream`) is a suffix of the answer; where
a rule keeps state across the whole answer, that state is watched here, from
the answer's start, each call reading only the text since the last:

* :class:`QuoteTracker`: the quotation pairing (FG003) of the whole text, so
  no window starts inside a quotation or after an opener still undecided;
* :class:`RankWatch`: whether the small-ordinal rule's words (answer-wide:
  the first ``MAX_SLOT_WORDS`` met) are too many for a window to judge;
* :class:`CopyWatch`: when the answer so far cannot be a copy of the chunks
  or the question (FG004, a verdict on the whole answer).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right

from relapse._read.quotation_marks import (
    CLOSERS,
    DELIMITERS,
    MAX_QUOTE,
    PARAGRAPH_BREAK,
    is_closer,
    is_opener,
    next_closer,
)
from relapse._read.sentences import CJK_STOPS
from relapse.grounding._echo import COPY_SHARE, MAX_LABEL_CHARS, frame_labels
from relapse.grounding._index.folded import FoldedChunks
from relapse.grounding._read.ordinal_slots import MAX_SLOT_WORDS, slot_word_before
from relapse.grounding._read.words import ORDINAL_WORDS
from relapse.grounding._text import fold

#: ASCII white space: between two letters or digits, nothing folds across it.
_FOLD_BREAKS = frozenset(" \t\n\r")
#: Characters searched back from the end for a boundary :class:`CopyWatch` can fold at.
_BOUNDARY_SEARCH = 256
#: Longest a character folds to (``str.casefold``): ``fold(text)`` has at most
#: this many characters per character of ``text``.
_FOLD_GROWTH = 3
#: Share of the folded answer left uncovered by copies above which it cannot
#: be a copy: ``1 - COPY_SHARE``, with a margin against rounding.
_UNCOVERED_SHARE = (1 - COPY_SHARE) * 1.25


class QuoteTracker:
    """
    The quotation pairing of a growing text, decided from its start.

    :func:`relapse._read.quotation_marks.find_quotations` pairs each opening mark
    with the next closing mark it accepts, within ``MAX_QUOTE`` characters
    and no paragraph break, and resumes after it. An opener's pairing is
    decided once the text shows it (a closer, a break, or ``MAX_QUOTE``
    characters with none); openers are decided in order, so the decided
    quotations are those of the whole text, whatever comes after. Each
    :meth:`update` reads only the text since the last one.
    """

    __slots__ = (
        "_break_scan",
        "_breaks",
        "_closers",
        "_ends",
        "_next",
        "_openers",
        "_resume",
        "_scanned",
        "_starts",
    )

    def __init__(self) -> None:
        self._scanned = 0
        self._openers: list[tuple[int, str]] = []
        self._closers: dict[str, list[int]] = {}
        self._breaks: list[int] = []
        self._break_scan = 0
        self._next = 0
        self._resume = 0
        self._starts: list[int] = []
        self._ends: list[int] = []

    def update(self, text: str) -> None:
        """Read the marks and paragraph breaks of ``text`` since the last call; decide openers."""
        # The last character's role needs the character after it.
        settled = len(text) - 1
        if settled > self._scanned:
            for match in DELIMITERS.finditer(text, self._scanned, settled):
                index, char = match.start(), match.group()
                if is_closer(text, index, char):
                    self._closers.setdefault(char, []).append(index)
                if is_opener(text, index, char):
                    self._openers.append((index, char))
            self._scanned = settled
        found_end = self._break_scan
        for match in PARAGRAPH_BREAK.finditer(text, self._break_scan):
            self._breaks.append(match.start())
            found_end = match.end()
        # Resume at the trailing run of white space, where a break may still form
        # (found from the end: stripping the text would copy it).
        run = len(text)
        while run > found_end and text[run - 1].isspace():
            run -= 1
        newline = text.find("\n", max(found_end, run))
        self._break_scan = len(text) if newline < 0 else newline
        self._decide(len(text))

    def _decide(self, length: int) -> None:
        openers, breaks = self._openers, self._breaks
        while self._next < len(openers):
            index, char = openers[self._next]
            if index >= self._resume:
                close = next_closer(self._closers, CLOSERS[char], index)
                after = bisect_right(breaks, index)
                broken = breaks[after] if after < len(breaks) else None
                if close is None:
                    # A closer to come is at the last character or later.
                    if broken is None and length - 1 - index <= MAX_QUOTE:
                        return  # undecided: the text to come may close it
                elif close - index <= MAX_QUOTE and (broken is None or broken > close):
                    self._starts.append(index)
                    self._ends.append(close)
                    self._resume = close + 1
            self._next += 1

    def first_undecided(self) -> int | None:
        """The offset of the first opener not decided yet, or None."""
        return self._openers[self._next][0] if self._next < len(self._openers) else None

    def spans(self, offset: int) -> bool:
        """Tell whether a decided quotation opens before ``offset`` and closes at or after it."""
        at = bisect_left(self._starts, offset) - 1
        return at >= 0 and self._ends[at] >= offset


#: An ordinal word in any case (``fourth``, ``Fourth``): every small ordinal
#: the words reader reads (:func:`relapse.grounding._read.words.word_numbers`)
#: starts with one, on a word boundary.
_ORDINAL = re.compile(
    r"(?<![^\W_])(?i:" + "|".join(sorted(ORDINAL_WORDS, key=len, reverse=True)) + r")(?![^\W_])"
)
_LONGEST_ORDINAL = max(len(word) for word in ORDINAL_WORDS)


class RankWatch:
    """
    Tells when a growing answer has too many rank words for a window to judge its ranks.

    The small-ordinal rule (``She finished fourth``) searches the chunks
    after at most :data:`~relapse.grounding._read.ordinal_slots.MAX_SLOT_WORDS`
    distinct words per answer, the first ones met: an ordinal after a later
    word passes. Which words are first is answer-wide state, which a window
    (a suffix of the answer) does not see. Here every ordinal word on a word
    boundary counts, with the word :func:`slot_word_before` reads before it:
    a superset of the words the rule reads. While the answer so far has at
    most ``MAX_SLOT_WORDS`` of them, the rule never refuses a word, in the
    whole text or in a window, and judges each ordinal by itself alone; past
    that, :attr:`saturated`, and the window is off for the answer. Each
    :meth:`update` reads only the text since the last one.
    """

    __slots__ = ("_scanned", "_words")

    def __init__(self) -> None:
        self._scanned = 0
        self._words: set[str] = set()

    def update(self, text: str) -> None:
        """Read the ordinals of ``text`` (each call's extends the last's) whose end is known."""
        for match in _ORDINAL.finditer(text, self._scanned):
            if match.end() >= len(text):
                break  # the word may go on ("fourth" of "fourths")
            word = slot_word_before(text, match.start())
            if word is not None:
                self._words.add(word)
            self._scanned = match.end()
        # A match not read yet starts within the longest ordinal of the end.
        self._scanned = max(self._scanned, len(text) - _LONGEST_ORDINAL)

    @property
    def saturated(self) -> bool:
        """Whether more than ``MAX_SLOT_WORDS`` distinct words were seen before ordinals."""
        return len(self._words) > MAX_SLOT_WORDS


class CopyWatch:
    """
    Tells, from the text since its last look, when a growing answer cannot be a copy.

    :func:`relapse.grounding._echo.is_copy` finds a copy when the folded
    answer is a piece of the chunks, or when verbatim copies of whole chunks
    and of the question cover :data:`~relapse.grounding._echo.COPY_SHARE` of
    it. Folding is exact across a boundary where a letter or digit, one ASCII
    white space and a letter or digit meet, or a CJK terminator (``。``) and a
    letter or digit (nothing folds across either), so the
    folded text before the last such boundary is a prefix of every longer
    answer's. Of it, the characters more than the longest chunk from its end
    that no copy covers stay uncovered for good: while they exceed the share
    a copy may leave uncovered of the longest the folded answer so far can
    be, the answer so far is no copy (a necessary condition, judged anew at
    each call: a longer answer may become one; when it may be one, the
    whole-text check decides).

    Args:
        context: What the copy rule reads the answer against, from the bound
            check (``BoundGroundingCheck.copy_context()``): the question as
            the rule reads it, and the chunks, folded.
    """

    __slots__ = (
        "_boundary",
        "_framed",
        "_frontier",
        "_joined",
        "_joint",
        "_label_from",
        "_longest",
        "_next",
        "_pending",
        "_pieces",
        "_prefix",
        "_prefix_length",
        "_substring",
        "_tail",
        "_uncovered",
    )

    def __init__(self, context: tuple[str, FoldedChunks]) -> None:
        # Every chunk folded: which chunks the copy rule will read depends on
        # the whole answer's probes, not known yet; folded through the check's
        # FoldedChunks, so the copy rule's later reads reuse them.
        asked, folded = context
        chunks, joined = folded.every()
        self._joined = joined
        self._pieces = [piece for piece in (*chunks, asked) if piece]
        self._longest = max((len(piece) for piece in self._pieces), default=0)
        self._boundary = 0  # raw offset of the last boundary folded at
        self._joint = ""  # what joins the fold before it to the fold after it
        self._prefix_length = 0  # len(fold(text[:boundary]))
        self._tail = ""  # its last `longest` characters
        self._next = [0] * len(self._pieces)  # where each piece's greedy search goes on
        self._pending: list[tuple[int, int]] = []  # copies reaching past the frontier
        self._frontier = 0
        self._uncovered = 0
        self._substring = True  # the folded prefix may still be a piece of the chunks
        self._prefix: list[str] = []  # the folded prefix, kept while it may be
        # A prompt's label (:data:`FRAME_LABEL`) may open a copy of the
        # framed context, which copies of whole pieces do not tell: once one
        # is in the text, the answer may be a copy whatever follows.
        self._framed = False
        self._label_from = 0  # where the next search for a label starts

    def may_copy(self, text: str) -> bool:
        """
        Tell whether ``text`` (the answer so far; each call's extends the last's) may be a copy.

        Returns:
            False only when the copy rule (:func:`relapse.grounding._echo.copies`,
            the verdict of :func:`~relapse.grounding._echo.is_copy`) finds
            ``text`` no copy (True does not say it is one).
        """
        if not self._framed:
            self._framed = bool(frame_labels(text, self._label_from))
            self._label_from = max(0, len(text) - MAX_LABEL_CHARS)
        if self._framed:
            return True
        self._advance(text)
        if self._substring:
            return True
        longest = self._prefix_length + 1 + _FOLD_GROWTH * (len(text) - self._boundary)
        return self._uncovered <= _UNCOVERED_SHARE * longest

    def _advance(self, text: str) -> None:
        last = _last_boundary(text, self._boundary)
        if last is None:
            return
        boundary, joins = last
        segment = fold(text[self._boundary : boundary])
        joint = self._joint if self._prefix_length else ""
        self._joint = joins
        start = self._prefix_length
        region = self._tail + joint + segment
        base = start - len(self._tail)
        length = start + len(joint) + len(segment)
        for number, piece in enumerate(self._pieces):
            at = max(self._next[number], start - len(piece) + 1, base) - base
            found = region.find(piece, at)
            while found >= 0:
                self._pending.append((base + found, base + found + len(piece)))
                self._next[number] = base + found + len(piece)
                found = region.find(piece, found + len(piece))
        frontier = max(self._frontier, length - self._longest)
        covered, reach = 0, self._frontier
        for low, high in sorted(self._pending):
            low, high = max(low, reach), min(high, frontier)
            if high > low:
                covered += high - low
                reach = high
        self._uncovered += frontier - self._frontier - covered
        self._frontier = frontier
        self._pending = [span for span in self._pending if span[1] > frontier]
        self._tail = region[-self._longest :] if self._longest else ""
        self._boundary, self._prefix_length = boundary, length
        if self._substring:
            self._prefix.append(joint + segment)
            self._substring = "".join(self._prefix) + self._joint in self._joined
            if not self._substring:
                self._prefix = []


def _clean(char: str) -> bool:
    return char.isascii() and char.isalnum()


def _last_boundary(text: str, after: int) -> tuple[int, str] | None:
    """
    The last offset ``k > after + 1`` where folding is exact, and what joins the folds there.

    A letter or digit, one ASCII white space and one at ``k`` (joined by a
    space: the fold of the text before ends without it); or a terminator of
    the scripts written without spaces (``。``) and a letter or digit at
    ``k`` (joined by nothing).
    """
    for at in range(len(text) - 1, max(after + 1, len(text) - _BOUNDARY_SEARCH), -1):
        char = text[at]
        if not char.isalnum():
            continue
        if _clean(char) and text[at - 1] in _FOLD_BREAKS and _clean(text[at - 2]):
            return at, " "
        if text[at - 1] in CJK_STOPS:
            return at, ""
    return None
