"""
Evidence: what a chunk's text must contain before it can provide a key.

The chunk index reads a chunk's claims only when an answer needs a key that
chunk may provide (see :mod:`.text_index`). Whether it may is decided here, in C
loops (``bytes.find``, one regular expression), from the chunk's *digest*:
its text lower-cased with every character but the ASCII letters, the ASCII
digits and ``/`` deleted. Deleting separators, points, signs, spaces and every
non-ASCII character keeps the digits of a number together, however it is
written: ``1,234.5``, ``1 234,5`` and ``1.2345 thousand`` all hold
``12345``; a key's digits are therefore a substring of the digest of any
chunk that states it. Each rule below is such a necessary condition; none is
sufficient, and the chunks that pass are read by the scanner itself.

Some writings hold a value whose digits the text does not spell in one run:
a fraction (``1/4`` is 0.25), a vulgar fraction or superscript, a power of
ten written with a caret (``3 x 10^8``), digits of
another script, a year range ending in two digits (``1939-45``). A chunk with
any of them is *opaque*: the index reads it at once, like before this module
existed. ``TestEveryProvidedKeyHasItsEvidence`` in
``tests/grounding/index/test_lazy_index.py`` checks the rules against every claim the
scanner reads from real and generated texts.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from decimal import Decimal
from typing import Protocol

from relapse.grounding._read.normalize import CARET_POWER, REWRITTEN
from relapse.grounding._text import SPACES, non_ascii
from relapse.grounding._values.calendar import MONTHS
from relapse.grounding._values.keys import SCALE_EXPONENTS, Key

# The separator of joined chunks (\x00) is kept too: the digest of the
# joined chunks is the digests of the chunks, joined.
_KEPT = frozenset(b"\x000123456789abcdefghijklmnopqrstuvwxyz/")
_DELETED = bytes(byte for byte in range(256) if byte not in _KEPT)
# ASCII capitals to small letters: bytes.lower() as a table, so that one
# translate lowers and deletes in a single pass (it deletes before it maps,
# so the capitals are kept from deletion).
_CAPITALS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_LOWER = bytes.maketrans(_CAPITALS, _CAPITALS.lower())
_DELETED_BEFORE_LOWER = bytes(byte for byte in _DELETED if byte not in _CAPITALS)

#: Shortest digits searched alone as a token's or an interval's evidence:
#: one digit occurs in nearly every chunk.
MIN_NEEDLE = 2
#: Needles this long are searched alone; shorter digits must also be written
#: as a number of their own (:class:`WrittenNumber`).
STRONG_NEEDLE = 5


def encode(text: str) -> bytes:
    """Return ``text`` in UTF-8 (lone surrogates kept), the input of the digests."""
    return text.encode("utf-8", "surrogatepass")


def digest(text: str | bytes) -> bytes:
    """
    Return the digest of ``text``: lower case, only ASCII letters, digits and ``/`` kept.

    The chunk separator (the NUL character) is kept as well.

    Args:
        text: A chunk, or chunks joined by NUL; or what :func:`encode` made of it.

    Returns:
        The digest, as bytes (``bytes.translate`` lowers and deletes in one C pass).
    """
    encoded = text if isinstance(text, bytes) else encode(text)
    return encoded.translate(_LOWER, _DELETED_BEFORE_LOWER)


_DATE_SEPARATORS = bytes.maketrans(b"-.", b"//")
_DATE_DELETED = bytes(byte for byte in _DELETED if byte not in b"-.")


def date_digest(text: str | bytes) -> bytes:
    """
    Return the date digest of ``text``: its digest where ``-`` and ``.`` are kept as ``/``.

    ``2017-03-04``, ``04.03.2017`` and ``3/4/17`` keep their separators
    there, which the digest deletes. The chunk separator (NUL) is kept.

    Args:
        text: A chunk, or chunks joined; or what :func:`encode` made of it.

    Returns:
        The date digest.
    """
    encoded = text if isinstance(text, bytes) else encode(text)
    return encoded.lower().translate(_DATE_SEPARATORS, _DATE_DELETED)


def digit_count(encoded: bytes) -> int:
    """Return how many ASCII digits the encoded text holds (one C pass)."""
    return len(encoded) - len(encoded.translate(None, b"0123456789"))


# Writings whose value the digest cannot show: the rewrites of _normalize
# (invisible characters, vulgar fractions, superscripts, caret powers) and digits of
# another script; a fraction or ratio ("1/4" provides 0.25; the slashes of a
# date "3/4/2019" are no fraction), found from its slash; a year range whose
# end has two digits ("1939-45"), found from its dash. Each pattern starts
# with a literal or a character set, which the regex engine skips to in C.
_NON_ASCII_RUN = re.compile(r"[^\x00-\x7f]+")
# Inside a run of non-ASCII characters, "\d" matches only other scripts' digits.
_REWRITTEN_OR_DIGIT = re.compile(rf"[{REWRITTEN}]|\d")
# "2.0k", "0,50m": a decimal mantissa of one significant digit and a zero
# glued to a one-letter scale, whose digit runs into the zeros before it.
_ZERO_BEFORE_SCALE = re.compile(r"0[kKmMbB](?![^\W\d_])")
_FRACTION_SLASH = re.compile(r"/(?<=\d/)\d+(?!\d|/\d)")
_DASHES = "-\u2010-\u2015\u2212"
_SHORT_YEAR_RANGE = re.compile(
    rf"[{_DASHES}](?:(?<=\d{{4}}.)|(?<=\d{{4}}[{SPACES}].))[{SPACES}]?\d{{2}}(?!\d)"
)
# The same with the ASCII hyphen alone, which the engine finds as a literal;
# the one above only for texts holding another dash or space.
_SHORT_YEAR_RANGE_ASCII = re.compile(r"-(?:(?<=\d{4}-)|(?<=\d{4} -)) ?\d{2}(?!\d)")
_OTHER_DASH_OR_SPACE = re.compile(f"[\u2010-\u2015\u2212{SPACES[1:]}]")
# Dates of other locales the scanner reads, whose digests do not show a
# date's evidence: a two-digit year after dots or hyphens ("04.03.17",
# "4-Mar-17"), spaced Central European dates ("4. 3. 2017", "2017. 03.
# 04.") and CJK dates ("2017年3月4日"). Rare in most texts: a chunk holding
# one is read up front. (A time's evidence shows "19h30" and "21:0".)
# Each starts with its separator, a literal the engine finds in C, then looks
# back for the digit before it.
_LOCALE_DATE_POINT = re.compile(
    r"\.(?<=[0-9]\.)(?:[0-9]{1,2}\.[0-9][0-9](?![0-9])|[\ \u00a0][0-9]{1,2}\.[\ \u00a0][0-9][0-9])"
)
_LOCALE_DATE_HYPHEN = re.compile(
    r"-(?<=[0-9]-)(?:[0-9]{1,2}-[0-9][0-9](?![0-9])|[A-Za-z]{3,9}\.?-[0-9][0-9])"
)
_CJK_DATE = re.compile(r"\u5e74(?<=[0-9]\u5e74)[0-9]")


def _second_slash(text: str, start: int) -> bool:
    """
    Tell whether the digits at ``start`` follow the first slash of a date or chain.

    ``3/4/2019`` and ``1/2/3`` hold no fraction: their digit groups start
    after a space or the text's start. In ``0.5/1/4`` the scanner has read
    ``0.5`` before the slash, and ``1/4`` is a fraction.
    """
    if not (start >= 2 and text[start - 1] == "/" and text[start - 2].isdigit()):
        return False
    first = start - 2
    while first > 0 and text[first - 1].isdigit():
        first -= 1
    if first == 0:
        return True
    if (
        start - 1 - first == 3
        and text[first - 1] in _GROUP_MARKS
        and text[first - 2 : first - 1].isdigit()
    ):
        # "1 001/41/42": the scanner reads 1 001, then the fraction 41/42.
        return False
    if _after_product(text, first):
        # "1 x 1/1/1500": the scanner reads the product "1 x 1", then the fraction 1/1500.
        return False
    return text[first - 1] not in _NUMBER_PUNCTUATION


def _after_product(text: str, first: int) -> bool:
    """Tell whether ``text[:first]`` ends with a digit, a multiplication sign and spaces."""
    at = first - 1
    while at >= 0 and text[at] == " ":
        at -= 1
    if at < 0 or text[at] not in "xX\u00d7":
        return False
    at -= 1
    while at >= 0 and text[at] == " ":
        at -= 1
    return at >= 0 and text[at].isdigit()


_NUMBER_PUNCTUATION = frozenset(".,:/-\u066b\u066c")

# The marks other than those above that group thousands ("29 000", "29'000").
_GROUP_MARKS = frozenset(" \u00a0\u202f\u2009\u2007'\u2019\u060c\u2e41\uff0c")


def opaque_positions(text: str, encoded: bytes | None = None) -> Iterator[int]:
    """
    Yield positions in ``text`` of writings whose value a digest cannot show.

    Args:
        text: The chunks, joined.
        encoded: ``encode(text)``, when the caller has it.

    Yields:
        An offset inside each such writing, in no particular order.
    """
    # The non-ASCII characters of the text, found in C: most texts hold a
    # few (quotes, dashes) and none to look for.
    others = non_ascii(text, encoded)
    if others and _REWRITTEN_OR_DIGIT.search(others):
        for run in _NON_ASCII_RUN.finditer(text):
            found = _REWRITTEN_OR_DIGIT.search(text, run.start(), run.end())
            if found is not None:
                yield found.start()
    if "^" in text:
        # "3 x 10^8" is 300,000,000, whose digits the digest "3x108" lacks.
        for match in CARET_POWER.finditer(text):
            yield match.start()
    for match in _FRACTION_SLASH.finditer(text):
        slash = match.start()
        start = slash - 1
        while start > 0 and text[start - 1].isdigit():
            start -= 1
        if not _second_slash(text, start):
            yield slash
    year_range = (
        _SHORT_YEAR_RANGE if _OTHER_DASH_OR_SPACE.search(others) else _SHORT_YEAR_RANGE_ASCII
    )
    for match in year_range.finditer(text):
        yield match.start()
    for pattern in (_LOCALE_DATE_POINT, _LOCALE_DATE_HYPHEN):
        for match in pattern.finditer(text):
            yield match.start()
    if "\u5e74" in others:
        for match in _CJK_DATE.finditer(text):
            yield match.start()
    for match in _ZERO_BEFORE_SCALE.finditer(text):
        letter = match.start() + 1
        start = letter - 1
        while start > 0 and (text[start - 1].isdigit() or text[start - 1] in ".,\u066b"):
            start -= 1
        mantissa = text[start:letter]
        # Only a one-digit mantissa is searched with its scale letter glued.
        if not mantissa.isdigit() and len(_NOT_A_DIGIT.sub("", mantissa).strip("0")) <= 1:
            yield letter


def is_opaque(text: str) -> bool:
    """Tell whether ``text`` holds a writing whose value its digest cannot show."""
    return next(iter(opaque_positions(text)), None) is not None


class TextTest(Protocol):
    """A test of a chunk's text: a compiled pattern, or :class:`WrittenNumber`."""

    def search(self, string: str, /) -> object:
        """Return something true when the text passes."""


