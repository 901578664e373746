"""
Value keys: how a number is compared, by value and never by spelling.

A number's value is kept as a *key* ``("n", significant_digits, exponent)``
built from the digit string, so ``29,000``, ``29 000``, ``29000.0``, ``29
thousand`` and ``twenty-nine thousand`` share one key, ``1.25`` and ``12.5``
do not, and a number with thousands of digits is just a longer string: no
``int`` conversion limit, no float overflow to ``inf``. A signed number's key
is tagged ``"-n"``.
"""

from __future__ import annotations

import functools
from decimal import Context, Decimal
from fractions import Fraction

#: A hashable index key. The first item is its tag, one of
#: :data:`relapse.grounding._values.tags.KEY_TAGS` (``"n"`` a number value,
#: ``"t"`` a token such as ``GPT-4``, ``"d"`` a date pattern, ``"dec"`` and
#: ``"dec2"`` decades, ``"cent"`` centuries...; a test reads every key the
#: readers make and fails on a tag not listed there). The tuple's type does
#: not narrow its first item to ``KeyTag``: indexing ``key[1]`` and
#: ``key[2]`` of a variadic tuple type is an error to the type checker.
Key = tuple[str | int | None, ...]

#: Significant digits beyond which a number is compared only exactly: the
#: rounding that hedged numbers need is done with :class:`decimal.Decimal`,
#: which is exact up to this precision.
MAX_ROUNDING_DIGITS = 40

#: Exact Decimal arithmetic for hedged comparisons, whatever the exponent.
DECIMAL_CONTEXT = Context(prec=MAX_ROUNDING_DIGITS + 20, Emax=10**9, Emin=-(10**9))

#: Scale words read after a number (``62 million``, ``62 mln``, ``62-bn``),
#: besides the glued abbreviations: every reader of a number and what follows
#: it (the scanner, the unit lookup, the unit after a scale word) reads these,
#: in lower case, capitalized and in capitals.
SCALE_WORDS = (
    *("thousand", "million", "billion", "trillion", "hundred"),
    *("bn", "mn", "tn", "mln", "bln", "trn", "trln"),
)

#: Scale words and abbreviations, as powers of ten.
SCALE_EXPONENTS = {
    "hundred": 2,
    "thousand": 3,
    "k": 3,
    "million": 6,
    "mn": 6,
    "mln": 6,
    "mm": 6,
    "m": 6,
    "billion": 9,
    "bn": 9,
    "bln": 9,
    "b": 9,
    "trillion": 12,
    "tn": 12,
    "trn": 12,
    "trln": 12,
}

#: Abbreviations that are a scale only right after a currency symbol
#: (``$5m``, ``£2b``, ``$4.2MM``); elsewhere ``5m`` is five metres, ``2b`` a
#: label and ``5mm`` five millimetres.
CURRENCY_ONLY_SCALES = frozenset({"m", "mm", "b", "tn"})

#: Currency symbols that may precede a number, as part of its span.
CURRENCY_SYMBOLS = "$€£¥₹₩₽₺₦₱฿₫₴₪¢"


#: Largest value whose spelled-out forms are looked up in the chunks.
MAX_WORD_VALUE = 10**15


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


@functools.lru_cache(maxsize=4096)
def value_key(value: int | Fraction) -> Key | None:
    """
    Return the key of a whole number or a fraction (a number in words).

    Cached: an answer repeats its numbers in words (a megabyte of them,
    generated, reads a few thousand distinct ones).

    Args:
        value: A non-negative ``int`` or ``Fraction``.

    Returns:
        The number key of its value when its decimals end within
        :data:`MAX_FRACTION_PLACES` places (``3/4``: the key of 0.75), else
        ``("q", numerator, denominator)`` in lowest terms (``1/3``); None for a
        negative value.
    """
    if value < 0:
        return None
    if isinstance(value, int) or value.denominator == 1:
        return int_key(int(value))
    whole, numerator = divmod(value.numerator, value.denominator)
    key = fraction_key(whole, numerator, value.denominator)
    return key if key is not None else ("q", value.numerator, value.denominator)


def key_value(key: Key) -> int | Fraction | None:
    """
    Return the value of a non-negative number key or rational key, for numbers in words.

    Args:
        key: A key built by :func:`number_key` or :func:`value_key`.

    Returns:
        An ``int`` for a whole number up to :data:`MAX_WORD_VALUE`, a
        ``Fraction`` for a short decimal or a ``("q", ...)`` key, else None.
    """
    if key[0] == "q":
        numerator, denominator = key[1], key[2]
        if isinstance(numerator, int) and isinstance(denominator, int) and denominator > 0:
            return Fraction(numerator, denominator)
        return None
    whole = key_int(key)
    if whole is not None:
        return whole
    parts = _digits_and_exponent(key)
    if parts is None:
        return None
    digits, exponent = parts
    if exponent >= 0 or len(digits) > MAX_FRACTION_PLACES + 16 or -exponent > MAX_FRACTION_PLACES:
        return None
    return Fraction(int(digits), 10**-exponent)


def _digits_and_exponent(key: Key) -> tuple[str, int] | None:
    """The digits and power of ten of a non-negative number key; None for other keys."""
    if key[0] != "n":
        return None  # a negative number, a token, a date
    digits = key[1]
    exponent = key[2]
    if not isinstance(digits, str) or not isinstance(exponent, int):
        return None
    return digits, exponent


def key_decimal(key: Key) -> Decimal | None:
    """
    Return the value of a number key as a Decimal, or None when it is too long.

    Args:
        key: A key built by :func:`number_key`.

    Returns:
        The value, or None when it has more than :data:`MAX_ROUNDING_DIGITS`
        significant digits.
    """
    parts = _digits_and_exponent(key)
    if parts is None:
        return None
    digits, exponent = parts
    if len(digits) > MAX_ROUNDING_DIGITS:
        return None
    return Decimal(f"{digits}E{exponent}")


def key_int(key: Key) -> int | None:
    """
    Return a number key's value as an ``int``, for whole numbers words can spell.

    Args:
        key: A key built by :func:`number_key`.

    Returns:
        The integer, or None.
    """
    parts = _digits_and_exponent(key)
    if parts is None:
        return None
    digits, exponent = parts
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
