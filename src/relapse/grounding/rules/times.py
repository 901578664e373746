"""
Times and decades: noon and midnight, decades, centuries, dates in digits.

A time of day named in words, a decade in words or as an age, a century
spelled out; and dates in digits, which only digits ground.
"""

from __future__ import annotations

import re
from decimal import Decimal

from relapse.grounding._codes import FG001, FG002
from relapse.grounding._read.numbers import NOON_MIDNIGHT, time_key
from relapse.grounding._read.quantity import Quantity
from relapse.grounding._read.word_claims import DECADE_WORDS
from relapse.grounding._read.words import ordinal_spellings
from relapse.grounding._values.keys import Key
from relapse.grounding._values.tags import CENTURY, CENTURY_BC, DECADE, NUMBER, SHORT_DECADE, Kind
from relapse.grounding.rules._lookup import Lookup
from relapse.grounding.rules._rule import Phase, Reads, Role, Support, rule

_BOTH = frozenset({FG001, FG002})
_CLAIMS = frozenset({Reads.DIGITS, Reads.WORDS})
# The key tags of decades and of centuries.
_DECADES = frozenset({DECADE, SHORT_DECADE})
_CENTURIES = frozenset({CENTURY, CENTURY_BC})
#: The kinds of claim without a value key: the century rule's verdict on them is final.
_KEYLESS_KINDS = frozenset({Kind.DATE, Kind.TIME, Kind.RANGE, Kind.TOKEN})

#: The times of day words name, by key, and the words: noon (or midday) and midnight.
_NAMED_TIMES: dict[Key, re.Pattern[str]] = {
    time_key(NOON_MIDNIGHT["noon"]): re.compile(r"(?<![^\W\d_])(?i:noon|mid-?day)(?![^\W\d_])"),
    time_key(NOON_MIDNIGHT["midnight"]): re.compile(r"(?<![^\W\d_])(?i:midnight)(?![^\W\d_])"),
}

# An era before Christ after a century ("the fifth century BC").
_ERA_BEFORE_CHRIST = re.compile(r"[\ \u00a0]*(?:BCE?|B\.C\.(?:E\.)?|before[\ \u00a0]Christ)")

#: The decades' words searched in the texts, by their tens (``eighties``: 8), in any case.
_DECADE_SEARCHES = {
    tens: re.compile(rf"(?<![^\W\d_])(?i:{word})(?![^\W\d_])")
    for word, tens in DECADE_WORDS.items()
}


def named_time(lookup: Lookup, value: Quantity, verdict: Support | None) -> Support | None:
    """
    A time of noon or midnight is judged by the texts' words for it.

    Accepts:
        ``12 pm`` in the answer when a chunk says ``noon`` (or ``midday``);
        ``12 am`` when it says ``midnight``. The verdict is final: such a
        claim the chunks do not hold in digits and do not name fails here.

    Why:
        Noon and midnight are the two times prose names rather than writes.

    Examples:
        | answer | chunks | verdict |
        | --- | --- | --- |
        | `It opens at 12 pm.` | `It opens at noon.` | passes |
        | `It opens at 12 am.` | `It opens at noon.` | fails |
    """
    named = [
        _NAMED_TIMES[alternative[0]]
        for alternative in value.claim.needs
        if len(alternative) == 1 and alternative[0] in _NAMED_TIMES
    ]
    if named:
        # "12 pm" in the answer, "noon" in a chunk; "12 am", "midnight".
        return any(_time_named(lookup, pattern) for pattern in named)
    return None


def decade_words(lookup: Lookup, value: Quantity, verdict: Support | None) -> Support | None:
    """
    A decade is stated by the texts' word for it, or by an age in it.

    Accepts:
        ``the 80s`` when a chunk says ``eighties`` or an age from 80 to 89
        (``aged 85``: ``in his 80s``); ``the 1980s`` when a chunk says
        ``eighties``, whose century it leaves unsaid.

    Why:
        Prose names decades in words; an age in a decade is how a person's
        decade is stated. Ages from the twenties only: ``in her teens`` is
        how the 10s of an age are said.

    Examples:
        | answer | chunks | verdict |
        | --- | --- | --- |
        | `It was built in the 1980s.` | `It was built in the eighties.` | passes |
    """
    decades = [
        alternative[0]
        for alternative in value.claim.needs
        if len(alternative) == 1 and alternative[0][0] in _DECADES
    ]
    if decades and _decade_stated(lookup, decades[0]):
        return True
    return None


def century_spelled(lookup: Lookup, value: Quantity, verdict: Support | None) -> Support | None:
    """
    A century in digits is stated by the texts' ordinal in words before ``century``.

    Accepts:
        ``the 19th century`` when a chunk says ``the nineteenth century``
        (``the 5th century BC``: ``the fifth century BC``, era and all). The
        verdict is final for every claim without a value key (dates,
        centuries, times): what no key holds and no word states fails here.

    Why:
        One search of the texts, made only for a century no chunk writes in
        digits.

    Examples:
        | answer | chunks | verdict |
        | --- | --- | --- |
        | `It was built in the 19th century.` | `It was built in the nineteenth century.` | passes |
    """
    claim = value.claim
    if claim.key is not None:
        return None
    needs = claim.needs
    century = needs[0][0] if len(needs) == 1 and len(needs[0]) == 1 else None
    # "the 19th century" in the answer, "the nineteenth century" in a chunk.
    return century is not None and century[0] in _CENTURIES and _century_spelled(lookup, century)


