"""
Numbers written in words: ``seventy-seven``, ``two hundred and twelve``, ``a dozen``.

The answer's runs of number words are read with one grammar, and the chunk
side looks the candidate first words of a value up on demand
(:func:`head_words`), so words in a chunk ground digits in the answer and
digits ground words.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from relapse.grounding._text import spellings, trie_pattern

_SMALL = (
    *("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"),
    *("ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen"),
    *("eighteen", "nineteen"),
)

_TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")

SMALL_WORDS = {word: value for value, word in enumerate(_SMALL)}

TENS_WORDS = {word: 20 + 10 * index for index, word in enumerate(_TENS)}

_SCALE_WORDS = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12}

_NUMBER_WORDS = (*_SMALL, *_TENS, "hundred", *_SCALE_WORDS, "dozen")


#: Characters enough for the longest number in words below MAX_WORD_VALUE
#: ("seven hundred and seventy-seven trillion seven hundred ..." is ~260).
MAX_WORD_NUMBER = 400


def _first_word() -> str:
    """
    Return the pattern of a run's first word, each branch led by a literal letter.

    Literal-led branches let the regex engine skip in C to the letters that can
    start a number word; the word-boundary lookbehind comes right after that
    first letter (looking two characters back), with the same meaning.
    """
    by_initial: dict[str, set[str]] = {}
    for form in spellings(_NUMBER_WORDS):
        by_initial.setdefault(form[0], set()).add(form[1:])
    branches = [
        f"{re.escape(initial)}(?<![^\\W_].){trie_pattern(rests)}"
        for initial, rests in sorted(by_initial.items())
    ]
    # "a dozen", "A hundred": the article counts as 1, before a scale word only.
    branches += [
        f"{article}(?<![^\\W_].)[ \\t]+{trie_pattern(spellings(_ARTICLE_SCALES))}"
        for article in ("a", "A")
    ]
    return "(?:" + "|".join(branches) + ")"


_ARTICLE_SCALES = ("dozen", "hundred", "thousand", "million", "billion", "trillion")

_WORD = trie_pattern(spellings(_NUMBER_WORDS))

_AND = trie_pattern(spellings(("and",)))

# A run of number words: "seventy-seven", "two hundred and twelve", "a dozen",
# in lower case, capitalized or in capitals (the chunk-side lookup searches
# the same three spellings). Separators and words are disjoint, so the
# repetition cannot backtrack.
WORDS_RE = re.compile(
    rf"{_first_word()}(?![^\W_])"
    rf"(?:(?:[ \t]+{_AND}[ \t]+|[ \t]*-[ \t]*|[ \t]+){_WORD}(?![^\W_]))*"
)

_WORD_RE = re.compile(r"[A-Za-z]+")


class WordNumber:
    """One number written in words: its span in the text and its value."""

    __slots__ = ("end", "precision", "start", "value")

    def __init__(self, start: int, end: int, value: int, precision: int) -> None:
        #: Offset of the first word (or of ``a`` in ``a dozen``).
        self.start = start
        #: Offset just past the last word.
        self.end = end
        #: The value.
        self.value = value
        #: Power of ten of the last significant word (``seventy``: 1).
        self.precision = precision


def parse_word_run(text: str, start: int, end: int) -> Iterator[WordNumber]:
    """
    Split one run of number words into numbers and yield each.

    A run such as ``four seventy-seven`` holds two numbers (4 and 77): a new
    number starts whenever the next word cannot continue the current one, so a
    number reads the same wherever the run around it starts.

    Args:
        text: The text holding the run.
        start: The run's start offset.
        end: The run's end offset.

    Yields:
        Each number of the run, in order.
    """
    state = _WordState(start)
    article: int | None = None
    for word_match in _WORD_RE.finditer(text, start, end):
        word = word_match.group().lower()
        if word == "a":
            # Only ever first, before dozen/hundred/thousand...: it counts as 1.
            article = word_match.start()
            continue
        if word == "and":
            # "two hundred and twelve": "and" joins only after hundred or a scale.
            if state.last not in ("hundred", "scale"):
                yield from state.flush()
            continue
        if state.last is not None and not state.accept(word):
            yield from state.flush()
        if state.last is None:
            state.first = word_match.start() if article is None else article
            state.accept(word)
        article = None
        state.last_end = word_match.end()
    yield from state.flush()


class _WordState:
    """The number being read by :func:`parse_word_run`."""

    __slots__ = ("current", "first", "last", "last_end", "smallest_scale", "total")

    def __init__(self, first: int) -> None:
        self.first = first
        self.last_end = first
        self.total = 0
        self.current = 0
        #: Kind of the last word: None, "unit", "teen", "tens", "hundred",
        #: "dozen" or "scale".
        self.last: str | None = None
        self.smallest_scale = 10**13

    def accept(self, word: str) -> bool:
        """Add ``word`` to the number; False (and no change) if it cannot continue it."""
        last = self.last
        small = SMALL_WORDS.get(word)
        tens = TENS_WORDS.get(word)
        if small is not None or tens is not None:
            value = small if small is not None else tens
            assert value is not None  # one of the two is set
            fits = (
                last is None
                or (last == "tens" and small is not None and 1 <= small <= 9)
                or (last == "hundred" and self.current % 100 == 0)
                or (last == "scale" and self.current == 0)
            )
            if not fits:
                return False
            self.current += value
            self.last = "tens" if tens is not None else ("teen" if value >= 10 else "unit")
            return True
        if word in ("hundred", "dozen"):
            if not (last is None or (last in ("unit", "teen", "tens") and self.current < 100)):
                return False
            self.current = (self.current or 1) * (100 if word == "hundred" else 12)
            self.last = word
            return True
        scale = _SCALE_WORDS[word]
        if not (last is None or (last != "scale" and scale < self.smallest_scale)):
            return False
        self.total += (self.current or 1) * scale
        self.current = 0
        self.smallest_scale = scale
        self.last = "scale"
        return True

    def flush(self) -> Iterator[WordNumber]:
        """Yield the number read so far, if any, and start afresh."""
        if self.last is not None:
            value = self.total + self.current
            digits = str(value)
            precision = len(digits) - len(digits.rstrip("0")) if value else 0
            yield WordNumber(self.first, self.last_end, value, precision)
        self.total = self.current = 0
        self.last = None
        self.smallest_scale = 10**13


def word_numbers(text: str) -> Iterator[WordNumber]:
    """
    Yield every number written in words in ``text``.

    Args:
        text: Any text.

    Yields:
        Each number, in text order.
    """
    for run in WORDS_RE.finditer(text):
        yield from parse_word_run(text, run.start(), run.end())


def head_words(value: int) -> frozenset[str]:
    """
    Return the words that can begin ``value`` spelled out.

    The chunk side does not index number words up front: when an answer's
    number is not among the chunks' digits, each of these words is looked up
    in the lowered chunk text and the run found there is parsed with the same
    grammar as the answer.

    Args:
        value: A whole number up to :data:`MAX_WORD_VALUE`.

    Returns:
        The candidate first words (``77``: ``{"seventy"}``; ``1200``:
        ``{"twelve", "dozen", "one", "thousand"}``).
    """
    heads: set[str] = set()
    if value < 20:
        heads.add(_SMALL[value])
    elif value < 100:
        heads.add(_TENS[value // 10 - 2])
    if value == 12:
        heads.add("dozen")
    if 100 <= value < 10000:
        hundreds = value // 100
        heads |= head_words(hundreds) if hundreds < 100 else set()
        if hundreds == 1:
            heads.add("hundred")
    for word, scale in _SCALE_WORDS.items():
        multiple = value // scale
        if 1 <= multiple < 1000:
            heads |= head_words(multiple)
            if multiple == 1:
                heads.add(word)
    return frozenset(heads)
