"""
The digit scanner: every claim that holds a digit, read the same way in chunks and answers.

One compiled regular expression, anchored on digits, finds each number,
numeric date, range, token and version string in a single ``finditer`` pass;
month names before or after a number are read from a short window around it.
Because chunks, question and answer go through this one function, a sentence
copied verbatim from a chunk always yields claims the chunk index holds.

No pattern here can backtrack more than linearly: repetitions are over
disjoint character sets, and the windows around a match have fixed sizes.
"""

from __future__ import annotations

import functools
import re
from typing import NamedTuple

from relapse.grounding._codes import FG001, FG002
from relapse.grounding._dates import (
    MONTH_AFTER,
    MONTH_BEFORE,
    MONTH_CAPITALS,
    MONTH_LEAD,
    MONTH_NAMES,
    MONTH_WINDOW,
    YEAR_AFTER,
    date_needs,
    date_provides,
    expand_two_digit_year,
    is_year,
    month_number,
    numeric_readings,
    period_keys,
)
from relapse.grounding._normalize import normalize, origin_span
from relapse.grounding._numbers import (
    CURRENCY_ONLY_SCALES,
    CURRENCY_SYMBOLS,
    SCALE_EXPONENTS,
    Key,
    fraction_key,
    int_key,
    number_key,
)
from relapse.grounding._text import ascii_digits, trie_pattern

# Thousands separators, deleted from a grouped number's digits.
_DROP_SEPARATORS = str.maketrans("", "", ", \u00a0\u202f\u066c\uff0c")
#: Scale words read after a number, besides the glued abbreviations.
SCALE_WORDS = ("thousand", "million", "billion", "trillion", "hundred", "bn", "mn", "tn")


def _spellings(*words: str) -> str:
    """
    Return a trie pattern of ``words`` in lower case, capitalized and in capitals.

    Spelling the cases out keeps the scanner free of case-insensitive
    matching, which costs at every number it tries.
    """
    return trie_pattern(
        {form for word in words for form in (word, word.capitalize(), word.upper())}
    )


# What, after a digit run and a space, can make it more than a bare number:
# a thousands group ("29 000") or a fraction ("2 1/4"), a percent sign, a
# dash ("1939 - 1945"), a scale or percent word, a dimension ("4 x 4", "4 by
# 4"), a month name after up to two more spaces ("2 September", "4th of
# July"). Everything the claim alternatives below read after a digit run and
# a space starts with one of these; a lone digit ("7 7 7") does not.
_CONTINUES = r"""
    \d{3}(?!\d)|\d{1,3}/|[%\u066a\uff05\-\u2013\u2014\u00a0\u202f]
    |(?:PERCENT_WORDS|SCALE_WORDS)(?![^\W\d_])
    |(?:[xX\u00d7]|by)[\ \u00a0]?\d
    |[\ \u00a0\u202f]{0,2}(?:of[\ \u00a0\u202f]{1,3})?(?:MONTH_NAMES)(?![^\W\d_])
"""
# The claim alternatives, after a number's first digit. Empty groups ("int",
# "dim_a") mark positions; "after" marks a number a month name may follow.
_CLAIMS = r"""
        (?P<iso>\d{3}(?P<iso_sep>[-/])\d{1,2}(?P=iso_sep)\d{1,2}(?!\d))
      | (?P<mdy>\d?/\d{1,2}/(?:\d{4}|\d{2})(?!\d))
      | (?P<dmy>\d?(?P<dmy_sep>[.-])\d{1,2}(?P=dmy_sep)\d{4}(?!\d))
      | (?P<chain>\d*(?P<chain_sep>[.:/-])\d+(?:(?P=chain_sep)\d+)+)
      | (?P<pair>\d*[:/]\d+)
      | (?P<range>\d{3}
            (?=[\ \u00a0]?[-\u2013\u2014][\ \u00a0]?(?P<range_b>\d{4}|\d{2})(?!\d)))
      | (?P<dim>\d*(?:\.\d+)?(?P<dim_a>)[\ \u00a0]?(?:[xX\u00d7]|by)[\ \u00a0]?
            (?P<dim_b>\d+(?:\.\d+)?)(?:['\u2019]?s)?(?![^\W_]))
      | (?P<mixed>\d{0,2}
            (?=[\ \u00a0](?P<mixed_num>\d{1,3})/(?P<mixed_den>\d{1,3})(?![\d/])))
      | (?P<num>
            # The digit run, then thousands groups if it has at most 3 digits
            # (comma, or spaces, never mixed): "29,000", "29 000", not "2019 100".
            # Neither after a comma list's group ("8,22,443" is 8, 22 and 443).
            \d*(?:(?<!\d{4})NOT_LISTED
                (?:(?:,\d{3})+|(?:[\ \u00a0\u202f\u066c\uff0c]\d{3})+)(?!\d))?
            (?P<int>)
            # Decimals: a point, or a comma no thousands group can follow
            # ("1,5 %", "0,25"), once, after at most three digits.
            (?P<frac>[.\u066b]\d+
                |(?<!\d{4})NOT_LISTED,(?:\d{1,2}|\d{4,})(?!\d|[,.]\d))?
            (?:
                (?P<pct>[\ \u00a0\u202f]?[%\u066a\uff05]
                    |[\ \u00a0](?:PERCENT_WORDS)(?![^\W\d_]))
              | [\ \u00a0-]?(?P<scale>SCALE_WORDS)
                    (?![^\W\d_])
              | (?P<suffix>[^\W\d_]+)
              | (?P<apos>['\u2019]s)(?![^\W\d_])
            )?
            (?P<after>(?=[\ \u00a0\u202f]{1,3}(?:of[\ \u00a0\u202f]{1,3})?
                (?:MONTH_NAMES)(?![^\W\d_])))?
        )
"""


