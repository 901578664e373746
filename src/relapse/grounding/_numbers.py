"""
Numbers: value keys, numbers written as words, and the context rules around them.

A number is compared by value, never by spelling. Its value is kept as a
*key* ``("n", significant_digits, exponent)`` built from the digit string, so
``29,000``, ``29 000``, ``29000.0``, ``29 thousand`` and ``twenty-nine
thousand`` share one key, ``1.25`` and ``12.5`` do not, and a number with
thousands of digits is just a longer string: no ``int`` conversion limit, no
float overflow to ``inf``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from decimal import Context, Decimal

from relapse.grounding._text import trie_pattern

#: A hashable index key. The first item is a tag: ``"n"`` (number value),
#: ``"t"`` (token such as ``GPT-4``), ``"d"`` (date pattern), ``"dec"`` and
#: ``"dec2"`` (decades), ``"cent"`` (centuries).
Key = tuple[str | int | None, ...]

#: Significant digits beyond which a number is compared only exactly: the
#: rounding that hedged numbers need is done with :class:`decimal.Decimal`,
#: which is exact up to this precision.
MAX_ROUNDING_DIGITS = 40

#: Exact Decimal arithmetic for hedged comparisons, whatever the exponent.
DECIMAL_CONTEXT = Context(prec=MAX_ROUNDING_DIGITS + 20, Emax=10**9, Emin=-(10**9))

#: Scale words and abbreviations, as powers of ten.
SCALE_EXPONENTS = {
    "hundred": 2,
    "thousand": 3,
    "k": 3,
    "million": 6,
    "mn": 6,
    "m": 6,
    "billion": 9,
    "bn": 9,
    "b": 9,
    "trillion": 12,
    "tn": 12,
}

#: Abbreviations that are a scale only right after a currency symbol
#: (``$5m``, ``£2b``); elsewhere ``5m`` is five metres and ``2b`` a label.
CURRENCY_ONLY_SCALES = frozenset({"m", "b", "tn"})

#: Currency symbols that may precede a number, as part of its span.
CURRENCY_SYMBOLS = "$€£¥₹₩₽₺₦₱฿₫₴₪¢"

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
_WORD_ALTERNATION = trie_pattern(_NUMBER_WORDS)
#: Largest value whose spelled-out forms are looked up in the chunks.
MAX_WORD_VALUE = 10**15
#: Characters enough for the longest number in words below MAX_WORD_VALUE
#: ("seven hundred and seventy-seven trillion seven hundred ..." is ~260).
MAX_WORD_NUMBER = 400


def _cased(words: tuple[str, ...]) -> set[str]:
    """Return ``words`` in lower case, capitalized and in capitals."""
    return {form for word in words for form in (word, word.capitalize(), word.upper())}


def _first_word() -> str:
    """
    Return the pattern of a run's first word, each branch led by a literal letter.

    Literal-led branches let the regex engine skip in C to the letters that can
    start a number word; the word-boundary lookbehind comes right after that
    first letter (looking two characters back), with the same meaning.
    """
    by_initial: dict[str, set[str]] = {}
    for form in _cased(_NUMBER_WORDS):
        by_initial.setdefault(form[0], set()).add(form[1:])
    branches = [
        f"{re.escape(initial)}(?<![^\\W_].){trie_pattern(rests)}"
        for initial, rests in sorted(by_initial.items())
    ]
    # "a dozen", "A hundred": the article counts as 1, before a scale word only.
    branches += [
        f"{article}(?<![^\\W_].)[ \\t]+{trie_pattern(_cased(_ARTICLE_SCALES))}"
        for article in ("a", "A")
    ]
    return "(?:" + "|".join(branches) + ")"


_ARTICLE_SCALES = ("dozen", "hundred", "thousand", "million", "billion", "trillion")
_WORD = trie_pattern(_cased(_NUMBER_WORDS))
_AND = trie_pattern(_cased(("and",)))
# A run of number words: "seventy-seven", "two hundred and twelve", "a dozen",
# in lower case, capitalized or in capitals (the chunk-side lookup searches
# the same three spellings). Separators and words are disjoint, so the
# repetition cannot backtrack.
WORDS_RE = re.compile(
    rf"{_first_word()}(?![^\W_])"
    rf"(?:(?:[ \t]+{_AND}[ \t]+|[ \t]*-[ \t]*|[ \t]+){_WORD}(?![^\W_]))*"
)
_WORD_RE = re.compile(r"[A-Za-z]+")

# Hedges before a number. "about 30" claims "roughly this much"; "at least
# 200" a lower bound and "up to 30" an upper one. The search is anchored at
# the number and finds the leftmost hedge that reaches it, so "no more than"
# wins over "more than".
_HEDGE_BEFORE = re.compile(
    r"(?:(?<![^\W_])(?i:"
    r"(?P<below>no\s+more\s+than|not\s+more\s+than|at\s+most|under|less\s+than|"
    r"fewer\s+than|up\s+to|below|as\s+(?:few|little)\s+as)"
    r"|(?P<above>at\s+least|no\s+(?:fewer|less)\s+than|not\s+less\s+than|more\s+than|"
    r"over|upwards\s+of|above|in\s+excess\s+of|as\s+(?:many|much)\s+as)"
    r"|about|around|approximately|approx\.?|roughly|nearly|almost|some|close\s+to|circa|"
    r"ca\.|c\.|an\s+estimated|estimated)|~|≈|\u223c)[\s\u00a0]*$"
)
#: Characters after a number that the rules reading what follows it look at
#: (a unit, a closing parenthesis, "passages"): every rule is local to a
#: bounded window, so a verdict depends on the claim's neighbourhood only.
AFTER_WINDOW = 80
#: Window before a number searched for a hedge, in characters.
HEDGE_WINDOW = 20

# A line-leading list marker: "3. Print", "2) Seal", "(4) Dry", "**1.** Rinse",
# "Step 3:". Its number orders the answer; it claims nothing about the world.
_MARKER_BEFORE = re.compile(r"(?:^|\n)[ \t>#*•·\-–—]*(?:\(|(?i:step|tip|option|method|way)\s+)?$")
_MARKER_AFTER = re.compile(r"(?:\*\*)?[.):\-\u2013\u2014](?:\*\*)?(?:[ \t]|$)", re.MULTILINE)
#: Window before a number searched for a list-marker context, in characters.
MARKER_WINDOW = 24

# A reference to the context itself ("(Passage 3)", "passage 2 and passage 3",
# "passages 1, 2, and 3", "Document 2", "[chunk 0]") or to the answer's own
# structure ("Question 3:", "repeat step 4 and 5", "Option 2").
_REFERENCE_WORDS = (
    r"(?i:passages?|documents?|docs?|sources?|chunks?|excerpts?|contexts?|references?|refs?"
    r"|snippets?|search\s+results?|results?|paragraphs?|texts?|articles?"
    r"|steps?|questions?|options?)"
)
_REFERENCE_BEFORE = re.compile(
    rf"(?<![^\W_]){_REFERENCE_WORDS}[\s\u00a0]*(?:#|(?i:no\.?|number))?[\s\u00a0]*"
    # Each repetition ends with a separator, so a digit run is read one way only.
    r"(?:\d+[\s\u00a0]*(?:[,&/\-–][\s\u00a0]*(?:(?i:and|or|to)[\s\u00a0]+)?"
    r"|(?i:and|or|to)[\s\u00a0]+))*$"
)
# "the three provided passages", "all 3 documents": a count of the context.
_REFERENCE_AFTER = re.compile(
    r"[\s\u00a0]+(?:(?i:provided|given|retrieved|supplied|above|available)[\s\u00a0]+)?"
    r"(?i:passages|documents|sources|excerpts|chunks|contexts|snippets|search\s+results)\b"
)
#: Window before a number searched for a passage-reference context.
REFERENCE_WINDOW = 60
_BRACKET_BEFORE = re.compile(r"\[[\s\d,\-–]*$")
_BRACKET_AFTER = re.compile(r"[\s\d,\-–]*\]")
_PAREN_REFERENCE = re.compile(rf"\(\s*{_REFERENCE_WORDS}[^()\n]*$")


def number_key(integer: str, fraction: str = "", exponent: int = 0) -> Key:
    """
    Return the value key of a number written with ASCII digits.

    Args:
        integer: The integer digits, without separators (may be empty).
        fraction: The digits after the decimal point.
        exponent: A power of ten to scale by (6 for ``million``).

    Returns:
        ``("n", significant_digits, exponent)``, with leading and trailing
        zeros removed, so equal values have equal keys.
    """
    digits = (integer + fraction).lstrip("0")
    if not digits:
        return ("n", "0", 0)
    stripped = digits.rstrip("0")
    return ("n", stripped, exponent - len(fraction) + len(digits) - len(stripped))


#: Most decimal places a fraction's value is written with (1/64 = 0.015625).
MAX_FRACTION_PLACES = 6


def fraction_key(whole: int, numerator: int, denominator: int) -> Key | None:
    """
    Return the value key of ``whole + numerator/denominator`` when its decimals end.

    Args:
        whole: The whole part (0 for a plain fraction).
        numerator: The fraction's numerator.
        denominator: The fraction's denominator.

    Returns:
        The key :func:`number_key` gives the value written in decimals
        (``2 1/4``: the key of ``2.25``), or None when the decimals do not end
        within :data:`MAX_FRACTION_PLACES` places (``1/3``).
    """
    if denominator <= 0:
        return None
    for places in range(MAX_FRACTION_PLACES + 1):
        scale = 10**places
        if scale % denominator == 0:
            scaled = str((whole * denominator + numerator) * (scale // denominator))
            digits = scaled.rjust(places + 1, "0")
            return number_key(digits[: len(digits) - places], digits[len(digits) - places :])
    return None


def int_key(value: int) -> Key:
    """
    Return the value key of a non-negative ``int``.

    Args:
        value: The number.

    Returns:
        Its key, as :func:`number_key` builds it.
    """
    return number_key(str(value))


def key_decimal(key: Key) -> Decimal | None:
    """
    Return the value of a number key as a Decimal, or None when it is too long.

    Args:
        key: A key built by :func:`number_key`.

    Returns:
        The value, or None when it has more than :data:`MAX_ROUNDING_DIGITS`
        significant digits.
    """
    if key[0] != "n":
        return None  # a negative number, a token, a date
    digits = key[1]
    exponent = key[2]
    if not isinstance(digits, str) or not isinstance(exponent, int):
        return None
    if len(digits) > MAX_ROUNDING_DIGITS:
        return None
    return Decimal(f"{digits}E{exponent}")


def key_int(key: Key) -> int | None:
    """
    Return the value of a number key as an ``int`` when it is a whole number
    small enough to be spelled out in words.

    Args:
        key: A key built by :func:`number_key`.

    Returns:
        The integer, or None.
    """
    if key[0] != "n":
        return None  # a negative number, a token, a date
    digits = key[1]
    exponent = key[2]
    if not isinstance(digits, str) or not isinstance(exponent, int):
        return None
    if exponent < 0 or len(digits) + exponent > 16:
        return None
    value = int(digits) * 10**exponent
    return value if value <= MAX_WORD_VALUE else None


def rounding_interval(key: Key, precision: int) -> tuple[Decimal, Decimal] | None:
    """
    Return the closed interval of values that round to ``key`` at ``precision``.

    Args:
        key: The hedged number's key.
        precision: The power of ten of its last written digit (``1.2
            million``: 5).

    Returns:
        ``(low, high)``, or None when the number is too long to round.
    """
    value = key_decimal(key)
    if value is None:
        return None
    half = DECIMAL_CONTEXT.multiply(Decimal(5), DECIMAL_CONTEXT.power(10, precision - 1))
    return DECIMAL_CONTEXT.subtract(value, half), DECIMAL_CONTEXT.add(value, half)


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


def hedge(text: str, start: int) -> str | None:
    """
    Return the hedge before the number starting at ``start``, if any.

    Args:
        text: The answer.
        start: The number's start offset (its currency symbol, if any).

    Returns:
        ``"above"`` for a lower bound (``at least``, ``more than``,
        ``over``), ``"below"`` for an upper bound (``under``, ``fewer
        than``, ``up to``), ``"about"`` for the other hedges (``about``,
        ``around``, ``roughly``, ``~``), or None.
    """
    match = _HEDGE_BEFORE.search(text, max(0, start - HEDGE_WINDOW), start)
    if match is None:
        return None
    if match.group("above") is not None:
        return "above"
    if match.group("below") is not None:
        return "below"
    return "about"


def is_list_marker(text: str, start: int, end: int) -> bool:
    """
    Tell whether the number at ``start:end`` is a list marker (``3. Print``).

    Args:
        text: The answer.
        start: The number's start offset.
        end: The number's end offset.

    Returns:
        True when the number opens a line (after bullets or ``Step``) and is
        followed by ``.``, ``)`` or ``:`` and a space, or continues an inline
        enumeration (``1. salt 2. pepper``).
    """
    if end - start > 3:
        return False
    if _MARKER_BEFORE.search(text, max(0, start - MARKER_WINDOW), start) is not None:
        return _MARKER_AFTER.match(text, end, end + AFTER_WINDOW) is not None
    return _is_inline_marker(text, start, end)


# An enumeration written on one line, as models that stop at a line break do:
# "Causes include 1. hormones 2. genes 3. sun exposure."
_INLINE_AFTER = re.compile(r"[.)][ \t]+(?=[^\W\d_])")
#: How far back the previous marker of an inline enumeration is looked for,
#: in characters; bounded so the search stays linear in the answer.
INLINE_MARKER_WINDOW = 600


def _is_inline_marker(text: str, start: int, end: int) -> bool:
    """
    Tell whether ``N`` at ``start:end`` continues an inline enumeration.

    ``N.`` or ``N)`` followed by a word is a marker when ``N - 1`` stands the
    same way within :data:`INLINE_MARKER_WINDOW` characters before it, so a
    sentence ending in a number ("it has 4. Then") is still a claim unless a
    ``3.`` marker precedes it.
    """
    digits = text[start:end]
    if len(digits) > 2 or not digits.isdecimal():
        return False
    if start > 0 and (text[start - 1].isalnum() or text[start - 1] in ".,$€£"):
        return False
    if _INLINE_AFTER.match(text, end, end + AFTER_WINDOW) is None:
        return False
    number = int(digits)
    if number < 2:
        return False
    previous = re.compile(rf"(?<![\w.,]){number - 1}[.)][ \t]+[^\W\d_]")
    return previous.search(text, max(0, start - INLINE_MARKER_WINDOW), start) is not None


# A parenthesised conversion right after a quantity: "58 degrees Fahrenheit
# (15 degrees Celsius)", "6 feet (1.8 m)", "1.5 hours (90 minutes)", "£10 ($13)".
_UNITS = (
    r"(?i:°\s*[CF]?|degrees?(?:\s+(?:celsius|fahrenheit|centigrade))?|celsius|fahrenheit"
    r"|[kcm]?m|kilomet(?:er|re)s?|met(?:er|re)s?|centimet(?:er|re)s?|millimet(?:er|re)s?"
    r"|miles?|mi|feet|foot|ft|inch(?:es)?|in|yards?|yd|kg|kilograms?|g|grams?|pounds?|lbs?"
    r"|ounces?|oz|l|lit(?:er|re)s?|ml|millilit(?:er|re)s?|gallons?|gal|quarts?|cups?"
    r"|mph|km/h|kph|acres?|hectares?|ha|square\s+(?:feet|met(?:er|re)s|miles)"
    r"|seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?)"
)
_CONVERSION_BEFORE = re.compile(
    rf"\d[\s\u00a0]*(?:{_UNITS})?[\s\u00a0]*\([\s\u00a0]*(?i:about|approx\.?|approximately|~)?"
    r"[\s\u00a0]*$"
)
_CONVERSION_AFTER = re.compile(rf"[\s\u00a0]*(?:{_UNITS})\b\.?[\s\u00a0]*\)")
_CLOSING_PARENTHESIS = re.compile(r"[\s\u00a0]*\)")
#: Window before a number searched for the quantity it converts.
CONVERSION_WINDOW = 40


def converted_from(text: str, start: int, end: int) -> int | None:
    """
    Return where the quantity ends that a parenthesised number converts.

    ``58 degrees Fahrenheit (15 degrees Celsius)`` restates 58 °F in another
    unit: when 58 is supported, 15 is arithmetic, not a new claim.

    Args:
        text: The answer.
        start: The number's start offset.
        end: The number's end offset.

    Returns:
        The offset just past the converted quantity's last digit, or None when
        the number is not a parenthesised conversion.
    """
    money = text[start : start + 1] in CURRENCY_SYMBOLS and _CLOSING_PARENTHESIS.match(
        text, end, end + AFTER_WINDOW
    )
    if not money and _CONVERSION_AFTER.match(text, end, end + AFTER_WINDOW) is None:
        return None
    low = max(0, start - CONVERSION_WINDOW)
    before = _CONVERSION_BEFORE.search(text, low, start)
    return None if before is None else before.start() + 1


def is_reference(text: str, start: int, end: int) -> bool:
    """
    Tell whether the number at ``start:end`` refers to the context itself.

    ``(Passage 3)``, ``passage 2 and passage 3``, ``passages 1 and 2``,
    ``[2]``, ``(Passage 1, step 6)`` name parts of the prompt, not facts.

    Args:
        text: The answer.
        start: The number's start offset.
        end: The number's end offset.

    Returns:
        True for a reference.
    """
    low = max(0, start - REFERENCE_WINDOW)
    if _REFERENCE_BEFORE.search(text, low, start) is not None:
        return True
    if _REFERENCE_AFTER.match(text, end, end + AFTER_WINDOW) is not None:
        return True
    if (
        _BRACKET_BEFORE.search(text, max(0, start - 12), start) is not None
        and _BRACKET_AFTER.match(text, end, end + AFTER_WINDOW) is not None
    ):
        return True
    return _PAREN_REFERENCE.search(text, low, start) is not None
