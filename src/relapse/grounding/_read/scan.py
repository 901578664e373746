"""
The digit scanner: every claim that holds a digit, read the same way in chunks and answers.

One compiled regular expression, anchored on digits, finds each number,
numeric date, range, token and version string in a single ``finditer`` pass;
month names before or after a number are read from a short window around it.
Because chunks, question and answer go through this one function, a sentence
copied verbatim from a chunk always yields claims the chunk index holds.

This module finds where a claim is and joins ranges; what a match reads as
is in :mod:`relapse.grounding._read.numbers` (numbers, tokens, fractions, signs) and
:mod:`relapse.grounding._read.dates` (days, years, dates, decades, centuries), and the
claim type and the digit-run parts are in :mod:`relapse.grounding._read.claims`.

No pattern here can backtrack more than linearly: repetitions are over
disjoint character sets, and the windows around a match have fixed sizes.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from relapse.grounding._codes import FG001
from relapse.grounding._read.claims import (
    Claim,
    digit_run_or_year_parts,
    digit_run_parts,
    new_claim,
)
from relapse.grounding._read.dates import (
    era_before,
    era_claim,
    month_day,
    month_led,
    month_may_precede,
    year_claim,
)
from relapse.grounding._read.normalize import (
    REWRITTEN,
    REWRITTEN_CHARACTERS,
    normalize,
    origin_span,
)
from relapse.grounding._read.numbers import (
    AM_PM,
    ERA_WORDS,
    GROUP_SEPARATORS,
    MINUS_SIGNS,
    SIGN_WORD_ENDS,
    SPACE_GROUPS,
    UNIT_TOKEN,
    hours_claim,
    is_sign,
    leading_point,
    point_decimal,
    read_match,
    sign_word,
    signed_claim,
)
from relapse.grounding._text import ascii_digits, spellings, trie_pattern
from relapse.grounding._values.calendar import (
    MONTH_CAPITALS,
    MONTH_LEAD,
    MONTH_NAMES,
    MONTH_WINDOW,
    is_year,
)
from relapse.grounding._values.keys import CURRENCY_SYMBOLS, SCALE_WORDS, Key
from relapse.grounding._values.units import PERCENT_SIGNS, PERCENT_WORDS

# What, after a digit run and a space, can make it more than a bare number:
# a thousands group ("29 000") or a fraction ("2 1/4"), a percent sign, a
# dash ("1939 - 1945"), a scale or percent word, a dimension ("4 x 4", "4 by
# 4"), a month name after up to two more spaces ("2 September", "4th of
# July"), hours after four digits ("1700 hours": no year). Everything the
# claim alternatives below read after a digit run and a space starts with
# one of these; a lone digit ("7 7 7") does not.
_CONTINUES = r"""
    \d{3}(?!\d)|\d{1,3}/|[PERCENT_SIGNS\-\u2013\u2014\u00a0\u202f]
    |(?:PERCENT_WORDS|SCALE_WORDS)(?![^\W\d_])
    |(?:[xX\u00d7]|by)[\ \u00a0]?\d
    |[\ \u00a0\u202f]{0,2}(?:of[\ \u00a0\u202f]{1,3})?(?:MONTH_NAMES)(?![^\W\d_])
    |AM_PM|ERA_WORDS
    |(?<=(?<!\d)\d{4}\ )h(?:ours|rs?)(?![^\W\d_])
