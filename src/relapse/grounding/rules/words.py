"""
Words and ordinals: a number stated in words, a chunk's phrase, an ordinal in its slot.

``Seventy`` for ``70``; ``minus three`` copied; ``fourth`` where a chunk ranks ``3rd``.
"""

from __future__ import annotations

from fractions import Fraction

from relapse.grounding._codes import FG001, FG002
from relapse.grounding._read.claims import Claim
from relapse.grounding._read.ordinal_slots import (
    MAX_SLOT_WORDS,
    ordinal_value,
    ordinals_after,
    slot_word_before,
)
from relapse.grounding._read.quantity import VALUED_KINDS, Quantity
from relapse.grounding._read.quotes import occurs_as_words
from relapse.grounding._text import fold
from relapse.grounding._values.keys import key_value
from relapse.grounding._values.tags import NUMBER
from relapse.grounding.rules._lookup import Lookup
from relapse.grounding.rules._rule import Phase, Reads, Role, Spelled, Support, rule

#: Significant digits up to which a number written in digits is also looked
#: up spelled out in the chunks.
MAX_SPELLED_DIGITS = 3

#: Decimal places up to which a decimal written in digits is also looked up
#: spelled out, after ``point`` (``66.7``: ``sixty-six point seven``).
DECIMAL_SPELLED_PLACES = 3

# The parts of a whole that prose spells out after a number ("two and a half").
_SPELLED_PARTS = frozenset({Fraction(1, 2), Fraction(1, 4), Fraction(3, 4)})


def spelled_out(lookup: Lookup, value: Quantity, verdict: Support | None) -> Support | None:
    """
    A number no key holds is looked up in the chunks' words; the last rule to decide.

    Accepts:
        ``70`` when a chunk says ``Seventy``; ``2.5`` for ``two and a half``,
        ``0.75`` for ``three quarters``, ``66.7`` for ``sixty-six point
        seven``; a number the answer writes in words when a chunk writes the
        same words. The chunk's words are its evidence. The verdict is final:
        what no rule before supported and no chunk spells out fails here.

    Why:
        Prose spells out numbers of up to three significant digits (``two
        hundred and twelve``, ``three thousand five hundred``) and years
        (``nineteen forty-five``); a decimal's places are spelled one by one
        after ``point``, up to three. A claim in words is always looked up, so
        that words copied from a chunk are found there.

    Examples:
        | answer | chunks | verdict |
        | --- | --- | --- |
        | `It has 70 rooms.` | `Seventy rooms.` | passes |
        | `It has 71 rooms.` | `Seventy rooms.` | fails |
        | `70 years` | `Seventy years ago` | passes |
        | `3rd` | `third` | passes |
        | `500,000 people` | `Half a million people` | passes |
    """
    claim = value.claim
    key = claim.key
    assert key is not None  # the century rule decided every claim without one
    # "70" in the answer, "Seventy" in a chunk. Prose spells out numbers of
    # up to three significant digits ("two hundred and twelve", "three
    # thousand five hundred") and years ("nineteen forty-five"); a claim in
    # words is always looked up, so that words copied from a chunk are
    # found there.
    number = key_value(key)
    if number is None:
        return False
    spelled = value.answer[claim.start : claim.start + 1].isalpha()
    if not spelled and claim.code == FG001:
        # A decimal's places are spelled one by one after "point": three
        # more digits than a whole number's ("nine hundred point two five").
        places = DECIMAL_SPELLED_PLACES if isinstance(number, Fraction) else 0
        if len(str(key[1])) > MAX_SPELLED_DIGITS + places:
            return False
        if isinstance(number, Fraction) and not _spelled_out_decimal(number):
            return False
        if (
            isinstance(number, Fraction)
            and _spelled_with_point_only(number)
            and not lookup.chunks.words.spells_decimals()
        ):
            return False  # only "point" could spell it ("sixty-six point seven")
    return Spelled(number) if lookup.chunks.words.has(number) else False


def phrase_held(lookup: Lookup, value: Quantity, verdict: Support | None) -> Support | None:
    """
    A signed number or an era year in words is a chunk's phrase, copied.

    Accepts:
        ``minus three`` or ``forty-four BC`` in the answer when a chunk writes
        the same words.

    Why:
        A chunk's ``minus three`` is read as a number in words alone (3),
        which no signed or era claim is; the same words copied into the answer
        state what the chunk states. A plain number in words is looked up by
        value instead (the spelled-out rule).

    Examples:
        | answer | chunks | verdict |
        | --- | --- | --- |
        | `Rome fell in forty-four BC.` | `Caesar died in forty-four BC.` | passes |
    """
    claim = value.claim
    written = value.answer[claim.start : claim.end]
    if claim.key is not None and claim.key[0] == NUMBER and claim.code == FG001:
        return None  # a plain number in words: looked up by value
    return True if occurs_as_words(lookup.chunks.quotations.folded, fold(written)) else None


