"""
Numbers written in words: ``seventy-seven``, ``two hundred and twelve``, ``half a million``.

One grammar reads every run of number words, in answers and chunks alike, so
words in a chunk ground digits in the answer and digits ground words:

- cardinals: ``seventy-seven``, ``two hundred and twelve``, ``a dozen``,
  ``twelve hundred``, ``one million, two hundred thousand`` (a comma after a
  scale word continues the number when a smaller group with ``hundred`` or
  a scale word follows, as in ``one thousand, nine hundred``);
- ordinals: ``third``, ``twenty-first``, ``one hundred and third``;
- fractions: ``one third``, ``two-thirds``, ``a quarter``, ``half``, and of a
  scale: ``half a million``, ``a quarter of a million``, ``two and a half
  billion``, ``three quarters of a million``;
- years: ``nineteen forty-five``, ``twenty twenty-four``, ``nineteen oh
  five`` (a first part of ten to twenty, then two digits).

A scale word on its own (``billion`` in ``3 billion``, ``hundred-year
flood``) counts nothing: it is the scale of the number before it, which the
digit scanner reads. A number starts wherever the next word cannot continue
the current one, so ``four seventy-seven`` is 4 and 77, and ``seventy`` in
``three hundred seventy`` is no number of its own.
"""

from __future__ import annotations

import functools
import heapq
import math
import re
from collections.abc import Iterator
from fractions import Fraction

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

