"""
Number readers: one scanner match read as a number, a token, a fraction or a signed value.

The scanner (:mod:`relapse.grounding._read.scan`) finds where a claim is; these functions read
what it is: separators, decimals (point or comma), percent, scale words,
currency symbols, suffixes (ordinals, decades, units), mixed numbers and
fractions, tokens (``GPT-4``, ``B12``), signs (``-5``) and leading-point
decimals (``.5``). A match that is a date is handed to :mod:`relapse.grounding._read.dates`.
"""

from __future__ import annotations

import functools
import re
from fractions import Fraction

from relapse.grounding._codes import FG001
from relapse.grounding._read.claims import (
    MAX_CACHED_DIGITS,
    Claim,
    Parts,
    digit_run_parts,
    new_claim,
    short_int,
    trailing_zeros,
)
from relapse.grounding._read.dates import (
    CENTURY_AFTER,
    century_claim,
    decade_claim,
    era_claim,
    month_day,
    numeric_date,
    year_claim,
    year_range,
)
from relapse.grounding._text import ascii_digits, ascii_digits_in, spellings, trie_pattern
from relapse.grounding._values.calendar import (
    expand_two_digit_year,
    is_year,
    month_number,
    numeric_readings,
)
from relapse.grounding._values.keys import (
    CURRENCY_ONLY_SCALES,
    CURRENCY_SYMBOLS,
    SCALE_EXPONENTS,
    Key,
    fraction_key,
    int_key,
    number_key,
    value_key,
)
from relapse.grounding._values.units import (
    TIME_PREPOSITIONS,
    currency_before,
    people_or_unit_after,
    unit_after,
)

# Thousands separators, deleted from a grouped number's digits.
_DROP_SEPARATORS = str.maketrans(
    "", "", ",.'\u2019 \u00a0\u202f\u2009\u2007\u066c\u060c\u2e41\uff0c"
)

# The separators a grouped number may be two numbers at ("19 100"): all but
# the comma, the point and the apostrophes.
_SPACES_IN_GROUPS = frozenset(" \u00a0\u202f\u2009\u2007\u066c\u060c\u2e41\uff0c")

# The rest of a token after its first digit: letters, digits, and dots
# between them ("GPT-4o", "v2.0.1"); a hyphen ends it ("GPT-4-based").
_TOKEN_TAIL = re.compile(r"(?:[^\W_]|\.(?=[^\W_]))*")

#: Characters scanned back from a digit for a token's prefix.
TOKEN_WINDOW = 40

# Words that join a year with a hyphen without making a token ("Mid-1990s").
_HYPHEN_PREFIXES = frozenset({"mid", "pre", "post", "early", "late", "circa", "ca", "c", "non"})

_ORDINALS = frozenset({"st", "nd", "rd", "th"})

_PERCENT_WORDS = frozenset({"percent", "pct"})

#: Spaces and marks between thousands groups, as a regex class body: space,
#: no-break, narrow no-break, thin and figure space, the Arabic thousands
#: separator and comma, the reversed comma, the full-width comma.
SPACE_GROUPS = "\\ \u00a0\u202f\u2009\u2007\u066c\u060c\u2e41\uff0c"

#: Every thousands separator after which a comma is the decimal one
#: (``1.234,5``, ``1 234,5``, ``1'234,5``), as a regex class body.
GROUP_SEPARATORS = f".'\u2019{SPACE_GROUPS}"

#: An era after a year: ``BC``, ``BCE``, ``B.C.``, ``before Christ``, ``AD``,
#: ``A.D.``, ``CE``, and ``years BC`` (no flags, no groups).
ERA_WORDS = (
    r"(?:years?[\ \u00a0])?(?:BCE?|B\.C\.(?:E\.)?|AD|A\.D\.|CE|C\.E\."
    r"|before[\ \u00a0](?:Christ|the[\ \u00a0]Common[\ \u00a0]Era))(?![^\W\d_])"
)

# An era after a century ("the 5th century BC"), as after a year.
_ERA_AFTER = re.compile(rf"[\ \u00a0]{ERA_WORDS}")

# A capitalised word after an era's letters: a name they start ("BC Hydro").
_NAME_AFTER = re.compile(r"[\ \u00a0][A-Z][a-z]")

# A plural word after a number: what it counts ("3M users", "2M views").
_COUNTED_AFTER = re.compile(r"[\ \u00a0][a-z]+s(?![^\W\d_])")

#: Eras written glued to a year (``44BC``), read as :data:`ERA_WORDS` after a space are.
_GLUED_ERAS = frozenset({"BC", "BCE", "AD", "CE"})

#: The times of day, in minutes after midnight, that ``noon`` and ``midnight`` name.
NOON_MIDNIGHT = {"noon": 12 * 60, "midnight": 0}

#: The pattern of ``am``, ``pm``, ``a.m.``, ``PM`` after an hour, and of
#: ``noon`` and ``midnight`` after 12, as :func:`.spellings` writes them (no
#: flags, no groups).
AM_PM = rf"(?:[aApP](?:\.[mM]\.|[mM])|{trie_pattern(spellings(NOON_MIDNIGHT))})(?![^\W\d_])"