#: One way a key can be evidenced, as a conjunction: byte strings that must
#: occur in a chunk's digest, byte patterns that must match its date digest
#: (:func:`date_digest`), and tests that its text must pass.
Alternative = tuple[bytes | re.Pattern[bytes] | TextTest, ...]

# A run of digits with at most one other character (no letter) between two:
# "1,234.5", "10-15", "1 234". A number's digits lie in one run.
_DIGIT_RUN_WITH_SEPARATORS = re.compile(r"[0-9](?:[^0-9A-Za-z]?[0-9])*")
_NOT_A_DIGIT = re.compile(r"[^0-9]")


class WrittenNumber:
    """
    Tells whether a text writes some digits as a number of its own.

    Short digit strings occur inside many longer numbers (``934`` inside
    ``1,293,400``); a chunk that states the number writes them at the start
    of a run of digits or after a separator inside it, after leading zeros
    (``0.934``), and with ``whole``, ends them there too or after trailing
    zeros (``9,340``).
    """

    __slots__ = ("digits", "whole")

    def __init__(self, digits: str, *, whole: bool = True) -> None:
        """
        Describe the number to look for.

        Args:
            digits: Significant digits, the first one not 0.
            whole: The digits are the whole number; False: they only start it.
        """
        self.digits = digits
        self.whole = whole

    def search(self, string: str, /) -> bool:
        """
        Tell whether ``string`` writes the digits as a number.

        Args:
            string: A chunk's text.

        Returns:
            True when some run of digits holds them as described above.
        """
        digits = self.digits
        for run in _DIGIT_RUN_WITH_SEPARATORS.findall(string):
            if len(run) < len(digits):
                continue
            segments = _NOT_A_DIGIT.split(run)
            bare = "".join(segments)
            if digits in bare and self._starts_a_number(bare, segments):
                return True
        return False

    def _starts_a_number(self, bare: str, segments: list[str]) -> bool:
        """Tell whether the digits start (and with ``whole``, end) at segment bounds of ``bare``."""
        digits, width = self.digits, len(self.digits)
        ends: set[int] = set()
        starts: list[int] = []
        offset = 0
        for segment in segments:
            starts.append(offset)
            offset += len(segment)
            ends.add(offset)
        for start in starts:
            first = start
            while first < len(bare) and bare[first] == "0":
                first += 1
            if not bare.startswith(digits, first):
                continue
            if not self.whole:
                return True
            end = first + width
            while end not in ends and end < len(bare) and bare[end] == "0":
                end += 1
            if end in ends:
                return True
        return False


