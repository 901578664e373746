"""
Writings the scanner reads through a rewrite: invisible characters, vulgar fractions, powers of ten.

Before a text is scanned, characters a reader does not see are deleted
(``12<U+200B>500`` is 12500), vulgar fractions are written with a slash
(``3½`` is ``3 1/2``, ``¾`` is ``3/4``), enclosed numbers with digits
(``③`` is 3) and a power of ten written with a
superscript exponent, or a caret and an exponent in digits, is written out
(``10⁹`` and ``10^9`` are 1000000000, ``2.5 × 10⁻³`` and ``2.5 x 10^-3``
are 0.0025). The rewrite keeps a map back to the original offsets, so every
claim's span is still a substring of the text as written. A text with none
of these characters, and no ``10^`` (nearly every ASCII text), is scanned as
it is.
"""

from __future__ import annotations

import re
import unicodedata
from decimal import Decimal, InvalidOperation

from relapse.grounding._text import INVISIBLE

_VULGAR = {
    "\u00bc": "1/4",
    "\u00bd": "1/2",
    "\u00be": "3/4",
    "\u2150": "1/7",
    "\u2151": "1/9",
    "\u2152": "1/10",
    "\u2153": "1/3",
    "\u2154": "2/3",
    "\u2155": "1/5",
    "\u2156": "2/5",
    "\u2157": "3/5",
    "\u2158": "4/5",
    "\u2159": "1/6",
    "\u215a": "5/6",
    "\u215b": "1/8",
    "\u215c": "3/8",
    "\u215d": "5/8",
    "\u215e": "7/8",
    "\u2189": "0/3",
}


def _enclosed_numbers() -> dict[str, str]:
    """
    Return the enclosed numbers and their writing in ASCII: ``③`` is ``3``, ``⑴`` is ``(1)``.

    Circled (``①`` to ``⑳``, ``㉑`` to ``㊿``, ``⓪``, the negative and double
    circled ones, the dingbats ``❶`` to ``➓``), parenthesized (``⑴``) and
    with a full stop (``⒈``): each is its number, the way a reader reads it.
    """
    table: dict[str, str] = {}
    circled = ((0x2460, 0x2473), (0x24EA, 0x24FF), (0x2776, 0x2793), (0x3251, 0x325F))
    for first, last in (*circled, (0x32B1, 0x32BF)):
        for code in range(first, last + 1):
            value = unicodedata.numeric(chr(code), -1.0)
            if value >= 0 and value == int(value):
                table[chr(code)] = str(int(value))
    for code in range(0x2474, 0x2488):
        table[chr(code)] = f"({code - 0x2473})"
    for code in range(0x2488, 0x249C):
        table[chr(code)] = f"{code - 0x2487}."
    return table


#: Enclosed numbers (``③``, ``⑴``, ``⒈``) and what they are rewritten as.
ENCLOSED_NUMBERS = _enclosed_numbers()

_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
#: Largest power of ten written out: beyond it the exponent is left as written.
MAX_POWER = 100
#: What the rewrite touches: invisible characters, vulgar fractions, the
#: fraction slash, superscript digits and minus. A text without any of them
#: (and without a power of ten written with a caret, ``10^6``, whose
#: characters are all ASCII: see :func:`needs_rewrite`) is returned as it is.
REWRITTEN_CHARACTERS = frozenset(
    f"{INVISIBLE}{''.join(_VULGAR)}\u2044\u2070\u00b9\u00b2\u00b3"
    + "".join(chr(code) for code in range(0x2074, 0x207C))
    + "".join(ENCLOSED_NUMBERS)
)
#: The same, as the body of a regex character class.
REWRITTEN = "".join(sorted(REWRITTEN_CHARACTERS))
_SPECIAL = re.compile(f"[{REWRITTEN}]")
# The characters rewritten one by one.
_CHARACTER = re.compile(f"[{INVISIBLE}{''.join(_VULGAR)}\u2044{''.join(ENCLOSED_NUMBERS)}]")
# "10⁹", "3 × 10⁸", "2.5·10⁻³": an optional mantissa, then 10 and a
# superscript exponent. "m²" and "cm³" are units: no 10 before them. The
# same with a caret and ASCII digits, signed by "-", "+" or U+2212, bare or
# in parentheses or braces: "10^9", "2.5 x 10^-3", "10^(−3)", "10^{-3}"; a
# mantissa may have a decimal comma and one or two decimals ("2,5 × 10⁶"; three
# digits after a comma group thousands). A
# bare exponent is not one when a digit, or a point or comma and a digit,
# follows ("10^3.5" is no power of ten the check computes). Only 10 is a
# base: "2^10" and "x^2" are left as written.
_POWER = re.compile(
    r"(?:(?<![\d.,])(?P<mantissa>\d{1,15}(?:\.\d{1,15}|,\d{1,2}(?!\d))?)"
    r"[\ \u00a0]?[xX×·*⋅][\ \u00a0]?)?"
    r"(?<![\d.,])10(?:(?P<exponent>\u207b?[\u2070\u00b9\u00b2\u00b3\u2074-\u2079]{1,3})"
    r"|\^(?:(?P<caret>[-+\u2212]?[0-9]{1,3})(?![0-9]|[.,][0-9])"
    r"|\((?P<parenthesized>[-+\u2212]?[0-9]{1,3})\)"
    r"|\{(?P<braced>[-+\u2212]?[0-9]{1,3})\}))"
)
#: Where a text may hold a power of ten written with a caret (a superset of
#: the caret powers the rewrite reads: their lookbehind is left to it).
#: Starting with a literal, it is searched for in C.
CARET_POWER = re.compile(r"10\^[({]?[-+\u2212]?[0-9]")
_SIGNS = str.maketrans("\u2212", "-")