def dates_in_digits(lookup: Lookup, value: Quantity, verdict: Support | None) -> Support | None:
    """
    A date pattern or a year in digits is grounded only by digits.

    Accepts:
        Nothing: it fails a date (FG002) in digits, or a date pattern, that
        no chunk holds, before the spelled-out rule looks for it in words.

    Why:
        Chunks write dates in digits; a year in words (``nineteen
        forty-five``) grounds words only, so a chunk's words never ground an
        answer's ``1945``.

    Examples:
        | answer | chunks | verdict |
        | --- | --- | --- |
        | `It opened in 1938.` | `It opened in nineteen thirty-seven.` | fails |
        | `10,000 AD` | `10,000 BC` | fails |
        | `1944` | `1945` | fails |
        | `1945` | `the 1940s` | fails |
    """
    claim = value.claim
    key = claim.key
    if (
        claim.code != FG001
        and key is not None
        and (value.answer[claim.start : claim.start + 1].isdecimal() or key[0] != NUMBER)
    ):
        return False
    return None


def _time_named(lookup: Lookup, pattern: re.Pattern[str]) -> bool:
    """Tell whether the chunks or the question name a time of day in words (``noon``)."""
    return any(
        index is not None and pattern.search(index.joined) is not None
        for index in (lookup.chunks, lookup.question)
    )


def _decade_stated(lookup: Lookup, decade: Key) -> bool:
    """
    Tell whether the texts state a decade an answer names, in words or as an age.

    ``the 80s`` (``("dec2", 8)``) is a chunk's ``eighties``, or an age in
    them (``aged 85``: ``in his 80s``); ``the 1980s`` (``("dec", 198)``)
    a chunk's ``eighties`` too, whose century it leaves unsaid.

    Args:
        lookup: The prepared chunks and question.
        decade: A decade key.

    Returns:
        True when a chunk or the question writes the decade's word, or,
        for a decade without its century, a number from its first year
        to its last (80 to 89).
    """
    tens = decade[1]
    if not isinstance(tens, int):
        return False
    tens %= 10
    indexes = [index for index in (lookup.chunks, lookup.question) if index is not None]
    # Ages from the twenties: "in her teens" is how the 10s of an age are said.
    if (
        decade[0] == SHORT_DECADE
        and tens >= 2
        and any(
            index.numbers.has_number_between(Decimal(tens * 10), Decimal(tens * 10 + 9))
            for index in indexes
        )
    ):
        return True
    pattern = _DECADE_SEARCHES.get(tens)
    return pattern is not None and any(
        pattern.search(index.joined) is not None for index in indexes
    )


def _century_spelled(lookup: Lookup, century: Key) -> bool:
    """
    Tell whether the chunks or the question spell out a century (``nineteenth century``).

    Args:
        lookup: The prepared chunks and question.
        century: A century key, ``("cent", 18)`` for the 19th (the years 1800 to
            1899), or ``("cent_bc", 5)`` for the 5th before Christ.

    Returns:
        True when the ordinal in words stands before ``century`` or
        ``centuries``, in any case. One search of the texts, made only for
        a century no chunk writes in digits.
    """
    before_christ = century[0] == CENTURY_BC
    number = century[1]
    if not isinstance(number, int):
        return False
    spellings = ordinal_spellings(number if before_christ else number + 1)
    if not spellings:
        return False
    # A century before Christ is spelled with its era, and one of ours without it.
    era = (
        f"(?={_ERA_BEFORE_CHRIST.pattern})"
        if before_christ
        else (f"(?!{_ERA_BEFORE_CHRIST.pattern})")
    )
    pattern = re.compile(
        rf"(?<![^\W\d_])(?:{'|'.join(spellings)})[\s\u00a0-]+centur(?:y|ies)(?![^\W\d_])" + era,
        re.IGNORECASE,
    )
    return any(
        index is not None and pattern.search(index.joined) is not None
        for index in (lookup.chunks, lookup.question)
    )


#: The times' and decades' rules.
NAMED_TIME = rule(
    "named-time",
    frozenset({FG001}),
    Role.SUPPORTS,
    Phase.DECIDE,
    _CLAIMS,
    (0, 0),
    named_time,
    kinds=frozenset({Kind.TIME}),
)
DECADE_WORDS_RULE = rule(
    "decade-words",
    _BOTH,
    Role.SUPPORTS,
    Phase.DECIDE,
    _CLAIMS,
    (0, 0),
    decade_words,
    kinds=frozenset({Kind.DATE}),
)
CENTURY_SPELLED = rule(
    "century-spelled",
    _BOTH,
    Role.SUPPORTS,
    Phase.DECIDE,
    _CLAIMS,
    (0, 0),
    century_spelled,
    kinds=_KEYLESS_KINDS,
)
DATES_IN_DIGITS = rule(
    "dates-in-digits",
    frozenset({FG002}),
    Role.VETOES,
    Phase.DECIDE,
    _CLAIMS,
    (0, 0),
    dates_in_digits,
    kinds=frozenset({Kind.DATE}),
)