def evidence(key: Key) -> tuple[Alternative, ...] | None:
    """
    Return the alternatives of which a chunk providing ``key`` must satisfy one.

    Args:
        key: An index key (see :mod:`relapse.grounding._values.keys`).

    Returns:
        The alternatives, or None when the key has no evidence selective
        enough to be worth a search (a month alone, a decade, a century):
        every chunk must then be read.
    """
    tag = key[0]
    if tag in ("n", "-n", "s"):
        return _number_evidence(key[1], key[2])
    if tag == "r":
        # Both ends are written in full (opaque chunks aside): a chunk
        # holds the evidence of each.
        first = _number_evidence(key[1], key[2])
        second = _number_evidence(key[3], key[4])
        if first is None or second is None:
            return first or second
        return tuple((*one, *other) for one in first for other in second)
    if tag == "t":
        return _token_evidence(key[1])
    if tag == "d":
        return _date_evidence(key[1], key[2], key[3])
    if tag == "tod":
        return _time_evidence(key[1])
    if tag == "bc" and isinstance(key[1], str):
        # "753 BC", "753 B.C.E.", "753 years BC", "300 years before Christ".
        return tuple(
            (f"{key[1]}{between}{era}".encode("ascii"),)
            for between in ("", "year", "years")
            for era in ("bc", "before")
        )
    if tag == "ad" and isinstance(key[1], str):
        return ((key[1].encode("ascii"),),)
    if tag == "q":
        # A fraction without ending decimals (1/3): only a fraction written
        # with a slash provides it, and every chunk holding one is opaque,
        # read up front; no chunk left to read may provide it.
        return ()
    return None


