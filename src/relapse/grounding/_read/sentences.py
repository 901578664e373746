"""
Sentences: where each sentence of an answer starts and ends.

Streaming (``release="sentence"``) releases an answer sentence by sentence,
and ``on_exhausted="redact"`` drops the failing ones, so both need the same
cut. A sentence ends:

* at a terminator run (``.``, ``!``, ``?``, ``…``, ``?!``, ``...``) with the
  closing quotes, brackets and emphasis after it (``He said "yes."``,
  ``(see above.)``, ``**Done.**``), when whitespace follows and the next
  sentence starts with anything but a lowercase letter;
* at a line break (list items, headings, table rows are sentences);
* at the end of the text.

A full stop does not end a sentence after an abbreviation that always
continues (``e.g.``, ``i.e.``, ``cf.``, ``vs.``), a title before a name
(``Dr. Smith``), an initial (``J. Smith``), a line-leading list marker
(``1. Rinse``, ``a. Salt``) or ``No.``/``Fig.``/``p.`` before a number;
a decimal point (``3.5``) is no terminator since no whitespace follows it.
Spans hold no edge whitespace: the whitespace between two sentences belongs
to neither.

:func:`sentence_ends` decides the boundaries of text still growing (a
stream): a terminator is a boundary only once the first character of the
next sentence is known, since ``e.g. the`` and ``e.g. The`` differ there.
"""

from __future__ import annotations

import re

# A terminator run, its closers, and the whitespace after it (at least one
# character: "3.5" and "U.S.-based" end nothing); or a line break.
_END = re.compile(r"[.!?\u2026]+[\"'\u201d\u2019\u00bb)\]}*_]*(?=\s)|\n")
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


def _word_before(text: str, end: int) -> str:
    """The folded word ending at ``end``, without leading brackets or quotes."""
    start = end
    while start > 0 and not text[start - 1].isspace():
        start -= 1
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
    start = run_start
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    return _is_list_marker(text, start, run_start)


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
    for match in _END.finditer(text, start):
        if match.group() == "\n":
            ends.append(match.start())
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
        if following and _continues(text, match.start(), run, following):
            continue
        ends.append(match.end())
    # A terminator run or closer still growing at the end is matched afresh.
    resume = len(text)
    while resume > start and not text[resume - 1].isspace():
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
