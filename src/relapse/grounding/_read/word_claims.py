"""
Claims of what an answer writes in words: numbers, years, times of day, decades, small ordinals.

``seventy``, ``a dozen``, ``two thirds`` (FG001), ``nineteen forty-five``
(FG002, a year), ``noon``, ``the eighties``; and the percents a text writes
in words (``sixty percent``), which the ratio rule looks for in the chunks.
The check judges these claims in a pass of their own, after the digits'.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Iterator
from fractions import Fraction

from relapse.grounding._codes import FG001, FG002
from relapse.grounding._read.claims import Claim, new_claim
from relapse.grounding._read.dates import decade_claim, era_claim
from relapse.grounding._read.numbers import (
    ERA_WORDS,
    NOON_MIDNIGHT,
    sign_word,
    signed_claim,
    time_key,
)
from relapse.grounding._read.regions import Regions
from relapse.grounding._read.words import Value, read_run, run_start, word_numbers
from relapse.grounding._values.keys import value_key
from relapse.grounding._values.tags import ORDINAL_MARK
from relapse.grounding._values.units import PERCENT_SIGNS, PERCENT_WORDS

#: The unit that marks a claim of an ordinal up to ``tenth`` in words, which
#: only the chunks' ordinals in its slot judge (the ``ordinal-slot`` rule).
SMALL_ORDINAL = ORDINAL_MARK

#: The words of a time of day alone, each with its time: noon and midday are
#: 12:00, midnight 00:00 (``12 noon`` is read with its digits).
_TIME_WORDS = {"noon": "noon", "midday": "noon", "mid-day": "noon", "midnight": "midnight"}

_TIME_WORD = re.compile(
    r"(?<![^\W\d_-])(?:(?:twelve|Twelve|TWELVE)[\ \u00a0])?"
    r"(?P<word>noon|Noon|NOON|mid-?day|Mid-?day|MID-?DAY|midnight|Midnight|MIDNIGHT)(?![^\W\d_])"
)

# Pieces every spelling _TIME_WORD matches holds in lower case, which
# str.find finds in C: most answers hold none, and the pattern is not tried.
_TIME_WORD_PIECES = ("oon", "idday", "id-day", "idnight")


def _time_word_claims(answer: str, lowered: str) -> list[Claim]:
    """
    Return a claim for each time of day an answer names in a word: ``at noon``, ``by midnight``.

    Each needs the time (FG001): a chunk's ``12 pm``, ``12:00``, ``noon`` or
    ``midday`` grounds ``noon``, its ``12 am`` or ``midnight`` does not.
    ``twelve noon`` is one claim, whose ``twelve`` claims no number of its own.
    ``lowered`` is ``answer`` in lower case, searched first.
    """
    if not any(piece in lowered for piece in _TIME_WORD_PIECES):
        return []
    claims = []
    for match in _TIME_WORD.finditer(answer):
        word = match.group("word").lower()
        key = time_key(NOON_MIDNIGHT[_TIME_WORDS[word]])
        claims.append(
            new_claim(
                Claim,
                (FG001, match.start(), match.end(), ((key,),), (key,), None, 0, False, (), ""),
            )
        )
    return claims


#: The decades in words, by their tens: ``eighties`` is 8 (the 80s).
DECADE_WORDS = {
    "twenties": 2,
    "thirties": 3,
    "forties": 4,
    "fifties": 5,
    "sixties": 6,
    "seventies": 7,
    "eighties": 8,
    "nineties": 9,
}

_CENTURY_WORDS = {"eighteen": 18, "nineteen": 19, "twenty": 20}

_DECADE_WORD = re.compile(
    r"(?<![^\W\d_-])(?:(?P<century>(?:eighteen|nineteen|twenty|Eighteen|Nineteen|Twenty"
    r"|EIGHTEEN|NINETEEN|TWENTY))[\ \u00a0-])?"
    rf"(?P<word>(?i:{'|'.join(DECADE_WORDS)}))(?![^\W\d_])"
)


def _decade_word_claims(answer: str, lowered: str) -> list[Claim]:
    """
    Return a claim for each decade an answer names in words: ``the eighties``, ``nineteen-sixties``.

    ``the eighties`` is claimed as ``the 80s`` is (FG001: a decade, or ages,
    ``in his eighties``); with its century (``the nineteen eighties``) it is
    ``the 1980s`` (FG002), whose ``nineteen`` claims no number of its own.
    ``lowered`` is ``answer`` in lower case, searched first.
    """
    if "ties" not in lowered:
        return []
    claims = []
    for match in _DECADE_WORD.finditer(answer):
        tens = DECADE_WORDS[match.group("word").lower()]
        century = match.group("century")
        written = f"{_CENTURY_WORDS[century.lower()]}{tens}0" if century else f"{tens}0"
        claim = decade_claim(match.start(), match.end(), written)
        if claim is not None:
            claims.append(claim)
    return claims


def word_claims(answer: str) -> Iterator[Claim]:
    """
    Yield a claim for each number or time of day written in words that an answer claims, in order.

    ``seventy``, ``a dozen``, ``two thirds``, ``half a million`` (FG001);
    ``nineteen forty-five`` (FG002, a year); ``noon``, ``midnight`` (FG001,
    :func:`_time_word_claims`). Ordinals up to ten and ``half`` or ``a
    quarter`` alone claim nothing (see
    :class:`relapse.grounding._read.words.WordNumber`).
    """
    # The words are looked for in lower case, one search for each piece.
    lowered = answer.lower()
    times = sorted(
        [*_time_word_claims(answer, lowered), *_decade_word_claims(answer, lowered)],
        key=lambda claim: claim.start,
    )
    if not times:
        yield from _number_word_claims(answer)
        return
    spans = Regions([(claim.start, claim.end) for claim in times])
    numbers = (
        claim for claim in _number_word_claims(answer) if not spans.overlaps(claim.start, claim.end)
    )
    yield from heapq.merge(numbers, times, key=lambda claim: claim.start)


def _number_word_claims(answer: str) -> Iterator[Claim]:
    """Yield the claims of :func:`word_claims` of the numbers in words, in order."""
    previous_end = -1  # where the last number in words ends
    for word in word_numbers(answer):
        before, previous_end = previous_end, word.end
        if not word.claim:
            if word.kind == "ordinal":
                # "fourth": judged against the chunks' ordinals in its slot only.
                yield new_claim(
                    Claim,
                    (FG001, word.start, word.end, (), (), None, 0, True, (), SMALL_ORDINAL),
                )
            continue
        key = value_key(word.value)
        if key is None:
            continue
        code = FG002 if word.kind == "year" else FG001
        if code == FG001 and word.kind == "cardinal" and isinstance(word.value, int):
            # "forty-four BC": a year of an era, as "44 BC" is.
            era = _ERA_AFTER_WORDS.match(answer, word.end)
            # Only an era before Christ changes the year: "nineteen AD" is 19.
            if era is not None and "B" in era.group().upper():
                yield era_claim(word.start, era.end(), str(word.value), era.group().strip())
                continue
        precision = word.precision
        if key[0] == "n" and isinstance(key[2], int) and key[2] < 0:
            precision = key[2]  # "two and a half": its last decimal
        # A fraction below one is a ratio (unit "/"): a chunk's percent may state it.
        ratio = "/" if isinstance(word.value, Fraction) and word.value < 1 else ""
        if not ratio and _PERCENT_AFTER_WORDS.match(answer, word.end):
            ratio = "%"  # "fifty percent": a chunk's "half" or 0.5 may state it, as for "50%"
        claim = new_claim(
            Claim,
            (code, word.start, word.end, ((key,),), (key,), key, precision, True, (), ratio),
        )
        sign = sign_word(answer, word.start) if code == FG001 else None
        if sign is not None and before >= 0 and not answer[before:sign].strip():
            sign = None  # arithmetic in words: "twelve minus five"
        if sign is not None and not _SIGNED_QUANTITY_AFTER.match(answer, word.end):
            # Only a temperature or a change in percent is signed in words:
            # "turned negative three months ago", "an A minus three times".
            sign = None
        # "minus twelve degrees" is -12, as "minus 12 degrees" is.
        yield claim if sign is None else signed_claim(claim, sign)


# What a number in words after "minus" or "negative" is a signed quantity of:
# degrees (of temperature) and percent.
_SIGNED_QUANTITY_AFTER = re.compile(
    rf"[\ \u00a0]?(?:[{PERCENT_SIGNS}]|\u00b0"
    rf"|(?:(?i:degrees?|percentage[\ \u00a0]points?)|{PERCENT_WORDS})(?![^\W\d_]))"
)

# A percent after a number in words ("fifty percent", "twenty per cent", "ten %").
_PERCENT_AFTER_WORDS = re.compile(
    rf"[\ \u00a0]?[{PERCENT_SIGNS}]|[\ \u00a0]{PERCENT_WORDS}(?![^\W\d_])"
)

# An era after a number in words ("forty-four BC"), as the scanner reads one after digits.
_ERA_AFTER_WORDS = re.compile(rf"[\ \u00a0](?:{ERA_WORDS})")

# A percent's word after a number in words: " percent", " per cent", " pct".
_PERCENT_WORD_AFTER = re.compile(rf"[\ \u00a0](?:{PERCENT_WORDS})(?![^\W\d_])")

# The word right before it.
_LAST_WORD = re.compile(r"[^\W\d_]+\Z")

#: Characters a run of number words before a percent word is read back at most.
PERCENT_RUN_WINDOW = 120


def percents_in_words(text: str) -> Iterator[Value]:
    """
    Yield the percents ``text`` writes in words: ``sixty percent`` gives 60.

    Each percent word after a number word ends a run of number words, read
    whole as the answer's words are (``sixty-six point seven percent``).

    Args:
        text: A chunk text, or the chunks joined.

    Yields:
        The value of each percent written so.
    """
    for match in _PERCENT_WORD_AFTER.finditer(text):
        end = match.start()
        word = _LAST_WORD.search(text, max(0, end - 40), end)
        if word is None:
            continue
        start = run_start(text, word.start(), PERCENT_RUN_WINDOW)
        if start is None:
            continue
        numbers, _ = read_run(text, start, end)
        for number in numbers:
            if number.end == end:
                yield number.value