def time_key(minutes: int) -> Key:
    """Return the key of a time of day, in minutes after midnight (``3 pm``: 900)."""
    return ("tod", minutes)


def _hour_of(hour: int, am_pm: str) -> int | None:
    """Return the hour after midnight of ``hour`` (1 to 12) with ``am_pm``, or None."""
    if not 1 <= hour <= 12:
        return None
    named = NOON_MIDNIGHT.get(am_pm.strip().lower())
    if named is not None:
        # "12 noon", "12:00 midnight"; "3 noon" is no time.
        return named // 60 if hour == 12 else None
    # A tuple, not "pP": "" in "pP" is True.
    return hour % 12 + (12 if am_pm.strip()[:1] in ("p", "P") else 0)


def time_claim(
    start: int, end: int, hour: int, minute: int, am_pm: str, *, hour_stated: bool = True
) -> Claim | None:
    """
    Return the claim of ``3 pm`` or ``3:30 p.m.``: a time of day, or None when it is none.

    The answer's time needs the same time of day (``15:30`` in a chunk
    grounds ``3:30 pm``, ``3:30 am`` does not); a chunk's also grounds the
    hour as a plain number, unless ``hour_stated`` is False (``9.30am``,
    whose 9 is no number of its own).
    """
    hours = _hour_of(hour, am_pm)
    if hours is None or not 0 <= minute <= 59:
        return None
    key = time_key(hours * 60 + minute)
    provides = (key, int_key(hour)) if hour_stated else (key,)
    return Claim(FG001, start, end, ((key,),), provides)


# "hours" after four digits: the 24-hour clock's ("at 1700 hours") or a count of hours.
_HOURS_AFTER = re.compile(r"[\ \u00a0](?:hours|hrs|hr)(?![^\W\d_])")
# What puts a time of day after it: "at 1700 hours", "by 0600 hrs", "at 19.30";
# "kl." and "klo" are the Scandinavian and Finnish "o'clock" before one.
_AT_TIME = re.compile(rf"(?<![^\W\d_])(?i:{TIME_PREPOSITIONS}|around|about|kl\.|klo)[\ \u00a0]\Z")


def hours_claim(text: str, start: int, end: int, digits: str) -> Claim | None:
    """
    Return the claim of four digits before ``hours``: the 24-hour clock's time, or a count.

    ``1700 hours`` is never the year 1700. After a preposition of time, or
    with a leading zero (``0600 hours``), it is 17:00, which a chunk's
    ``17:00`` or ``5 pm`` grounds, as its digits do (a reader may take it
    for a count); otherwise it counts hours (``logged 1700 hours``).

    Args:
        text: The text.
        start: Where the digits start.
        end: Where they end.
        digits: The four ASCII digits.

    Returns:
        The claim, or None when no ``hours`` follows.
    """
    # The "h" first: years are common, and seldom before a word in "h".
    if text[end + 1 : end + 2] != "h" or _HOURS_AFTER.match(text, end) is None:
        return None
    needs, provides, key, precision = digit_run_parts(digits)
    hour, minute = int(digits[:2]), int(digits[2:])
    if (
        hour <= 23
        and minute <= 59
        and (digits[0] == "0" or _AT_TIME.search(text, max(0, start - 7), start) is not None)
    ):
        time = time_key(hour * 60 + minute)
        return new_claim(
            Claim, (FG001, start, end, ((time,), *needs), (time, *provides), None, 0, False, (), "")
        )
    return new_claim(Claim, (FG001, start, end, needs, provides, key, precision, True, (), ""))


def clock_keys(hour: int, minute: int, *, padded: bool = False) -> tuple[Key, ...]:
    """
    Return the times of day ``15:30`` or ``3:30`` may be, without am or pm.

    ``15:30`` is 15:30; ``3:30`` is 3:30 or 15:30, and ``12:30`` 12:30 or
    00:30, as a reader who does not know the morning from the afternoon
    takes it. ``03:30`` (``padded``: the
    hour written with a leading zero) is the 24-hour clock's, 3:30 only.
    """
    if not (0 <= hour <= 24 and 0 <= minute <= 59):
        return ()
    if hour == 24:
        # "24:00" is the day's end: midnight, 00:00 (no later time is written so).
        return (time_key(0),) if not minute else ()
    keys = [time_key(hour * 60 + minute)]
    if 1 <= hour <= 11 and not padded:
        keys.append(time_key((hour + 12) * 60 + minute))
    elif hour == 12:
        keys.append(time_key(minute))  # "12:30" is 12:30 pm or 12:30 am (00:30)
    return tuple(keys)


