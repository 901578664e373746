"""Units and bindings: a supported number's unit, and what it counts, agree with the chunks'."""

from __future__ import annotations

import re

from relapse.grounding._codes import FG001
from relapse.grounding._index.unit_lookup import AGREE, CONFLICT, FOREIGN, UNRELATED
from relapse.grounding._read.claims import Claim
from relapse.grounding._read.context import CONTEXT_BEFORE
from relapse.grounding._read.numbers import MINUS_SIGNS
from relapse.grounding._values.keys import key_value
from relapse.grounding._values.units import (
    AMBIGUOUS,
    PERCENT_SIGNS,
    PERCENT_WORDS,
    UNIT_WINDOW,
    binding_of,
    unit_of,
)
from relapse.grounding.rules._lookup import Lookup
from relapse.grounding.rules._rule import Phase, Reads, Role, Support, rule
from relapse.grounding.rules.ratios import ratio


def units_agree(
    lookup: Lookup, answer: str, claim: Claim, verdict: Support | None
) -> Support | None:
    """
    A supported number fails when the chunks write it with another unit, or bound to something else.

    Accepts:
        Nothing: it vetoes a supported number. ``104 °C`` is not supported by
        ``104 °F``: when the answer and the texts both give the number a unit
        of one dimension (temperature, length, money...), some occurrence
        must give the same unit, or none. A number bound to what it counts
        fails when every occurrence of it in the chunks is bound to something
        plainly else (``page 30``, ``May 30``, ``30 people`` or ``30 kg`` for
        ``30 minutes``), unless a chunk spells it out (``thirty minutes``),
        the question states it bound to the same or to nothing, or (a
        percent) a chunk states it as a ratio (``a share of 0.45``).

    Why:
        The digits are the chunk's, the quantity is not. A number the texts
        do not write in digits is not compared; an answer's number bound by
        an ambiguous spelling (``30m``) or to nothing the check reads is
        never judged foreign: when in doubt, pass.

    Examples:
        | answer | chunks | verdict |
        | --- | --- | --- |
        | `It is 2,737 km long.` | `It is 2,737 metres long.` | fails |
        | `It took 30 minutes.` | `Page 30: the tour.` | fails |
    """
    return None if _units_agree(lookup, answer, claim) else False


def _units_agree(lookup: Lookup, answer: str, claim: Claim) -> bool:
    """Tell whether a supported number's unit agrees with the chunks' writing of it."""
    key = claim.key
    if key is None or claim.code != FG001 or claim.parts:
        return True
    # A signed number ("-5", "−$30", "minus 5") is bound as its digits
    # are; the lookup reads the chunks' signs as the scanner does.
    start = unsigned_start(answer, claim) if key[0] == "-n" else claim.start
    percent = claim.unit == "%"
    if percent:
        # The scanner's percent, its sign or word read after the digits;
        # one the binding does not read the same way ("$0%1") is judged
        # as before, never foreign.
        match = _PERCENT_END.search(answer, start, claim.end)
        end = claim.end if match is None else match.start()
        unit: str | None = "%" if binding_of(answer, start, end, plurals=False) == "%" else "?%"
    elif lookup.trivial(answer, claim):
        # "2 people": a trivial number bare of a unit claims little.
        unit = unit_of(answer, start, claim.end)
    else:
        unit = binding_of(answer, start, claim.end, plurals=False)
    if unit is None or unit.startswith("#reference"):
        return True
    ambiguous = unit.startswith(AMBIGUOUS)
    unit = unit.removeprefix(AMBIGUOUS)
    question = lookup.question
    verdicts = [lookup.chunks.units.verdict(key, unit)]
    if verdicts[0] == AGREE:
        return True
    verdicts.append(question.units.verdict(key, unit) if question is not None else UNRELATED)
    if verdicts[1] == AGREE:
        return True
    if CONFLICT in verdicts:
        return False
    if verdicts[0] != FOREIGN or ambiguous:
        return True
    # Bound elsewhere in every chunk occurrence in digits: still supported
    # when a chunk spells it out, or the question states it unbound by
    # anything the lookup reads (in words, say).
    value = key_value(key)
    return (
        (value is not None and lookup.chunks.words.has(value))
        or (question is not None and verdicts[1] == UNRELATED and key in question.keys)
        # "45%" of a chunk's "a share of 0.45", beside its "45 minutes".
        or (percent and ratio(lookup, key, "%"))
    )


# A percent's sign or word at the end of its claim ("62%", "62 per cent"):
# the digits before it are what the binding reads.
_PERCENT_END = re.compile(rf"(?:[\ \u00a0\u202f]?[{PERCENT_SIGNS}]|[\ \u00a0]?{PERCENT_WORDS})\Z")

# "minus" or "negative" and the spaces after it, before a signed number's digits.
_SIGN_WORD = re.compile(r"[^\W\d_]+[\ \u00a0]+")


def unsigned_start(answer: str, claim: Claim) -> int:
    """Return where a signed claim's number starts after its sign (``-``, ``−``, ``minus``)."""
    start = claim.start
    if answer[start] in MINUS_SIGNS:
        return start + 1
    word = _SIGN_WORD.match(answer, start, claim.end)
    return start if word is None else word.end()


#: The units' rule.
UNITS_AGREE = rule(
    "units-agree",
    frozenset({FG001}),
    Role.VETOES,
    Phase.CHECK,
    frozenset({Reads.DIGITS, Reads.WORDS}),
    (CONTEXT_BEFORE, UNIT_WINDOW),
    units_agree,
)
