"""
Every tag of the default check's values, listed in one place.

A value key is a tuple whose first item is its tag (:data:`KEY_TAGS`): the
readers build keys, the indexes hold them, the rules compare them, all by
these names. A number's binding (what it measures or counts,
:func:`relapse.grounding._values.units.binding_of`) is a unit's canonical
name or one of the binding tags (:data:`BINDING_TAGS`); a claim's mark
(:attr:`relapse.grounding._read.claims.Claim.unit`) is one of
:data:`CLAIM_MARKS`; and every answer claim is of one :class:`Kind`.
"""

from __future__ import annotations

import enum
from typing import Final, Literal

# The tags of value keys: ``key[0]``.

#: A number at or above zero: ``("n", significant_digits, exponent)``.
NUMBER: Final = "n"
#: A number below zero: ``("-n", significant_digits, exponent)``.
NEGATIVE: Final = "-n"
#: A number a text states on its own, not as a part of a range, a list or a
#: time (``("s", digits, exponent)``): what a range's end or a duration's
#: part needs.
STANDALONE: Final = "s"
#: A ratio whose decimals do not end: ``("q", numerator, denominator)`` (1/3).
RATIONAL: Final = "q"
#: A token held as written, its digits only (``GPT-4``, ``3/4``): ``("t", digits)``.
TOKEN: Final = "t"
#: A range of numbers: ``("r", *first_key[1:], *second_key[1:])``.
RANGE: Final = "r"
#: A dimension (``3x4``): ``("x", *first_key[1:], *second_key[1:])``.
DIMENSION: Final = "x"
#: A date pattern: ``("d", year, month, day)``, parts None when unsaid.
DATE: Final = "d"
#: A time of day: ``("tod", minutes after midnight)``.
TIME_OF_DAY: Final = "tod"
#: A decade with its century: ``("dec", 198)`` for the 1980s.
DECADE: Final = "dec"
#: A decade without its century: ``("dec2", 8)`` for the 80s.
SHORT_DECADE: Final = "dec2"
#: A century of our era: ``("cent", 18)`` for the 19th (the years 1800 to 1899).
CENTURY: Final = "cent"
#: A century before Christ: ``("cent_bc", 5)`` for the 5th.
CENTURY_BC: Final = "cent_bc"
#: A year of our era, said with its era: ``("ad", year)``.
YEAR_AD: Final = "ad"
#: A year before Christ: ``("bc", year)``.
YEAR_BC: Final = "bc"

#: A value key's tag.
KeyTag = Literal[
    "n", "-n", "s", "q", "t", "r", "x", "d", "tod", "dec", "dec2", "cent", "cent_bc", "ad", "bc"
]

#: Every key tag, with what its key holds.
KEY_TAGS: Final[dict[str, str]] = {
    NUMBER: "a number at or above zero: significant digits, exponent",
    NEGATIVE: "a number below zero: significant digits, exponent",
    STANDALONE: "a number stated on its own: significant digits, exponent",
    RATIONAL: "a ratio whose decimals do not end: numerator, denominator",
    TOKEN: "a token held as written: its digits",
    RANGE: "a range: both ends' digits and exponents",
    DIMENSION: "a dimension: both sides' digits and exponents",
    DATE: "a date pattern: year, month, day (None when unsaid)",
    TIME_OF_DAY: "a time of day: minutes after midnight",
    DECADE: "a decade with its century: the year over ten",
    SHORT_DECADE: "a decade without its century: its tens",
    CENTURY: "a century of our era: its first year over a hundred",
    CENTURY_BC: "a century before Christ: its ordinal",
    YEAR_AD: "a year said with its era: the year",
    YEAR_BC: "a year before Christ: the year",
}

#: The tags of a number's value key (:attr:`Quantity.key`): at or below zero.
NUMBER_TAGS: Final = frozenset({NUMBER, NEGATIVE})

# The tags of bindings: what an answer's or a chunk's number is bound to
# when it is not a unit (a unit is its canonical name: "km", "$", "%").