def read_match(text: str, match: re.Match[str], start: int, look_back: bool = True) -> Claim:
    """
    Turn one scanner match into a claim.

    ``look_back`` False says that no month name ends right before ``start``
    (the scanner would have matched it), so none is searched for.
    """
    if start:
        before = text[start - 1]
        if (before.isalpha() and not written_without_spaces(before)) or (
            before == "-" and is_hyphen_token(text, start)
        ):
            return read_token(text, start)
    kind = match.lastgroup
    if kind == "num":
        return read_number(text, match, start, look_back)
    if kind == "mixed":
        return read_mixed(text, match, start, look_back)
    if kind == "lakh":
        return read_lakh(match, start)
    raw = match.group()
    if kind == "iso":
        year, month, day = raw.split(match["iso_sep"])
        return numeric_date(match, [(short_int(year), short_int(month), short_int(day))])
    if kind == "mdy":
        first, second, year = raw.split("/")
        years = (short_int(year),) if len(year) == 4 else expand_two_digit_year(short_int(year))
        readings = [
            r for y in years for r in numeric_readings(short_int(first), short_int(second), y)
        ]
        return numeric_date(match, readings)
    if kind in ("dmy", "spaced", "dmony"):
        if kind == "dmony":
            first, _, year = raw.split("-")
            second = str(month_number(match["dmony_month"]))
        else:
            first, second, year = re.split(r"[.\-]\s?", raw)
        years = (short_int(year),) if len(year) == 4 else expand_two_digit_year(short_int(year))
        readings = [
            r for y in years for r in numeric_readings(short_int(first), short_int(second), y)
        ]
        if kind == "dmony":
            # The month is named: "04-Mar-2017" is the 4th of March only.
            readings = [r for r in readings if r[1] == short_int(second)]
        return numeric_date(match, readings)
    if kind in ("cjk", "spaced_ymd"):
        year, month, day = re.findall(r"\d+", raw)
        return numeric_date(match, [(short_int(year), short_int(month), short_int(day))])
    if kind == "range":
        return year_range(text, match, start)
    if kind == "dim":
        first_key = decimal_key(text[start : match.start("dim_a")])
        second_key = decimal_key(match["dim_b"])
        dimension: Key = ("x", *first_key[1:], *second_key[1:])
        return Claim(
            FG001,
            start,
            match.end(),
            ((dimension,), (first_key, second_key)),
            (dimension, first_key, second_key),
            plain=True,
        )
    if kind == "pair" and match.start("pair_am_pm") >= 0:
        # "3:30 pm": a time of day, or the pair before it when it is none.
        raw = text[start : match.start("pair_am_pm")]
        hour_raw, _, minute_raw = raw.partition(":")
        if len(minute_raw) == 2 and len(hour_raw) <= 2:
            hour, minute = short_int(hour_raw), short_int(minute_raw)
            claim = time_claim(start, match.end(), hour, minute, match["pair_am_pm"])
            if claim is not None:
                return claim
    token: Key = ("t", ascii_digits_in(raw))
    if kind == "hclock":
        # "19h30" is 19:30, and "7h30" 7:30 or 19:30, as "7:30" is; a chunk's
        # also grounds the same writing (a duration, "a 1h30 film").
        hour_raw, _, minute_raw = raw.partition("h")
        padded = len(hour_raw) == 2 and hour_raw[0] == "0"
        times = clock_keys(short_int(hour_raw), short_int(minute_raw), padded=padded)
        needs: tuple[tuple[Key, ...], ...] = ((token,), *((time,) for time in times))
        return Claim(FG001, start, match.end(), needs, (token, *times))
    if kind == "pair":
        first_raw, second_raw = re.split("[:/]", raw, maxsplit=1)
        if ":" in raw and len(second_raw) == 2 and len(first_raw) <= 2:
            # "15:30", "3:30": times of day too; a colon pair is matched as
            # written, as both numbers or, for a time, as the time it is.
            hour_digits = ascii_digits(first_raw)
            padded = len(hour_digits) == 2 and hour_digits[0] == "0"
            times = clock_keys(int(hour_digits), short_int(second_raw), padded=padded)
            if times:
                parts = (number_key(ascii_digits(first_raw)), number_key(ascii_digits(second_raw)))
                # "05:00" is a time of day, not the numbers 5 and 0; "02:30"
                # may be a duration of 2 hours 30 minutes.
                whole_hour = padded and ascii_digits(second_raw) == "00"
                # As a duration ("2 hours 30 minutes") each number must be stated
                # on its own ("s" keys): the trivial 1 and 0 of "1:00", or the 3
                # of a chunk's time "03:01", would ground it anywhere.
                stated = tuple(("s", *part[1:]) for part in parts)
                alternatives = ((token,),) if whole_hour else ((token,), stated)
                needs = (*alternatives, *((time,) for time in times))
                provides = (token, *parts, *times)
                return Claim(FG001, start, match.end(), needs, provides, plain=True)
        parts = (number_key(ascii_digits(first_raw)), number_key(ascii_digits(second_raw)))
        value = fraction_value(raw, first_raw, second_raw)
        if value is not None:
            # "3/4" in a chunk grounds "0.75"; "0.75" in a chunk grounds "3/4";
            # "1/3" in a chunk grounds "one third".
            needs = ((token,), parts, (value,))
            return Claim(FG001, start, match.end(), needs, (token, *parts, value), plain=True)
        # "21:0" in a chunk (data written so: "16:30-21:0") states 21:00 too;
        # an answer's "7:5" is a ratio or a score, and needs itself.
        times = ()
        if ":" in raw and len(second_raw) == 1 and len(first_raw) <= 2:
            times = clock_keys(int(ascii_digits(first_raw)), short_int(second_raw))
        provides = (token, *parts, *times)
        return Claim(FG001, start, match.end(), ((token,), parts), provides, plain=True)
    return Claim(FG001, start, match.end(), ((token,),), (token,))


