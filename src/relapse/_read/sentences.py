"""
Sentences: where each sentence of an answer starts and ends.

Streaming (``release="sentence"``) releases an answer sentence by sentence,
and ``on_exhausted="redact"`` drops the failing ones, so both need the same
cut. A sentence ends:

* at a terminator run (``.``, ``!``, ``?``, ``…``, ``?!``, ``...``) with the
  closing quotes, brackets and emphasis after it (``He said "yes."``,
  ``(see above.)``, ``**Done.**``), when whitespace follows and the next
  sentence starts with anything but a lowercase letter;
* at a terminator of the scripts written without spaces (``。``, ``！``,
  ``？``, the full-width ``．``, the half-width ``｡``) with its closing marks
  (``」``, ``』``, ``）``), whatever follows: Chinese and Japanese put no
  space after a sentence; a full-width full stop between two digits
  (``３．５``) is a decimal point;
* at a line break (list items, headings, table rows are sentences);
* at the end of the text.

A full stop does not end a sentence after an abbreviation that always
continues (``e.g.``, ``i.e.``, ``cf.``, ``vs.``), a title before a name
(``Dr. Smith``), an initial (``J. Smith``), a line-leading list marker
(``1. Rinse``, ``a. Salt``) or ``No.``/``Fig.``/``p.`` before a number;
a decimal point (``3.5``) is no terminator since no whitespace follows it.
After initials (``U.S.``, ``D.C.``, ``p.m.``) it goes on as a reader reads
on (``The U.S. Senate voted``), unless the next word is one a sentence
opens with (``in the U.S. The vote``: :data:`OPENERS`).
Spans hold no edge whitespace: the whitespace between two sentences belongs
to neither.

:func:`sentence_ends` decides the boundaries of text still growing (a
stream): a terminator is a boundary only once the first character of the
next sentence is known, since ``e.g. the`` and ``e.g. The`` differ there.
"""

from __future__ import annotations

import re

#: Sentence terminators of the scripts written without spaces between
#: words: the ideographic full stop, the full-width ``．``, ``！``, ``？`` and
#: the half-width ideographic full stop.
CJK_STOPS = "\u3002\uff0e\uff01\uff1f\uff61"
#: What may close a sentence after a CJK terminator: corner brackets,
#: full-width parentheses and brackets, quotation marks.
CJK_CLOSING = "\u300d\u300f\uff09\u3011\u300b\u3009\u3015\uff3d\uff5d\uff02\uff07\u201d\u2019"
# A terminator run, its closers, and the whitespace after it (at least one
# character: "3.5" and "U.S.-based" end nothing); a CJK terminator run and
# its closers, whatever follows; or a line break.
_END = re.compile(
    r"[.!?\u2026]+[\"'\u201d\u2019\u00bb)\]}*_]*(?=\s)"
    rf"|(?P<cjk>[{CJK_STOPS}]+)[{CJK_CLOSING}]*"
    r"|\n"
)
#: Longest word read back before a full stop: longer ones are no abbreviation
#: (and a text without spaces is not walked back to its start at every stop).
_WORD_LIMIT = 32
#: Words a sentence opens with, never a name's (folded): after initials,
#: ``The U.S. The vote`` ends at ``U.S.``, ``The U.S. Senate`` goes on.
OPENERS = frozenset(
    {
        *("the", "a", "an", "this", "that", "these", "those", "it", "its", "he", "she"),
        *("they", "we", "i", "you", "there", "here", "then", "but", "and", "or", "so"),
        *("yet", "in", "on", "at", "for", "from", "to", "by", "with", "after", "before"),
        *("when", "while", "if", "as", "since", "although", "however", "also", "his"),
        *("her", "their", "our", "my", "one", "some", "many", "most", "all", "each"),
        *("no", "not", "other", "both", "today", "now", "later", "meanwhile", "what"),
        *("who", "why", "how", "where", "which", "during", "under", "over", "despite"),
    }
)
_INITIALS = re.compile(r"[^\W\d_](?:\.[^\W\d_])+")
#: Words before a full stop that never end a sentence: the text goes on.
CONTINUING = frozenset({"e.g", "i.e", "cf", "vs", "viz", "approx", "ca", "c"})
#: Titles before a name: no sentence end when a capital follows (``Dr. Smith``).
TITLES = frozenset(
    {
        *("dr", "mr", "mrs", "ms", "prof", "st", "mt", "sr", "jr", "gen", "sen", "rep", "gov"),
        *("lt", "col", "sgt", "capt", "rev", "hon", "pres", "supt", "fr"),
    }
)
#: Words before a full stop that continue when a digit follows (``No. 5``,
#: ``p. 12``, and the month abbreviations of a date: ``Sept. 5, 2020``).
BEFORE_NUMBER = frozenset(
    {
        *("no", "nos", "fig", "figs", "p", "pp", "vol", "ch", "sec", "art", "op"),
        *("jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec"),
    }
)
# Bullets and spaces that may open a line before a list marker.
_LINE_LEAD = " \t>#*\u2022\u00b7-\u2013\u2014("
_CLOSING = "\"'\u201d\u2019\u00bb)]}*_"
_STOPS = ".!?\u2026"
#: The characters of a match of ``_END`` but its line break and white space.
_RUN = frozenset(_STOPS + _CLOSING + CJK_STOPS + CJK_CLOSING)