# Not right after a comma list's group: the digits before (at most three)
# follow no "digit," ("22" in "8,22,443").
_NOT_LISTED = r"(?<!\d,\d)(?<!\d,\d\d)(?<!\d,\d\d\d)"


def _pattern(template: str) -> str:
    """Fill the word lists into a scanner pattern."""
    return (
        template.replace("NOT_LISTED", _NOT_LISTED)
        .replace("MONTH_NAMES", MONTH_NAMES)
        .replace("PERCENT_WORDS", _spellings("percent", "per cent", "per\u00a0cent"))
        .replace("SCALE_WORDS", _spellings(*SCALE_WORDS))
    )


# Every claim starts with a digit or a month name before a number, and the
# pattern starts with a single character class of both, so that the regex
# engine skips to the next candidate in C. After a digit, its first
# alternative, "bare", takes a digit run that nothing continues (most numbers
# in most texts) and ends the match at once, instead of trying every claim
# alternative; it matches exactly where those would all read a plain integer,
# so it changes no result, only the cost. After a capital, "month" matches a
# month name that a number follows ("Sept. 2"); because it is tried at every
# capital, a number met without it has no month name before it, and its
# reader need not look back for one.
_SCAN = re.compile(
    _pattern(
        rf"""
        # ASCII digits, month capitals, and any non-ASCII character (a digit
        # of another script): one bitmap test per character, where "\d"
        # costs a Unicode category lookup.
        [0-9{MONTH_CAPITALS}\x80-\U0010ffff]
        (?:
            (?<=\d)
            (?:
                (?P<bare>\d*(?=
                    # First the commonest case, cheapest to test: a space and a
                    # lowercase letter that starts none of the continuations.
                    [\ ][ac-gi-lnqrsu-wyz]
                  | [\ ](?!{_CONTINUES})
                  | [,.:/](?!\d)
                  | -(?![\d\ \u00a0]|SCALE_WORDS)
                  | [\n\r\t)\]}};!?"\u201d\u00bb\x00]
                  | \Z))
              | {_CLAIMS}
            )
          | (?P<month>{MONTH_LEAD})
        )
        """
    ),
    re.VERBOSE,
)
# The claim alternatives alone, for a bare number the short path declines.
_CLAIMS_ONLY = re.compile(_pattern(rf"\d(?:{_CLAIMS})"), re.VERBOSE)
_INT_GROUP = _SCAN.groupindex["int"]
_ONLY_INT_GROUP = _CLAIMS_ONLY.groupindex["int"]
_AFTER_GROUP = _SCAN.groupindex["after"]
# The rest of a token after its first digit: letters, digits, and dots
# between them ("GPT-4o", "v2.0.1"); a hyphen ends it ("GPT-4-based").
_TOKEN_TAIL = re.compile(r"(?:[^\W_]|\.(?=[^\W_]))*")
#: Characters scanned back from a digit for a token's prefix.
TOKEN_WINDOW = 40
# Words that join a year with a hyphen without making a token ("Mid-1990s").
_HYPHEN_PREFIXES = frozenset({"mid", "pre", "post", "early", "late", "circa", "ca", "c", "non"})
_ORDINALS = frozenset({"st", "nd", "rd", "th"})
_PERCENT_WORDS = frozenset({"percent", "pct"})


class Claim(NamedTuple):
    """One claim found by the scanner: what an answer needs, what a chunk provides."""

    #: ``"FG001"`` (number) or ``"FG002"`` (date).
    code: str
    #: Start offset of the claim's span.
    start: int
    #: End offset of the claim's span (exclusive).
    end: int
    #: Alternatives that support the claim; each is a conjunction of keys.
    needs: tuple[tuple[Key, ...], ...]
    #: Keys a chunk holding this text provides to the index.
    provides: tuple[Key, ...]
    #: The number's value key (None for dates and tokens).
    key: Key | None = None
    #: Power of ten of the last written digit, for hedged rounding.
    precision: int = 0
    #: True when no unit marks it (no currency, percent or scale), so the
    #: trivial numbers are exempt.
    plain: bool = False
    #: The endpoints' keys of a range (``10-15``); empty otherwise.
    parts: tuple[Key, ...] = ()
    #: ``"%"`` for a percentage, ``"$"`` for an amount of money, else empty.
    unit: str = ""


# Builds a Claim from a full tuple of fields in C, for the hot path.
_new_claim = tuple.__new__


# What joins the two ends of a range: "10-15", "10 – 15", "28% to 52%",
# "130°F to 135°F", "between 10 and 15".
_RANGE_JOIN = re.compile(
    r"[\ \u00a0]*(?:°[\ \u00a0]?[CF]?|%)?[\ \u00a0]*(?:[-\u2013\u2014]|(?P<word>to|through|and))"
    r"[\ \u00a0]*"
)
# The characters _RANGE_JOIN can start with: a cheap test before the regex.
_RANGE_FIRST = frozenset(" \u00a0°%-\u2013\u2014ta")
_BETWEEN = re.compile(r"(?i:between)[\ \u00a0]+\Z")
#: Longest text between the two ends of a range.
RANGE_GAP = 12