"""

# The claim alternatives, after a number's first digit. Empty groups ("int",
# "dim_a") mark positions; "after" marks a number a month name may follow.
_CLAIMS = r"""
        (?P<iso>\d{3}(?P<iso_sep>[-/.])\d{1,2}(?P=iso_sep)\d{1,2}(?!\d|[.-]\d))
      | (?P<mdy>\d?/\d{1,2}/(?:\d{4}|\d{2})(?!\d))
      | (?P<dmy>\d?(?P<dmy_sep>[.-])\d{1,2}(?P=dmy_sep)(?:\d{4}|\d{2})(?!\d|[.-]\d))
        # Central European "4. 3. 2017", "4. 3. 17.", Hungarian "2017. 03. 04.",
        # "2017.03.04", CJK "2017年3月4日",
        # and "04-Mar-2017" (a month's name between hyphens).
      | (?P<spaced>\d?\.[\ \u00a0]\d{1,2}\.[\ \u00a0](?:\d{4}|\d{2})(?!\d))
      | (?P<spaced_ymd>\d{3}\.[\ \u00a0]\d{1,2}\.[\ \u00a0]\d{1,2}\.(?!\d))
      | (?P<cjk>\d{3}\u5e74\d{1,2}\u6708\d{1,2}\u65e5)
      | (?P<dmony>\d?-(?P<dmony_month>MONTH_NAMES)-(?:\d{4}|\d{2})(?!\d))
        # Not points grouping thousands ("1.234.567"): a number, read below.
      | (?!\d{0,2}(?:\.\d{3}){2,}(?!\d|\.\d))
        (?P<chain>\d*(?P<chain_sep>[.:/-])\d+(?:(?P=chain_sep)\d+)+)
      | (?P<pair>\d*[:/]\d+(?P<pair_am_pm>[\ \u00a0\u202f]?AM_PM)?)
        # "19h30", "7h05": a time of day as French writes it.
      | (?P<hclock>\d?h\d\d(?![^\W_]))
      | (?P<range>\d{3}
            (?=[\ \u00a0]?[-\u2013\u2014][\ \u00a0]?(?P<range_b>\d{4}|\d{2})(?!\d)))
      | (?P<dim>\d*(?:\.\d+)?(?P<dim_a>)[\ \u00a0]?(?:[xX\u00d7]|by)[\ \u00a0]?
            (?P<dim_b>\d+(?:\.\d+)?)(?:['\u2019]?s)?(?![^\W_]))
      | (?P<mixed>\d{0,2}
            (?=[\ \u00a0](?P<mixed_num>\d{1,3})/(?P<mixed_den>\d{1,3})(?![\d/])))
      | (?P<lakh>(?=\d?,\d\d,)\d?(?<!\d{3})NOT_LISTED(?:,\d\d)+,\d{3}(?!\d|,\d)(?:\.\d+)?)
      | (?P<num>
            # The digit run, then thousands groups if it has at most 3 digits
            # (comma, spaces, apostrophes or points, never mixed): "29,000",
            # "29 000", "29'000", "1.234.567", "1.234,5"; not "2019 100", nor
            # a lone "1.234" (a decimal). Neither after a comma list's group
            # ("3,11,33" is 3, 11 and 33).
            # (The lookahead first: most numbers have no group to test for.)
            \d*(?:(?=[,.'\u2019SPACE_GROUPS]\d{3})(?<!\d{4})NOT_LISTED(?<!(?<!\d)0)
                (?:(?:,\d{3})+|(?:[SPACE_GROUPS]\d{3})+|(?:['\u2019]\d{3})+
                  |(?:\.\d{3}){2,}|\.\d{3}(?=,\d))(?!\d))?
            (?P<int>)
            # Decimals: a point; or a comma no thousands group can follow
            # ("1,5 %", "0,25"), once, after at most three digits; or a comma
            # after groups of another separator ("1.234,567", "1 234,5") or
            # after a lone 0 ("0,125").
            (?P<frac>[.\u066b]\d+
                |(?=,)(?:(?<!\d{4})NOT_LISTED,(?:\d{1,2}|\d{4,})(?!\d|[,.]\d)
                    |(?<=[GROUP_SEPARATORS]\d{3}),\d+(?!\d|[,.]\d)
                    |(?<=0)(?<!\d0),\d+(?!\d|[,.]\d)))?
            # A power of ten: "1e6", "2.5E-3"; not after a 0, since the digest
            # of "1.0e6" ("10e6") shows no "1e" for a lazy index to find.
            (?P<exp>(?<=[1-9])[eE][+\-\u2212]?\d{1,3}(?![^\W_]))?
            (?:
                (?P<pct>[\ \u00a0\u202f]?[PERCENT_SIGNS]
                    |[\ \u00a0](?:PERCENT_WORDS)(?![^\W\d_]))
              | (?=[\ \u00a0][yABCb])(?P<era>ERA_AFTER)
              | [\ \u00a0-]?(?P<scale>SCALE_WORDS)
                    (?![^\W\d_])
              | (?=[\ \u00a0\u202f]?[aApPnNmM])(?P<am_pm>[\ \u00a0\u202f]?AM_PM)
              | (?P<suffix>[^\W\d_]+)
              | (?P<apos>['\u2019]s)(?![^\W\d_])
            )?
            (?P<after>(?=[\ \u00a0\u202f]{1,3}(?:of[\ \u00a0\u202f]{1,3})?
                (?:MONTH_NAMES)(?![^\W\d_])))?
        )
"""

# Not after a sign word or an era, the ends of which are tested here, after
# the number's first digit, in the engine: "minus 5", "NEGATIVE 5", "AD 79",
# "A.D. 79" are read the general way, which looks for them (so are "bonus 5"
# and "five 5", at no cost to their reading).
_NOT_AFTER_WORD = (
    # First one test that rules them all out for nearly every number ("the 5").
    r"(?:(?<![uUvVAD][sSeED.][\ \u00a0]\d)|"
    + "".join(
        rf"(?<!{re.escape(end)}[\ \u00a0]\d)" for end in ("nus", "NUS", "ive", "IVE", "AD", "A.D.")
    )
    + ")"
)

# Not right after a comma list's group: the digits before (at most three)
# follow no "digit," ("22" in "8,22,443").
_NOT_LISTED = r"(?<!\d,\d)(?<!\d,\d\d)(?<!\d,\d\d\d)"


def _pattern(template: str) -> str:
    """Fill the word lists into a scanner pattern."""
    return (
        template.replace("NOT_LISTED", _NOT_LISTED)
        .replace("MONTH_NAMES", MONTH_NAMES)
        .replace("PERCENT_WORDS", PERCENT_WORDS)
        .replace("PERCENT_SIGNS", PERCENT_SIGNS)
        .replace("SCALE_WORDS", trie_pattern(spellings(SCALE_WORDS)))
        .replace("AM_PM", AM_PM)
        .replace("ERA_AFTER", f"[\\ \\u00a0](?:{ERA_WORDS})")
        .replace("ERA_WORDS", ERA_WORDS)
        .replace("NOT_AFTER_WORD", _NOT_AFTER_WORD)
        .replace("SPACE_GROUPS", SPACE_GROUPS)
        .replace("GROUP_SEPARATORS", GROUP_SEPARATORS)
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
        # ASCII digits, month capitals, the caret, and any non-ASCII
        # character (a digit of another script): one bitmap test per
        # character, where "\d" costs a Unicode category lookup.
        [0-9{MONTH_CAPITALS}\^\x80-\U0010ffff]
        (?:
            (?<=\d)
            (?:
                (?P<bare>NOT_AFTER_WORD\d*(?=
                    # First the commonest case, cheapest to test: a space and a
                    # lowercase letter that starts none of the continuations.
                    [\ ](?:[c-gi-lqrsu-wz]|a(?![mM.])|n(?!oon(?![^\W\d_]))
                        |y(?!ears?[\ \u00a0](?:[ABC]|before)))
                  | [\ ](?!{_CONTINUES})
                  | [,:/](?!\d)
                  | \.(?!\d|[\ \u00a0]\d{{1,2}}\.[\ \u00a0]\d)
                  | -(?![\d\ \u00a0]|SCALE_WORDS|(?:MONTH_NAMES)-\d)
                  | [\n\r\t)\]}};!?"\u201d\u00bb\x00]
                  | \Z))
              | {_CLAIMS}
            )
          | (?P<month>{MONTH_LEAD})
            # A character the rewrite of _normalize changes (invisible, vulgar
            # fraction, superscript), or the caret of a power of ten ("10^6":
            # the match before it ended at the caret): the scan starts again
            # on the rewrite.
          | (?P<rewrite>(?<=[{REWRITTEN}])|(?<=10\^))
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


class ScanState(NamedTuple):
    """
    What the scanner carries from one match to the next, to resume a scan where it stopped.

    Offsets are into the scanned text.
    """

    #: Where the regex search goes on.
    search: int
    #: A claim that may open a range with the next one, not yet emitted.
    pending: Claim | None
    #: Matches starting before this are inside a claim already read.
    resume: int
    #: Where the last match that ended in a letter ended ("5May").
    glued: int


#: The state a scan starts a text with.
START = ScanState(0, None, 0, -MONTH_WINDOW)


def scan(
    text: str,
    *,
    short_paths: bool = True,
    plain_numbers: list[str] | None = None,
    plain_starts: list[int] | None = None,
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
        plain_starts: With ``plain_numbers``, where each string appended
            there starts in ``text`` as given (the index records where a
            key is provided, for :class:`relapse.Evidence`).

    Returns:
        The claims, with offsets into ``text`` as given.
    """
    if short_paths:
        # Optimistic: most texts hold nothing to rewrite, and the scanner
        # meets every non-ASCII character anyway, so it reports the first
        # one to rewrite instead of a separate pass looking for them.
        kept = len(plain_numbers) if plain_numbers is not None else 0
        kept_starts = len(plain_starts) if plain_starts is not None else 0
        found = _scan(
            text, short_paths, plain_numbers, plain_starts, START, len(text), stop_at_rewrite=True
        )
        if found is not None:
            return _with_pending(*found)
        if plain_numbers is not None:
            del plain_numbers[kept:]
        if plain_starts is not None:
            del plain_starts[kept_starts:]
    rewritten, origin = normalize(text)
    # Rewritten text gives every bare number as a claim, whose span maps
    # back to the text as written (a digit run may hold an invisible character).
    found = _scan(
        rewritten,
        short_paths,
        plain_numbers if origin is None else None,
        plain_starts if origin is None else None,
        START,
        len(rewritten),
        stop_at_rewrite=False,
    )
    assert found is not None  # only a scan that stops at a rewrite returns None
    claims = _with_pending(*found)
    if origin is None:
        return claims
    # Invisible characters, vulgar fractions, powers of ten: spans map back
    # to the text as written.
    return [
        claim._replace(start=start, end=end)
        for claim in claims
        for start, end in (origin_span(origin, claim.start, claim.end),)
    ]


def scan_block(text: str, state: ScanState, stop: int) -> tuple[list[Claim], ScanState]:
    """
    Scan ``text`` from ``state`` up to the first match that starts at or after ``stop``.

    Scanning a text in consecutive blocks, each from the state the previous
    one returned, gives the claims :func:`scan` gives, but for the last
    pending claim, which the caller emits (a range may still join it). For a
    text with nothing to rewrite (see :func:`relapse.grounding._read.normalize.needs_rewrite`).

    Args:
        text: The whole text: the readers look before and after the block.
        state: Where and how to go on; :data:`START` for the text's start.
        stop: The offset the block ends at.

    Returns:
        The block's claims, in order, and the state to scan the next block from.
    """
    found = _scan(text, True, None, None, state, stop, stop_at_rewrite=False)
    assert found is not None  # only a scan that stops at a rewrite returns None
    return found


def _with_pending(claims: list[Claim], state: ScanState) -> list[Claim]:
    """Return the claims of a whole text: the ones found and the one left pending."""
    if state.pending is not None:
        claims.append(state.pending)
    return claims


def _scan(
    text: str,
    short_paths: bool,
    plain_numbers: list[str] | None,
    plain_starts: list[int] | None,
    state: ScanState,
    stop: int,
    *,
    stop_at_rewrite: bool,
) -> tuple[list[Claim], ScanState] | None:
    """
    Scan ``text`` from ``state`` up to ``stop`` (see :func:`scan_block`).

    With ``stop_at_rewrite``, return None at a character to rewrite. Only
    the short-path regex reports such characters; :func:`scan` then scans
    the rewritten text, where the ones left (``cm³``) are read as they are.
    """
    claims: list[Claim] = []
    append = claims.append
    # glued: a month name that the last match ending in a letter swallowed
    # ("5May") was never tried as a "month" match.
    search, pending, resume, glued = state
    # Only _SCAN has the "bare" and "month" alternatives: with short_paths
    # False every match takes the general path.
    for match in (_SCAN if short_paths else _CLAIMS_ONLY).finditer(text, search):
        start, end = match.span()
        if start >= stop:
            # Searching again from here finds this same match first.
            return claims, ScanState(start, pending, resume, glued)
        kind = match.lastgroup
        quiet = False
        if kind == "rewrite":
            if stop_at_rewrite:
                return None
            continue
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
                        if plain_starts is not None:
                            plain_starts.append(start)
                        resume = end
                        continue
                    code, needs, provides, key, precision = digit_run_or_year_parts(raw)
                    claim = new_claim(
                        Claim, (code, start, end, needs, provides, key, precision, True, (), "")
                    )
                    # After a space or a quiet character: no sign, no point,
                    # no unit token to look for (a sign word or an era before
                    # it fails the "bare" match: see _NOT_AFTER_WORD).
                    quiet = True
            if claim is None:
                look_back = glued > start - MONTH_WINDOW
                claim = _read_digit_run_short(text, start, end, match, look_back)
                if claim is None:  # a prefix or another script the short paths do not read
                    full = _CLAIMS_ONLY.match(text, start)
                    assert full is not None  # the "num" alternative matches any digit
                    match, end = full, full.end()
                    claim = read_match(text, match, start, look_back)
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
                claim = month_led(text, month_start, start, end)
            if claim is None:  # anything else after it is read the general way
                claim = read_match(text, match, start)
        else:
            if not text[end - 1].isdecimal():
                glued = end
                if stop_at_rewrite and not REWRITTEN_CHARACTERS.isdisjoint(text[start:end]):
                    return None  # a suffix holds a character to rewrite ("3½", "10⁹")
            if start < resume:
                continue  # inside a date or token already read
            claim = None
            # With short paths, a month name before the number was matched
            # first, unless a match that ended in letters swallowed it.
            look_back = not short_paths or glued > start - MONTH_WINDOW
            if short_paths and end == match.start(_INT_GROUP):
                # Digits and nothing glued after them: most of the other numbers.
                claim = _read_digit_run_short(text, start, end, match, look_back)
            if claim is None:
                claim = read_match(text, match, start, look_back)
        claim_start = claim.start
        if not quiet:
            claim_end = claim.end
            first = text[claim_start]
            if not first.isdecimal():
                if stop_at_rewrite and not REWRITTEN_CHARACTERS.isdisjoint(
                    text[claim_start : max(end, claim_end)]
                ):
                    return None  # a token swallowed a character to rewrite
                if first.isalpha() and UNIT_TOKEN.fullmatch(text, claim_start, claim_end):
                    # "m3/s", "km2": a unit with an exponent, not the numbers 3 and 2.
                    resume = max(resume, claim_end)
                    continue
            elif (
                stop_at_rewrite
                and claim_end > end
                and not REWRITTEN_CHARACTERS.isdisjoint(text[end:claim_end])
            ):
                return None  # a token read past the match holds one ("3rd3rd0½")
            if claim_start:
                before_claim = text[claim_start - 1]
                if before_claim == "." and leading_point(text, claim_start - 1):
                    claim = point_decimal(text, claim)
                    claim_start = claim.start
                    before_claim = text[claim_start - 1] if claim_start else ""
                if before_claim in MINUS_SIGNS and is_sign(text, claim_start - 1):
                    minus = claim_start - 1
                    if minus and text[minus - 1] in CURRENCY_SYMBOLS:
                        minus -= 1  # "$-3.2 million": the symbol before the sign is the claim's
                    claim = signed_claim(claim, minus)
                elif (
                    before_claim in _SIGN_WORD_SPACES
                    # The last two letters of "minus", "negative", "AD", "A.D.":
                    # one slice and one lookup rule out "was 3.5", "the 12,000".
                    and text[claim_start - 3 : claim_start - 1] in _WORD_BEFORE_ENDS
                ):
                    if text[claim_start - 2] in SIGN_WORD_ENDS:
                        sign = sign_word(text, claim_start)
                        if sign is not None:
                            claim = signed_claim(claim, sign)
                    elif (
                        text[claim_start : claim.end].isdecimal()
                        and (era := era_before(text, claim_start)) is not None
                    ):
                        digits = ascii_digits(text[claim_start : claim.end])
                        claim = era_claim(era, claim.end, digits, "AD")
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
        follows = text[claim_end : claim_end + 1]
        if follows == " ":
            follows = text[claim_end + 1 : claim_end + 2]
        # _may_open_range, inlined: this runs once per claim.
        if (
            follows in _RANGE_FIRST
            and claim.key is not None
            and claim.code == FG001
            and _RANGE_JOIN.match(text, claim_end) is not None
        ):
            pending = claim
            continue
        append(claim)
    return claims, ScanState(len(text), pending, resume, glued)


def _may_open_range(text: str, end: int) -> bool:
    """
    Tell whether a range join may start at ``end`` (a conservative test).

    Looks at the character there, or the one after it when it is a space, for
    a first character of :data:`_RANGE_JOIN`, and only then matches it there;
    a claim that fails this test can be emitted at once instead of waiting
    for the next one (and a bare digit run kept as a plain number).
    """
    follows = text[end : end + 1]
    if follows == " ":
        follows = text[end + 1 : end + 2]
    # The join that _join_range reads from here to the next claim matches
    # here: without a match, no range starts ("5 apples", "5 Acts").
    return follows in _RANGE_FIRST and _RANGE_JOIN.match(text, end) is not None


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
    return new_claim(
        Claim,
        (FG001, first.start, second.end, ((key,), standalone), provides, None, 0, plain, parts, ""),
    )


# The spaces between a sign word and its number ("minus 5").
_SIGN_WORD_SPACES = frozenset(" \u00a0")

# The last two characters of the sign words and the eras before a year.
_WORD_BEFORE_ENDS = frozenset({"us", "US", "ve", "VE", "AD", "D."})

# Characters after which a bare digit run needs no look at its prefix: not
# a letter (token), a hyphen (token or range), a currency symbol.
_PLAIN_BEFORE = frozenset(" \n\t\r\x00(/,;:.\"'[\u201c\u2018\u00ab*")

# The same but a space, after which no month name or currency symbol can be,
# and a point, which may start a decimal (".5 mg").
_QUIET_BEFORE = _PLAIN_BEFORE - {" ", "."}


def _read_digit_run_short(
    text: str, start: int, end: int, match: re.Match[str], look_back: bool
) -> Claim | None:
    """
    Read a bare ASCII digit run the short way, or return None for :func:`read_match`.

    Gives exactly the claim the general path (:func:`read_number`) gives, for the
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
            if after or (before == " " and look_back and month_may_precede(text, start)):
                claim = month_day(text, start, end, value, after, look_back)
                if claim is not None:
                    return claim
    elif length == 4:
        hours = hours_claim(text, start, end, raw)
        if hours is not None:
            return hours
        value = int(raw)
        if is_year(value):
            return year_claim(text, start, end, value, look_back)
    needs, provides, key, precision = digit_run_parts(raw)
    return new_claim(Claim, (FG001, start, end, needs, provides, key, precision, True, (), ""))