def _digit(text: str, at: int) -> bool:
    return 0 <= at < len(text) and text[at].isdecimal()


def _word_start(text: str, end: int) -> int:
    """Where the word ending at ``end`` starts (after white space); -1 past ``_WORD_LIMIT``."""
    start = end
    low = max(0, end - _WORD_LIMIT)
    while start > low and not text[start - 1].isspace():
        start -= 1
    return -1 if start > 0 and not text[start - 1].isspace() else start


def _word_before(text: str, end: int) -> str:
    """The folded word ending at ``end``, without leading brackets or quotes ("" when too long)."""
    start = _word_start(text, end)
    if start < 0:
        return ""
    return text[start:end].lstrip("([{\"'\u201c\u2018\u00ab*_").casefold()


def _is_list_marker(text: str, start: int, end: int) -> bool:
    """
    Tell whether ``text[start:end]`` (before a full stop) is a list marker.

    A number of up to three digits or a single letter that opens a line or a
    sentence (``1. Rinse``, ``Steps: done. 2. Dry``), after bullets at most.
    """
    word = text[start:end]
    if not (word.isdecimal() and len(word) <= 3) and not (len(word) == 1 and word.isalpha()):
        return False
    at = start
    while at > 0 and text[at - 1] in _LINE_LEAD:
        at -= 1
    if at == 0 or text[at - 1] == "\n":
        return True
    while at > 0 and text[at - 1] in _CLOSING:
        at -= 1
    return at > 0 and text[at - 1] in _STOPS


def _continues(text: str, run_start: int, terminator: str, following: str) -> bool:
    """
    Tell whether the terminator run at ``run_start`` goes on with the same sentence.

    Args:
        text: The text.
        run_start: Offset of the run's first terminator character.
        terminator: The run itself (``"."``, ``"..."``, ``"?!"``).
        following: The first non-space character after the run and its closers.
    """
    if following.islower():
        return True  # "e.g. the", "approx. five", "Why? he asked"
    if terminator != ".":
        return False
    word = _word_before(text, run_start)
    if not word:
        return False
    if word in CONTINUING:
        return True
    if word in TITLES or (len(word) == 1 and word.isalpha() and following.isupper()):
        return following.isupper()  # "Dr. Smith", "J. Smith"
    if word in BEFORE_NUMBER and following.isdecimal():
        return True
    if _INITIALS.fullmatch(word):
        # "U.S. Senate" reads on, "the U.S. The vote" does not.
        return following.isupper() and _next_word(text, run_start)[0] not in OPENERS
    start = _word_start(text, run_start)
    return start >= 0 and _is_list_marker(text, start, run_start)


def _next_word(text: str, run_start: int) -> tuple[str, int]:
    """The folded word after the terminator run at ``run_start`` and the space after it; its end."""
    at = run_start
    while at < len(text) and not text[at].isspace():
        at += 1
    while at < len(text) and text[at].isspace():
        at += 1
    end = at
    while end < len(text) and end - at < _WORD_LIMIT and text[end].isalpha():
        end += 1
    return text[at:end].casefold(), end