def _time_evidence(minutes: object) -> tuple[Alternative, ...] | None:
    """
    Evidence of a time of day: its hour and minutes as a clock or with am or pm.

    ``3 pm`` and ``3 p.m.`` digest to ``3pm``, ``3:30 pm`` to ``330pm``,
    ``15:30`` to ``1530`` and ``3:30`` (which may be 15:30) to ``330``.
    """
    if not isinstance(minutes, int):
        return None
    hour, minute = divmod(minutes, 60)
    twelve = hour % 12 or 12
    alternatives: list[Alternative] = [
        (f"{twelve}{minute:02d}".encode("ascii"),),
        (f"{hour}{minute:02d}".encode("ascii"),),
    ]
    if not minute:
        suffix = "am" if hour < 12 else "pm"
        alternatives.append((f"{twelve}{suffix}".encode("ascii"),))
    # "19h30" keeps its letter; "21:0", one digit of minutes, digests to "210".
    alternatives.extend((f"{clock}h{minute:02d}".encode("ascii"),) for clock in (twelve, hour))
    if minute < 10:
        alternatives.extend((f"{clock}{minute}".encode("ascii"),) for clock in (twelve, hour))
    return tuple(alternatives)


def _number_evidence(digits: object, exponent: object) -> tuple[Alternative, ...] | None:
    """
    Evidence of a number: its significant digits, or a two-digit year after a slash.

    A single significant digit is searched with its zeros (``20`` for the
    key of 20) or with the mantissa it has before each scale word (``2`` and
    ``hundred``, ``02`` and ``thousand`` for ``0.02 thousand``).
    """
    if not isinstance(digits, str) or not isinstance(exponent, int) or not digits:
        return None
    alternatives: list[Alternative] = []
    if len(digits) >= STRONG_NEEDLE:
        alternatives.append((digits.encode("ascii"),))
    elif digits == "0":
        alternatives.append((b"0",))
    elif len(digits) >= MIN_NEEDLE or exponent <= 0:
        # Short digits occur inside many longer numbers: the chunk must write
        # them as a number of their own (one digit: "7", "0.5").
        alternatives.append((digits.encode("ascii"), WrittenNumber(digits)))
    else:
        # "1e6": a power of ten after the digit (the scanner reads no
        # mantissa ending in 0, "1.0e6", as one).
        alternatives.append(((digits + "e").encode("ascii"),))
        alternatives.append(((digits + "0" * exponent).encode("ascii"),))
        for word, scale in SCALE_EXPONENTS.items():
            mantissa = (
                digits + "0" * (exponent - scale)
                if scale <= exponent
                else "0" * (scale - exponent - 1) + digits
            ).encode("ascii")
            if len(word) == 1:
                # Glued ("20k"); a mantissa ending in a decimal zero ("2.0k")
                # makes its chunk opaque.
                alternatives.append((mantissa + word.encode("ascii"),))
            else:
                alternatives.append((mantissa, word.encode("ascii")))
    if exponent >= 0 and len(digits) + exponent == 4:
        # A year, which "3/4/17" states as 17 (and which "1939-45" states as
        # 45: such chunks are opaque).
        alternatives.append((b"/" + (digits + "0" * exponent)[2:].encode("ascii"),))
    return tuple(alternatives)