def scan(
    text: str, *, short_paths: bool = True, plain_numbers: list[str] | None = None
) -> list[Claim]:
    """
    Return every digit-bearing claim of ``text``, in order, without overlaps.

    Two numbers joined as a range (``10-15 minutes``) are one claim. A chunk
    supports it with the same range, or with both ends stated as numbers of
    their own (a range drawn from a list of values); the end of another range
    does not count: ``8-10`` and ``15 minutes`` do not support ``10-15``.

    Args:
        text: A chunk, a question or an answer.
        short_paths: Read bare numbers the short way. False reads every
            number through the general path, which the short paths must
            agree with (the tests compare both).
        plain_numbers: For an index, which needs the keys of the claims but
            not their offsets: a bare ASCII digit run that no currency,
            prefix, month name or range joins is appended here as its digit
            string instead of becoming a claim; :func:`plain_number_keys`
            gives its keys. The claims of ``text`` are the ones returned plus
            one per string appended.

    Returns:
        The claims, with offsets into ``text`` as given.
    """
    rewritten, origin = normalize(text)
    claims = _scan(rewritten, short_paths, plain_numbers)
    if origin is None:
        return claims
    # Invisible characters, vulgar fractions, powers of ten: spans map back
    # to the text as written.
    return [
        claim._replace(start=start, end=end)
        for claim in claims
        for start, end in (origin_span(origin, claim.start, claim.end),)
    ]


def _scan(text: str, short_paths: bool, plain_numbers: list[str] | None) -> list[Claim]:
    """Compute :func:`scan` over a text that :func:`normalize` left as it is."""
    claims: list[Claim] = []
    append = claims.append
    pending: Claim | None = None
    resume = 0
    # Where the last match that ended in a letter ended ("5May"): a month name
    # it swallowed was never tried as a "month" match.
    glued = -MONTH_WINDOW
    # Only _SCAN has the "bare" and "month" alternatives: with short_paths
    # False every match takes the general path.
    for match in (_SCAN if short_paths else _CLAIMS_ONLY).finditer(text):
        start, end = match.span()
        kind = match.lastgroup
        if kind == "bare":
            if start < resume:
                continue  # inside a date or token already read
            claim = None
            before = text[start - 1] if start else "\n"
            if before in _QUIET_BEFORE or (
                before == " "
                and glued <= start - MONTH_WINDOW
                and not (start > 1 and text[start - 2] in CURRENCY_SYMBOLS)
            ):
                # The shortest path: nothing glued after the number ("bare"),
                # and before it no currency symbol, no token prefix, and no
                # month name (no "month" match reached it).
                raw = text[start:end]
                if raw.isascii():
                    if (
                        plain_numbers is not None
                        and pending is None
                        and not _may_open_range(text, end)
                    ):
                        plain_numbers.append(raw)
                        resume = end
                        continue
                    code, needs, provides, key, precision = _bare_parts(raw)
                    claim = _new_claim(
                        Claim, (code, start, end, needs, provides, key, precision, True, (), "")
                    )
            if claim is None:
                look_back = glued > start - MONTH_WINDOW
                claim = _plain(text, start, end, match, look_back)
                if claim is None:  # a prefix or another script the short paths do not read
                    full = _CLAIMS_ONLY.match(text, start)
                    assert full is not None  # the "num" alternative matches any digit
                    match, end = full, full.end()
                    claim = _read(text, match, start, look_back)
        elif kind == "month":
            if end < resume:
                continue  # the number after it is inside a claim already read
            month_start = start
            start = end
            number = _CLAIMS_ONLY.match(text, start)
            assert number is not None  # the "num" alternative matches any digit
            match, end = number, number.end()
            claim = None
            if end == number.start(_ONLY_INT_GROUP):
                # "Aug 23", "March 2008": a day or a year the month names.
                claim = _month_led(text, month_start, start, end)
            if claim is None:  # anything else after it is read the general way
                claim = _read(text, match, start)
        else:
            if not text[end - 1].isdecimal():
                glued = end
            if start < resume:
                continue  # inside a date or token already read
            claim = None
            # With short paths, a month name before the number was matched
            # first, unless a match that ended in letters swallowed it.
            look_back = not short_paths or glued > start - MONTH_WINDOW
            if short_paths and end == match.start(_INT_GROUP):
                # Digits and nothing glued after them: most of the other numbers.
                claim = _plain(text, start, end, match, look_back)
            if claim is None:
                claim = _read(text, match, start, look_back)
        claim_start = claim.start
        if claim_start and text[claim_start - 1] == "." and _leading_point(text, claim_start - 1):
            claim = _point_decimal(text, claim)
            claim_start = claim.start
        if (
            claim.key is None
            and claim.code == FG001
            and _UNIT_TOKEN.fullmatch(text, claim_start, claim.end)
        ):
            # "m3/s", "km2": a unit with an exponent, not the numbers 3 and 2.
            resume = max(resume, claim.end)
            continue
        if (
            claim_start
            and text[claim_start - 1] in _MINUS_SIGNS
            and _is_sign(text, claim_start - 1)
        ):
            claim = _negative(claim)
        claim_end = claim.end
        resume = claim_end if claim_end > end else end
        if pending is not None:
            if 0 < claim.start - pending.end <= RANGE_GAP:
                joined = _join_range(text, pending, claim)
                if joined is not None:
                    append(joined)
                    pending = None
                    continue
            append(pending)
            pending = None
        if claim.key is not None and claim.code == FG001 and _may_open_range(text, claim_end):
            pending = claim
            continue
        append(claim)
    if pending is not None:
        append(pending)
    return claims