_ORDINAL_SMALL = (
    *("zeroth", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth"),
    *("ninth", "tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth"),
    *("sixteenth", "seventeenth", "eighteenth", "nineteenth"),
)

#: Each ordinal word and the cardinal word it is the ordinal of.
ORDINAL_WORDS = {
    **dict(zip(_ORDINAL_SMALL, _SMALL, strict=True)),
    **{tens[:-1] + "ieth": tens for tens in _TENS},
    **{f"{word}th": word for word in ("hundred", *_SCALE_WORDS)},
}


def ordinal_spellings(number: int) -> tuple[str, ...]:
    """
    Return how English spells the ordinal ``number`` in lower case: ``twenty-first``.

    Args:
        number: 1 to 99.

    Returns:
        The spellings (``twenty-first``, ``twenty first``); empty out of range.
    """
    if not 1 <= number <= 99:
        return ()
    if number < 20:
        return (_ORDINAL_SMALL[number],)
    tens, units = divmod(number, 10)
    word = _TENS[tens - 2]
    if not units:
        return (word[:-1] + "ieth",)
    return (f"{word}-{_ORDINAL_SMALL[units]}", f"{word} {_ORDINAL_SMALL[units]}")


# Denominators of fractions: a singular after "a" or "one" ("a third", "one
# half"), a plural after a numerator of two or more ("two thirds"). "second"
# is no denominator: a half is "half", and "a second" is a time.
_SINGULAR_DENOMINATORS = {
    "half": 2,
    "quarter": 4,
    **{
        word: index
        for index, word in enumerate(_ORDINAL_SMALL)
        if index >= 3  # "third" up: "zeroth", "first" and "second" are no denominators
    },
    "twentieth": 20,
    "hundredth": 100,
    "thousandth": 1000,
}
_PLURAL_DENOMINATORS = {
    "halves": 2,
    "quarters": 4,
    **{f"{word}s": value for word, value in _SINGULAR_DENOMINATORS.items() if word.endswith("th")},
    "thirds": 3,
}

_ARTICLES = frozenset({"a", "an"})

#: Denominators of the fractions read before a scale word: halves, thirds
#: and quarters (``half a million``, ``two thirds of a million``, ``a
#: quarter million``, ``two and a half billion``).
_SCALED_DENOMINATORS = frozenset({2, 3, 4})

#: Multipliers in one word: ``twofold`` to ``nineteenfold``, ``twentyfold``
#: to ``ninetyfold``, ``hundredfold``, ``thousandfold``, ``millionfold``;
#: each is its number (``fourfold`` is ``4x``, ``4-fold``, ``4 times``).
_FOLD_WORDS = {
    **{f"{word}fold": value for word, value in SMALL_WORDS.items() if value >= 2},
    **{f"{word}fold": value for word, value in TENS_WORDS.items()},
    **{f"{word}fold": value for word, value in (("hundred", 100), ("thousand", 1000))},
    "millionfold": 10**6,
}

_NUMBER_WORDS = (
    *_SMALL,
    *_TENS,
    "hundred",
    *_SCALE_WORDS,
    "dozen",
    *ORDINAL_WORDS,
    *_SINGULAR_DENOMINATORS,
    *_PLURAL_DENOMINATORS,
)

#: Characters enough for the longest number in words below MAX_WORD_VALUE
#: ("seven hundred and seventy-seven trillion, seven hundred ..." is ~260);
#: the chunk side steps back at most this far along a run before it reads
#: every run of the texts instead.
MAX_WORD_NUMBER = 400

# Words that continue a number but never start one: the article inside
# "half a million", "of" in "a quarter of a million", "oh" in "nineteen oh five".
_INNER_WORDS = ("a", "an", "of", "oh", "point", "nought")

# The digits after "point" in a decimal in words ("sixty-six point seven",
# "one point two million", "two point oh five").
_DECIMAL_DIGITS = {
    **{word: value for word, value in SMALL_WORDS.items() if value < 10},
    "oh": 0,
    "nought": 0,
}


def _first_word() -> str:
    """
    Return the pattern of a run's first word, each branch led by a literal letter.

    Literal-led branches let the regex engine skip in C to the letters that can
    start a number word; the word-boundary lookbehind comes right after that
    first letter (looking two characters back), with the same meaning.
    """
    by_initial: dict[str, set[str]] = {}
    # A multiplier ("fourfold") is a number of its own: it starts a run and
    # continues none, so the words after a number's are not tried for it.
    for form in spellings((*_NUMBER_WORDS, *_FOLD_WORDS)):
        by_initial.setdefault(form[0], set()).add(form[1:])
    branches = [
        f"{re.escape(initial)}(?<![^\\W_].){trie_pattern(rests)}"
        for initial, rests in sorted(by_initial.items())
    ]
    # "a dozen", "A hundred", "a third", "an eighth": the article counts as 1,
    # before a scale word or a denominator only.
    after_article = trie_pattern(spellings((*_ARTICLE_SCALES, *_SINGULAR_DENOMINATORS)))
    branches += [
        f"{article}(?<![^\\W_].{'.' * (len(article) - 1)})[ \\t]+{after_article}"
        for article in ("a", "A", "an", "An")
    ]
    return "(?:" + "|".join(branches) + ")"


_ARTICLE_SCALES = ("dozen", "hundred", "thousand", "million", "billion", "trillion")

_WORD = trie_pattern(spellings((*_NUMBER_WORDS, *_INNER_WORDS)))

# Between two words of a run: spaces, a hyphen, "and", or a comma (which
# continues a number only after a scale word, see _continues_after_comma).
_SEPARATOR = (
    rf"(?:[ \t]+{trie_pattern(spellings(('and',)))}[ \t]+|[ \t]*-[ \t]*|[ \t]*,[ \t]+|[ \t]+)"
)

# A run of number words, in lower case, capitalized or in capitals (the
# chunk side reads the same three spellings). Separators and words are
# disjoint, so the repetition cannot backtrack.
WORDS_RE = re.compile(rf"{_first_word()}(?![^\W_])(?:{_SEPARATOR}{_WORD}(?![^\W_]))*")

# One word of a run and the separator before it.
_TOKEN = re.compile(
    r"(?P<sep>[ \t]*,[ \t]*|[ \t]+(?i:and)[ \t]+|[ \t]*-[ \t]*|[ \t]+)?(?P<word>[A-Za-z]+)"
)

#: Values a chunk's numbers in words are kept up to.
Value = int | Fraction


class WordNumber:
    """One number written in words: its span in the text, its value and how it reads."""

    __slots__ = ("also", "claim", "end", "kind", "precision", "start", "value")

    def __init__(
        self,
        start: int,
        end: int,
        value: Value,
        precision: int,
        kind: str = "cardinal",
        *,
        claim: bool = True,
        also: tuple[Value, ...] = (),
    ) -> None:
        #: Offset of the first word (or of ``a`` in ``a dozen``).
        self.start = start
        #: Offset just past the last word.
        self.end = end
        #: The value: an ``int``, or a ``Fraction`` (``two thirds``).
        self.value = value
        #: Power of ten of the last significant digit (``seventy``: 1).
        self.precision = precision
        #: ``"cardinal"``, ``"ordinal"``, ``"fraction"`` or ``"year"``.
        self.kind = kind
        #: Whether an answer claims it: ordinals up to ten (``third``) order
        #: the answer's sentences, and ``half`` or ``a quarter`` alone are
        #: idioms (``half the time``, ``a quarter of an hour``) as often as
        #: quantities; a chunk's reading provides them all the same.
        self.claim = claim
        #: Other values a chunk's reading of the same words provides: the
        #: parts of a year (``nineteen forty-five``: 19 and 45), the ordinal
        #: of ``a third`` (3).
        self.also = also


class _Token:
    """One word of a run: its separator before it, lower-cased word and offsets."""

    __slots__ = ("end", "sep", "start", "word")

    def __init__(self, sep: str, word: str, start: int, end: int) -> None:
        self.sep = sep
        self.word = word
        self.start = start
        self.end = end


class _Tokens:
    """
    The words of a run, read from the text as the parser reaches them.

    A run of number words may be a megabyte long (``seventy seventy ...``);
    its words are matched only as far as the numbers read need, so an answer
    that stops at its 1,001st failing span does not tokenize the rest.
    """

    __slots__ = ("_matches", "_tokens", "end", "text")

    def __init__(self, text: str, start: int, end: int) -> None:
        #: The text and where the run ends in it.
        self.text = text
        self.end = end
        self._matches = _TOKEN.finditer(text, start, end)
        self._tokens: list[_Token] = []

    def has(self, index: int) -> bool:
        """Tell whether the run has a word at ``index``, reading up to it."""
        tokens = self._tokens
        while len(tokens) <= index:
            match = next(self._matches, None)
            if match is None:
                return False
            sep = (match["sep"] or "").strip().lower()
            tokens.append(_Token(sep, match["word"].lower(), *match.span("word")))
        return True

    def __getitem__(self, index: int) -> _Token:
        """Return the word at ``index`` (which :meth:`has` found)."""
        return self._tokens[index]

    def read(self) -> list[_Token]:
        """Return the words read so far."""
        return self._tokens


# A number read: its start and end (from a window's start), value,
# precision, kind, whether it is claimed, and its other values.
_Fields = tuple[int, int, Value, int, str, bool, tuple[Value, ...]]
#: What :func:`_parse_tokens` read from a window of a run, for the next
#: window of the same text: the numbers read there (offsets from the window's
#: start), and where the reading went on (the same), None past the run's end.
_Read = tuple[tuple[_Fields, ...], int | None]

#: Characters of a run from a number's first word that its reading may
#: depend on: the longest number in words (:data:`MAX_WORD_NUMBER`) and the
#: few words read after it. A reading that looked further is not kept.
READ_WINDOW = MAX_WORD_NUMBER + 200
#: Windows whose readings one text keeps, at most: a text that repeats
#: itself (a generated answer of a megabyte) meets few distinct windows.
MAX_KEPT_READINGS = 4096


def parse_word_run(
    text: str, start: int, end: int, memo: dict[tuple[str, bool], _Read] | None = None
) -> Iterator[WordNumber]:
    """
    Split one run of number words into numbers and yield each.

    A run such as ``four seventy-seven`` holds two numbers (4 and 77): a new
    number starts whenever the next word cannot continue the current one, so a
    number reads the same wherever the run around it starts.

    Args:
        text: The text holding the run.
        start: The run's start offset.
        end: The run's end offset.
        memo: What windows of ``text`` read (see :data:`_Read`), filled as
            read: a window met again is not read again.

    Yields:
        Each number of the run, in order; a bare scale word yields nothing.
    """
    yield from _parse_tokens(_Tokens(text, start, end), memo)


def read_run(text: str, start: int, end: int) -> tuple[list[WordNumber], list[int]]:
    """
    Return the numbers of one run of number words and where each of its words starts.

    Args:
        text: The text holding the run.
        start: The run's start offset.
        end: The run's end offset.

    Returns:
        The numbers (as :func:`parse_word_run` yields them) and the offset of
        every word of the run.
    """
    tokens = _Tokens(text, start, end)
    numbers = list(_parse_tokens(tokens))
    return numbers, [token.start for token in tokens.read()]


def _parse_tokens(
    tokens: _Tokens, memo: dict[tuple[str, bool], _Read] | None = None
) -> Iterator[WordNumber]:
    """
    Yield the numbers of a run's words (see :func:`parse_word_run`).

    With a ``memo``, the reading from each word on is looked up by the text
    of the :data:`READ_WINDOW` characters from it (and whether the run ends
    among them): the reading of a word looks at no word before it, nor at
    its own separator, and never further than it reads the words, so the
    same window reads the same wherever it is. Readings that read past their
    window are not kept.
    """
    if memo is None:
        index = 0
        while tokens.has(index):
            number, following = _read(tokens, index)
            if number is None:
                index += 1
                continue
            yield number
            index = following
        return
    if not tokens.has(0):
        return
    text, end = tokens.text, tokens.end
    first = tokens[0].start
    while True:
        stop = min(end, first + READ_WINDOW)
        key = (text[first:stop], stop == end)
        known = memo.get(key)
        if known is None:
            # The words from this one on, read anew: the reading of the first
            # reads neither its separator nor any word before it.
            tokens = _Tokens(text, first, end)
            tokens.has(0)
            number, following = _read(tokens, 0)
            if number is None:
                following = 1
            # Everything the reading looked at lies within the window.
            contained = stop == end or tokens.read()[-1].end <= stop
            resume = tokens[following].start - first if tokens.has(following) else None
            kept: tuple[_Fields, ...] = () if number is None else (_relative(number, first),)
            if contained and len(memo) < MAX_KEPT_READINGS:
                memo[key] = (kept, resume)
        else:
            kept, resume = known
        for start_at, end_at, value, precision, kind, claim, also in kept:
            yield WordNumber(
                first + start_at, first + end_at, value, precision, kind, claim=claim, also=also
            )
        if resume is None:
            return
        first += resume


def _relative(number: WordNumber, first: int) -> _Fields:
    """The fields of ``number``, its offsets from ``first``."""
    return (
        number.start - first,
        number.end - first,
        number.value,
        number.precision,
        number.kind,
        number.claim,
        number.also,
    )


def _read(tokens: _Tokens, index: int) -> tuple[WordNumber | None, int]:
    """Read the number starting at ``tokens[index]``; return it (or None) and the next index."""
    token = tokens[index]
    word = token.word
    fold = _FOLD_WORDS.get(word)
    if fold is not None:
        return WordNumber(token.start, token.end, fold, _precision(fold)), index + 1
    if word in _ARTICLES:
        return _after_article(tokens, index)
    if word == "half":
        # "half a million", "half a dozen"; "half" alone is one half.
        scaled = _scaled(tokens, index + 1, Fraction(1, 2))
        if scaled is not None:
            value, last = scaled
            return _fraction(tokens, index, last, value, claim=True), last + 1
        return _fraction(tokens, index, index, Fraction(1, 2), claim=False), index + 1
    state = _Cardinal()
    last = index - 1
    position = index
    while tokens.has(position):
        current = tokens[position]
        if position > index and not _joins(tokens, position, state):
            break
        if not state.accept(current.word):
            break
        last = position
        position += 1
        if state.ordinal:
            break
    if last < index:
        return None, index + 1
    value = state.value()
    first, end = tokens[index].start, tokens[last].end
    if state.ordinal:
        return WordNumber(
            first, end, value, _precision(value), "ordinal", claim=value > 10
        ), last + 1
    if state.bare_scale:
        return None, last + 1  # "billion" in "3 billion", "hundred-year": no number on its own
    following = last + 1
    if tokens.has(following):
        if tokens[following].word == "point" and not tokens[following].sep:
            decimal = _decimal(tokens, index, following, value, state)
            if decimal is not None:
                return decimal
        year = _year(tokens, index, last, state, value)
        if year is not None:
            return year
        fraction = _fraction_after(tokens, index, last, value, state.ending_scale)
        if fraction is not None:
            return fraction
    return WordNumber(first, end, value, _precision(value)), following


def _decimal(
    tokens: _Tokens, index: int, point: int, whole: Value, state: _Cardinal
) -> tuple[WordNumber, int] | None:
    """
    Read a decimal in words: ``sixty-six point seven``, ``one point two million``.

    The whole part is a number below a thousand with no scale (``sixty-six``,
    ``two hundred and five``), then ``point`` and one digit word or more
    (``zero``/``oh``/``nought`` to ``nine``), then perhaps a scale word.

    Args:
        tokens: The run's words.
        index: The whole part's first word.
        point: The index of ``point``.
        whole: The whole part's value.
        state: The whole part as read.

    Returns:
        The number and the index after it, or None when no digit follows.
    """
    if state.last == "scale" or not isinstance(whole, int) or whole >= 1000:
        return None
    digits = ""
    position = point + 1
    while tokens.has(position) and not tokens[position].sep:
        digit = _DECIMAL_DIGITS.get(tokens[position].word)
        if digit is None:
            break
        digits += str(digit)
        position += 1
    if not digits:
        return None
    value: Value = whole + Fraction(int(digits), 10 ** len(digits))
    precision = -len(digits)
    if tokens.has(position) and not tokens[position].sep:
        scale = _SCALE_WORDS.get(tokens[position].word)
        if scale is not None:
            # "one point two million": 1,200,000, its last digit the hundred thousands.
            value *= scale
            precision += len(str(scale)) - 1
            position += 1
    if isinstance(value, Fraction) and value.denominator == 1:
        value = value.numerator
    end = tokens[position - 1].end
    return WordNumber(tokens[index].start, end, value, precision), position


def _after_article(tokens: _Tokens, index: int) -> tuple[WordNumber | None, int]:
    """Read ``a dozen``, ``a million``, ``a third``, ``a quarter of a million``, or nothing."""
    following = index + 1
    if not tokens.has(following) or tokens[following].sep:
        return None, following
    word = tokens[following].word
    denominator = _SINGULAR_DENOMINATORS.get(word)
    if denominator is not None:
        fraction = Fraction(1, denominator)
        scaled = _scaled(tokens, following + 1, fraction)
        if scaled is not None:
            value, last = scaled
            return _fraction(tokens, index, last, value, claim=True), last + 1
        # "a third" is one third, or the ordinal of "a third attempt".
        ordinal = () if word in ("half", "quarter") else (denominator,)
        number = _fraction(tokens, index, following, fraction, claim=False, also=ordinal)
        return number, following + 1
    if word not in _SCALE_WORDS and word not in ("hundred", "dozen"):
        return None, following
    # "a hundred and twelve", "a million": the article is one, read on as a cardinal.
    state = _Cardinal()
    state.accept("one")
    last = index
    position = following
    while tokens.has(position):
        if position > following and not _joins(tokens, position, state):
            break
        if not state.accept(tokens[position].word):
            break
        last = position
        position += 1
        if state.ordinal:
            break
    if last == index:
        return None, following
    value = state.value()
    if not state.ordinal and tokens.has(last + 1):
        # "a million and a half", "a dozen and a half": read as "one million
        # and a half" is (the article is one).
        and_a_half = _fraction_after(tokens, index, last, value, state.ending_scale)
        if and_a_half is not None:
            return and_a_half
    kind = "ordinal" if state.ordinal else "cardinal"
    number = WordNumber(
        tokens[index].start,
        tokens[last].end,
        value,
        _precision(value),
        kind,
        claim=not state.ordinal or value > 10,
    )
    return number, last + 1


def _joins(tokens: _Tokens, position: int, state: _Cardinal) -> bool:
    """Tell whether the separator before ``tokens[position]`` may join it to the number."""
    sep = tokens[position].sep
    if sep == "and":
        # "two hundred and twelve": "and" joins only after hundred or a scale.
        return state.last in ("hundred", "scale")
    if sep == ",":
        return state.last == "scale" and _continues_after_comma(tokens, position, state)
    return True


def _continues_after_comma(tokens: _Tokens, position: int, state: _Cardinal) -> bool:
    """
    Tell whether the group after a comma continues the number (``one thousand, nine hundred``).

    Only a group holding ``hundred`` or a scale word smaller than the last one
    does (the way numbers are written out in full); ``one million, two`` is a
    list, ``one million, two million`` too.
    """
    index = position
    while tokens.has(index):
        token = tokens[index]
        index += 1
        if index > position + 1 and token.sep == ",":
            return False
        word = ORDINAL_WORDS.get(token.word, token.word)
        if word == "hundred":
            return True
        scale = _SCALE_WORDS.get(word)
        if scale is not None:
            return scale < state.smallest_scale
        if word not in SMALL_WORDS and word not in TENS_WORDS:
            return False
    return False


def _year(
    tokens: _Tokens, index: int, last: int, state: _Cardinal, value: int
) -> tuple[WordNumber, int] | None:
    """
    Read ``nineteen forty-five`` (1945) or ``nineteen oh five`` (1905), or return None.

    The first part is ten to twenty in one word and the second two digits,
    so ``four seventy-seven`` stays 4 and 77.
    """
    if last != index or not 10 <= value <= 20 or state.last not in ("teen", "tens"):
        return None
    following = last + 1
    if tokens[following].sep not in ("", "-"):
        return None
    if tokens[following].word == "oh":
        # "nineteen oh five", "nineteen oh-five": 1905.
        unit = following + 1
        if not tokens.has(unit) or tokens[unit].sep not in ("", "-"):
            return None
        part = SMALL_WORDS.get(tokens[unit].word, 0)
        if not 1 <= part <= 9:
            return None
        end = unit
    else:
        second = _Cardinal()
        end = following - 1
        # At most "forty-five": a tens word and a unit, or a teen, or a tens word.
        for position in (following, following + 1):
            if not tokens.has(position):
                break
            word = tokens[position].word
            if position > following and tokens[position].sep not in ("", "-"):
                break
            if (word not in SMALL_WORDS and word not in TENS_WORDS) or not second.accept(word):
                break
            end = position
        part = second.value()
        if end < following or not 10 <= part <= 99:
            return None
    year = value * 100 + part
    number = WordNumber(tokens[index].start, tokens[end].end, year, 0, "year", also=(value, part))
    return number, end + 1


def _fraction_after(
    tokens: _Tokens, index: int, last: int, whole: int, scale: int = 1
) -> tuple[WordNumber, int] | None:
    """
    Read what a cardinal starts: ``one third``, ``two thirds of a million``, ``two and a half``.

    ``scale`` is the scale word the cardinal ends with (``one million``: 10⁶),
    else 1: ``one million and a half`` is a million and a half of a million.

    Returns None when the words after the cardinal make no fraction.
    """
    following = last + 1
    token = tokens[following]
    if token.sep == "and" and token.word in ("a", "one") and tokens.has(following + 1):
        # "two and a half", "one and a half million".
        denominator = _SINGULAR_DENOMINATORS.get(tokens[following + 1].word)
        if denominator is None or tokens[following + 1].sep:
            return None
        end = following + 1
        value: Value = whole + Fraction(1, denominator)
        # "one hundred and a half thousand" is 100,500: a scale word after
        # it scales a number that ends below a thousand.
        scaled = _scaled(tokens, end + 1, value, article=False) if scale < 1000 else None
        if scaled is not None:
            value, end = scaled
        elif scale > 1:
            # "one million and a half" is 1,500,000, "a dozen and a half" 18;
            # a scale word after a million ("one million and a half
            # million") scales nothing again.
            value = whole + Fraction(scale, denominator)
        return _fraction(tokens, index, end, value, claim=True), end + 1
    if token.sep not in ("", "-"):
        return None
    if whole == 1:
        denominator = _SINGULAR_DENOMINATORS.get(token.word)
    elif whole >= 2:
        denominator = _PLURAL_DENOMINATORS.get(token.word)
    else:
        return None
    if denominator is None or whole % denominator == 0:
        return None  # "three thirds" is no fraction a reader writes
    value = Fraction(whole, denominator)
    end = following
    scaled = _scaled(tokens, end + 1, value)
    if scaled is not None:
        value, end = scaled
    return _fraction(tokens, index, end, value, claim=True), end + 1


def _scaled(
    tokens: _Tokens, index: int, fraction: Value, *, article: bool = True
) -> tuple[Value, int] | None:
    """
    Read the scale a fraction takes: ``a million``, ``of a million``, ``million``.

    Args:
        tokens: The run's words.
        index: The word after the fraction.
        fraction: The fraction's value.
        article: Also read ``a`` and ``of a`` before the scale.

    Returns:
        The scaled value and the index of the scale word, or None.
    """
    position = index
    if tokens.has(position) and article and tokens[position].word == "of":
        position += 1
        if not tokens.has(position) or tokens[position].word not in _ARTICLES:
            return None
    if tokens.has(position) and article and tokens[position].word in _ARTICLES:
        position += 1
    if not tokens.has(position) or any(tokens[at].sep for at in range(index, position + 1)):
        return None
    word = tokens[position].word
    scale = _SCALE_WORDS.get(word) or {"hundred": 100, "dozen": 12}.get(word)
    if scale is None:
        return None
    if Fraction(fraction).denominator not in _SCALED_DENOMINATORS:
        return None  # "half a million", "two thirds of a million"; not "a fifth of a million"
    if fraction >= 1 and scale < 1000:
        return None  # "two and a half million", but no "two and a half dozen"
    value = fraction * scale
    return (int(value) if value.denominator == 1 else value), position


def _fraction(
    tokens: _Tokens,
    index: int,
    last: int,
    value: Value,
    *,
    claim: bool,
    also: tuple[Value, ...] = (),
) -> WordNumber:
    """Build the number of a fraction in words from ``tokens[index]`` to ``tokens[last]``."""
    if isinstance(value, Fraction) and value.denominator == 1:
        value = int(value)
    return WordNumber(
        tokens[index].start,
        tokens[last].end,
        value,
        _precision(value),
        "fraction",
        claim=claim,
        also=also,
    )


def _precision(value: Value) -> int:
    """Return the power of ten of the last significant digit of a whole ``value``, else 0."""
    if isinstance(value, Fraction) or not value:
        return 0
    digits = str(value)
    return len(digits) - len(digits.rstrip("0"))


class _Cardinal:
    """The cardinal (or ordinal) number being read by :func:`_read`."""

    __slots__ = ("current", "last", "ordinal", "smallest_scale", "total", "words")

    def __init__(self) -> None:
        self.total = 0
        self.current = 0
        #: Kind of the last word: None, "unit", "teen", "tens", "hundred",
        #: "dozen" or "scale".
        self.last: str | None = None
        self.smallest_scale = 10**13
        #: True once an ordinal word ended the number.
        self.ordinal = False
        #: Words read.
        self.words = 0

    @property
    def ending_scale(self) -> int:
        """
        Return the scale the number ends with, else 1.

        ``one million``: 10⁶; ``a dozen``: 12; ``two hundred``: 100; a number
        ending in a smaller word (``one hundred and five``): 1. A half after
        it is half of that scale (``a million and a half``, ``a dozen and a
        half``).
        """
        if self.last == "scale":
            return self.smallest_scale
        return {"hundred": 100, "dozen": 12}.get(self.last or "", 1)

    @property
    def bare_scale(self) -> bool:
        """True when the number is one scale word, ``dozen`` or ``hundred`` alone."""
        return self.words == 1 and self.last in ("scale", "hundred", "dozen")

    def value(self) -> int:
        """Return the value read so far."""
        return self.total + self.current

    def accept(self, word: str) -> bool:
        """Add ``word`` to the number; False (and no change) if it cannot continue it."""
        cardinal = ORDINAL_WORDS.get(word)
        if cardinal is not None:
            if not self._accept(cardinal):
                return False
            self.ordinal = True
            return True
        return self._accept(word)

    def _accept(self, word: str) -> bool:
        """Add the cardinal ``word``; False (and no change) if it cannot continue the number."""
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
            self.words += 1
            return True
        if word in ("hundred", "dozen"):
            if not (last is None or (last in ("unit", "teen", "tens") and self.current < 100)):
                return False
            self.current = (self.current or 1) * (100 if word == "hundred" else 12)
            self.last = word
            self.words += 1
            return True
        scale = _SCALE_WORDS.get(word)
        if scale is None or not (last is None or (last != "scale" and scale < self.smallest_scale)):
            return False
        self.total += (self.current or 1) * scale
        self.current = 0
        self.smallest_scale = scale
        self.last = "scale"
        self.words += 1
        return True


def word_numbers(text: str) -> Iterator[WordNumber]:
    """
    Yield every number written in words in ``text``.

    Args:
        text: Any text.

    Yields:
        Each number, in text order.
    """
    memo: dict[tuple[str, bool], _Read] = {}
    runs: dict[str, tuple[WordNumber, ...]] = {}  # a short run's numbers, at offset 0
    for run in word_runs(text):
        start, end = run.span()
        if end - start > READ_WINDOW:
            yield from parse_word_run(text, start, end, memo)
            continue
        # A short run reads the same wherever it is: read each distinct one once.
        written = run.group()
        numbers = runs.get(written)
        if numbers is None:
            numbers = tuple(parse_word_run(written, 0, len(written)))
            if len(runs) < MAX_KEPT_READINGS:
                runs[written] = numbers
        for number in numbers:
            yield WordNumber(
                start + number.start,
                start + number.end,
                number.value,
                number.precision,
                number.kind,
                claim=number.claim,
                also=number.also,
            )


#: The number words that no other number word starts with (``six``, not
#: ``sixty``): every run of number words starts with one of them, in any
#: case, or with an article before one (``a dozen``, ``an eighth``).
RUN_STARTS = tuple(
    sorted(
        word
        for word in set(_NUMBER_WORDS)
        if not any(other != word and word.startswith(other) for other in _NUMBER_WORDS)
    )
)

# What word_runs searches for, one pass over the text each: the start
# words, except that start words sharing a prefix prose seldom holds
# ("fifty", "fifth", "fifteen") are found by that prefix alone.
_SHARED_PREFIXES = ("fift", "fort", "thirt", "twel", "twent")
_NEEDLES = (
    *_SHARED_PREFIXES,
    *(word for word in RUN_STARTS if not word.startswith(_SHARED_PREFIXES)),
)

#: The characters whose lower case is more than one character: only these
#: make ``str.lower`` move the offsets after them
#: (``tests/grounding/read/test_word_runs.py`` checks every code point).
LOWER_EXPANDS = "\u0130"

#: A text with fewer than one ``e`` in this many characters is searched by
#: ``finditer``: its few letters cost the pattern little, and the searches
#: for the start words cost about 1 ns a character each. English prose has
#: an ``e`` in about every ten.
FEW_LETTERS = 40

#: Texts this long or longer are searched by ``finditer``: a text made of
#: runs (``seventy seventy ...``) pays the searches and saves nothing, and a
#: megabyte of it would pay 30 ms; answers this long are judged by blocks.
LONG_TEXT = 65_536

#: Texts shorter than this are searched by ``finditer`` too: the searches'
#: fixed cost (a call per needle) is more than the pattern costs there
#: (even at about 150 characters of prose, measured).
SHORT_TEXT = 160


def word_runs(text: str) -> Iterator[re.Match[str]]:
    """
    Yield the runs ``WORDS_RE.finditer(text)`` yields, trying the pattern only where one may start.

    ``finditer`` tries :data:`WORDS_RE` at every letter that starts a number
    word, and most letters of English text do (``t``, ``s``, ``o``, ``f``,
    ``e``, ``n``): about 100 ns a character. A run starts where the text, in
    lower case, holds one of :data:`RUN_STARTS`, or at an article (``a``,
    ``an``) that spaces or tabs part from one; ``str.find`` finds those
    places in C, one search per word (or a prefix several share) and, after
    a run, from the run's end, and the pattern is tried there alone, in
    order, as ``finditer`` tries it. A text with few letters
    (:data:`FEW_LETTERS`: digits, another script), which ``finditer``
    crosses fast, a long or a short one (:data:`LONG_TEXT`,
    :data:`SHORT_TEXT`) and a text whose lower case moves offsets
    (:data:`LOWER_EXPANDS`) are searched by ``finditer``.

    Args:
        text: Any text.

    Yields:
        The runs, in text order.
    """
    if (
        not SHORT_TEXT <= len(text) < LONG_TEXT
        or text.count("e") * FEW_LETTERS < len(text)
        or LOWER_EXPANDS in text
    ):
        return WORDS_RE.finditer(text)
    return _searched_runs(text)


def _searched_runs(text: str) -> Iterator[re.Match[str]]:
    """:func:`word_runs` by the searches, for a text whose lower case keeps its offsets."""
    lowered = text.lower()
    find = lowered.find
    # The next place of each start word not yet tried, smallest first.
    pending = [(at, word) for word in _NEEDLES if (at := find(word)) >= 0]
    heapq.heapify(pending)
    match = WORDS_RE.match
    position = 0
    while pending:
        at, word = pending[0]
        if at >= position:
            before = at
            while before and lowered[before - 1] in " \t":
                before -= 1
            # "a dozen", "An eighth": a run may start at the article. No
            # needle begins with "a" or fits in an article's "n" and the
            # spaces: no place of one lies between the article and this word.
            article = -1
            if before < at:
                if lowered[before - 1 : before] == "a":
                    article = before - 1
                elif lowered[before - 2 : before] == "an":
                    article = before - 2
            run = match(text, article) if article >= position else None
            if run is None:
                run = match(text, at)
            if run is not None:
                yield run
                position = run.end()
        following = find(word, max(at + 1, position))
        if following >= 0:
            heapq.heapreplace(pending, (following, word))
        else:
            heapq.heappop(pending)


def word_values(text: str) -> set[Value]:
    """
    Return every value the numbers in words of ``text`` provide, as a chunk's reading.

    Args:
        text: Chunks, joined.

    Returns:
        The values, with the other readings of each (:attr:`WordNumber.also`).
    """
    values: set[Value] = set()
    for number in word_numbers(text):
        values.add(number.value)
        values.update(number.also)
    return values


# A number word of a run and the separator after it, ending where a search
# stops: one step back along a run (see :func:`run_start`).
_WORD_BEFORE = re.compile(rf"(?<![^\W_])(?:{_WORD})(?:{_SEPARATOR})\Z")

#: Characters looked back for one word and its separator.
_STEP_BACK = 40


def run_start(text: str, position: int, limit: int) -> int | None:
    """
    Return where the run of number words holding the word at ``position`` may start.

    Steps back word by word while a number word and a separator come before;
    from the offset returned, :data:`WORDS_RE` finds the runs a reading of
    the whole text finds.

    Args:
        text: The text.
        position: The start of a word of a run.
        limit: Most characters to step back.

    Returns:
        The offset, or None when the run goes back further than ``limit``.
    """
    start = position
    while True:
        step = _WORD_BEFORE.search(text, max(0, start - _STEP_BACK), start)
        if step is None:
            return start
        start = step.start()
        if position - start > limit:
            return None


_DENOMINATOR_WORDS: dict[int, frozenset[str]] = {}
for _word, _value in (*_SINGULAR_DENOMINATORS.items(), *_PLURAL_DENOMINATORS.items()):
    _DENOMINATOR_WORDS[_value] = _DENOMINATOR_WORDS.get(_value, frozenset()) | {_word}

#: Scales a fraction of which may be written in words (``half a million``).
_FRACTION_SCALES = (12, 100, *_SCALE_WORDS.values())


@functools.lru_cache(maxsize=4096)
def head_words(value: Value) -> frozenset[str]:
    """
    Return words of which one occurs in every writing of ``value`` in words.

    For a whole number below 100, the words it begins with (``77``:
    ``seventy``; ``3``: ``three``, ``third``); from 100, the scale word every
    writing of it holds (``hundred`` in ``three hundred and five``,
    ``thousand`` in ``two thousand and one``; rarer words than ``one``), and
    for a year the first word of its year form (``nineteen`` of ``nineteen
    forty-five``); multiples of twelve, ``dozen``; the fractions of a scale
    it may be, their denominators (``500000``: ``half``). For a fraction,
    its denominator's words (``2/3``: ``third``, ``thirds``), and for a
    decimal its whole part's (``66.7``: ``sixty``, of ``sixty-six point
    seven``; below one, ``point``). The chunk side
    searches these and reads whole only the runs of number words that hold one.

    Args:
        value: A whole number up to
            :data:`relapse.grounding._values.keys.MAX_WORD_VALUE`, or a fraction.

    Returns:
        The words, lower case; empty when no writing in words has the value.
    """
    if isinstance(value, Fraction) and value.denominator != 1:
        denominator = value.denominator
        whole = value.numerator // denominator
        if not whole or _DECIMAL_PLACES_POWER % denominator:
            words = _denominator_words(denominator)  # "three quarters", "two thirds"
            # Below one, also "zero point seven five" or "point seven five".
            return words | {"point"} if not whole and denominator in _DECIMALS else words
        # From one up, a decimal is written with its whole part: "sixty-six
        # point seven", "two and a half" (and "five halves", its denominator).
        of_whole = head_words(whole)
        return of_whole | _denominator_words(denominator) if denominator in (2, 4) else of_whole
    whole = int(value)
    heads: set[str] = set()
    # An ordinal in one word that does not hold its cardinal ("third",
    # "twentieth"; "fourteenth" holds "fourteen", "hundredth" "hundred").
    if whole < 20:
        heads.add(_SMALL[whole])
        if not _ORDINAL_SMALL[whole].startswith(_SMALL[whole]):
            heads.add(_ORDINAL_SMALL[whole])
    elif whole < 100:
        tens = _TENS[whole // 10 - 2]
        heads.add(tens)
        if whole % 10 == 0:
            heads.add(tens[:-1] + "ieth")
    elif whole < 1000:
        heads.add("hundred")
    else:
        for word, scale in _SCALE_WORDS.items():
            if 1 <= whole // scale < 10000:  # "twelve hundred thousand"
                heads.add(word)
        if whole < 10000:
            heads.add("hundred")  # "twelve hundred"
            if 10 <= whole // 100 <= 20 and whole % 100:
                heads.add(_SMALL[whole // 100] if whole < 2000 else "twenty")  # a year
    if whole and whole % 12 in _DOZEN_REMAINDERS and whole // 12 < 100:
        heads.add("dozen")  # "a dozen", "two dozen", "a dozen and a half" (18)
    for scale in _FRACTION_SCALES:
        denominator = scale // math.gcd(whole, scale)  # of whole / scale, in lowest terms
        mixed = scale >= 1000 and whole < 1000 * scale  # "two and a half million"
        if denominator in _SCALED_DENOMINATORS and (whole < scale or mixed):
            heads |= _denominator_words(denominator)
    return frozenset(heads)


# What a whole number of dozens and a half, a third or a quarter of one
# leaves over twelve dozens: "a dozen and a half" is 18.
_DOZEN_REMAINDERS = frozenset({0, 3, 4, 6})

# Every decimal fraction of up to 40 places divides it: a fraction whose
# denominator does is a decimal a writing in words may give with "point".
_DECIMAL_PLACES_POWER = 10**40
# Denominators of decimals of up to three places below one, which "point" writes.
_DECIMALS = frozenset(d for d in range(1, 1001) if 1000 % d == 0)


@functools.lru_cache(maxsize=64)
def _denominator_words(denominator: int) -> frozenset[str]:
    """Return the words of the denominators a fraction in lowest terms may be written with."""
    # "two quarters" is one half: any multiple of the denominator.
    return frozenset(
        word
        for written, words in _DENOMINATOR_WORDS.items()
        if written % denominator == 0
        for word in words
    )