_DIGIT_RUN = re.compile(r"\d+")


def _token_evidence(token: object) -> tuple[Alternative, ...] | None:
    """Evidence of a token (``GPT-4``, ``v2.0.1``): its longest run of digits."""
    if not isinstance(token, str):
        return None
    # The token's own digest: its hyphens are deleted there as in the chunk's.
    runs = _DIGIT_RUN.findall(digest(token).decode("ascii"))
    longest = max(runs, key=len, default="")
    if len(longest) < MIN_NEEDLE:
        return None
    return ((longest.encode("ascii"),),)


def _date_evidence(year: object, month: object, day: object) -> tuple[Alternative, ...] | None:
    """Evidence of a date: its year, or for a day of a month without year, a pattern."""
    if isinstance(year, int):
        # With a day of a month, the chunk also writes that day of that month.
        day_of_month: tuple[re.Pattern[str], ...] = ()
        if isinstance(month, int) and isinstance(day, int):
            day_of_month = (_month_day_pattern(month, day),)
        return (
            (str(year).encode("ascii"), *day_of_month),
            (f"/{year % 100:02d}".encode("ascii"), *day_of_month),
        )
    if isinstance(month, int) and isinstance(day, int):
        return ((_month_day_digest_pattern(month, day), _month_day_pattern(month, day)),)
    if isinstance(day, int) and day >= 10:
        return ((str(day).encode("ascii"),),)
    return None


_SPACE = rf"[{SPACES}]"


