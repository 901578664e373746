"""
Units: the unit a number is written with, and the conversions the check computes.

A unit is read right after a number (``104 °F``, ``5km``, ``209,000 m3/s``,
``3 cups``) or, for money, as a currency symbol right before it (``$5``,
``US$ 5``). Spellings of one unit share a canonical name (``km``,
``kilometres`` and ``kilometers`` are ``"km"``), so an answer and a chunk
agree on a unit when the names are equal.

Units of temperature, length, area, volume, mass, time and speed carry a
factor to their dimension's base unit (and an offset for temperature), so a
parenthesised conversion (``40 °C (104 °F)``) can be computed. Currencies
have no factor: exchange rates change, so an amount converted into another
currency is checked like any other number.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from relapse.grounding._text import spellings, trie_pattern
from relapse.grounding._values.keys import CURRENCY_SYMBOLS, SCALE_WORDS
from relapse.grounding._values.tags import AMBIGUOUS, MULTIPLIER, PEOPLE, REFERENCE, SCALE


class Unit(NamedTuple):
    """A unit: its canonical name, its dimension, and its conversion to the base unit."""

    #: Canonical name, equal for every spelling (``"km"``).
    name: str
    #: ``"temperature"``, ``"length"``, ``"area"``, ``"volume"``, ``"mass"``,
    #: ``"time"``, ``"speed"``, ``"flow"``, ``"percent"``, ``"money"`` or
    #: ``"concentration"``.
    dimension: str
    #: Base units per unit (metres per foot); 0 when no conversion is computed.
    factor: float = 0.0
    #: Added after the factor (temperature only: to degrees Celsius).
    offset: float = 0.0


#: The unit of degrees whose scale is not said (``350 degrees``, ``350°``).
DEGREES = "°"

#: The signs of a percent: the percent sign, the Arabic one and the full-width one.
PERCENT_SIGNS = "%\u066a\uff05"
#: The words of a percent after a number, as a regex: ``percent``, ``per cent``
#: (a space or a no-break space inside) and ``pct``, each in lower case,
#: capitalized, in capitals and in title case (``Per Cent``). Every reader of
#: a percent (the scanner, the unit after a number, the checks of numbers in
#: words) reads these.
PERCENT_WORDS = trie_pattern(
    {
        form
        for word in ("percent", "per cent", "per\u00a0cent", "pct")
        for form in (*spellings([word]), word.title())
    }
)

_M = r"(?:met(?:er|re)s?)"
_PER_SECOND = r"(?:\s+per\s+second|/s(?:ec)?)"
# (canonical name, dimension, factor to the base unit, offset, spellings as
# regex pieces). Bases: degrees Celsius, metre, square metre, litre,
# kilogram, second, metre per second, cubic metre per second. Longer
# spellings that share a start with shorter ones come first.
_TABLE: tuple[tuple[str, str, float, float, tuple[str, ...]], ...] = (
    ("m3/s", "flow", 1.0, 0.0, (rf"(?:m3|m\u00b3|cubic\s+{_M}){_PER_SECOND}", r"cumecs?")),
    (
        "ft3/s",
        "flow",
        0.028316846592,
        0.0,
        (rf"(?:ft3|ft\u00b3|cubic\s+f(?:ee|oo)t){_PER_SECOND}", r"cfs"),
    ),
    (
        "km/h",
        "speed",
        1 / 3.6,
        0.0,
        (r"km/h", r"kph", r"kmh", r"kilomet(?:er|re)s?\s+(?:per|an|a)\s+hour"),
    ),
    ("mph", "speed", 0.44704, 0.0, (r"mph", r"miles?\s+(?:per|an|a)\s+hour")),
    ("m/s", "speed", 1.0, 0.0, (r"m/s", rf"{_M}\s+per\s+second")),
    ("knot", "speed", 1852 / 3600, 0.0, (r"knots?",)),
    (
        "°C",
        "temperature",
        1.0,
        0.0,
        (
            r"[°º]\s?C(?![^\W\d_])",
            r"\u2103",
            r"(?:degrees?|degs?\.?)\s+(?:C(?![^\W\d_])|[Cc]elsius|[Cc]entigrade)",
            r"[°º]?\s?[Cc]elsius",
            r"[°º]?\s?[Cc]entigrade",
            # "350C": a capital C glued to the digits is the scale.
            r"(?<=\d)C",
        ),
    ),
    (
        "°F",
        "temperature",
        5 / 9,
        -32 * 5 / 9,
        (
            r"[°º]\s?F(?![^\W\d_])",
            r"\u2109",
            r"(?:degrees?|degs?\.?)\s+(?:F(?![^\W\d_])|[Ff]ahrenheit)",
            r"[°º]?\s?[Ff]ahrenheit",
            r"(?<=\d)F",
        ),
    ),
    # "300 K" (a space before it) is kelvin; "300K" is the scanner's 300 thousand.
    ("K", "temperature", 1.0, -273.15, (r"[Kk]elvins?", r"[°º]\s?K", r"(?<=[\ \u00a0\u202f])K")),
    # "350 degrees", "350°": a temperature whose scale is not said (or an
    # angle). It agrees with Celsius and Fahrenheit (unit_lookup's
    # SAME_READINGS), is no kelvin, and converts to nothing.
    # The masculine ordinal "º" is typed for the degree sign ("350º"); "deg"
    # abbreviates degrees.
    (DEGREES, "temperature", 0.0, 0.0, (r"degrees?", r"degs?\.?", r"[°º]")),
    ("km2", "area", 1e6, 0.0, (r"km2", r"km\u00b2", r"sq\.?\s?km", r"square\s+kilomet(?:er|re)s?")),
    ("cm2", "area", 1e-4, 0.0, (r"cm2", r"cm\u00b2", r"square\s+centimet(?:er|re)s?")),
    ("m2", "area", 1.0, 0.0, (r"m2", r"m\u00b2", r"sq\.?\s?m(?![^\W\d_])", rf"square\s+{_M}")),
    ("ft2", "area", 0.09290304, 0.0, (r"ft2", r"ft\u00b2", r"sq\.?\s?ft", r"square\s+f(?:ee|oo)t")),
    ("mi2", "area", 2589988.110336, 0.0, (r"mi2", r"mi\u00b2", r"sq\.?\s?mi", r"square\s+miles?")),
    ("acre", "area", 4046.8564224, 0.0, (r"acres?",)),
    ("ha", "area", 1e4, 0.0, (r"ha", r"hectares?")),
    ("m3", "volume", 1000.0, 0.0, (r"m3", r"m\u00b3", rf"cubic\s+{_M}")),
    ("cm3", "volume", 1e-3, 0.0, (r"cm3", r"cm\u00b3", r"cc", r"cubic\s+centimet(?:er|re)s?")),
    ("ft3", "volume", 28.316846592, 0.0, (r"ft3", r"ft\u00b3", r"cubic\s+f(?:ee|oo)t")),
    ("fl oz", "volume", 0.0295735295625, 0.0, (r"fl\.?\s?oz", r"fluid\s+ounces?")),
    ("ml", "volume", 1e-3, 0.0, (r"[mM][lL]", r"millilit(?:er|re)s?")),
    ("cl", "volume", 1e-2, 0.0, (r"c[lL]", r"centilit(?:er|re)s?")),
    ("dl", "volume", 1e-1, 0.0, (r"d[lL]", r"decilit(?:er|re)s?")),
    ("l", "volume", 1.0, 0.0, (r"[lL]", r"lit(?:er|re)s?")),
    ("gal", "volume", 3.785411784, 0.0, (r"gal", r"gallons?")),
    ("qt", "volume", 0.946352946, 0.0, (r"qts?", r"quarts?")),
    ("pt", "volume", 0.473176473, 0.0, (r"pints?",)),
    ("cup", "volume", 0.2365882365, 0.0, (r"cups?",)),
    ("tbsp", "volume", 0.01478676478125, 0.0, (r"[Tt]bsps?", r"tablespoons?")),
    ("tsp", "volume", 0.00492892159375, 0.0, (r"tsps?", r"teaspoons?")),
    ("nm", "length", 1e-9, 0.0, (r"nm", r"nanomet(?:er|re)s?")),
    ("µm", "length", 1e-6, 0.0, (r"[µμ]m", r"microns?", r"micromet(?:er|re)s?")),
    ("mm", "length", 1e-3, 0.0, (r"mm", r"millimet(?:er|re)s?")),
    ("cm", "length", 1e-2, 0.0, (r"cm", r"centimet(?:er|re)s?")),
    ("km", "length", 1e3, 0.0, (r"km", r"kilomet(?:er|re)s?")),
    ("m", "length", 1.0, 0.0, (r"m", _M)),
    ("in", "length", 0.0254, 0.0, (r"in\.", r"inch(?:es)?", r"\"", r"\u2033")),
    ("ft", "length", 0.3048, 0.0, (r"ft", r"feet", r"foot", r"\u2032")),
    ("yd", "length", 0.9144, 0.0, (r"yds?", r"yards?")),
    ("mi", "length", 1609.344, 0.0, (r"mi", r"miles?")),
    ("mg", "mass", 1e-6, 0.0, (r"mg", r"milligrams?", r"milligrammes?")),
    ("µg", "mass", 1e-9, 0.0, (r"[µμ]g", r"mcg", r"micrograms?")),
    ("kg", "mass", 1.0, 0.0, (r"kg", r"kilos?", r"kilograms?", r"kilogrammes?")),
    ("g", "mass", 1e-3, 0.0, (r"g", r"grams?", r"grammes?")),
    ("t", "mass", 1e3, 0.0, (r"tonnes?", r"metric\s+tons?")),
    ("ton", "mass", 0.0, 0.0, (r"tons?",)),
    ("lb", "mass", 0.45359237, 0.0, (r"lbs?", r"pounds?")),
    ("oz", "mass", 0.028349523125, 0.0, (r"oz", r"ounces?")),
    # The stone of 14 pounds has no plural: "he weighed 12 stone".
    ("st", "mass", 6.35029318, 0.0, (r"stone",)),
    ("ms", "time", 1e-3, 0.0, (r"ms", r"millisec(?:ond)?s?")),
    ("s", "time", 1.0, 0.0, (r"secs?", r"seconds?")),
    ("min", "time", 60.0, 0.0, (r"mins?", r"minutes?")),
    ("h", "time", 3600.0, 0.0, (r"h", r"hrs?", r"hours?")),
    ("day", "time", 86400.0, 0.0, (r"days?",)),
    ("week", "time", 604800.0, 0.0, (r"weeks?", r"wks?")),
    ("month", "time", 2629800.0, 0.0, (r"months?", r"mths?", r"mos\.?")),
    ("year", "time", 31557600.0, 0.0, (r"years?", r"yrs?")),
    ("%", "percent", 0.0, 0.0, (f"[{PERCENT_SIGNS}]", PERCENT_WORDS)),
    ("$", "money", 0.0, 0.0, (r"dollars?", r"USD", r"US\s+dollars?")),
    # Cents and pence are units of their own: 50 cents is not $50; a cent
    # of any currency is one unit ("50 euro cents", German "50 Cent", "85c").
    # Paise are the rupee's cents ("99 paise", "1 paisa").
    (
        "¢",
        "money",
        0.0,
        0.0,
        (r"\u00a2", r"(?:(?:euro|US)[\ \u00a0])?[Cc]ents?", r"(?<=\d)c", r"pais[ae]"),
    ),
    ("p", "money", 0.0, 0.0, (r"(?<=\d)p", r"pence", r"penn(?:y|ies)")),
    ("€", "money", 0.0, 0.0, (r"euros?", r"EUR")),
    ("£", "money", 0.0, 0.0, (r"GBP", r"pounds?\s+sterling")),
    ("¥", "money", 0.0, 0.0, (r"yen", r"JPY")),
    ("₹", "money", 0.0, 0.0, (r"rupees?", r"INR")),
    # Currencies named in words, some with no plural "s" ("50 yuan", "200
    # kronor"), each a unit of its own: 50 yuan is no $50 nor 50 cents. A
    # "¥" may be yuan as well as yen (SAME_READINGS). Not "won" and "real"
    # (English words), nor "peso" (written with "$" too).
    ("yuan", "money", 0.0, 0.0, (r"yuan", r"renminbi", r"RMB", r"CNY")),
    ("baht", "money", 0.0, 0.0, (r"baht", r"THB")),
    ("rand", "money", 0.0, 0.0, (r"rand", r"ZAR")),
    ("kr", "money", 0.0, 0.0, (r"kron(?:a|or|e|er|ur)", r"kr\.?", r"SEK", r"NOK", r"DKK", r"ISK")),
    ("franc", "money", 0.0, 0.0, (r"francs?", r"CHF")),
    ("ruble", "money", 0.0, 0.0, (r"r(?:o?u)bles?", r"RUB")),
    ("real", "money", 0.0, 0.0, (r"reais", r"BRL")),
    ("lira", "money", 0.0, 0.0, (r"lir[ae]",)),
    ("shekel", "money", 0.0, 0.0, (r"shekels?", r"ILS", r"NIS")),
    ("zloty", "money", 0.0, 0.0, (r"zlot(?:ys?|ych|e)", r"PLN")),
    ("won", "money", 0.0, 0.0, (r"KRW",)),
)
# Concentrations and rates written with a slash: "0-1 ng/mL", "5 mg/dL", "3 mmol/L".
_GENERIC = r"(?:[nµμumk]?(?:g|mol|[lL]|IU|U))/(?:[nµμumdk]?[lLgm][23]?|min|h|day)"

UNITS: dict[str, Unit] = {
    name: Unit(name, dimension, factor, offset) for name, dimension, factor, offset, _ in _TABLE
}
_GROUPS = {f"u{index}": row[0] for index, row in enumerate(_TABLE)}
# What may stand between a number and its unit: a space, or a hyphen before
# a letter ("a 30-minute drive", "a 45-degree angle", "a 10-km race").
_BEFORE_UNIT = r"(?:[\ \u00a0\u202f]|-(?=[^\W\d_]))?"
# A unit right after a number: an optional space (none before a symbol
# such as "°" or '"'), then a spelling that no letter or digit continues.
_UNIT_AFTER = re.compile(
    rf"{_BEFORE_UNIT}(?:"
    + "|".join(
        f"(?P<u{index}>{'|'.join(spellings)})" for index, (*_, spellings) in enumerate(_TABLE)
    )
    + rf"|(?P<generic>{_GENERIC}))(?![^\W_])"
)
# The same alternatives in the same order, without the groups that name
# them: it matches exactly where _UNIT_AFTER does, with the same span (names
# change no matching), and fails about four times faster, because the
# matcher passes over an alternative whose first character is not the
# text's without entering a group. Most numbers have no unit after them:
# this match alone tells, and _UNIT_AFTER names the unit of the others.
_MAY_BE_UNIT_AFTER = re.compile(
    rf"{_BEFORE_UNIT}(?:"
    + "|".join(spelling for *_, spellings in _TABLE for spelling in spellings)
    + rf"|{_GENERIC})(?![^\W_])"
)
# The spellings that hold a word (three small letters in a row: "degrees",
# "kilomet(?:er|re)s?", "[Cc]ents?", "mph"), named by unit as in _UNIT_AFTER,
# in any case: "350 Degrees Fahrenheit", "99 PAISE", "50 Pence", "5 MPH".
# Tried only where a capital follows the number, which the case-sensitive
# spellings may not read; the abbreviations of one or two letters keep their
# case ("MM" is a million, "IN" a word, "C" after digits the scale), and so
# does a spelling that looks behind ("(?<=\d)c").
_WORD_SPELLING = re.compile(r"(?!\(\?<=).*[a-z]{3}")
_ANY_CASE_UNIT_AFTER = re.compile(
    rf"{_BEFORE_UNIT}(?i:"
    + "|".join(
        f"(?P<u{index}>{'|'.join(words)})"
        for index, (*_, spellings) in enumerate(_TABLE)
        if (words := [spelling for spelling in spellings if _WORD_SPELLING.match(spelling)])
    )
    + r")(?![^\W_])"
)
_CAPITALS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")

#: Characters after a number read for its unit (its scale word included).
UNIT_WINDOW = 60
# Scale words between a number and its unit ("5 million km") are skipped.
_SCALE = re.compile(rf"[\ \u00a0](?:{trie_pattern(spellings(SCALE_WORDS))})(?=[\ \u00a0])")


def unit_after(text: str, end: int) -> str | None:
    """
    Return the canonical name of the unit written right after ``text[:end]``, if any.

    Args:
        text: Any text.
        end: Where the number's digits (or its scale word) end.

    Returns:
        The unit's name (a key of :data:`UNITS`, or a written concentration
        such as ``"ng/ml"``), or None.
    """
    written = _unit_written_after(text, end)
    return None if written is None else written[0]


def _unit_written_after(text: str, end: int) -> tuple[str, str] | None:
    """Return the unit after ``text[:end]`` and its spelling as written, or None."""
    limit = end + UNIT_WINDOW
    scale = _SCALE.match(text, end, limit)
    if scale is not None:
        end = scale.end()
    if _MAY_BE_UNIT_AFTER.match(text, end, limit) is not None:
        match = _UNIT_AFTER.match(text, end, limit)
    else:
        spaced = text[end : end + 1] in " \u00a0\u202f-"
        first = text[end + 1 : end + 2] if spaced else text[end : end + 1]
        match = _ANY_CASE_UNIT_AFTER.match(text, end, limit) if first in _CAPITALS else None
    if match is None:
        return None
    group = match.lastgroup
    spelling = match.group().strip()
    if group == "generic":
        return spelling.lower().replace("μ", "µ"), spelling
    return (_GROUPS[group], spelling) if group is not None else None


# A currency code right before a number ("USD 85", "GBP75"), and the symbol it names.
# "Rs 500", "Rs. 500": the rupee's abbreviation (India, Pakistan, Sri Lanka).
_CODE_BEFORE = re.compile(r"(?<![^\W\d_])(USD|GBP|EUR|JPY|INR|Rs\.?)[\ \u00a0]?\Z")
_CODE_SYMBOLS = {
    "USD": "$",
    "GBP": "£",
    "EUR": "€",
    "JPY": "¥",
    "INR": "₹",
    "Rs": "₹",
    "Rs.": "₹",
}
_SPACES = frozenset(" \u00a0")
# What a code of _CODE_BEFORE ends with (USD, GBP, EUR, JPY, INR, Rs, Rs.).
_CODE_LAST = frozenset("DPRYs.")
# Capitals before a symbol, where the scanner starts a number ("US$85", "HK$ 5").
_PREFIXED_SYMBOL = re.compile(rf"[A-Z]{{1,4}}([{CURRENCY_SYMBOLS}])")


def _last_past_space(text: str, end: int) -> tuple[str, bool]:
    """
    Return the character before ``end``, past one space or no-break space, and whether one was.

    What ends a word before a number (a currency code, a reference word, a
    month), which the patterns that end at the number allow one space after.
    """
    last = text[end - 1 : end] if end else ""
    if last in _SPACES:
        return (text[end - 2 : end - 1] if end >= 2 else ""), True
    return last, False


def currency_before(text: str, start: int) -> str | None:
    """
    Return the currency written right before ``text[start:]`` (``$``, ``US$ ``, ``USD ``).

    Args:
        text: Any text.
        start: Where the number starts (its first digit, its symbol, or
            the capitals before it: ``US$``).

    Returns:
        The symbol (``"$"`` for ``US$`` and ``USD`` too), or None.
    """
    if start < len(text) and text[start] in CURRENCY_SYMBOLS:
        return text[start]
    prefixed = _PREFIXED_SYMBOL.match(text, start)
    if prefixed is not None:
        return prefixed.group(1)
    last, _ = _last_past_space(text, start)
    # A code's last character, before the search of the window offset by offset.
    code = _CODE_BEFORE.search(text, max(0, start - 5), start) if last in _CODE_LAST else None
    if code is not None:
        return _CODE_SYMBOLS[code.group(1)]
    index = start - 1
    if index >= 1 and text[index] in " \u00a0-\u2212\u2013":
        # "$ 5"; "$-5", whose minus is its sign (the sign is read apart).
        index -= 1
    if index >= 0 and text[index] in CURRENCY_SYMBOLS:
        return text[index]
    return None


def unit_of(text: str, start: int, end: int) -> str | None:
    """
    Return the unit of the number at ``text[start:end]``: its currency, or the unit after it.

    Args:
        text: Any text.
        start: The number's start (its currency symbol, if any).
        end: The number's end.

    Returns:
        A canonical unit name, or None when the number has no unit.
    """
    return currency_before(text, start) or unit_after(text, end)


def dimension_of(unit: str | None) -> str | None:
    """
    Return the dimension of a canonical unit name (``"length"`` for ``"km"``).

    Args:
        unit: A name :func:`unit_of` returned, or None.

    Returns:
        The dimension; ``"concentration"`` for a written concentration
        (``"ng/ml"``); None for None.
    """
    if unit is None:
        return None
    known = UNITS.get(unit)
    return known.dimension if known is not None else "concentration"


def convert(value: float, source: str, target: str) -> float | None:
    """
    Convert ``value`` from unit ``source`` to unit ``target``.

    Args:
        value: The quantity in ``source`` units.
        source: A canonical unit name.
        target: A canonical unit name.

    Returns:
        The quantity in ``target`` units, or None when the units have
        different dimensions or no computed conversion (currencies, ``ton``).
    """
    first, second = UNITS.get(source), UNITS.get(target)
    if first is None or second is None or first.dimension != second.dimension:
        return None
    if not first.factor or not second.factor:
        return None
    base = value * first.factor + first.offset
    return (base - second.offset) / second.factor


_AMBIGUOUS_SPELLINGS = frozenset({"ha", "mi", "in.", "ms", "cc"})
# A multiplier after a number: "-fold" or "fold" ("7-fold", "7 fold"), or a
# times sign glued to it ("7x", "7×"; "7 x 4" is a dimension, read apart).
_MULTIPLIER_AFTER = re.compile(
    r"(?:(?:[\ \u00a0]?-[\ \u00a0]?|[\ \u00a0])?(?i:fold)|[xX\u00d7])(?![^\W_])"
)
_MULTIPLIER_FIRST = frozenset(" -\u00a0fFxX\u00d7")
# Signs of one character that mean one unit: a percent, degrees.
_SIGNS = PERCENT_SIGNS + DEGREES
_REFERENCE_BEFORE = re.compile(
    r"(?:(?<![^\W\d_])(?:[Pp]ages?|[Pp]p?\.|[Cc]hapters?|[Cc]h\.|[Ss]ections?|[Ff]igures?"
    r"|[Ff]igs?\.|[Tt]ables?|[Vv]olumes?|[Vv]ol\.|[Nn]o\.|[Nn]os\.|[Aa]rticles?|[Aa]rt\."
    r"|[Pp]aragraphs?|[Ll]ines?|[Cc]lauses?|[Vv]erses?)[\ \u00a0]?"
    r"|[\u00a7#][\ \u00a0]?)\Z"
)
# A month before a day: "May 30" binds 30 only where a date ends there ("May
# 30, 2020", "May 30.", "May 30 1990"): in "In May 30 were arrested" it counts.
_MONTH_BEFORE = re.compile(
    r"(?<![^\W\d_])(?:January|February|March|April|May|June|July|August|September|October"
    r"|November|December|Jan\.|Feb\.|Mar\.|Apr\.|Jun\.|Jul\.|Aug\.|Sept?\.|Oct\.|Nov\.|Dec\.)"
    r"[\ \u00a0]\Z"
)
_DATE_ENDS = re.compile(r"(?:st|nd|rd|th)?(?:[,.;)]|[\ \u00a0]\d{4}(?!\d)|\Z)")
# A month after a day: "30 June", "30th of June", "1st Sept." (a date, not a count).
_MONTH_AFTER = re.compile(
    r"(?:st|nd|rd|th)?[\ \u00a0](?:of[\ \u00a0])?(?:January|February|March|April|May|June|July"
    r"|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov"
    r"|Dec)(?![^\W\d_])"
)
# A time of day's hour or minutes ("at 8:30", "8:30 am"), a decade ("'30s"),
# around the number. A clock time alone may be a duration ("a run time of
# 2:30" is 2 hours 30 minutes): only a preposition of time before it or am or
# pm after it makes it a time of day.
#: The prepositions of time before a time of day (``at 8:30``), as a regex alternation.
TIME_PREPOSITIONS = "at|by|from|until|till|to|before|after|since"
_CLOCK_BEFORE = re.compile(rf"(?:{TIME_PREPOSITIONS})[\ \u00a0]\d{{1,2}}:\Z")
_CLOCK_AFTER = re.compile(r":\d\d(?!\d)")
_AT_TIME_BEFORE = re.compile(rf"(?:{TIME_PREPOSITIONS})[\ \u00a0]\Z")
_AM_PM_AFTER = re.compile(r":\d\d[\ \u00a0\u202f]?[aApP]\.?[mM]\.?(?![^\W\d_])")
_MINUTES_AM_PM = re.compile(r"[\ \u00a0\u202f]?[aApP]\.?[mM]\.?(?![^\W\d_])")
_DECADE = re.compile(r"s(?![^\W\d_])")
# What a match of _REFERENCE_BEFORE ends with, past its optional space: the
# last letter of a reference word, the point of an abbreviation, a section
# sign or a number sign.
_REFERENCE_LAST = frozenset("sernh.\u00a7#")
# What the month of _MONTH_BEFORE ends with, before its space.
_MONTH_LAST = frozenset("yhletr.")
_DATE_MARKS = ("/", ".", "-")
# A numeric date the number is part of: "2020-06-30", "30/06/2020", "30.06.2020".
_NUMERIC_DATE = re.compile(r"(?<!\d)(?<!\d[/.-])\d{1,4}([/.-])\d{1,2}\1\d{1,4}(?!\d|[/.-]\d)")
#: How far before a number a reference word is looked for.
_REFERENCE_WINDOW = 12
_PEOPLE_AFTER = re.compile(
    r"[\ \u00a0](?:people|persons|individuals|patients|participants|subjects|students|pupils"
    r"|children|kids|adults|men|women|employees|workers|staff|residents|inhabitants|members"
    r"|volunteers|users|customers|passengers|victims|soldiers|troops)(?![^\W_])"
)
# A plural noun right after a number, which it counts ("50 cows", "3 decades",
# "12 cities"): a lower-case word of three letters or more ending in "s" but
# not in "ss", "us" or "is" ("glass", "bonus", "basis" are singular). Read
# only where nothing else binds the number.
_PLURAL_AFTER = re.compile(r"[\ \u00a0]([a-z]{2,}(?<![siu])s)(?![^\W_])")
# Count nouns whose plural has no "s" ("50 head of cattle", "40 sheep", "30
# fish", "12 aircraft"): they count what they name, as a plural does.
_UNMARKED_PLURAL_AFTER = re.compile(
    r"[\ \u00a0](?:head|sheep|deer|fish|cattle|livestock|poultry|aircraft|spacecraft"
    r"|offspring|swine|bison|moose|salmon|trout|mice|geese|oxen|teeth)(?![^\W_])"
)
# Words of that shape that count nothing: verbs, pronouns and adverbs after
# a number ("of the 50 was", "Figure 3 shows", "30 always").
# fmt: off
_NOT_PLURAL = frozenset((
    "was", "has", "does", "goes", "its", "this", "thus", "yes", "hers", "ours", "yours",
    "theirs", "always", "perhaps", "towards", "afterwards", "besides", "sometimes", "whereas",
    "nowadays", "overseas", "upwards", "downwards", "backwards", "forwards", "sideways",
    "means", "news", "lens", "gas",
))
# fmt: on
# Kinds close enough that one reading may stand for the other: "pounds" is
# money or mass, "30 feet" a side of "30 square feet", "10 km per hour" a
# speed, "5 g/day" a mass; these never make a number foreign.
_CLOSE = frozenset(
    frozenset(pair)
    for pair in (
        ("mass", "money"),
        ("length", "area"),
        ("length", "volume"),
        ("area", "volume"),
        ("speed", "length"),
        ("speed", "time"),
        ("flow", "volume"),
        ("flow", "time"),
        ("concentration", "mass"),
        ("concentration", "volume"),
        ("concentration", "time"),
    )
)


def binding_of(text: str, start: int, end: int, *, plurals: bool = True) -> str | None:
    """
    Return what the number at ``text[start:end]`` is bound to: a unit, a reference, people.

    A multiplier in one word (``sevenfold``) is :data:`MULTIPLIER`; then the
    unit (:func:`unit_of`) comes, prefixed with :data:`AMBIGUOUS`
    when its spelling also means something else, or a multiplier's mark
    (``7-fold``, ``7x``: :data:`MULTIPLIER`); then people counted right
    after the number (:data:`PEOPLE`); then a reference right before it, or
    a month before it where a date ends after it (:data:`REFERENCE`); then
    a plural noun after it, which it counts (:data:`PEOPLE` too).

    Args:
        text: Any text.
        start: The number's start (its currency symbol, if any).
        end: The number's end (after its scale word, if any).
        plurals: Read a plural noun after it (the chunks' reading). An
            answer's number is read without: a chunk's unit then still makes
            it foreign only if its people words say so, and the lookup of
            every number a plural follows is not paid.

    Returns:
        A canonical unit name, possibly prefixed with ``"?"``; ``"#people"``;
        ``"#reference"``; ``"#times"`` for a multiplier (:data:`MULTIPLIER`);
        or None for a number bound to nothing the check reads.
    """
    if text[end - 4 : end].lower() == "fold" and text[start:end].isalpha():
        return MULTIPLIER  # "sevenfold", "hundredfold": a number in words that multiplies
    currency = currency_before(text, start)
    written = _unit_written_after(text, end)
    if currency is None and written is None and _multiplies(text, end):
        return MULTIPLIER
    if currency is not None:
        # "$0%": a currency and a unit after it; the check's readers take
        # either, so it binds the number to neither for sure.
        return currency if written is None else AMBIGUOUS + currency
    if written is not None:
        unit, spelling = written
        if (len(spelling) == 1 and spelling not in _SIGNS) or spelling in _AMBIGUOUS_SPELLINGS:
            return AMBIGUOUS + unit
        return unit
    if _PEOPLE_AFTER.match(text, end, end + UNIT_WINDOW):
        return PEOPLE
    before = text[max(0, start - _REFERENCE_WINDOW) : start]
    # Both patterns end at the number: what ends ``before`` rules most numbers
    # out before a search tries the window offset by offset.
    last, spaced = _last_past_space(text, start)
    if (last in _REFERENCE_LAST and _REFERENCE_BEFORE.search(before)) or (
        spaced
        and last in _MONTH_LAST
        and _MONTH_BEFORE.search(before)
        and _DATE_ENDS.match(text, end)
    ):
        return REFERENCE
    if _in_date_or_time(text, start, end, before):
        return REFERENCE
    if (
        plurals
        and text[end : end + 1] in _SPACES
        and "a" <= text[end + 1 : end + 2] <= "z"  # a small letter starts the word
        and _counts_a_plural(text, end)
    ):
        return PEOPLE
    return None


def _multiplies(text: str, end: int) -> bool:
    """Tell whether a multiplier's mark follows a number ending at ``end`` (``-fold``, ``x``)."""
    return (
        text[end : end + 1] in _MULTIPLIER_FIRST and _MULTIPLIER_AFTER.match(text, end) is not None
    )


def people_or_unit_after(text: str, end: int) -> bool:
    """
    Tell whether people or a unit spelled as a word follow a number ending at ``end``.

    ``62m users``, ``5m tonnes``: what the ``m`` glued to the number is then a
    million of, since metres of users or of tonnes mean nothing; ``400m
    hurdles`` is left to the metre.

    Args:
        text: Any text.
        end: Where the number and what is glued to it end.

    Returns:
        True for a word of :data:`_PEOPLE_AFTER`, or a unit whose spelling
        holds three letters or more (``tonnes``, ``litres``, ``dollars``).
    """
    if _PEOPLE_AFTER.match(text, end, end + UNIT_WINDOW):
        return True
    if text[end : end + 1] not in _SPACES:
        return False
    written = _unit_written_after(text, end)
    return written is not None and len(written[1]) >= 3 and written[1].isalpha()


def _counts_a_plural(text: str, end: int) -> bool:
    """
    Tell whether a plural noun follows the number ending at ``end``: what it counts.

    ``50 cows`` counts cows, not litres; a plural of a unit's abbreviation
    (``50 kgs``, ``3 kms``) is the unit, which :func:`unit_of` does not read,
    so it binds nothing.
    """
    plural = _PLURAL_AFTER.match(text, end)
    if plural is None:
        return _UNMARKED_PLURAL_AFTER.match(text, end) is not None
    word = plural.group(1)
    return word not in _NOT_PLURAL and _MAY_BE_UNIT_AFTER.fullmatch(word[:-1]) is None


def _in_date_or_time(text: str, start: int, end: int, before: str) -> bool:
    """
    Tell whether the number at ``text[start:end]`` is a day, a year, an hour or minutes of a date.

    ``30 June 2020``, ``the 30th of June``, ``2020-06-30``, ``30/06/2020``,
    ``8:30``, ``in '45``, ``the '30s``: a number there dates something, it counts
    nothing (``30 minutes`` is not supported by it).
    """
    if _MONTH_AFTER.match(text, end):
        return True
    if _CLOCK_AFTER.match(text, end) and (
        (before[-1:] in _SPACES and _AT_TIME_BEFORE.search(before)) or _AM_PM_AFTER.match(text, end)
    ):
        return True  # the hour of "at 8:30", "8:30 am"
    if before.endswith(":") and (_CLOCK_BEFORE.search(before) or _MINUTES_AM_PM.match(text, end)):
        return True  # the minutes of "at 8:30", "8:30 am"
    if before.endswith(("'", "\u2019")) and (end - start == 2 or _DECADE.match(text, end)):
        return True  # a year or a decade of two digits: "in '45", "the '30s"
    if (before.endswith(_DATE_MARKS) or text.startswith(_DATE_MARKS, end)) and _may_be_in_date(
        text, start, end
    ):
        for date in _NUMERIC_DATE.finditer(text, max(0, start - 11), end + 11):
            if date.start() <= start and end <= date.end():
                return True
    return False


def _may_be_in_date(text: str, start: int, end: int) -> bool:
    """
    Tell whether a numeric date (:data:`_NUMERIC_DATE`) may hold ``text[start:end]``.

    A date holding the number but not only it reaches past one of its ends,
    over a separator with a digit beyond it (or over digits); one that is
    the number itself holds a separator inside it.
    """
    two_before = text[max(0, start - 2) : start]
    return (
        (len(two_before) == 2 and two_before[0].isdecimal() and two_before[1] in _DATE_MARKS)
        or (text[end : end + 1] in _DATE_MARKS and text[end + 1 : end + 2].isdecimal())
        or two_before[-1:].isdecimal()
        or text[end : end + 1].isdecimal()
        or any(mark in text[start:end] for mark in _DATE_MARKS)
    )


def kind_of(binding: str | None) -> str | None:
    """Return the dimension of a binding (:func:`binding_of`); None for a tag or None."""
    if binding is None or binding.startswith("#"):
        return None
    return dimension_of(binding.removeprefix(AMBIGUOUS))


def foreign(unit: str, binding: str | None) -> bool:
    """
    Tell whether a number bound to ``binding`` plainly counts something other than ``unit``.

    ``30 minutes`` is not ``page 30``, ``30 people`` nor ``30 kg``. Not
    foreign: a number bound to nothing, to the same unit, to an ambiguous
    spelling, or to a kind close to the answer's (:data:`_CLOSE`); people
    against a percent (``30 of 100 people`` is ``30%``); and a mantissa before
    a scale word (:data:`SCALE`) against anything but a percent or people.

    Args:
        unit: The answer's binding of the number (a unit name, ``"#people"``).
        binding: A binding of the same number in the texts.

    Returns:
        True when a careful reader would not take the one for the other.
    """
    if binding is None or binding == unit or binding.startswith(AMBIGUOUS):
        return False
    if binding == REFERENCE:
        return True
    if MULTIPLIER in (unit, binding):
        # A ratio against a percent, a unit, a mantissa: "sevenfold" is no
        # "7 percent". People are not foreign to it ("7 times" counts occasions).
        return PEOPLE not in (unit, binding)
    if binding == SCALE:
        # "62 million" counts millions of something: no 62%, nor 62 people.
        return unit == PEOPLE or kind_of(unit) == "percent"
    mine, theirs = kind_of(unit), kind_of(binding)
    if mine is None or theirs is None:
        # People against a unit: foreign unless the unit is a percent.
        return "percent" not in (mine, theirs)
    return mine != theirs and frozenset((mine, theirs)) not in _CLOSE