#: Prefix of a unit written with a spelling that also means something else
#: (``30m``: metres, minutes or million; ``5 h``, ``2 L``, ``300 K``, ``6'``):
#: it agrees and conflicts as its unit does, but is never taken for a
#: quantity of another kind.
AMBIGUOUS: Final = "?"
#: A number bound to what precedes it as a reference (``page 30``, ``Table
#: 4``, ``No. 7``, ``§ 12``) or a date (``May 30``), not to a quantity.
REFERENCE: Final = "#reference"
#: A number counting people or things (``30 people``, ``12 patients``, ``50 cows``).
PEOPLE: Final = "#people"
#: A number written as the mantissa of a scale word (the ``62`` of ``62
#: million``): foreign to a percent only; the unit lookup reads it for a
#: percent alone.
SCALE: Final = "#scale"
#: A number that multiplies (``sevenfold``, ``7-fold``, ``7x``, ``7×``): a
#: ratio of two quantities, foreign to a percent, to a unit and to a
#: reference (``sevenfold`` is no ``7 percent``); not to people, since ``7
#: times`` also counts occasions, which a chunk's plural reads as a count.
MULTIPLIER: Final = "#times"

#: Every binding tag (a binding that is no unit), with what it binds a number to.
BINDING_TAGS: Final[dict[str, str]] = {
    REFERENCE: "a reference or a date before it (page 30, May 30)",
    PEOPLE: "people or things it counts (30 people)",
    SCALE: "a scale word after it (62 million)",
    MULTIPLIER: "a multiplication (sevenfold, 7x)",
}

# The marks of a claim (Claim.unit): what its reader saw it written with.

#: A percent (``45%``, ``fifty percent``).
PERCENT_MARK: Final = "%"
#: An amount of money (``$5``, ``£3.20``).
MONEY_MARK: Final = "$"
#: A fraction in words below one (``two thirds``): a ratio.
RATIO_MARK: Final = "/"
#: An ordinal up to ``tenth`` in words, judged in its slot only.
ORDINAL_MARK: Final = "#ordinal"

#: Every claim mark, with what it marks ("" marks nothing).
CLAIM_MARKS: Final[dict[str, str]] = {
    "": "nothing: a count, a date, a time, a range, a token",
    PERCENT_MARK: "a percent",
    MONEY_MARK: "an amount of money",
    RATIO_MARK: "a fraction in words below one",
    ORDINAL_MARK: "a small ordinal in words",
}

#: A hedge before a number (:func:`relapse.grounding._read.context.hedge`):
#: ``"about"`` (rounds), ``"above"`` (a lower bound, ``at least``),
#: ``"below"`` (an upper bound, ``up to``).
Hedge = Literal["about", "above", "below"]


class Kind(enum.StrEnum):
    """
    What an answer claim is: the rules that may decide it are indexed by it.

    A ``str`` enum: the walk looks a claim's rules up by its kind once per
    claim, and a ``str`` hashes in C.

    Read from the claim alone (:func:`relapse.grounding._read.quantity.kind_of`),
    first match wins: a claim with two ends is a range; a claim of FG002
    (or naming a decade or a century) a date; one that needs a time of day
    a time; then its mark (percent, money, ratio, ordinal); a number
    without a value key a token; any other number a count.
    """

    #: A number counting or measuring (``1,191``, ``40 hours``, ``2.5 km``).
    COUNT = "count"
    #: A percent (``45%``, ``fifty percent``).
    PERCENT = "percent"
    #: A fraction in words below one (``two thirds``).
    RATIO = "ratio"
    #: An amount of money (``$4,812.37``).
    MONEY = "money"
    #: A time of day (``3:30 pm``, ``noon``).
    TIME = "time"
    #: A date, a year, a decade or a century (``March 3, 2017``, ``1905``, ``the 80s``).
    DATE = "date"
    #: A small ordinal in words (``fourth``), judged in its slot.
    ORDINAL = "ordinal"
    #: A range of numbers (``10-15``, ``$5-$10``).
    RANGE = "range"
    #: A number held as written, with no value key (``GPT-4``, ``3/4``, ``3x4``).
    TOKEN = "token"
    #: A quotation (``"..."``), walked through the quotations' rules.
    QUOTATION = "quotation"


#: Every kind.
ALL_KINDS: Final = frozenset(Kind)
