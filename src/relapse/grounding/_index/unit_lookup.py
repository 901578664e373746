"""
The unit lookup: with which units the chunks write a number the answer gives a unit.

``104 °C`` is not supported by a chunk's ``104 °F``: a supported number that
the answer writes with a unit is looked up in the texts, and each occurrence
that reads as the same number has a unit (the one after it, or its currency
symbol) or none. Two ways to the same verdict: :func:`search_verdict` looks
for the number's writings in the texts that may hold them and stops at the
first occurrence that agrees, which is cheap for a few lookups;
:func:`units_by_number` reads every number of the texts once, which bounds
the cost of many lookups in long, number-dense texts.

An occurrence is read with its sign as the scanner reads one (``-5``,
``−$30``, ``minus 5``): a signed key (``"-n"``) has the signed occurrences
only, and an unsigned key the unsigned ones. For a percent alone, the
mantissa before a scale word (the ``62`` of ``62 million``) is an occurrence
too, bound to :data:`~relapse.grounding._values.units.SCALE`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator

from relapse.grounding._read.numbers import MINUS_SIGNS, glued_scale, is_sign, sign_word
from relapse.grounding._text import spellings, trie_pattern
from relapse.grounding._values.keys import (
    CURRENCY_SYMBOLS,
    DECIMAL_CONTEXT,
    SCALE_EXPONENTS,
    SCALE_WORDS,
    Key,
    key_decimal,
    number_key,
)
from relapse.grounding._values.tags import AMBIGUOUS, PEOPLE, SCALE
from relapse.grounding._values.units import (
    DEGREES,
    binding_of,
    currency_before,
    foreign,
    kind_of,
)

#: What the texts say of the units of a number: some occurrence has the
#: answer's unit or none; none does but one has a unit of the same dimension
#: (``°F`` for ``°C``); every occurrence is bound to something plainly
#: else (``page 30``, ``30 people``, ``30 kg`` for ``30 minutes``:
#: :func:`relapse.grounding._values.units.foreign`); or none of these (no occurrence in digits, or
#: some bound to a kind that may stand for the answer's).
AGREE, CONFLICT, FOREIGN, UNRELATED = "agree", "conflict", "foreign", "unrelated"

# A number written with ASCII digits, thousands commas and a decimal point,
# and a scale word after it: what the lookup reads at an occurrence.
_NUMBER_AT = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")
# The scale words the scanner reads, as it reads them.
_SCALE_AFTER = re.compile(rf"[ \u00a0-]?({trie_pattern(spellings(SCALE_WORDS))})(?![^\W\d_])")
# Letters glued to a number, which may be its scale ("5k", "3M users").
_GLUED_LETTERS = re.compile(r"[^\W\d_]+")

#: The bindings a mantissa before a scale word (:data:`SCALE`) is foreign to:
#: a percent (``62 million`` is no ``62%``) and people (nor ``62 users``).
SCALED_AGAINST = frozenset({"%", PEOPLE})

#: Longest writing of a number looked for.
MAX_WRITTEN_DIGITS = 40


@functools.lru_cache(maxsize=4096)
def writings(key: Key) -> tuple[str, ...]:
    """
    Return how a number is commonly written: ``3.8``, ``3800``, ``3,800`` (each scale).

    Args:
        key: A number key.

    Returns:
        The digit strings to look for, sorted, with and without thousands
        commas, for the number itself and as the mantissa of each scale word.
    """
    if key[0] == "-n":
        # A signed number is written as its digits, the sign before them.
        return writings(("n", *key[1:]))
    value = key_decimal(key)
    found: set[str] = set()
    if value is None:
        return ()
    for exponent in (0, 2, 3, 6, 9, 12):
        mantissa = value.scaleb(-exponent, DECIMAL_CONTEXT)
        if exponent and mantissa < 1:
            break
        written = format(mantissa.normalize(DECIMAL_CONTEXT), "f")
        if len(written) > MAX_WRITTEN_DIGITS:
            continue
        found.add(written)
        integer, dot, fraction = written.partition(".")
        if len(integer) > 3:
            found.add(f"{int(integer):,}{dot}{fraction}")
    return tuple(sorted(found))


def _starts_a_number(text: str, position: int) -> bool:
    """Tell whether the digit at ``position`` starts a number: no digit, ``3,`` or ``3.`` before."""
    before = text[position - 1 : position] if position else ""
    return not (
        before.isdigit()
        or (before in (",", ".") and position >= 2 and text[position - 2].isdigit())
    )


def _signed(text: str, start: int) -> bool:
    """
    Tell whether the number whose digits start at ``start`` has a sign, as the scanner reads one.

    A minus (``-``, ``−``, ``–``) glued to it or to its currency symbol
    (``-5``, ``−$30``) when :func:`~relapse.grounding._read.numbers.is_sign`
    takes it for a sign, or ``minus`` or ``negative`` before it
    (:func:`~relapse.grounding._read.numbers.sign_word`).
    """
    if start and text[start - 1] in CURRENCY_SYMBOLS:
        start -= 1
    if not start:
        return False
    before = text[start - 1]
    if before in MINUS_SIGNS:
        return is_sign(text, start - 1)
    return before in " \u00a0" and sign_word(text, start) is not None


def _read(text: str, number: re.Match[str]) -> tuple[Key, str | None, Key | None]:
    """
    Return the key of a number match (with its sign and a scale word after it) and its binding.

    The third item is the key of its mantissa when a scale word follows
    (``62`` of ``62 million``), which that occurrence binds to :data:`SCALE`.
    """
    integer, _, fraction = number.group().replace(",", "").partition(".")
    end = number.end()
    scale = _SCALE_AFTER.match(text, end)
    exponent = 0
    mantissa: Key | None = None
    start = number.start()
    signed = _signed(text, start)
    if scale is None:
        # Letters glued: the scale where the scanner reads one ("62m users").
        glued = _GLUED_LETTERS.match(text, end)
        if glued is not None and glued_scale(
            text,
            glued.end(),
            glued.group(),
            decimals=bool(fraction),
            currency=currency_before(text, start) is not None,
        ):
            scale = glued
    if scale is not None:
        exponent = SCALE_EXPONENTS[scale.group().lstrip(" \u00a0-").lower()]
        end = scale.end()
        mantissa = number_key(integer, fraction, 0)
        if signed:
            mantissa = ("-n", *mantissa[1:])
    key = number_key(integer, fraction, exponent)
    if signed:
        key = ("-n", *key[1:])
    return key, binding_of(text, start, end), mantissa


def _read_occurrences(
    text: str, key: Key, scaled: bool = False
) -> Iterator[tuple[int, str | None]]:
    """
    Yield the start and binding of each occurrence of ``key`` in ``text``, writing by writing.

    With ``scaled``, also the occurrences of it as the mantissa of a scale
    word (``62 million`` for 62), bound to :data:`SCALE`.
    """
    for written in writings(key):
        position = text.find(written)
        while position >= 0:
            following = position + 1
            if _starts_a_number(text, position):
                number = _NUMBER_AT.match(text, position)
                if number is not None:
                    following = number.end()
                    read, unit, mantissa = _read(text, number)
                    if read == key:
                        yield position, unit
                    elif scaled and mantissa == key:
                        yield position, SCALE
            position = text.find(written, following)


def occurrence_starts(text: str, key: Key) -> Iterator[int]:
    """
    Yield where ``key`` occurs in ``text`` in digits: the occurrences :func:`search_units` reads.

    Args:
        text: A text.
        key: A number key.

    Returns:
        The start offset of each occurrence, writing by writing (not in
        text order).
    """
    for position, _ in _read_occurrences(text, key):
        yield position


def search_verdict(texts: Iterable[str], key: Key, unit: str) -> str:
    """
    Tell whether ``texts`` write the number ``key`` with ``unit``, searching for its writings.

    Args:
        texts: The texts that may write the number, in order.
        key: A number key (``("n", digits, exponent)``).
        unit: The answer's binding of it (:func:`relapse.grounding._values.units.binding_of`): a
            canonical unit name or ``"#people"``.

    Returns:
        :data:`AGREE`, :data:`CONFLICT`, :data:`FOREIGN` or
        :data:`UNRELATED`; the search stops at the first occurrence that
        agrees.
    """
    return verdict_of(frozenset(_units_until_agreeing(texts, key, unit)), unit)


def _units_until_agreeing(texts: Iterable[str], key: Key, unit: str) -> Iterator[str | None]:
    """Yield the bindings of ``key``'s occurrences, up to the first that agrees with ``unit``."""
    scaled = unit in SCALED_AGAINST
    for text in texts:
        for _, written_unit in _read_occurrences(text, key, scaled):
            yield written_unit
            if _agrees(written_unit, unit):
                return