def needs_rewrite(text: str) -> bool:
    """Tell whether :func:`normalize` would change ``text``."""
    if "^" in text and CARET_POWER.search(text) is not None:
        return True
    return not text.isascii() and _SPECIAL.search(text) is not None


def normalize(text: str) -> tuple[str, list[int] | None]:
    """
    Rewrite ``text`` for the scanner, with a map back to its offsets.

    Args:
        text: A chunk, a question or an answer.

    Returns:
        ``(rewritten, origin)``: ``origin[i]`` is the offset in ``text`` of
        the character ``rewritten[i]`` came from, with one more entry,
        ``len(text)``, for the end. ``origin`` is None when nothing was
        rewritten (``rewritten is text``).
    """
    if not needs_rewrite(text):
        return text, None
    pieces: list[str] = []
    origin: list[int] = []
    position = 0
    for match in _POWER.finditer(text):
        _rewrite_characters(text, position, match.start(), pieces, origin)
        written = _power(match)
        if written is None:
            _rewrite_characters(text, match.start(), match.end(), pieces, origin)
        else:
            pieces.append(written)
            origin.extend([match.start()] * (len(written) - 1) + [match.end() - 1])
        position = match.end()
    _rewrite_characters(text, position, len(text), pieces, origin)
    origin.append(len(text))
    return "".join(pieces), origin


def _power(match: re.Match[str]) -> str | None:
    """Write ``3 × 10⁸`` or ``3 x 10^8`` out in digits (``300000000``), or None when too large."""
    superscript = match["exponent"]
    if superscript is not None:
        exponent = int(superscript.translate(_SUPERSCRIPTS))
    else:
        caret = match["caret"] or match["parenthesized"] or match["braced"]
        assert caret is not None  # the pattern's one other exponent
        exponent = int(caret.translate(_SIGNS))
    if abs(exponent) > MAX_POWER:
        return None
    try:
        value = Decimal((match["mantissa"] or "1").replace(",", ".")).scaleb(exponent)
    except InvalidOperation:
        return None
    written = format(value.normalize(), "f")
    # One character cannot map back to both ends of "3×10^0" (the span's start
    # and end come from its first and last characters): "3.0" reads as 3 too.
    # Four digits would read as a year ("150 × 10^1" is the number 1500, and
    # "1500" alone may be the year): "1500.0" reads as the number.
    if len(written) > 1 and not (len(written) == 4 and written.isdigit()):
        return written
    return written + ".0"


def _rewrite_characters(
    text: str, start: int, end: int, pieces: list[str], origin: list[int]
) -> None:
    """Copy ``text[start:end]`` without invisible characters, fractions written with a slash."""
    position = start
    for match in _CHARACTER.finditer(text, start, end):
        index = match.start()
        if position < index:  # the run before it, copied whole
            pieces.append(text[position:index])
            origin.extend(range(position, index))
        position = index + 1
        char = match.group()
        if char in INVISIBLE:
            continue
        enclosed = ENCLOSED_NUMBERS.get(char)
        if enclosed is not None:
            # "①②" is 1 and 2, "③5" is 3 and 5: a space keeps them apart.
            written = enclosed
            if pieces and pieces[-1][-1:].isdecimal():
                written = " " + written
            if text[index + 1 : index + 2].isdecimal():
                written += " "
        else:
            written = "/" if char == "\u2044" else _VULGAR[char]  # fraction slash: "1⁄2"
            if written != "/" and pieces and pieces[-1][-1:].isdigit():
                written = " " + written  # "3½" is the mixed number "3 1/2"
        pieces.append(written)
        origin.extend([index] * len(written))
    if position < end:
        pieces.append(text[position:end])
        origin.extend(range(position, end))


def origin_span(origin: list[int], start: int, end: int) -> tuple[int, int]:
    """
    Map a span of the rewritten text back to the original text.

    Args:
        origin: The map :func:`normalize` returned.
        start: The span's start in the rewritten text.
        end: Its end (exclusive), greater than ``start``.

    Returns:
        ``(start, end)`` in the original text: from the first character's
        origin to just past the last character's.
    """
    return origin[start], origin[end - 1] + 1