#: Most digits of a denominator whose decimals can end within
#: MAX_FRACTION_PLACES places (it divides 10**6).
_MAX_DENOMINATOR_DIGITS = 7


def fraction_value(raw: str, numerator_raw: str, denominator_raw: str) -> Key | None:
    """Return the value key of a proper fraction written with a slash, if its decimals end."""
    if "/" not in raw or len(denominator_raw) > _MAX_DENOMINATOR_DIGITS:
        # A longer denominator has no ending decimals; int() is never asked
        # to read thousands of digits.
        return None
    numerator = short_int(numerator_raw) if len(numerator_raw) <= _MAX_DENOMINATOR_DIGITS else None
    denominator = short_int(denominator_raw)
    if numerator is None or not 0 < numerator < denominator:
        return None
    # 1/3 has no ending decimals: its key is the fraction, in lowest terms.
    return value_key(Fraction(numerator, denominator))


def read_mixed(text: str, match: re.Match[str], start: int, look_back: bool) -> Claim:
    """
    Read ``2 1/4`` as one number, 2.25, or only its whole part (``3 5/4``).

    A chunk's mixed number provides its value when its decimals end, the
    number as written, its fraction and its whole part; an answer's is
    supported by the value or by the same writing.
    """
    whole_end = match.end()
    whole = short_int(text[start:whole_end])
    numerator, denominator = short_int(match["mixed_num"]), short_int(match["mixed_den"])
    if not 0 < numerator < denominator:
        # Not a mixed number: the whole part alone, as the "num" reading reads
        # it; the scanner reads the pair after it next.
        if whole_end - start <= 2 and 1 <= whole <= 31:
            claim = month_day(text, start, whole_end, whole, False, look_back)
            if claim is not None:
                return claim
        return Claim(FG001, start, whole_end, *digit_run_parts(str(whole)), True)
    written: Key = ("t", f"{whole} {numerator}/{denominator}")
    fraction: Key = ("t", f"{numerator}/{denominator}")
    whole_key, numerator_key, denominator_key = (
        int_key(whole),
        int_key(numerator),
        int_key(denominator),
    )
    provides: tuple[Key, ...] = (written, fraction, whole_key, numerator_key, denominator_key)
    # The same writing, or the whole part and the fraction each held, as if
    # written apart ("1" and "1/2" are trivial and always held).
    needs: tuple[tuple[Key, ...], ...] = (
        (written,),
        (whole_key, fraction),
        (whole_key, numerator_key, denominator_key),
    )
    end = match.end("mixed_den")
    part = fraction_key(0, numerator, denominator)
    value = fraction_key(whole, numerator, denominator)
    if part is None or value is None:
        # The decimals do not end (1 1/3): as written, or as the fraction it is.
        exact = value_key(Fraction(whole * denominator + numerator, denominator))
        assert exact is not None  # a positive value
        return Claim(FG001, start, end, ((exact,), *needs), (exact, *provides), plain=True)
    provides = (value, part, *provides)
    # Hedges round to the last written decimal of the value.
    precision = int(value[2])  # type: ignore[arg-type]
    return Claim(FG001, start, end, ((value,), *needs), provides, value, precision, True)


#: The currencies written with Indian grouping, as :func:`currency_before`
#: reads them: the rupee (``₹``, ``Rs``, ``Rs.``, ``INR``).
LAKH_CURRENCIES = frozenset({"\u20b9"})


def read_lakh(match: re.Match[str], start: int) -> Claim:
    """
    Read ``8,22,443`` (Indian grouping, 822443) or the list 8, 22, 443: either supports it.

    Groups of two digits before a last group of three are how Indian English
    writes lakhs and crores (``12,34,567``); the same digits are a comma list
    elsewhere. An answer's needs either reading. A chunk's provides the list
    items, and the one number only after a currency that is written so
    (``₹8,22,443``, ``Rs. 12,34,567``): a bare ``8,22,443`` may be a list,
    and the number ``822,443`` fused from one is no figure of the chunk's.
    With decimals (``8,17,91,000.91``) it is one number: no list's last item
    has them.
    """
    raw = match.group()
    integer_raw, _, fraction = raw.partition(".")
    groups = integer_raw.split(",")
    value_needs, value_provides, key, precision = number_parts(
        "".join(groups), ascii_digits(fraction), 0, ""
    )
    if fraction:
        return new_claim(
            Claim,
            (FG001, start, match.end(), value_needs, value_provides, key, precision, True, (), ""),
        )
    items = [number_key(ascii_digits(group)) for group in groups[:-1]]
    items.append(number_key(ascii_digits(groups[-1]), ascii_digits(fraction)))
    standalone = [("s", *item[1:]) for item in items]
    if currency_before(match.string, start) not in LAKH_CURRENCIES:
        value_provides = ()  # a list's items, never one grouped number
    return new_claim(
        Claim,
        (
            FG001,
            start,
            match.end(),
            (*value_needs, tuple(items)),
            (*value_provides, *items, *standalone),
            key,
            precision,
            True,
            (),
            "",
        ),
    )


