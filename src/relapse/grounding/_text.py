"""Text folding shared by the quotation and echo checks, and digit normalization."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from typing import Any

#: Every glyph that can open or close a quotation, or act as an apostrophe.
#: Folding deletes them, so ``“the ‘best’ plan”`` and ``"the 'best' plan"`` and
#: ``the best plan`` compare equal: quote style is typography, not content.
QUOTE_GLYPHS = (
    "\"'`´\u2018\u2019\u201a\u201b\u201c\u201d\u201e\u201f\u2039\u203a\u00ab\u00bb"
    "\u2032\u2033\uff02\uff07\u300c\u300d\u300e\u300f\u301d\u301e\u301f"
    "\ufe41\ufe42\ufe43\ufe44\uff62\uff63"
)

#: Characters a reader does not see, deleted before scanning and folding:
#: zero-width space, non-joiner and joiner, word joiner, soft hyphen, BOM,
#: and the left-to-right, right-to-left and Arabic letter marks that
#: right-to-left text puts around numbers (``\u200e-5``).
INVISIBLE = "\u200b\u200c\u200d\u2060\u00ad\ufeff\u200e\u200f\u061c"

#: Dashes folded to ``-``: hyphen, non-breaking hyphen, figure dash, en and em
#: dash, horizontal bar, minus sign, small and full-width hyphen-minus.
DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"

#: The spaces a number, a month name or a unit may be written with:
#: space, no-break space, narrow no-break space.
SPACES = " \u00a0\u202f"

# The glyphs fold() deletes, ASCII and the others apart (every dash is other).
_ASCII_QUOTE_GLYPHS = "".join(glyph for glyph in QUOTE_GLYPHS if glyph.isascii())
_OTHER_DELETED = "".join(glyph for glyph in QUOTE_GLYPHS + INVISIBLE if not glyph.isascii())

#: Every ASCII byte: deleting them from UTF-8 leaves the other characters'
#: bytes, each character's together (see :func:`non_ascii`).
ASCII_BYTES = bytes(range(128))


def non_ascii(text: str, encoded: bytes | None = None) -> str:
    """
    Return the characters of ``text`` other than ASCII, in order (found in C passes).

    Most texts hold a few (quotes, dashes), so a test of whether a text holds
    some character other than ASCII searches these instead of the text.

    Args:
        text: Any text (lone surrogates kept).
        encoded: ``text`` in UTF-8 with lone surrogates kept, when the caller has it.

    Returns:
        The characters, ``""`` for an ASCII text.
    """
    if text.isascii():
        return ""
    utf8 = encoded if encoded is not None else text.encode("utf-8", "surrogatepass")
    return utf8.translate(None, ASCII_BYTES).decode("utf-8", "surrogatepass")


#: Separator between folded chunks: a quotation never matches across it.
CHUNK_SEPARATOR = "\x00"


def fold(text: str) -> str:
    """
    Fold ``text`` for quotation matching.

    Case is folded, quote glyphs, apostrophes and invisible characters are
    deleted, every dash becomes ``-`` with no space around it, an ellipsis
    (``…``, ``...``) becomes a space and runs of whitespace become one space.
    Each step is a C-level string method, so folding costs a few passes over
    the text whatever it holds.

    Args:
        text: Any text.

    Returns:
        The folded text.
    """
    # Each test of a character searches the text: the characters other than
    # ASCII are looked for among the text's own (a few, in most texts), and
    # not at all in an ASCII text. Deleting or replacing one character adds
    # or removes no other, so what the text held first tells what it holds.
    if text.isascii():
        folded = text.lower()  # casefold() is lower() on ASCII, and slower there
        others = ""
    else:
        folded = text.casefold()
        others = non_ascii(folded)
    for glyph in _ASCII_QUOTE_GLYPHS:
        if glyph in folded:
            folded = folded.replace(glyph, "")
    if others:
        for glyph in _OTHER_DELETED:
            if glyph in others:
                folded = folded.replace(glyph, "")
        for dash in DASHES:
            if dash in others:
                folded = folded.replace(dash, "-")
    # A search for one character is a memchr, a search for two a slower
    # pass: the pairs below are looked for only where their characters are.
    points = "." in folded
    if "\u2026" in others or (points and "..." in folded):
        # An ellipsis marks omitted text: "without… representation" in a
        # chunk holds the quotation "without representation".
        folded = folded.replace("\u2026", " ").replace("...", " ")
    if "  " in folded or not folded.isprintable():
        folded = " ".join(folded.split())
    else:
        # Every white-space character but the space is unprintable: the only
        # runs are single spaces, and splitting into words and joining them
        # again (a string per word) would change only the ends.
        folded = folded.strip()
    if points and ". ." in folded:
        folded = folded.replace(". . .", " ").replace("  ", " ")
    hyphens = "-" in folded
    while hyphens and "--" in folded:
        folded = folded.replace("--", "-")  # "--" is a typewriter dash
    if hyphens and (" -" in folded or "- " in folded):
        # "word - word", "word -word" and "word—word" are one way of writing.
        folded = folded.replace(" -", "-").replace("- ", "-")
    return folded


def fold_map(text: str) -> tuple[str, list[int]]:
    """
    Fold ``text`` as :func:`fold` does, and say where each folded character comes from.

    The same steps, each keeping beside the string the offset in ``text`` of
    the character every one of its characters comes from (a replacement's
    characters come from the first character it replaces). It costs a pass
    in Python per step that changes something, where :func:`fold` costs C
    passes: only the evidence of a supported quotation needs it, once per
    chunk.

    Args:
        text: Any text.

    Returns:
        ``(folded, origin)``: ``folded`` equals ``fold(text)`` and
        ``origin[i]`` is the offset in ``text`` of ``folded[i]``'s source.
    """
    folded = text.casefold()
    if len(folded) == len(text):
        # Folding a character to one character keeps every offset (nearly
        # every text); else the characters are folded one by one.
        origin = list(range(len(text)))
    else:
        pieces: list[str] = []
        origin = []
        for offset, char in enumerate(text):
            piece = char.casefold()
            pieces.append(piece)
            origin.extend([offset] * len(piece))
        folded = "".join(pieces)
    folded, origin = _kept(folded, origin, _DELETED_IN_FOLD)
    for dash in DASHES:
        if dash in folded:
            folded = folded.replace(dash, "-")  # one for one: the offsets stay
    if "\u2026" in folded or "..." in folded:
        folded = folded.replace("\u2026", " ")
        folded, origin = _replaced(folded, origin, "...", " ")
    words = folded.split()
    pieces = []
    kept: list[int] = []
    at = 0
    for word in words:
        at = folded.index(word, at)
        if pieces:
            pieces.append(" ")
            kept.append(origin[at - 1])
        pieces.append(word)
        kept.extend(origin[at : at + len(word)])
        at += len(word)
    folded, origin = "".join(pieces), kept
    if ". ." in folded:
        folded, origin = _replaced(folded, origin, ". . .", " ")
        folded, origin = _replaced(folded, origin, "  ", " ")
    while "--" in folded:
        folded, origin = _replaced(folded, origin, "--", "-")
    if " -" in folded or "- " in folded:
        folded, origin = _replaced(folded, origin, " -", "-")
        folded, origin = _replaced(folded, origin, "- ", "-")
    return folded, origin


# What fold() deletes, and the runs of characters it keeps around them.
_DELETED_IN_FOLD = re.compile(f"[^{re.escape(QUOTE_GLYPHS + INVISIBLE)}]+")


def _kept(text: str, origin: list[int], runs: re.Pattern[str]) -> tuple[str, list[int]]:
    """Keep the runs of ``text`` that ``runs`` matches, with their origins."""
    pieces: list[str] = []
    kept: list[int] = []
    for match in runs.finditer(text):
        start, end = match.span()
        if start == 0 and end == len(text):
            return text, origin
        pieces.append(match.group())
        kept.extend(origin[start:end])
    return "".join(pieces), kept


def _replaced(text: str, origin: list[int], old: str, new: str) -> tuple[str, list[int]]:
    """``text.replace(old, new)``, the origins kept (``new`` from ``old``'s first character)."""
    found = text.find(old)
    if found < 0:
        return text, origin
    pieces: list[str] = []
    kept: list[int] = []
    at = 0
    while found >= 0:
        pieces += (text[at:found], new)
        kept += origin[at:found]
        kept += [origin[found]] * len(new)
        at = found + len(old)
        found = text.find(old, at)
    pieces.append(text[at:])
    kept += origin[at:]
    return "".join(pieces), kept


def spellings(words: Iterable[str], *, lower: bool = True) -> set[str]:
    """
    Return ``words`` capitalized, in capitals and (if ``lower``) in lower case.

    Patterns spell the cases out rather than match case-insensitively, which
    costs at every position the regex engine tries; month names are matched
    without their lower case (``may`` and ``march`` are mostly verbs).

    Args:
        words: Lower-case words.
        lower: Keep the lower-case spelling too.

    Returns:
        The spellings.
    """
    forms = {form for word in words for form in (word.capitalize(), word.upper())}
    return forms | set(words) if lower else forms


def trie_pattern(words: Iterable[str]) -> str:
    """
    Return a regex alternation of ``words`` shaped as a trie.

    The regex engine tries alternatives one by one; as a trie, it tests a
    shared prefix once (``seven``, ``seventeen``, ``seventy``), and longer
    words come before their prefixes so the longest one matches.

    Args:
        words: Literal words.

    Returns:
        A non-capturing group, e.g. ``(?:seven(?:teen|ty)?|six(?:teen|ty)?)``.
    """
    tree: dict[str, Any] = {}
    for word in words:
        node = tree
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}
    return _trie_node(tree)


def _trie_node(node: dict[str, Any]) -> str:
    """Render one node of :func:`trie_pattern`'s tree."""
    optional = "" in node
    branches = [re.escape(char) + _trie_node(child) for char, child in sorted(node.items()) if char]
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    if optional:
        return f"(?:{body})?" if len(branches) > 1 or len(branches[0]) > 1 else f"{body}?"
    return body


def ascii_digits(digits: str) -> str:
    """
    Return ``digits`` written with ASCII digits.

    Args:
        digits: A string of Unicode decimal digits (``str.isdecimal``), such as
            full-width ``１２`` or Arabic-Indic ``١٢``.

    Returns:
        The same number written with ``0``-``9``.
    """
    if digits.isascii():
        return digits
    return "".join(str(unicodedata.decimal(char, 0)) for char in digits)


def ascii_digits_in(text: str) -> str:
    """Return ``text`` with every Unicode decimal digit written in ASCII."""
    if text.isascii():
        return text
    return "".join(ascii_digits(char) if char.isdecimal() else char for char in text)
