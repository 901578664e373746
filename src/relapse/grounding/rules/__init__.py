"""
The default check's rules: one module per family, one ordered registry, one walk.

Each rule (:class:`Rule`) has a stable name, the codes of the claims it
decides, its role (supports, vetoes, exempts), the phase of a claim's walk it
is asked in, the readers whose claims it reads and its reach into the answer.
:data:`RULES` lists them in the order the check asks them: the passes over
the whole answer (empty, echo, quotations, names, copy) run in this order,
and each claim of the digits' and the words' readers is walked through the
per-claim rules in this order by :func:`judge`: the rules of its kind only
(:func:`plans`, an index from kind to rules built once from the registry).
``docs/findings.md``'s rule sections are generated from this registry.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

from relapse.grounding._read.quantity import Quantity
from relapse.grounding._values.tags import Kind
from relapse.grounding.rules._lookup import Lookup
from relapse.grounding.rules._rule import (
    Judge,
    Phase,
    Quoted,
    Reads,
    Role,
    Rule,
    Spelled,
    Support,
)
from relapse.grounding.rules.conversions import ANOTHER_UNIT, CONVERSION
from relapse.grounding.rules.echo import COPY, ECHO, EMPTY
from relapse.grounding.rules.hedges import HEDGED
from relapse.grounding.rules.held import CITED_MARKER, HELD, MARKER, TRIVIAL, WORD_MARKER
from relapse.grounding.rules.money import COMPOUND_MONEY, MINOR_MONEY
from relapse.grounding.rules.names import NAMES
from relapse.grounding.rules.quotations import (
    ASKED_QUOTATION,
    REFUSAL_QUOTATION,
    SHORT_QUOTATION,
    VERBATIM,
)
from relapse.grounding.rules.ranges import RANGE_ENDS
from relapse.grounding.rules.ratios import BARE_SHARE, PERCENT_RATIO
from relapse.grounding.rules.subjects import SUBJECT
from relapse.grounding.rules.times import (
    CENTURY_SPELLED,
    DATES_IN_DIGITS,
    DECADE_WORDS_RULE,
    NAMED_TIME,
)
from relapse.grounding.rules.units import UNITS_AGREE
from relapse.grounding.rules.words import ORDINAL_SLOT, PHRASE_HELD, SPELLED_OUT

__all__ = [
    "RULES",
    "Lookup",
    "Phase",
    "Plan",
    "Quoted",
    "Reads",
    "Role",
    "Rule",
    "Spelled",
    "Support",
    "judge",
    "plan",
    "plans",
    "rule_named",
]

#: Every rule of the default check, in the order the check asks them.
RULES: tuple[Rule, ...] = (
    # The answer as a whole, first: an empty answer, then echoed lines.
    EMPTY,
    ECHO,
    # Quotations, each walked through these in order.
    SHORT_QUOTATION,
    REFUSAL_QUOTATION,
    ASKED_QUOTATION,
    VERBATIM,
    # A small ordinal in words, judged in its slot only.
    ORDINAL_SLOT,
    # Numbers and dates, in digits and in words: until one decides...
    TRIVIAL,
    HELD,
    RANGE_ENDS,
    NAMED_TIME,
    DECADE_WORDS_RULE,
    CENTURY_SPELLED,
    HEDGED,
    PERCENT_RATIO,
    BARE_SHARE,
    DATES_IN_DIGITS,
    SPELLED_OUT,
    # ...then on a supported one...
    UNITS_AGREE,
    CITED_MARKER,
    # ...and on a failing one, until one rescues it.
    MARKER,
    CONVERSION,
    PHRASE_HELD,
    MINOR_MONEY,
    ANOTHER_UNIT,
    COMPOUND_MONEY,
    WORD_MARKER,
    # Supported numbers read again in their sentence.
    SUBJECT,
    # The answer as a whole, last.
    NAMES,
    COPY,
)

#: The per-claim phases, in the order of a walk.
_WALKED = (Phase.DECIDE, Phase.CHECK, Phase.RESCUE)


class Plan(NamedTuple):
    """The rules one reader's claims are walked through, by phase, in :data:`RULES` order."""

    decide: tuple[tuple[Judge, Rule], ...]
    check: tuple[tuple[Judge, Rule], ...]
    rescue: tuple[tuple[Judge, Rule], ...]


@functools.cache
def plan(reads: Reads, preview: bool = False, kind: Kind | None = None) -> Plan:
    """
    Return the rules that judge the claims of one reader, by phase.

    Args:
        reads: The reader.
        preview: Include the preview rules (``GroundingCheck(preview=True)``).
        kind: Only the rules that may decide a claim of this kind
            (:attr:`Rule.kinds`); None for every kind.
    """
    phases: dict[Phase, list[tuple[Judge, Rule]]] = {phase: [] for phase in _WALKED}
    for rule in RULES:
        if (
            rule.phase in phases
            and reads in rule.reads
            and (preview or not rule.preview)
            and (kind is None or kind in rule.kinds)
        ):
            assert rule.judge is not None  # a walked rule has a judgement
            phases[rule.phase].append((rule.judge, rule))
    return Plan(*(tuple(phases[phase]) for phase in _WALKED))


@functools.cache
def plans(reads: Reads, preview: bool = False) -> dict[Kind, Plan]:
    """
    Return the index from a claim's kind to the rules that judge it (built once).

    Args:
        reads: The reader.
        preview: Include the preview rules.

    Returns:
        ``{kind: plan(reads, preview, kind)}`` for every kind: a claim is
        walked through its kind's plan, which gives the verdict the whole
        reader's plan gives (the rules left out return None for it).
    """
    return {kind: plan(reads, preview, kind) for kind in Kind}


def judge(
    walk: Plan, lookup: Lookup, value: Quantity, rescue: bool = True
) -> tuple[Support, Rule | None]:
    """
    Walk one claim through its reader's rules: decide, then check, then rescue.

    The first rule of the decide phase whose verdict is not None decides
    (an exempting one ends the walk there). A supported claim is then asked
    by each rule of the check phase in turn: a veto makes it fail, an
    exemption ends the walk. A claim that fails is asked by each rule of the
    rescue phase (when ``rescue``) until one accepts it.

    Args:
        walk: The rules of the claim's reader and kind (:func:`plans`).
        lookup: The prepared chunks and question.
        value: The claim, read once.
        rescue: Ask the rescue phase of a failing claim (the digits' pass
            rescues numbers only, FG001).

    Returns:
        ``(verdict, rule)``: what supports the claim (False when nothing
        does), and the rule that decided it last (None when none did).
    """
    verdict: Support = False
    by: Rule | None = None
    for judgement, rule in walk.decide:
        found = judgement(lookup, value, None)
        if found is not None:
            if rule.role is Role.EXEMPTS:
                return found, rule
            verdict, by = found, rule
            break
    if verdict:
        for judgement, rule in walk.check:
            found = judgement(lookup, value, verdict)
            if found is not None:
                verdict, by = found, rule
                if not found or rule.role is Role.EXEMPTS:
                    break
        if verdict:
            return verdict, by
    if rescue:
        for judgement, rule in walk.rescue:
            found = judgement(lookup, value, False)
            if found:
                return found, rule
    return False, by


def rule_named(name: str) -> Rule:
    """
    Return the rule of :data:`RULES` with this name.

    Raises:
        KeyError: no rule has this name; the message lists the names.
    """
    for rule in RULES:
        if rule.name == name:
            return rule
    raise KeyError(f"no rule named {name!r}; the rules: {', '.join(r.name for r in RULES)}")