def decimal_key(raw: str) -> Key:
    """Return the key of ``12`` or ``2.5`` written with Unicode digits."""
    integer, _, fraction = raw.partition(".")
    return number_key(ascii_digits(integer), ascii_digits(fraction))


# An hour glued to am or pm ("9am", "30pm" of "9:30pm"): a time before a hyphen.
_HOUR_AM_PM = re.compile(r"\d{1,2}[aApP][mM]")


def is_hyphen_token(text: str, start: int) -> bool:
    """Tell whether ``WORD-<digits>`` is a token (``GPT-4``, ``COVID-19``), not ``mid-1990s``."""
    word_start = start - 1
    low = max(0, start - TOKEN_WINDOW)
    while word_start > low and text[word_start - 1].isalnum():
        word_start -= 1
    word = text[word_start : start - 1]
    if not word:
        return False
    if word.lower() in _HYPHEN_PREFIXES or not any(char.isalpha() for char in word):
        return False
    if _HOUR_AM_PM.fullmatch(word):
        return False  # "9am-5pm": a time, then another, not a token
    return any(char.isupper() or char.isdigit() for char in word)


def written_without_spaces(char: str) -> bool:
    """
    Tell whether ``char`` is of a script written without spaces: Han, kana, Hangul.

    A number glued to such a letter (``下午7:30``, ``午後7時``) is no token
    (``B12``, ``GPT-4``): those scripts glue every word to the next.
    """
    return (
        "\u3040" <= char <= "\u30ff"
        or "\u3400" <= char <= "\u9fff"
        or ("\uac00" <= char <= "\ud7af" or "\uf900" <= char <= "\ufaff")
    )


def read_token(text: str, start: int) -> Claim:
    """Read the token holding the digit at ``start`` (``GPT-4o``, ``COVID-19``, ``B12``)."""
    low = max(0, start - TOKEN_WINDOW)
    first = start
    while first > low:
        char = text[first - 1]
        if char.isalnum() or (char in "-." and first - 2 >= low and text[first - 2].isalnum()):
            first -= 1
        else:
            break
    tail = _TOKEN_TAIL.match(text, start)
    end = tail.end() if tail is not None else start + 1
    raw = text[first:end]
    key: Key = ("t", ascii_digits_in(raw.casefold().replace("-", "")))
    digits = re.match(r"\d+", text[start:end])
    provides: tuple[Key, ...] = (key,)
    if digits is not None and len(digits.group()) <= 1000:
        # A chunk's "GPT-4" also grounds a plain "4": leniency towards the answer.
        provides = (key, number_key(ascii_digits(digits.group())))
    return Claim(FG001, first, end, ((key,),), provides)


def _number_end(match: re.Match[str], integer_end: int) -> int:
    """Where the number of ``match`` ends without what follows it: its power, decimals or digits."""
    if match.start("exp") >= 0:
        return match.end("exp")
    if match.start("frac") >= 0:
        return match.end("frac")
    return integer_end


