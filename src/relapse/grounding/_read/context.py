"""
Context rules: what the words around a number say about it.

A hedge before it (``about``, ``at least``, ``up to``), a list marker
(``3. Print``), a reference to the prompt's own structure (``Passage 2``) or
a parenthesised conversion (``40 °C (104 °F)``). Every rule reads a bounded
window around the number, so a verdict depends on its neighbourhood only.
"""

from __future__ import annotations

import re

from relapse.grounding._read.normalize import ENCLOSED_NUMBERS
from relapse.grounding._values.keys import CURRENCY_SYMBOLS
from relapse.grounding._values.tags import Hedge

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

#: A piece of every reference word (:data:`_REFERENCE_WORDS`), in lower case:
#: a window without one holds no reference (see :func:`may_hold`).
REFERENCE_STEMS = (
    "passage", "doc", "source", "chunk", "excerpt", "text", "ref", "snippet", "result",
    "paragraph", "article", "step", "question", "option",
)  # fmt: skip

#: A piece of every hedge of :data:`_HEDGE_BEFORE`, in lower case: "mo" for
#: "more" and "most", "ab" for "about" and "above", "up" for "up to" and
#: "upwards of", "few" for "fewer" too; "c." and "ca." apart.
HEDGE_STEMS = (
    "mo", "under", "less", "few", "up", "below", "little", "least", "over", "ab", "excess",
    "many", "much", "around", "approx", "roughly", "nearly", "almost", "some", "close",
    "circa", "ca.", "c.", "estimated", "~",
)  # fmt: skip


def may_hold(window: str, stems: tuple[str, ...]) -> bool:
    """
    Tell whether ``window`` may hold a word that one of ``stems`` is a piece of, in any case.

    A cheap test before a regex search of the window: a rule's words are
    matched case-insensitively, and an ASCII window lowered holds a word so
    matched only as itself lowered, so without any stem it holds none. A
    window with other characters is searched anyway (case-insensitive
    matching relates some of them to ASCII letters: the Kelvin sign to
    ``k``, the long s to ``s``).

    Args:
        window: The text a rule searches.
        stems: Lower-case pieces, one inside every word the rule matches.

    Returns:
        False only when no match of the rule's words can be in ``window``.
    """
    if not window.isascii():
        return True
    lowered = window.lower()
    for stem in stems:  # noqa: SIM110 (a generator costs more than the tests themselves)
        if stem in lowered:
            return True
    return False


def hedge(text: str, start: int) -> Hedge | None:
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
    low = max(0, start - HEDGE_WINDOW)
    if not may_hold(text[low:start], HEDGE_STEMS):
        return None
    return hedge_direction(_HEDGE_BEFORE.search(text, low, start))


def hedge_direction(match: re.Match[str] | None) -> Hedge | None:
    """Return the direction of a match of the hedge pattern (see :func:`hedge`), or None."""
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
    low = max(0, start - MARKER_WINDOW)
    # The marker's context opens the text or follows a line break in the
    # window ("^" matches only at the text's start): a window with neither
    # needs no search.
    opens_line = (low == 0 or text.find("\n", low, start) >= 0) and (
        _MARKER_BEFORE.search(text, low, start) is not None
    )
    if end - start == 1 and text[start] in ENCLOSED_NUMBERS:
        # "③ Rinse": an enclosed number opening a line marks it by itself.
        return opens_line
    if opens_line:
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
    # The digits first, so the search skips to them (the engine looks for a
    # pattern's literal prefix); the look-behind after them tests the
    # character before them, as one before them would.
    previous = re.compile(rf"{number - 1}(?<![\w.,]{number - 1})[.)][ \t]+[^\W\d_]")
    return previous.search(text, max(0, start - INLINE_MARKER_WINDOW), start) is not None


# A parenthesised conversion right after a quantity: "58 degrees Fahrenheit
# (15 degrees Celsius)", "6 feet (1.8 m)", "1.5 hours (90 minutes)", "£10 ($13)".
_UNITS = (
    r"(?i:°\s*(?:celsius|fahrenheit|centigrade|[CF])?|degrees?(?:\s+(?:celsius|fahrenheit|centigrade))?|celsius|fahrenheit"
    r"|[kcm]?m|kilomet(?:er|re)s?|met(?:er|re)s?|centimet(?:er|re)s?|millimet(?:er|re)s?"
    r"|miles?|mi|feet|foot|ft|inch(?:es)?|in|yards?|yd|kg|kilograms?|g|grams?|pounds?|lbs?"
    r"|ounces?|oz|l|lit(?:er|re)s?|ml|millilit(?:er|re)s?|gallons?|gal|quarts?|cups?"
    r"|mph|km/h|kph|acres?|hectares?|ha|square\s+(?:feet|met(?:er|re)s|miles)"
    r"|seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?)"
    # Kelvin: "180 °C (453 K)", "300 K (27 °C)"; a capital K only ("5 k" is no unit).
    r"|[Kk]elvins?|K"
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
    if text.find(")", end, end + AFTER_WINDOW) < 0:
        return None  # both conversions end with a closing parenthesis
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
    # Both searches of the window before the number need a reference word there.
    words_before = may_hold(text[low:start], REFERENCE_STEMS)
    if words_before and _REFERENCE_BEFORE.search(text, low, start) is not None:
        return True
    if _REFERENCE_AFTER.match(text, end, end + AFTER_WINDOW) is not None:
        return True
    bracket_from = max(0, start - 12)
    if (
        text.find("[", bracket_from, start) >= 0
        and _BRACKET_BEFORE.search(text, bracket_from, start) is not None
        and _BRACKET_AFTER.match(text, end, end + AFTER_WINDOW) is not None
    ):
        return True
    return words_before and _PAREN_REFERENCE.search(text, low, start) is not None


#: Characters before and after a claim that every rule reading its context
#: stays within, but the inline-enumeration look-back (INLINE_MARKER_WINDOW),
#: which only a number before "." or ")" needs.
CONTEXT_BEFORE = max(REFERENCE_WINDOW, CONVERSION_WINDOW, HEDGE_WINDOW, MARKER_WINDOW) + 8
CONTEXT_AFTER = AFTER_WINDOW