#: Units one writing of a number may mean either of: degrees whose scale is
#: not said are Celsius or Fahrenheit (not kelvin, which is not written in
#: degrees); the sign ``¥`` is written for the yuan as well as the yen.
SAME_READINGS = frozenset(
    {frozenset({DEGREES, "°C"}), frozenset({DEGREES, "°F"}), frozenset({"¥", "yuan"})}
)


def _agrees(written: str | None, unit: str) -> bool:
    """
    Tell whether an occurrence's binding agrees with the answer's.

    It agrees bound to nothing, to the same unit (however ambiguous its
    spelling), or to a unit the same writing may mean (:data:`SAME_READINGS`).
    """
    if written is None or written == unit:
        return True
    written = written.removeprefix(AMBIGUOUS)
    return written == unit or frozenset({written, unit}) in SAME_READINGS


def search_units(texts: Iterable[str], key: Key) -> frozenset[str | None]:
    """
    Return every unit ``texts`` write the number ``key`` with, searching for its writings.

    Args:
        texts: The texts that may write the number.
        key: A number key.

    Returns:
        The bindings (:func:`relapse.grounding._values.units.binding_of`: a unit, a reference,
        people) of its occurrences in digits (None: bound to none); empty
        when no text writes it in digits.
    """
    return frozenset(
        unit for text in texts for _, unit in _read_occurrences(text, key, scaled=True)
    )