def read_number(text: str, match: re.Match[str], start: int, look_back: bool = True) -> Claim:
    """Read a number with its separators, decimals, percent, scale and suffix."""
    end = match.end()
    integer_end = match.start("int")
    after = match.start("after") >= 0  # by name: the match may be _CLAIMS_ONLY's
    integer_raw = text[start:integer_end]
    fraction_raw, percent_raw, scale_word, suffix, apostrophe, am_pm, power, era = match.group(
        "frac", "pct", "scale", "suffix", "apos", "am_pm", "exp", "era"
    )
    currency = currency_start(text, start)
    if era is None and suffix in _GLUED_ERAS:
        era, suffix = suffix, None  # "44BC": an era glued to its year
    if era is not None:
        # "753 BC", "79 AD", "300 years BC", "10,000 BC": a year of an era,
        # else the number alone.
        year_raw = integer_raw.translate(_DROP_SEPARATORS)
        # A grouped count before a name is no year ("12,000 BC Hydro customers").
        named = not integer_raw.isdecimal() and _NAME_AFTER.match(text, end) is not None
        if year_raw.isdecimal() and not (fraction_raw or currency or power or named):
            return era_claim(start, end, ascii_digits(year_raw), era)
        end = _number_end(match, integer_end)
    if am_pm is not None:
        # "3 pm", "11 a.m.": an hour of the day, else the number alone
        # ("1e6 pm" is a million, not 1 pm).
        # "9.30am", "9.30 pm": British English writes the minutes after a point.
        minutes = fraction_raw[1:] if fraction_raw and fraction_raw[0] == "." else ""
        if (
            integer_raw.isdecimal()
            and len(integer_raw) <= 2
            and (fraction_raw is None or (len(minutes) == 2 and minutes.isdecimal()))
            and not (currency or power)
        ):
            minute = short_int(minutes) if minutes else 0
            # "9.30am" states a time, not the number 9 ("9 people").
            claim = time_claim(
                start, end, short_int(integer_raw), minute, am_pm, hour_stated=not minutes
            )
            if claim is not None:
                return claim
        end = _number_end(match, integer_end)
    if (
        currency is None
        and fraction_raw is None
        and power is None
        and percent_raw is None
        and scale_word is None
        and apostrophe is None
        and (suffix is None or suffix.lower() in _ORDINALS)
        and integer_raw.isdigit()
        and len(integer_raw) <= 4
    ):
        # The common case, kept short: a plain integer, maybe a day or a year.
        value = int(integer_raw)
        if suffix is not None and value:  # an ordinal
            century = CENTURY_AFTER.match(text, end)
            if century is not None:
                # "the 5th century BC", "the 2nd century AD": the era is the century's.
                era = _ERA_AFTER.match(text, century.end())
                if era is None:
                    return century_claim(start, century.end(), value)
                written = era.group()
                before_christ = "B" in written or "before" in written
                return century_claim(start, era.end(), value, before_christ=before_christ)
        if len(integer_raw) <= 2 and 1 <= value <= 31:
            claim = month_day(text, start, end, value, after, look_back)
            if claim is not None:
                return claim
        elif len(integer_raw) == 4 and suffix is None:
            hours = hours_claim(text, start, end, integer_raw)
            if hours is not None:
                return hours
            if is_year(value):
                return year_claim(text, start, end, value, look_back)
        needs, provides, key, precision = digit_run_parts(str(value))
        return new_claim(Claim, (FG001, start, end, needs, provides, key, precision, True, (), ""))

    integer = integer_raw
    grouped = False
    if len(integer_raw) > 3 and not integer_raw.isdecimal():
        grouped = True
        integer = integer.translate(_DROP_SEPARATORS)
    integer = ascii_digits(integer)
    fraction = ascii_digits(fraction_raw[1:]) if fraction_raw else ""
    percent = percent_raw is not None
    exponent = 0
    if power is not None:
        # "1e6", "2.5E-3": the power of ten is part of the value.
        exponent = int(power[1:].replace("\u2212", "-"))
    ordinal = decade = unit = False
    if scale_word is not None:
        exponent += SCALE_EXPONENTS[scale_word.lower()]
    elif suffix is not None:
        lowered = suffix.lower()
        if lowered in _ORDINALS:
            ordinal = True
        elif lowered == "s":
            decade = True
        elif glued_scale(
            text, end, suffix, decimals=fraction_raw is not None, currency=currency is not None
        ):
            exponent += SCALE_EXPONENTS[lowered]
        elif lowered in _PERCENT_WORDS:
            percent = True
        else:
            unit = True
            end = match.end("frac") if fraction_raw else integer_end
    elif apostrophe is not None:
        decade = True
    if currency is not None:
        start = currency

    simple = not (grouped or fraction or percent or exponent or unit or currency is not None)
    if decade:
        claim = decade_claim(start, end, integer) if simple else None
        if claim is not None:
            return claim
        end = match.end("frac") if fraction_raw else integer_end
    if simple and len(integer) <= 4:
        value = int(integer)
        if len(integer) <= 2 and 1 <= value <= 31 and (suffix is None or ordinal):
            claim = month_day(text, start, end, value, after, look_back)
            if claim is not None:
                return claim
        elif len(integer) == 4 and not ordinal:
            hours = hours_claim(text, start, end, integer)
            if hours is not None:
                return hours
            if is_year(value):
                return year_claim(text, start, end, value, look_back)

    # "19 100" may be the numbers 19 and 100; "2 450,75" is one number.
    space_grouped = (
        integer_raw
        if grouped and not fraction_raw and not _SPACES_IN_GROUPS.isdisjoint(integer_raw)
        else ""
    )
    if len(integer) + len(fraction) <= MAX_CACHED_DIGITS:
        parts = _cached_number_parts(integer, fraction, exponent, space_grouped)
    else:
        parts = number_parts(integer, fraction, exponent, space_grouped)
    needs, provides, key, precision = parts
    ambiguous = False
    if power is not None:
        # "1e6" is one million only: no bare mantissa, unlike "1 million".
        provides = provides[:2]
    elif (
        fraction_raw is not None
        and len(fraction_raw) == 4
        and fraction_raw[0] == "."
        and not grouped
        and len(integer) <= 3
        and integer[:1] != "0"
        and not exponent
    ):
        # "1.234" is 1.234 in English and 1234 where a point groups thousands
        # (German, Spanish...): either reading supports it, and grounds; a
        # percent too ("1.234 %").
        grouping = number_key(integer + fraction)
        needs = (*needs, (grouping,))
        provides = (*provides, grouping, ("s", *grouping[1:]))
        # "1.000" may be a thousand: no trivial 1.
        ambiguous = True
    if (
        fraction_raw is not None
        and fraction_raw[0] == ","
        and not (grouped or percent or exponent or unit or currency is not None)
        and fraction[:1] != "0"
        and unit_after(text, end) is None
    ):
        # "2,5" in a chunk may also be the list 2, 5: both readings ground an
        # answer. The answer's "1,5 %" needs 1.5. A number that is plainly one
        # is no list: grouped ("1.299,99"), a percent or money ("3,75 %"),
        # with a unit ("0,25 mm"), or with a part no list item starts with
        # ("1,05").
        provides = (*provides, number_key(integer), number_key(fraction))
    if (
        fraction_raw is not None
        and len(fraction_raw) == 3
        and fraction_raw[0] == "."
        and len(integer_raw) <= 2
        and not (grouped or percent or exponent or unit or currency is not None)
        and _AT_TIME.search(text, max(0, start - 8), start) is not None
        and unit_after(text, end) is None
    ):
        # "at 19.30", "Kl. 19.30": a time of day written with a point (Danish,
        # Finnish, Indonesian), or the decimal; either reading grounds it.
        # The decimal stated on its own ("s"): the hour or minutes of a
        # chunk's time ("03:01" states 1 as minutes) state no "at 01.00".
        padded = len(integer_raw) == 2 and integer_raw[0] == "0"
        times = clock_keys(short_int(integer_raw), short_int(fraction_raw[1:]), padded=padded)
        standalone = tuple(
            tuple(("s", *part[1:]) if part[0] == "n" else part for part in alternative)
            for alternative in needs
        )
        needs = (*standalone, *((time,) for time in times))
        provides = (*provides, *times)
        ambiguous = ambiguous or bool(times)
    plain = not (percent or exponent or currency is not None or ambiguous)
    unit_mark = "%" if percent else ("$" if currency is not None else "")
    return new_claim(
        Claim, (FG001, start, end, needs, provides, key, precision, plain, (), unit_mark)
    )