def _leading_point(text: str, point: int) -> bool:
    """Tell whether the ``.`` at ``point`` starts a decimal (``.5 mg``), not ends a word."""
    return not point or not (text[point - 1].isalnum() or text[point - 1] in ".,")


def _point_decimal(text: str, claim: Claim) -> Claim:
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
    return _new_claim(
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
_UNIT_TOKEN = re.compile(r"(?:[kcmdµμ]?m|ft|in|mi|yd)[23]")
# A hyphen-minus or the minus sign right before a number may be its sign.
_MINUS_SIGNS = frozenset("-\u2212")
# After these, a minus before a digit is a sign; NUL separates the chunks
# of an index, so a chunk's start reads as a text's start.
_SIGN_AFTER = frozenset("\x00([{:=~\u2248<>\"'\u201c\u2018\u00ab,;/")
_SIGN_SPACES = " \t\n\r\u00a0\u202f"
#: Spaces skipped back from a minus to see whether a number ends before it.
SIGN_WINDOW = 8


def _is_sign(text: str, minus: int) -> bool:
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
    previous = text[index - 1] if index else ""
    return not (previous.isdecimal() or previous in "%\u00b0")


def _negative(claim: Claim) -> Claim:
    """
    Return the claim of a signed number: ``-5`` is not ``5``, in either direction.

    Its key is tagged ``"-n"``; a chunk's ``-5`` provides only that key, so it
    grounds ``-5`` and ``−5`` but not ``5``, and a chunk's ``5`` never grounds
    ``-5``. Dates, tokens and ranges keep their reading.
    """
    key = claim.key
    if claim.code != FG001 or key is None or key[0] != "n" or claim.parts:
        return claim
    signed: Key = ("-n", *key[1:])
    return _new_claim(
        Claim,
        (
            FG001,
            claim.start - 1,
            claim.end,
            ((signed,),),
            (signed,),
            signed,
            claim.precision,
            False,
            (),
            claim.unit,
        ),
    )


def _may_open_range(text: str, end: int) -> bool:
    """
    Tell whether a range join may start at ``end`` (a cheap, conservative test).

    Looks at the character there, or the one after it when it is a space, for
    a first character of :data:`_RANGE_JOIN`; a claim that fails this test
    can be emitted at once instead of waiting for the next one.
    """
    follows = text[end : end + 1]
    if follows == " ":
        follows = text[end + 1 : end + 2]
    return follows in _RANGE_FIRST


def _join_range(text: str, first: Claim, second: Claim) -> Claim | None:
    """Return the range claim of ``first`` and ``second``, or None if they are no range."""
    if second.key is None or second.code != FG001 or first.key is None:
        return None
    if first.key[0] != "n" or second.key[0] != "n":
        return None  # a signed end: "-5 to 10" is two claims
    if first.unit and first.unit != second.unit:
        return None  # "grew 2% to $1 billion" is two claims
    join = _RANGE_JOIN.fullmatch(text, first.end, second.start)
    if join is None:
        return None
    if join["word"] == "and" and not _BETWEEN.search(text, max(0, first.start - 12), first.start):
        return None  # "2 and 3" is two numbers; "between 2 and 3" is a range
    parts = (first.key, second.key)
    key: Key = ("r", *first.key[1:], *second.key[1:])
    standalone = (("s", *first.key[1:]), ("s", *second.key[1:]))
    provides = tuple(
        provided for provided in (key, *first.provides, *second.provides) if provided[0] != "s"
    )
    plain = first.plain and second.plain
    return _new_claim(
        Claim,
        (FG001, first.start, second.end, ((key,), standalone), provides, None, 0, plain, parts, ""),
    )


# Characters after which a bare digit run needs no look at its prefix: not
# a letter (token), a hyphen (token or range), a currency symbol.
_PLAIN_BEFORE = frozenset(" \n\t\r\x00(/,;:.\"'[\u201c\u2018\u00ab*")
# The same but a space, after which no month name or currency symbol can be,
# and a point, which may start a decimal (".5 mg").
_QUIET_BEFORE = _PLAIN_BEFORE - {" ", "."}


def _plain(text: str, start: int, end: int, match: re.Match[str], look_back: bool) -> Claim | None:
    """
    Read a bare ASCII digit run the short way, or return None for :func:`_read`.

    Gives exactly the claim the general path (:func:`_number`) gives, for the
    cases it accepts; it only skips work those cases do not need. With
    ``look_back`` False no month name is searched for before the number.
    """
    raw = text[start:end]
    if not (raw.isascii() and raw.isdigit()):
        return None  # separators or other scripts
    before = ""
    if start:
        before = text[start - 1]
        if before == " ":
            if start > 1 and text[start - 2] in CURRENCY_SYMBOLS:
                return None
        elif before not in _PLAIN_BEFORE:
            return None
    length = len(raw)
    if length <= 2:
        value = int(raw)
        if 1 <= value <= 31:
            after = match.start(_AFTER_GROUP) >= 0
            if after or (before == " " and look_back and _month_may_precede(text, start)):
                claim = _month_day(text, start, end, value, after, look_back)
                if claim is not None:
                    return claim
    elif length == 4:
        value = int(raw)
        if is_year(value):
            return _year(text, start, end, value, look_back)
    needs, provides, key, precision = _plain_parts(raw)
    return _new_claim(Claim, (FG001, start, end, needs, provides, key, precision, True, (), ""))


#: Longest digit string whose parts are cached: the caches stay small even
#: when a text holds numbers thousands of digits long.
MAX_CACHED_DIGITS = 32
_Parts = tuple[tuple[tuple[Key, ...], ...], tuple[Key, ...], Key, int]


def _plain_parts(raw: str) -> _Parts:
    """Return the needs, provides, key and precision of a plain digit run."""
    return _cached_plain_parts(raw) if len(raw) <= MAX_CACHED_DIGITS else _new_plain_parts(raw)


def _bare_parts(raw: str) -> tuple[str, tuple[tuple[Key, ...], ...], tuple[Key, ...], Key, int]:
    """Return the code, needs, provides, key and precision of a bare ASCII digit run."""
    if len(raw) > MAX_CACHED_DIGITS:
        return (FG001, *_new_plain_parts(raw))
    return _cached_bare_parts(raw)


@functools.lru_cache(maxsize=4096)
def _cached_bare_parts(
    raw: str,
) -> tuple[str, tuple[tuple[Key, ...], ...], tuple[Key, ...], Key, int]:
    """Compute :func:`_bare_parts` for a short digit run (they repeat across texts)."""
    if len(raw) == 4 and is_year(int(raw)):
        return (FG002, *_year_parts(int(raw)), 0)
    return (FG001, *_new_plain_parts(raw))


def plain_number_keys(raw: str) -> tuple[tuple[Key, ...], Key]:
    """
    Return what a bare digit run provides to an index, and its value key.

    Args:
        raw: A digit string :func:`scan` appended to ``plain_numbers``.

    Returns:
        ``(provides, key)``: the keys of the number (or year) it reads as.
    """
    _, _, provides, key, _ = _bare_parts(raw)
    return provides, key


def _new_plain_parts(raw: str) -> _Parts:
    """Compute :func:`_plain_parts`."""
    digits = raw.lstrip("0")
    significant = digits.rstrip("0")
    key: Key = ("n", significant, len(digits) - len(significant)) if digits else ("n", "0", 0)
    return ((key,),), (key, ("s", key[1], key[2])), key, key[2]  # type: ignore[return-value]


# Numbers repeat across texts (list markers, years, counts): their parts are
# computed once.
_cached_plain_parts = functools.lru_cache(maxsize=4096)(_new_plain_parts)


def _read(text: str, match: re.Match[str], start: int, look_back: bool = True) -> Claim:
    """
    Turn one scanner match into a claim.

    ``look_back`` False says that no month name ends right before ``start``
    (the scanner would have matched it), so none is searched for.
    """
    if start:
        before = text[start - 1]
        if before.isalpha() or (before == "-" and _hyphen_token(text, start)):
            return _token(text, start)
    kind = match.lastgroup
    if kind == "num":
        return _number(text, match, start, look_back)
    if kind == "mixed":
        return _mixed(text, match, start, look_back)
    raw = match.group()
    if kind == "iso":
        year, month, day = raw.split(match["iso_sep"])
        return _numeric_date(match, [(_int(year), _int(month), _int(day))])
    if kind == "mdy":
        first, second, year = raw.split("/")
        years = (_int(year),) if len(year) == 4 else expand_two_digit_year(_int(year))
        readings = [r for y in years for r in numeric_readings(_int(first), _int(second), y)]
        return _numeric_date(match, readings)
    if kind == "dmy":
        first, second, year = raw.split(match["dmy_sep"])
        return _numeric_date(match, numeric_readings(_int(first), _int(second), _int(year)))
    if kind == "range":
        return _range(text, match, start)
    if kind == "dim":
        first_key = _decimal_key(text[start : match.start("dim_a")])
        second_key = _decimal_key(match["dim_b"])
        dimension: Key = ("x", *first_key[1:], *second_key[1:])
        return Claim(
            FG001,
            start,
            match.end(),
            ((dimension,), (first_key, second_key)),
            (dimension, first_key, second_key),
            plain=True,
        )
    token: Key = ("t", ascii_digits_in(raw))
    if kind == "pair":
        first_raw, second_raw = re.split("[:/]", raw, maxsplit=1)
        parts = (number_key(ascii_digits(first_raw)), number_key(ascii_digits(second_raw)))
        value = _fraction_value(raw, first_raw, second_raw)
        if value is not None:
            # "3/4" in a chunk grounds "0.75"; "0.75" in a chunk grounds "3/4".
            needs = ((token,), parts, (value,))
            return Claim(FG001, start, match.end(), needs, (token, *parts, value), plain=True)
        return Claim(FG001, start, match.end(), ((token,), parts), (token, *parts), plain=True)
    return Claim(FG001, start, match.end(), ((token,),), (token,))


#: Most digits of a denominator whose decimals can end within
#: MAX_FRACTION_PLACES places (it divides 10**6).
_MAX_DENOMINATOR_DIGITS = 7


def _fraction_value(raw: str, numerator_raw: str, denominator_raw: str) -> Key | None:
    """Return the value key of a proper fraction written with a slash, if its decimals end."""
    if "/" not in raw or len(denominator_raw) > _MAX_DENOMINATOR_DIGITS:
        # A longer denominator has no ending decimals; int() is never asked
        # to read thousands of digits.
        return None
    numerator = _int(numerator_raw) if len(numerator_raw) <= _MAX_DENOMINATOR_DIGITS else None
    denominator = _int(denominator_raw)
    if numerator is None or not 0 < numerator < denominator:
        return None
    return fraction_key(0, numerator, denominator)


def _mixed(text: str, match: re.Match[str], start: int, look_back: bool) -> Claim:
    """
    Read ``2 1/4`` as one number, 2.25, or only its whole part (``3 5/4``).

    A chunk's mixed number provides its value when its decimals end, the
    number as written, its fraction and its whole part; an answer's is
    supported by the value or by the same writing.
    """
    whole_end = match.end()
    whole = _int(text[start:whole_end])
    numerator, denominator = _int(match["mixed_num"]), _int(match["mixed_den"])
    if not 0 < numerator < denominator:
        # Not a mixed number: the whole part alone, as the "num" reading reads
        # it; the scanner reads the pair after it next.
        if whole_end - start <= 2 and 1 <= whole <= 31:
            claim = _month_day(text, start, whole_end, whole, False, look_back)
            if claim is not None:
                return claim
        return Claim(FG001, start, whole_end, *_plain_parts(str(whole)), True)
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
    if part is None or value is None:  # the decimals do not end (1/3): as written only
        return Claim(FG001, start, end, needs, provides, plain=True)
    provides = (value, part, *provides)
    # Hedges round to the last written decimal of the value.
    precision = int(value[2])  # type: ignore[arg-type]
    return Claim(FG001, start, end, ((value,), *needs), provides, value, precision, True)


def _decimal_key(raw: str) -> Key:
    """Return the key of ``12`` or ``2.5`` written with Unicode digits."""
    integer, _, fraction = raw.partition(".")
    return number_key(ascii_digits(integer), ascii_digits(fraction))


def _int(digits: str) -> int:
    """Return the value of a short run of Unicode digits."""
    return int(ascii_digits(digits))


def ascii_digits_in(text: str) -> str:
    """Return ``text`` with every Unicode decimal digit written in ASCII."""
    if text.isascii():
        return text
    return "".join(ascii_digits(char) if char.isdecimal() else char for char in text)


def _hyphen_token(text: str, start: int) -> bool:
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
    return any(char.isupper() or char.isdigit() for char in word)


def _token(text: str, start: int) -> Claim:
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


def _numeric_date(match: re.Match[str], readings: list[tuple[int, int, int]]) -> Claim:
    """Build the claim of ``1945-09-02`` or ``9/2/1945``: any valid reading supports it."""
    start, end = match.span()
    readings = [r for r in readings if is_year(r[0]) and 1 <= r[1] <= 12 and 1 <= r[2] <= 31]
    if not readings:
        token: Key = ("t", ascii_digits_in(match.group()))
        return Claim(FG001, start, end, ((token,),), (token,))
    needs, provides = _readings_parts(tuple(readings))
    return _new_claim(Claim, (FG002, start, end, needs, provides, None, 0, False, (), ""))


@functools.lru_cache(maxsize=1024)
def _readings_parts(
    readings: tuple[tuple[int, int, int], ...],
) -> tuple[tuple[tuple[Key, ...], ...], tuple[Key, ...]]:
    """Return the needs and provides of a numeric date's readings (cached: dates repeat)."""
    needs: list[tuple[Key, ...]] = []
    provides: list[Key] = []
    for year, month, day in readings:
        needs.extend(date_needs(year, month, day))
        provides.extend(date_provides(year, month, day))
    return tuple(needs), tuple(provides)


def _range(text: str, match: re.Match[str], start: int) -> Claim:
    """Read ``1939–1945`` or ``2013-14``: a range of years, else two numbers."""
    end = match.end("range_b")
    first = _int(text[start : start + 4])
    second_digits = match["range_b"]
    second = _int(second_digits)
    if len(second_digits) == 2:
        full = first // 100 * 100 + second
        if full <= first:
            full += 100
        if is_year(first) and 0 < full - first <= 20:
            second = full
        elif is_year(first) and 1 <= second <= 12:
            # "2019-12": a year and a month.
            needs = date_needs(first, second, None)
            return Claim(FG002, start, end, needs, tuple(date_provides(first, second, None)))
        else:
            return _plain_number(text, start, start + 4)
    if not (is_year(first) and is_year(second) and first < second):
        return _plain_number(text, start, start + 4)
    years = (int_key(first), int_key(second))
    provides = (*years, *period_keys(first), *period_keys(second))
    return Claim(FG002, start, end, (years,), provides)


def _plain_number(text: str, start: int, end: int) -> Claim:
    """Read the bare digit run ``text[start:end]`` as a number (or a year)."""
    digits = ascii_digits(text[start:end])
    key = number_key(digits)
    if len(digits) == 4 and is_year(int(digits)):
        year = int(digits)
        return Claim(FG002, start, end, ((key,),), (key, *period_keys(year)), key, 0, True)
    return Claim(FG001, start, end, ((key,),), (key,), key, _trailing_zeros(digits), True)


def _trailing_zeros(digits: str) -> int:
    """Count the trailing zeros of a digit string (the precision of ``1,200`` is 2)."""
    return len(digits) - len(digits.rstrip("0")) if digits.strip("0") else 0


def _number(text: str, match: re.Match[str], start: int, look_back: bool = True) -> Claim:
    """Read a number with its separators, decimals, percent, scale and suffix."""
    end = match.end()
    integer_end = match.start("int")
    after = match.start("after") >= 0  # by name: the match may be _CLAIMS_ONLY's
    integer_raw = text[start:integer_end]
    fraction_raw, percent_raw, scale_word, suffix, apostrophe = match.group(
        "frac", "pct", "scale", "suffix", "apos"
    )
    currency = _currency_start(text, start)
    if (
        currency is None
        and fraction_raw is None
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
            century = _CENTURY_AFTER.match(text, end)
            if century is not None:
                return _century(start, century.end(), value)
        if len(integer_raw) <= 2 and 1 <= value <= 31:
            claim = _month_day(text, start, end, value, after, look_back)
            if claim is not None:
                return claim
        elif len(integer_raw) == 4 and suffix is None and is_year(value):
            return _year(text, start, end, value, look_back)
        needs, provides, key, precision = _plain_parts(str(value))
        return _new_claim(Claim, (FG001, start, end, needs, provides, key, precision, True, (), ""))

    integer = integer_raw
    grouped = False
    if len(integer_raw) > 3 and not integer_raw.isdecimal():
        grouped = True
        integer = integer.translate(_DROP_SEPARATORS)
    integer = ascii_digits(integer)
    fraction = ascii_digits(fraction_raw[1:]) if fraction_raw else ""
    percent = percent_raw is not None
    exponent = 0
    ordinal = decade = unit = False
    if scale_word is not None:
        exponent = SCALE_EXPONENTS[scale_word.lower()]
    elif suffix is not None:
        lowered = suffix.lower()
        if lowered in _ORDINALS:
            ordinal = True
        elif lowered == "s":
            decade = True
        elif lowered in SCALE_EXPONENTS and (
            lowered not in CURRENCY_ONLY_SCALES or currency is not None
        ):
            exponent = SCALE_EXPONENTS[lowered]
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
        claim = _decade(start, end, integer) if simple else None
        if claim is not None:
            return claim
        end = match.end("frac") if fraction_raw else integer_end
    if simple and len(integer) <= 4:
        value = int(integer)
        if len(integer) <= 2 and 1 <= value <= 31 and (suffix is None or ordinal):
            claim = _month_day(text, start, end, value, after, look_back)
            if claim is not None:
                return claim
        elif len(integer) == 4 and not ordinal and is_year(value):
            return _year(text, start, end, value, look_back)

    space_grouped = integer_raw if grouped and "," not in integer_raw else ""
    if len(integer) + len(fraction) <= MAX_CACHED_DIGITS:
        parts = _cached_number_parts(integer, fraction, exponent, space_grouped)
    else:
        parts = _number_parts(integer, fraction, exponent, space_grouped)
    needs, provides, key, precision = parts
    if fraction_raw is not None and fraction_raw[0] == ",":
        # "2,5" in a chunk may also be the list 2, 5: both readings ground an
        # answer. The answer's "1,5 %" needs 1.5.
        provides = (*provides, number_key(integer), number_key(fraction))
    plain = not (percent or exponent or currency is not None)
    unit_mark = "%" if percent else ("$" if currency is not None else "")
    return _new_claim(
        Claim, (FG001, start, end, needs, provides, key, precision, plain, (), unit_mark)
    )


def _number_parts(integer: str, fraction: str, exponent: int, space_grouped: str) -> _Parts:
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
    precision = exponent - len(fraction) if fraction else exponent + _trailing_zeros(integer)
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


_cached_number_parts = functools.lru_cache(maxsize=4096)(_number_parts)


def _currency_start(text: str, start: int) -> int | None:
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


# "century" after an ordinal: "19th century", "19th-century", "20th Century".
_CENTURY_AFTER = re.compile(r"[\ \u00a0-]?(?:[Cc]entur(?:y|ies)|CENTUR(?:Y|IES))(?![^\W\d_])")


def _century(start: int, end: int, ordinal: int) -> Claim:
    """
    Read ``19th century`` (FG002): the years 1800 to 1899, as ``the 1800s`` reads them.

    A chunk's century also provides its ordinal as a number (``19th``).
    """
    century: Key = ("cent", ordinal - 1)
    _, provides, _, _ = _plain_parts(str(ordinal))
    return _new_claim(
        Claim, (FG002, start, end, ((century,),), (century, *provides), None, 0, False, (), "")
    )


def _decade(start: int, end: int, integer: str) -> Claim | None:
    """
    Read ``1940s`` (a decade, FG002) or ``40s`` (FG001: ages and temperatures too).

    ``the 1800s`` names the century more often than the decade 1800 to 1809:
    either reading supports it.
    """
    if integer.endswith("0") and len(integer) == 4 and is_year(int(integer)):
        decade: Key = ("dec", int(integer) // 10)
        if integer.endswith("00"):
            century: Key = ("cent", int(integer) // 100)
            return Claim(FG002, start, end, ((decade,), (century,)), (decade, century))
        return Claim(FG002, start, end, ((decade,),), (decade,))
    if integer.endswith("0") and len(integer) == 2:
        short: Key = ("dec2", int(integer) // 10)
        key = number_key(integer)
        return Claim(FG001, start, end, ((short,), (key,)), (short, key), key, 1, True)
    return None


# Month names start with these capitals.
_MONTH_CAPITALS = frozenset("JFMASOND")
_SPACES = " \u00a0\u202f"


def _month_may_precede(text: str, start: int) -> bool:
    """
    Tell whether a month name may end right before ``start`` (a cheap test).

    The month regex runs only where this is true, which changes no result,
    only the cost: the name is the previous word (or the word before "the"
    or "of"), so that word must hold one of the month capitals.
    """
    # The last two words are enough: the month, or "the"/"of" after it.
    words = text[max(0, start - MONTH_WINDOW) : start].rsplit(None, 2)
    if not words:
        return False
    word = words[-1]
    if word in ("the", "of") and len(words) > 1:
        word = words[-2]
    return not _MONTH_CAPITALS.isdisjoint(word)


def _month_before(text: str, start: int) -> re.Match[str] | None:
    """Find a month name right before ``start`` (``Sept. `` in ``Sept. 2``)."""
    if not start or text[start - 1] not in _SPACES or not _month_may_precede(text, start):
        return None
    return MONTH_BEFORE.search(text, max(0, start - MONTH_WINDOW), start)


def _month_day(
    text: str, start: int, end: int, day: int, after: bool, look_back: bool = True
) -> Claim | None:
    """
    Read ``September 2[, 1945]`` or ``2[nd] [of] September[ 1945]`` around a day number.

    A month name before the day is searched for unless ``look_back`` is False;
    one after it only when ``after`` (the scanner saw one).
    """
    before = _month_before(text, start) if look_back else None
    if before is not None:
        return _month_then_day(text, before.start("month"), month_number(before["month"]), end, day)
    # The scan's lookahead ("after") saw a month capital after the number.
    following = MONTH_AFTER.match(text, end) if after else None
    if following is None:
        return None
    month = month_number(following["month"])
    year_digits = following["year"]
    if year_digits is not None and is_year(_int(year_digits)):
        return _date(start, following.end(), _int(year_digits), month, day)
    return _date(start, following.end("month"), None, month, day)


def _month_then_day(text: str, month_start: int, month: int, end: int, day: int) -> Claim:
    """Build the claim of ``September 2`` ending at ``end``, with ``, 1945`` if a year follows."""
    year: int | None = None
    year_match = YEAR_AFTER.match(text, end)
    if year_match is not None and is_year(_int(year_match["year"])):
        year = _int(year_match["year"])
        end = year_match.end()
    return _date(month_start, end, year, month, day)


def _month_led(text: str, month_start: int, start: int, end: int) -> Claim | None:
    """
    Read the day or year after a month name the scanner matched, or return None.

    Gives exactly the claim :func:`_month_day` and :func:`_year` give for a
    bare ASCII day (1 to 31) or year after a month name, without searching
    back for the name.

    Args:
        text: The text.
        month_start: Where the month name starts.
        start: Where the number starts.
        end: Where its digits end (nothing is glued after them).
    """
    raw = text[start:end]
    length = len(raw)
    # Neither a day nor a year has more than four digits; a longer run is
    # read the general way, never through int() (which refuses 4,300 digits).
    if length > 4 or not (raw.isascii() and raw.isdigit()):
        return None
    value = int(raw)
    month = month_number(text[month_start:start].split(None, 1)[0].rstrip(","))
    if length <= 2 and 1 <= value <= 31:
        return _month_then_day(text, month_start, month, end, value)
    if length == 4 and is_year(value):
        return _date(month_start, end, value, month, None)
    return None


def _year(text: str, start: int, end: int, year: int, look_back: bool = True) -> Claim:
    """Read a year, or ``July 1969`` when a month name comes before it (if ``look_back``)."""
    before = _month_before(text, start) if look_back else None
    if before is not None:
        return _date(before.start("month"), end, year, month_number(before["month"]), None)
    needs, provides, key = _year_parts(year)
    return _new_claim(Claim, (FG002, start, end, needs, provides, key, 0, True, (), ""))


@functools.lru_cache(maxsize=1024)
def _year_parts(year: int) -> tuple[tuple[tuple[Key, ...], ...], tuple[Key, ...], Key]:
    """Return the needs, provides and key of a year (cached: years repeat)."""
    key = int_key(year)
    return ((key,),), (key, *period_keys(year)), key


def _date(start: int, end: int, year: int | None, month: int, day: int | None) -> Claim:
    """Build the claim of a date with a month name."""
    needs, provides = _date_parts(year, month, day)
    return _new_claim(Claim, (FG002, start, end, needs, provides, None, 0, False, (), ""))


@functools.lru_cache(maxsize=1024)
def _date_parts(
    year: int | None, month: int, day: int | None
) -> tuple[tuple[tuple[Key, ...], ...], tuple[Key, ...]]:
    """Return the needs and provides of a date (cached: dates repeat)."""
    return date_needs(year, month, day), tuple(date_provides(year, month, day))