def ordinal_contradicted(
    lookup: Lookup, answer: str, claim: Claim, ranks: dict[str, frozenset[int]]
) -> bool:
    """
    Tell whether the chunks write other ordinals than a small one after the same word (FG001).

    ``She finished fourth`` against a chunk's ``She finished 3rd``: the
    chunks (or the question) rank the same thing otherwise. With no
    ordinal after the same word there, or its own among them, the
    ordinal passes (:mod:`relapse.grounding._read.ordinal_slots`).
    ``ranks`` keeps what the chunks write after each word, searched once
    per answer: past :data:`MAX_SLOT_WORDS` words, an ordinal after a new
    one passes, so the searches stay linear in the chunks.
    """
    before = slot_word_before(answer, claim.start)
    value = ordinal_value(answer[claim.start : claim.end])
    if before is None or value is None:
        return False
    found = ranks.get(before)
    if found is None:
        if len(ranks) >= MAX_SLOT_WORDS:
            return False
        texts = [lookup.chunks.joined]
        if lookup.question is not None:
            texts.append(lookup.question.joined)
        found = ranks[before] = frozenset().union(*(ordinals_after(text, before) for text in texts))
    return bool(found) and value not in found


def _spelled_out_decimal(value: Fraction) -> bool:
    """
    Tell whether a decimal written in digits is looked up in words too.

    A ratio below one (``0.75``: ``three quarters``), a whole and a half or
    a quarter (``2.5``: ``two and a half``), or a decimal below a thousand
    of up to three places, which prose and transcripts spell with ``point``
    (``66.7``: ``sixty-six point seven``; the words reader reads no
    ``four thousand ... point three``).
    """
    return not _spelled_with_point_only(value) or (
        value < 1000 and 10**DECIMAL_SPELLED_PLACES % value.denominator == 0
    )


def _spelled_with_point_only(value: Fraction) -> bool:
    """Tell whether only ``point`` spells ``value``: from one up, no half or quarter past one."""
    return value >= 1 and value - (value.numerator // value.denominator) not in _SPELLED_PARTS


_CLAIMS = frozenset({Reads.DIGITS, Reads.WORDS})
# The word before an ordinal is read within this many characters (ordinal_slots._WINDOW).
_SLOT_REACH = 32

#: The words' rules.
SPELLED_OUT = rule(
    "spelled-out",
    frozenset({FG001, FG002}),
    Role.SUPPORTS,
    Phase.DECIDE,
    _CLAIMS,
    (0, 0),
    spelled_out,
    kinds=VALUED_KINDS,
)
PHRASE_HELD = rule(
    "phrase-held",
    frozenset({FG001, FG002}),
    Role.SUPPORTS,
    Phase.RESCUE,
    frozenset({Reads.WORDS}),
    (0, 0),
    phrase_held,
)
ORDINAL_SLOT = rule(
    "ordinal-slot",
    frozenset({FG001}),
    Role.VETOES,
    Phase.PASS,
    frozenset({Reads.ORDINALS}),
    (_SLOT_REACH, 0),
    doc="""
    An ordinal up to ``tenth`` in words fails when the chunks rank the same thing otherwise.

    Accepts:
        ``She finished fourth`` unless the chunks (or the question) write
        other ordinals after the same word and not its own: against ``She
        finished 3rd`` it fails. With no ordinal after the same word there,
        it passes (:mod:`relapse.grounding._read.ordinal_slots`).

    Why:
        Small ordinals are everywhere (``the first step``) and claim little
        alone; in the slot where a chunk ranks the same thing, they contradict
        it. The words pass asks it with what the chunks rank after each word,
        searched once per answer: past
        :data:`relapse.grounding._read.ordinal_slots.MAX_SLOT_WORDS` distinct
        words, an ordinal after a new one passes, so the searches stay linear
        in the chunks.

    Examples:
        | answer | chunks | verdict |
        | --- | --- | --- |
        | `She finished fourth in the race.` | `She finished 3rd in the race.` | fails |
        | `She finished third in the race.` | `She finished 3rd in the race.` | passes |
    """,
)
