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
        | `104 °C` | `104 °F` | fails |
        | `104 °C (203 °F)` | `40 °C (104 °F)` | fails |
        | `50 cents` | `50 dollars` | fails |
        | `50p` | `£50` | fails |
        | `300 °C` | `300 K` | fails |
        | `85 cents` | `USD 85 ‖ US$85 ‖ 85 USD ‖ €50 ‖ GBP 75` | fails |
        | `50 euro cents` | `USD 85 ‖ US$85 ‖ 85 USD ‖ €50 ‖ GBP 75` | fails |
        | `50 Cent` | `USD 85 ‖ US$85 ‖ 85 USD ‖ €50 ‖ GBP 75` | fails |
        | `75p` | `USD 85 ‖ US$85 ‖ 85 USD ‖ €50 ‖ GBP 75` | fails |
        | `350 °C` | `350F` | fails |
        | `It takes 30 minutes.` | `See page 30 for details.` | fails |
        | `It takes 30 minutes.` | `On May 30, it rained.` | fails |
        | `It takes 30 minutes.` | `The dish serves 30 people.` | fails |
        | `It takes 30 minutes.` | `It weighs 30 kg.` | fails |
        | `They hired 30 people.` | `The trial lasted 30 days.` | fails |
        | `It takes 30 minutes.` | `The farm keeps 30 cows. ‖ It lasted 30 decades.` | fails |
        | `It costs 50 cents.` | `It costs 50 apples.` | fails |
        | `Turnout was 62%.` | `See page 62. ‖ The car reached 62 mph. ‖ It costs $62.` | fails |
        | `Turnout was 62%.` | `Turnout was 62 million voters.` | fails |
        | `The fee is 45 percent.` | `The fee is 45 kg.` | fails |
        | `It fell to −5 °F.` | `It fell to -5 °C.` | fails |
        | `62%` | `62 mln units ‖ 62 Million units ‖ 5 mln tonnes` | fails |
        | `5 million kg` | `62 mln units ‖ 62 Million units ‖ 5 mln tonnes` | fails |
        | `62 Percent` | `See page 62. ‖ 62 mph` | fails |
        | `62 PER CENT` | `See page 62. ‖ 62 mph` | fails |
        | `62 pct` | `See page 62. ‖ 62 mph` | fails |
        | `62٪` | `See page 62. ‖ 62 mph` | fails |
        | `30 minutes` | `30 June 2020 ‖ 2020-06-30 ‖ 30/06/2020 ‖ June 30th ‖ at 8:30 ‖ 8:30 am ‖
          in '30 ‖ the '30s` | fails |
        | `₹99` | `99 paise` | fails |
        | `Rs 99` | `99 paise` | fails |
        | `$99` | `99 CENTS` | fails |
        | `£50` | `50 Pence` | fails |
        | `5 km` | `5 Miles` | fails |
        | `a 30-minute drive` | `30 km` | fails |
        | `a 45-degree angle` | `45 K` | fails |
        | `350 K` | `350 degrees` | fails |
        | `$85` | `85c` | fails |
        | `85 dollars` | `85c` | fails |
        | `eighty-five dollars` | `85 cents` | fails |
        | `Prices rose sevenfold.` | `Prices rose 7 percent.` | fails |
        | `Prices rose 7x.` | `Prices rose 7 percent.` | fails |
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