def number_parts(integer: str, fraction: str, exponent: int, space_grouped: str) -> Parts:
    """
    Return the needs, provides, key and precision of a number.

    Args:
        integer: Its integer digits, in ASCII, without separators.
        fraction: Its decimal digits, in ASCII.
        exponent: Its scale, as a power of ten.
        space_grouped: The integer as written when space-grouped (``19 100``),
            else empty.
    """
    key = number_key(integer, fraction, exponent)
    precision = exponent - len(fraction) if fraction else exponent + trailing_zeros(integer)
    # "s": the number stands on its own, not as the end of a range.
    provides: tuple[Key, ...] = (key, ("s", *key[1:]))
    needs: tuple[tuple[Key, ...], ...] = ((key,),)
    if exponent:
        # "3.8 billion" in a chunk also grounds a bare "3.8"; the answer's
        # "3.8 billion" needs the scaled value.
        provides = (*provides, number_key(integer, fraction))
    elif space_grouped:
        # "19 100" may be one number or two: either reading supports it.
        parts = tuple(number_key(ascii_digits(part)) for part in re.split(r"\D", space_grouped))
        needs = ((key,), parts)
        provides = (*provides, *parts)
    return needs, provides, key, precision


_cached_number_parts = functools.lru_cache(maxsize=4096)(number_parts)


def glued_scale(text: str, end: int, suffix: str, *, decimals: bool, currency: bool) -> bool:
    """
    Tell whether letters glued to a number are its scale (``5k``, ``$3m``, ``3M users``).

    A capital M or B glued to the number is a million or a billion where it
    counts (``8.4M residents``, ``3M users``, ``3B units``): after decimals,
    or before a plural word; ``5M HCl`` (molar), ``100M sprint``, ``10M
    resistor``, ``Form 3B`` are not. A small m is a metre but before people
    or a unit (``62m users``, ``5m tonnes``; not ``400m hurdles``). After a
    currency symbol every scale letter is the scale (``$3m``, ``£2bn``).

    Args:
        text: The text.
        end: Where the letters end.
        suffix: The letters, as written.
        decimals: The number has decimals (``8.4M``).
        currency: A currency symbol is written before it.

    Returns:
        True when the letters multiply the number by their scale.
    """
    lowered = suffix.lower()
    return lowered in SCALE_EXPONENTS and (
        lowered not in CURRENCY_ONLY_SCALES
        or currency
        or (suffix in ("M", "B") and (decimals or _COUNTED_AFTER.match(text, end) is not None))
        or (suffix == "m" and people_or_unit_after(text, end))
    )


def currency_start(text: str, start: int) -> int | None:
    """Return where a currency symbol before the number starts (``$``, ``US$``, ``€ ``)."""
    index = start - 1
    if index < 0:
        return None
    if text[index] in " \u00a0" and index >= 1:
        index -= 1
    if text[index] not in CURRENCY_SYMBOLS:
        return None
    while index > 0 and index > start - 5 and text[index - 1].isupper():
        index -= 1  # "US$", "HK$", "A$"
    return index


def leading_point(text: str, point: int) -> bool:
    """Tell whether the ``.`` at ``point`` starts a decimal (``.5 mg``), not ends a word."""
    return not point or not (text[point - 1].isalnum() or text[point - 1] in ".,")


