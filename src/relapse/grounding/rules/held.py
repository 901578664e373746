"""
Held values: the claim's own value, in the chunks or the question; trivial numbers; list markers.

The commonest verdict: the chunks (or the question) hold a key the claim
needs (:attr:`relapse.grounding._read.claims.Claim.needs`), and the place of
that key is the claim's evidence. A trivial number written bare, a list
marker and a reference to a passage claim nothing.
"""

from __future__ import annotations

from relapse.grounding._codes import FG001, FG002
from relapse.grounding._read.claims import Claim
from relapse.grounding._read.context import (
    INLINE_MARKER_WINDOW,
    is_list_marker,
    is_reference,
)
from relapse.grounding._read.quantity import PLAIN_KINDS, Quantity
from relapse.grounding._values.keys import Key
from relapse.grounding._values.tags import ALL_KINDS, DATE
from relapse.grounding._values.units import UNIT_WINDOW
from relapse.grounding.rules._lookup import Lookup
from relapse.grounding.rules._rule import Phase, Reads, Role, Support, rule

#: Characters of a supported plain number tested for a list marker or a
#: reference before it is cited (:func:`relapse.grounding._read.context.is_list_marker` reads at
#: most three digits).
MAX_MARKER_CHARS = 3

_NUMBERS = frozenset({FG001})
_BOTH = frozenset({FG001, FG002})
_DIGITS = frozenset({Reads.DIGITS})
_WORDS = frozenset({Reads.WORDS})
# What the marker rules read: a line's start before the claim, or an inline
# enumeration's previous marker far back; a reference's words after it.
_MARKER_REACH = (INLINE_MARKER_WINDOW, 80)


def held(lookup: Lookup, value: Quantity, verdict: Support | None) -> Support | None:
    """
    A claim is supported by a key the chunks or the question hold.

    Accepts:
        A claim one of whose alternatives of keys the chunks or the question
        hold: ``1,200`` needs the number 1200, which a chunk's ``1200``,
        ``1,200`` or ``1.2 thousand`` provides; a date needs its day, month
        and year. When one key alone supports it, the chunks' place of that
        key is its evidence. A trivial number (0, 1, 2 by default) written
        bare is held without a lookup.

    Why:
        The chunks are read lazily: what the chunks read so far hold is
        looked up first, and only then are the chunks that may hold each part
        read, dates last (their evidence is a pattern, slower to search than
        a number's digits). A full reading returns the first alternative
        held, so the lazy reading returns it too: the evidence does not
        depend on which chunks were read first.

    Examples:
        | answer | chunks | verdict |
        | --- | --- | --- |
        | `It is 2,737 metres long.` | `It is 2737 metres long.` | passes |
    """
    claim = value.claim
    plain = lookup.trivial(value) if claim.key is not None else claim.plain
    needs = claim.needs
    # First what the chunks read so far hold; only then read the chunks
    # that may hold each part, dates last (their evidence is a pattern,
    # slower to search than a number's digits).
    # Most alternatives are one key: asked without a generator.
    known = lookup.known
    for position, alternative in enumerate(needs):
        if (
            known(alternative[0], plain)
            if len(alternative) == 1
            else all(known(part, plain) for part in alternative)
        ):
            if position and not lookup.chunks.complete:
                # A full reading returns the first alternative held: an
                # earlier one held by a chunk not read yet is the claim's
                # support (and its evidence) there, so it must be here.
                for earlier in needs[:position]:
                    if all(lookup.has(part, plain) for part in sorted(earlier, key=_is_date)):
                        return _one_key(lookup, earlier, plain)
            return _one_key(lookup, alternative, plain)
    if not lookup.chunks.complete:
        has = lookup.has
        for alternative in needs:
            if (
                has(alternative[0], plain)
                if len(alternative) == 1
                else all(has(part, plain) for part in sorted(alternative, key=_is_date))
            ):
                return _one_key(lookup, alternative, plain)
    return None


def _one_key(lookup: Lookup, alternative: tuple[Key, ...], plain: bool) -> Key | bool:
    """
    Return the key of an alternative held alone, whose place is the claim's evidence.

    True (held, no one place) for several keys, and for a trivial number
    written plain: it is exempt, not looked up, so whether its place is
    known would depend on what the chunks read so far hold.
    """
    if len(alternative) != 1:
        return True
    key = alternative[0]
    return True if plain and key in lookup.trivial_keys else key


def _is_date(key: Key) -> bool:
    """Tell whether ``key`` is a date pattern."""
    return key[0] == DATE


