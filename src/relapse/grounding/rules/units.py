"""Units and bindings: a supported number's unit, and what it counts, agree with the chunks'."""

from __future__ import annotations

from relapse.grounding._codes import FG001
from relapse.grounding._index.unit_lookup import AGREE, CONFLICT, FOREIGN, UNRELATED
from relapse.grounding._read.context import CONTEXT_BEFORE
from relapse.grounding._read.quantity import VALUED_KINDS, Binding, Quantity
from relapse.grounding._values.keys import key_value
from relapse.grounding._values.tags import PERCENT_MARK, REFERENCE
from relapse.grounding._values.units import UNIT_WINDOW
from relapse.grounding.rules._lookup import Lookup
from relapse.grounding.rules._rule import Phase, Reads, Role, Support, rule
from relapse.grounding.rules.ratios import ratio


def units_agree(lookup: Lookup, value: Quantity, verdict: Support | None) -> Support | None:
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
    return None if _units_agree(lookup, value) else False


def _units_agree(lookup: Lookup, value: Quantity) -> bool:
    """Tell whether a supported number's unit agrees with the chunks' writing of it."""
    claim = value.claim
    key = claim.key
    if key is None or claim.code != FG001 or claim.parts:
        return True
    # A signed number ("-5", "−$30", "minus 5") is bound as its digits
    # are (the quantity's bindings read from its unsigned start); the
    # lookup reads the chunks' signs as the scanner does.
    percent = claim.unit == PERCENT_MARK
    binding: Binding | None
    if percent:
        # The scanner's percent, its sign or word read after the digits;
        # one the binding does not read the same way ("$0%1") is judged
        # as before, never foreign.
        binding = value.percent_binding
    elif lookup.trivial(value):
        # "2 people": a trivial number bare of a unit claims little.
        unit = value.unit
        binding = None if unit is None else Binding(unit, False)
    else:
        binding = value.binding
    if binding is None or binding.name == REFERENCE:
        return True
    unit = binding.name
    question = lookup.question
    verdicts = [lookup.chunks.units.verdict(key, unit)]
    if verdicts[0] == AGREE:
        return True
    verdicts.append(question.units.verdict(key, unit) if question is not None else UNRELATED)
    if verdicts[1] == AGREE:
        return True
    if CONFLICT in verdicts:
        return False
    if verdicts[0] != FOREIGN or binding.ambiguous:
        return True
    # Bound elsewhere in every chunk occurrence in digits: still supported
    # when a chunk spells it out, or the question states it unbound by
    # anything the lookup reads (in words, say).
    number = key_value(key)
    return (
        (number is not None and lookup.chunks.words.has(number))
        or (question is not None and verdicts[1] == UNRELATED and key in question.keys)
        # "45%" of a chunk's "a share of 0.45", beside its "45 minutes".
        or (percent and ratio(lookup, key, PERCENT_MARK))
    )


#: The units' rule.
UNITS_AGREE = rule(
    "units-agree",
    frozenset({FG001}),
    Role.VETOES,
    Phase.CHECK,
    frozenset({Reads.DIGITS, Reads.WORDS}),
    (CONTEXT_BEFORE, UNIT_WINDOW),
    units_agree,
    kinds=VALUED_KINDS,
)