@functools.lru_cache(maxsize=1024)
def _month_day_digest_pattern(month: int, day: int) -> re.Pattern[bytes]:
    """
    Return a pattern of the date digest looser than :func:`_month_day_pattern`.

    The digest has no spaces to end or start a day at (``March 3, 2017`` is
    ``march32017``, ``1 2/3/2019`` is ``12/3/2019``), so neither is tested;
    the chunks it finds are then tested with :func:`_month_day_pattern`.
    Starting with a letter or a digit, it is searched in C at a fraction of
    that pattern's cost.
    """
    names = "|".join(
        sorted((name for name, number in MONTHS.items() if number == month), key=len, reverse=True)
    )
    shortest = min((name for name, number in MONTHS.items() if number == month), key=len)
    return re.compile(
        rf"(?:{names})/?(?:the|of)?0?{day}"
        rf"|{day}(?:[a-z]{{2}})?(?:of)?{shortest}"
        rf"|{month}/0?{day}|{day}/0?{month}".encode("ascii")
    )


@functools.lru_cache(maxsize=1024)
def _month_day_pattern(month: int, day: int) -> re.Pattern[str]:
    """
    Return a pattern matching every writing of a day of a month the scanner reads.

    Month names in any case, before the day (``March 3``, ``Mar. the 3rd``)
    or after it (``3 March``, ``3rd of March``), and the numeric dates in
    either reading (``3/4/2019``, ``2019-03-04``, ``04.03.2019``). It is
    looser than the scanner (any case, any suffix), never stricter.
    """
    names = "|".join(sorted((name for name, number in MONTHS.items() if number == month), key=len))
    day_digits = rf"(?<!\d)0?{day}(?!\d)"
    month_digits = rf"(?<!\d)0?{month}(?!\d)"
    gap = rf"\.?,?{_SPACE}{{1,3}}(?:(?:the|of){_SPACE}{{1,3}})?"
    return re.compile(
        rf"(?i:{names}){gap}{day_digits}"
        rf"|{day_digits}[^\W\d_]{{0,2}}{_SPACE}{{1,3}}(?:of{_SPACE}{{1,3}})?(?i:{names})"
        rf"|{month_digits}[-/.]{day_digits}|{day_digits}[-/.]{month_digits}"
    )


def interval_evidence(low: Decimal, high: Decimal) -> tuple[Alternative, ...] | None:
    """
    Return the evidence of a number in ``[low, high]`` (a hedged claim's range).

    Every number in the interval has the interval's magnitude and starts with
    the digits its ends share, then one of the digits between theirs: for
    ``[93.35, 93.45]`` its digits start with ``933`` or ``934``.

    Args:
        low: The lowest value.
        high: The highest value.

    Returns:
        The alternatives, or None when the interval spans magnitudes or its
        numbers share too few digits to search for.
    """
    if low <= 0 or high < low or low.adjusted() != high.adjusted():
        return None
    width = 40
    low_digits = _significant(low, width)
    high_digits = _significant(high, width)
    shared = 0
    while shared < width and low_digits[shared] == high_digits[shared]:
        shared += 1
    if shared == width:
        needles = [low_digits.rstrip("0")]
    else:
        prefix = low_digits[:shared]
        first, last = int(low_digits[shared]), int(high_digits[shared])
        # A key keeps no trailing zero: a number whose next digit is 0 may
        # have as its digits the prefix without its own trailing zeros (1 for
        # the 10 of "0.01 thousand").
        needles = [
            prefix.rstrip("0") if digit == 0 else prefix + str(digit)
            for digit in range(first, last + 1)
        ]
    if any(len(needle) < MIN_NEEDLE for needle in needles):
        return None
    return tuple(
        (needle.encode("ascii"),)
        if len(needle) >= STRONG_NEEDLE
        else (needle.encode("ascii"), WrittenNumber(needle, whole=False))
        for needle in needles
    )


def _significant(value: Decimal, width: int) -> str:
    """Return the first ``width`` significant digits of a positive ``value``, zero-padded."""
    digits = "".join(str(digit) for digit in value.as_tuple().digits).lstrip("0")
    return (digits + "0" * width)[:width]