def units_by_number(texts: Iterable[str]) -> dict[Key, frozenset[str | None]]:
    """
    Return the units every number of ``texts`` is written with, in one reading.

    The occurrences are those :func:`search_verdict` finds: a number read
    where it starts, whose text begins with one of its :func:`writings`
    (``007`` is not an occurrence of 7).

    Args:
        texts: The texts.

    Returns:
        Each number key the texts write in digits, with the set of its
        bindings (:func:`relapse.grounding._values.units.binding_of`; None: bound to none).
    """
    found: dict[Key, set[str | None]] = {}
    for text in texts:
        for number in _NUMBER_AT.finditer(text):
            position = number.start()
            if not _starts_a_number(text, position):
                continue
            key, unit, mantissa = _read(text, number)
            if any(text.startswith(written, position) for written in writings(key)):
                found.setdefault(key, set()).add(unit)
            if mantissa is not None and any(
                text.startswith(written, position) for written in writings(mantissa)
            ):
                found.setdefault(mantissa, set()).add(SCALE)
    return {key: frozenset(units) for key, units in found.items()}


def verdict_of(units: frozenset[str | None], unit: str) -> str:
    """
    Return :func:`search_verdict`'s verdict from a number's units (:func:`units_by_number`).

    A mantissa before a scale word (:data:`SCALE`) counts against a percent
    and people only: ``62 million`` is no ``62%`` and ``62 million users`` no
    ``62 users``, but it still grounds a bare ``62`` and the ``$3.8`` of
    ``$3.8 billion``, as before.
    """
    if unit not in SCALED_AGAINST:
        units = units - {SCALE}
    if any(_agrees(written, unit) for written in units):
        return AGREE
    dimension = kind_of(unit)
    if dimension is not None and any(kind_of(other) == dimension for other in units):
        return CONFLICT
    if units and all(foreign(unit, other) for other in units):
        return FOREIGN
    return UNRELATED
