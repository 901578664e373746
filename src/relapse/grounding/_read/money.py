"""
Amounts of money written in a major and a minor unit: ``2 dollars and 50 cents`` is $2.50.

An answer may spell out an amount a chunk writes with a decimal point:
``two dollars and fifty cents``, ``$2 and 50 cents``, ``3 pounds 20 pence``
for a chunk's ``$2.50`` or ``£3.20``. Read as two numbers, each is foreign
to the chunk (no $2, no 50 cents there); read as the amount they make
together, both are the chunk's. The parts are digits or numbers in words,
the major unit a currency symbol before its number or a currency name after
it, the minor unit ``cents``, ``pence``, ``p``, ``c`` or ``¢`` (a hundredth,
as :data:`relapse.grounding._check._MINOR_UNITS` reads them alone).
"""

from __future__ import annotations

import re

from relapse.grounding._read.words import WORDS_RE, word_numbers
from relapse.grounding._values.keys import Key, number_key

# A number: digits, or a run of number words (read by the words reader).
_NUMBER = rf"(?:\d{{1,12}}(?![\d.,])|{WORDS_RE.pattern})"
_COMPOUND = re.compile(
    rf"(?:(?P<symbol>[$£€])[\ \u00a0]?(?P<after_symbol>\d{{1,12}})(?![\d.,])"
    rf"|(?P<major>{_NUMBER})[\ \u00a0]+(?P<name>(?i:dollars?|pounds?|euros?)))"
    rf"(?:,?[\ \u00a0]+(?i:and))?[\ \u00a0]+"
    rf"(?P<minor>{_NUMBER})[\ \u00a0]?(?P<minor_name>(?i:cents?|pence)|p|c|\u00a2)(?![^\W_])"
)
_CURRENCY_OF_NAME = {"dollar": "$", "pound": "£", "euro": "€"}

#: Characters around a claim searched for the amount it is part of.
WINDOW = 120


def compound_amount(text: str, start: int, end: int) -> tuple[Key, str] | None:
    """
    Return the amount a number at ``text[start:end]`` is a part of, in its major unit.

    Args:
        text: The answer.
        start: The number's start (its currency symbol's, if any).
        end: The number's end.

    Returns:
        ``(key, currency)``: the amount's number key (``2.50``) and its
        currency (``"$"``, ``"£"``, ``"€"``); None when the number is part of
        no such amount, or a part is no whole number (a minor part of 100 or
        more is no hundredth).
    """
    for match in _COMPOUND.finditer(text, max(0, start - WINDOW), min(len(text), end + WINDOW)):
        if match.start() > start:
            return None
        if match.end() < end:
            continue
        symbol = match["symbol"]
        if symbol is not None:
            major, currency = _whole(match["after_symbol"]), symbol
        else:
            major = _whole(match["major"])
            currency = _CURRENCY_OF_NAME[match["name"].lower().removesuffix("s")]
        minor = _whole(match["minor"])
        if major is None or minor is None or minor >= 100:
            return None
        return number_key(str(major), f"{minor:02d}", 0), currency
    return None


def _whole(written: str) -> int | None:
    """Return the whole number written in digits or in words, or None."""
    if written.isdigit():
        return int(written)
    values = [number.value for number in word_numbers(written)]
    if len(values) != 1 or not isinstance(values[0], int):
        return None
    return values[0]