def point_decimal(text: str, claim: Claim) -> Claim:
    """
    Return the claim of ``.5`` read as ``0.5``, or ``claim`` when it is no plain number.

    The digit run after the point is divided by ten to its length: ``.5
    million`` is 500000.
    """
    key = claim.key
    if claim.code != FG001 or key is None or key[0] != "n" or claim.parts:
        return claim
    run = _DIGIT_RUN.match(text, claim.start)
    if run is None or text[run.end() : run.end() + 1] in (".", ","):
        return claim
    shift = run.end() - run.start()
    exponent = key[2]
    assert isinstance(exponent, int)  # number keys: ("n", digits, exponent)
    point: Key = ("n", key[1], exponent - shift)
    return new_claim(
        Claim,
        (
            FG001,
            claim.start - 1,
            claim.end,
            ((point,),),
            (point, ("s", *point[1:])),
            point,
            claim.precision - shift,
            claim.plain,
            (),
            claim.unit,
        ),
    )


_DIGIT_RUN = re.compile(r"\d+")

# A unit symbol with an exponent digit, read as a token: "m3/s", "km2", "cm3".
UNIT_TOKEN = re.compile(r"(?:[kcmdµμ]?m|ft|in|mi|yd)[23]")

# A hyphen-minus, the minus sign or an en dash (which typesetters use for
# the minus) right before a number may be its sign.
MINUS_SIGNS = frozenset("-\u2212\u2013")

# "minus 5", "negative 12": a sign in words, before a space.
_SIGN_WORDS = tuple(
    f"{word}{space}"
    for word in ("minus", "Minus", "MINUS", "negative", "Negative", "NEGATIVE")
    for space in " \u00a0"
)

#: Last letters of the sign words: a cheap test before the search.
SIGN_WORD_ENDS = frozenset("sSeE")


# After these, a minus before a digit is a sign; NUL separates the chunks
# of an index, so a chunk's start reads as a text's start. A currency
# symbol too: "$-3.2 million" is -$3.2 million, as accounts write it.
_SIGN_AFTER = frozenset("\x00([{:=~\u2248<>\"'\u201c\u2018\u00ab,;/" + CURRENCY_SYMBOLS)

_SIGN_SPACES = " \t\n\r\u00a0\u202f"

#: Spaces skipped back from a minus to see whether a number ends before it.
SIGN_WINDOW = 8


def is_sign(text: str, minus: int) -> bool:
    """
    Tell whether the minus at ``minus``, glued to the number after it, is its sign.

    ``-5 °C``, ``to -5``, ``(−3)``: a sign. ``10-15``, ``GPT-4``, ``10 -15``
    (a number before it, however spaced): a range or a token, not a sign.
    """
    if not minus:
        return True
    before = text[minus - 1]
    if before in _SIGN_AFTER:
        return True
    if before not in _SIGN_SPACES:
        return False
    index = minus - 1
    low = max(0, minus - SIGN_WINDOW)
    while index > low and text[index - 1] in _SIGN_SPACES:
        index -= 1
    if not index:
        # Only spaces before it: the text's start, as for a minus at 0 (and
        # as after a chunk's NUL, so an answer copied from a chunk reads as
        # the chunk does). Not "" in "%°", which is True.
        return True
    previous = text[index - 1]
    return not (previous.isdecimal() or previous in "%\u00b0")


def sign_word(text: str, start: int) -> int | None:
    """
    Return where ``minus`` or ``negative`` starts right before the number at ``start``.

    ``minus 5 degrees`` is -5; ``12 minus 5`` is arithmetic (a number comes
    before the word, as for :func:`is_sign`), and ``minus`` there no sign.
    """
    if not text.endswith(_SIGN_WORDS, 0, start):  # one test in C
        return None
    word = start - (6 if text[start - 2] in "sS" else 9)
    if (word and text[word - 1].isalnum()) or not is_sign(text, word):
        return None  # inside a longer word, or arithmetic: "12 minus 5"
    return word


def signed_claim(claim: Claim, sign: int | None = None) -> Claim:
    """
    Return the claim of a signed number: ``-5`` is not ``5``, in either direction.

    ``sign`` is where the sign starts (a sign word), by default the character
    before the number.

    Its key is tagged ``"-n"``; a chunk's ``-5`` provides only that key, so it
    grounds ``-5`` and ``−5`` but not ``5``, and a chunk's ``5`` never grounds
    ``-5``. A year with a sign (``-1500``) is a number; dates, tokens and
    ranges keep their reading.
    """
    key = claim.key
    if key is None or key[0] != "n" or claim.parts:
        return claim  # a date, a token, a range
    # A signed year ("-1500") is no year: a number below zero.
    signed: Key = ("-n", *key[1:])
    # Every reading of one number is signed ("-1.234": -1.234 or -1234).
    needs = tuple(
        (("-n", *alternative[0][1:]),)
        for alternative in claim.needs
        if len(alternative) == 1 and alternative[0][0] == "n"
    ) or ((signed,),)
    provides = tuple(("-n", *provided[1:]) for provided in claim.provides if provided[0] == "n")
    return new_claim(
        Claim,
        (
            FG001,
            claim.start - 1 if sign is None else sign,
            claim.end,
            needs,
            provides or (signed,),
            signed,
            claim.precision,
            False,
            (),
            claim.unit,
        ),
    )