def _not_a_claim(answer: str, claim: Claim) -> bool:
    """
    Tell whether a plain number is a list marker or a reference to the context.

    What :attr:`relapse.grounding._read.quantity.Quantity.marker` reads
    once for the rules, as a function of the claim (the evidence tests').
    """
    return is_list_marker(answer, claim.start, claim.end) or is_reference(
        answer, claim.start, claim.end
    )


def trivial(lookup: Lookup, value: Quantity, verdict: Support | None) -> Support | None:
    """
    A trivial number in words, written bare, claims nothing.

    Accepts:
        A number in words that is one of the trivial numbers (0, 1, 2 by
        default), with no unit after it: ``two ways``, ``one of them``.

    Why:
        Small numbers are everywhere and claim little; a unit after one
        (``one kilometre``, ``two percent``) makes it a measure like any other.
        A trivial number in digits is held by the held-values rule instead,
        so that its evidence, if any, is found the same way.

    Examples:
        | answer | chunks | verdict |
        | --- | --- | --- |
        | `There are two ways across.` | `The bridge opened in 1937.` | passes |
    """
    return True if lookup.trivial(value) else None


def cited_marker(lookup: Lookup, value: Quantity, verdict: Support | None) -> Support | None:
    r"""
    A supported list marker or reference passes, cited nowhere.

    Accepts:
        A supported plain number of at most three characters that is a list
        marker (``3) Use ...``) or a reference (``passage 2``): it passes,
        but is cited nowhere.

    Why:
        A chunk that happens to hold the number does not state what the
        marker says: the marker orders the answer. Only short numbers are
        tested (markers have at most three digits), since the test costs
        regex searches.

    Examples:
        | answer | chunks | verdict |
        | --- | --- | --- |
        | `Steps:\n3. Cross it.` | `The 3 towers stand.` | passes |
    """
    claim = value.claim
    if (
        verdict is not True
        and claim.plain
        and claim.end - claim.start <= MAX_MARKER_CHARS
        and value.marker
    ):
        return True
    return None


def marker(lookup: Lookup, value: Quantity, verdict: Support | None) -> Support | None:
    r"""
    A list marker or a reference to the context claims nothing.

    Accepts:
        A plain number in digits that no chunk supports but that is a list
        marker (``3. Print``, ``Step 4:``, an inline ``1) ... 2) ...``) or a
        reference to the context (``passage 3``, ``the three provided
        passages``, ``[2]``).

    Why:
        Markers and references order the answer or point into the context;
        they claim nothing about the world, so nothing needs to hold them.

    Examples:
        | answer | chunks | verdict |
        | --- | --- | --- |
        | `Steps:\n3. Cross it.\n4. Look.` | `The bridge opened in 1937.` | passes |
        | `See passage 5.` | `The bridge opened in 1937.` | passes |
    """
    return True if value.claim.plain and value.marker else None


def word_marker(lookup: Lookup, value: Quantity, verdict: Support | None) -> Support | None:
    """
    A list marker or a reference in words claims nothing.

    Accepts:
        A number in words that no rule supports but that is a list marker or
        a reference to the context (``passage two``), as for digits.

    Why:
        As for digits; asked last of the words' rules, after every rule that
        could support the number.

    Examples:
        | answer | chunks | verdict |
        | --- | --- | --- |
        | `See passage seven.` | `The bridge opened in 1937.` | passes |
    """
    return True if value.marker else None


#: The held values' rules.
HELD = rule("held", _BOTH, Role.SUPPORTS, Phase.DECIDE, _DIGITS | _WORDS, (0, UNIT_WINDOW), held)
TRIVIAL = rule(
    "trivial",
    _NUMBERS,
    Role.EXEMPTS,
    Phase.DECIDE,
    _WORDS,
    (0, UNIT_WINDOW),
    trivial,
    kinds=ALL_KINDS,
)
CITED_MARKER = rule(
    "cited-marker",
    _NUMBERS,
    Role.EXEMPTS,
    Phase.CHECK,
    _DIGITS,
    _MARKER_REACH,
    cited_marker,
    kinds=PLAIN_KINDS,
)
MARKER = rule(
    "marker",
    _NUMBERS,
    Role.EXEMPTS,
    Phase.RESCUE,
    _DIGITS,
    _MARKER_REACH,
    marker,
    kinds=PLAIN_KINDS,
)
WORD_MARKER = rule(
    "word-marker", _BOTH, Role.EXEMPTS, Phase.RESCUE, _WORDS, _MARKER_REACH, word_marker
)