def sentence_ends(text: str, start: int = 0, *, final: bool = True) -> tuple[list[int], int]:
    """
    Find the sentence ends in ``text`` from ``start``.

    Args:
        text: The text (an answer, or what a stream has delivered so far).
        start: Offset to search from: where the previous search resumed.
        final: Whether ``text`` is complete. When it is not, a terminator
            whose next sentence has not begun yet is left undecided.

    Returns:
        ``(ends, resume)``: the offsets just past each sentence's last
        character (edge whitespace excluded; possibly including an empty
        sentence's, which :func:`sentence_spans` drops), in order, and the
        offset from which a later search must resume once more text came.

    Raises:
        ValueError: ``start`` is not within ``0..len(text)``.
    """
    if not 0 <= start <= len(text):
        raise ValueError(f"start must be within 0..{len(text)}, got {start}")
    ends: list[int] = []
    decided = start  # the end of the last match decided
    for match in _END.finditer(text, start):
        decided = match.end()
        if match.group() == "\n":
            ends.append(match.start())
            continue
        if match["cjk"] is not None:
            if match.end() == len(text) and not final:
                return ends, match.start()  # a closer may follow
            at = match.start()
            if match.group() == "\uff0e" and _digit(text, at - 1) and _digit(text, at + 1):
                continue  # "３．５": a decimal point
            ends.append(match.end())
            continue
        after = match.end()
        while after < len(text) and text[after].isspace():
            after += 1
        if "\n" in text[match.end() : after]:
            ends.append(match.end())  # a line break ends it, whatever follows
            continue
        if after == len(text) and not final:
            # The next sentence has not begun: "e.g." and "Dr." wait for it.
            return ends, match.start()
        following = text[after : after + 1]
        run = match.group().rstrip(_CLOSING)
        if (
            not final
            and run == "."
            and following.isupper()
            and _next_word(text, match.start())[1] == len(text)
            and _INITIALS.fullmatch(_word_before(text, match.start()))
        ):
            # After initials the next word decides ("U.S. Senate", "U.S. The"): wait for it.
            return ends, match.start()
        if following and _continues(text, match.start(), run, following):
            continue
        ends.append(match.end())
    # A terminator run and its closers still growing at the end are matched
    # afresh; nothing before them can start a match (a walk back to the last
    # white space would be quadratic on text written without spaces).
    resume = len(text)
    while resume > decided and text[resume - 1] in _RUN:
        resume -= 1
    return ends, resume


def sentence_spans(text: str) -> list[tuple[int, int]]:
    r"""
    Cut ``text`` into sentences.

    >>> text = "Dr. Smith paid $3.5 million, e.g. in 2019. Was it enough?\n- Yes."
    >>> [text[start:end] for start, end in sentence_spans(text)]
    ['Dr. Smith paid $3.5 million, e.g. in 2019.', 'Was it enough?', '- Yes.']

    Args:
        text: The text, complete.

    Returns:
        ``(start, end)`` of each sentence, in order and disjoint, without edge
        whitespace: every non-whitespace character of ``text`` is in exactly
        one span. Empty for a text of whitespace only.

    Raises:
        TypeError: ``text`` is not a ``str``.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    ends, _ = sentence_ends(text)
    return spans_between(text, 0, [*ends, len(text)])


def spans_between(text: str, start: int, ends: list[int]) -> list[tuple[int, int]]:
    """
    The non-empty sentences from ``start`` up to each of ``ends`` in turn, edge whitespace dropped.

    Args:
        text: The text.
        start: Where the first sentence may start.
        ends: Sentence ends in increasing order, each at least ``start``.

    Returns:
        ``(start, end)`` per non-blank sentence.
    """
    spans: list[tuple[int, int]] = []
    for end in ends:
        first = start
        while first < end and text[first].isspace():
            first += 1
        last = end
        while last > first and text[last - 1].isspace():
            last -= 1
        if first < last:
            spans.append((first, last))
        start = end
    return spans
