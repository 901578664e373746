"""
The rule registry: every rule module listed, in one order, specified, with a bounded reach.

``relapse.grounding.rules.RULES`` is the order the check asks its rules in
(docs/findings.md is generated from it); a module in ``rules/`` whose rules
are not listed would be code the check never runs, or runs by hand.
"""

from __future__ import annotations

import importlib
import pkgutil

import pytest

import relapse.grounding.rules as rules_package
from relapse.grounding import ALL_CODES, default_grounding_check
from relapse.grounding._index.blocks import LOOK_AHEAD, LOOK_BACK
from relapse.grounding._memo import MEMO_FROM
from relapse.grounding.rules import RULES, Phase, Reads, Role, Rule, plan, rule_named

#: The family modules of the registry (every public module of rules/).
FAMILIES = sorted(
    info.name
    for info in pkgutil.iter_modules(rules_package.__path__)
    if not info.name.startswith("_")
)


def rules_of(name: str) -> list[Rule]:
    """The Rule objects a family module defines at its top level."""
    module = importlib.import_module(f"relapse.grounding.rules.{name}")
    return [value for value in vars(module).values() if isinstance(value, Rule)]


def test_the_families_are_the_layout_s() -> None:
    assert [
        "conversions",
        "echo",
        "hedges",
        "held",
        "money",
        "names",
        "quotations",
        "ranges",
        "ratios",
        "subjects",
        "times",
        "units",
        "words",
    ] == FAMILIES


@pytest.mark.parametrize("family", FAMILIES)
def test_every_rule_of_a_family_is_in_the_registry(family: str) -> None:
    defined = rules_of(family)
    assert defined, f"rules/{family}.py defines no rule"
    assert [rule.name for rule in defined if rule not in RULES] == []


def test_the_registry_lists_each_rule_once_under_a_unique_name() -> None:
    names = [rule.name for rule in RULES]
    assert len(set(names)) == len(names)
    assert {rule for family in FAMILIES for rule in rules_of(family)} == set(RULES)


def test_the_order_is_the_check_s() -> None:
    """The order the passes and the walk ask the rules in (changing it changes verdicts)."""
    assert [
        "empty",
        "echo",
        "short-quotation",
        "refusal-quotation",
        "asked-quotation",
        "verbatim",
        "ordinal-slot",
        "trivial",
        "held",
        "range-ends",
        "named-time",
        "decade-words",
        "century-spelled",
        "hedged",
        "percent-ratio",
        "bare-share",
        "dates-in-digits",
        "spelled-out",
        "units-agree",
        "cited-marker",
        "marker",
        "conversion",
        "phrase-held",
        "minor-money",
        "another-unit",
        "compound-money",
        "word-marker",
        "subject",
        "names",
        "copy",
    ] == [rule.name for rule in RULES]


def test_the_digits_walk_is_the_old_ladder() -> None:
    """``_supported``'s if-ladder, ``_claim_holds``' check and or-chain, as they were."""
    walk = plan(Reads.DIGITS)
    assert (
        [
            "held",
            "range-ends",
            "named-time",
            "decade-words",
            "century-spelled",
            "hedged",
            "percent-ratio",
            "bare-share",
            "dates-in-digits",
            "spelled-out",
        ],
        ["units-agree", "cited-marker"],
        ["marker", "conversion", "minor-money", "another-unit", "compound-money"],
    ) == tuple([rule.name for _, rule in phase] for phase in walk)


def test_the_words_walk_is_the_old_pass() -> None:
    walk = plan(Reads.WORDS)
    assert ["trivial", "held"] == [rule.name for _, rule in walk.decide][:2]
    assert ["units-agree"] == [rule.name for _, rule in walk.check]
    assert ["phrase-held", "minor-money", "compound-money", "word-marker"] == [
        rule.name for _, rule in walk.rescue
    ]


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.name)
def test_a_rule_is_complete(rule: Rule) -> None:
    assert rule.codes
    assert rule.codes <= ALL_CODES
    assert rule.reads
    assert isinstance(rule.role, Role)
    assert (rule.judge is None) == (rule.phase is Phase.PASS)
    assert "Accepts:" in rule.doc
    assert "Why:" in rule.doc
    assert rule.doc.index("Accepts:") < rule.doc.index("Why:")
    assert not rule.preview  # every rule of the registry was there before preview existed


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.name)
def test_a_rule_reads_within_the_blocks_and_the_stream_s_reach(rule: Rule) -> None:
    """The block memo and the streaming window assume no rule reads further (LOOK_BACK/AHEAD)."""
    before, after = rule.reach
    assert 0 <= before <= LOOK_BACK
    assert 0 <= after <= LOOK_AHEAD


def test_a_rule_is_found_by_name() -> None:
    assert "units-agree" == rule_named("units-agree").name
    with pytest.raises(KeyError, match="no rule named 'unit'; the rules: empty, echo"):
        rule_named("unit")


def test_the_claims_memo_keys_on_every_rule_s_reach() -> None:
    """
    Two claims alike within 68 characters but not within the compound amount's 120 differ.

    Found by this registry's reach: the memo keyed on 68 characters before a
    claim while the compound-money rule reads 120, so the second ``50 cents``
    got the first one's verdict, in either order.
    """
    chunks = ["The price was $2,123,456.50 in total."]
    held = "It cost two million one hundred twenty-three thousand four hundred fifty-six dollars"
    other = "It cost six million one hundred twenty-three thousand four hundred fifty-six dollars"
    pad = " And that was all there was to it, nothing else, no other costs at all." * 2
    # Long enough for the memo, which a short answer goes without.
    tail = " and 50 cents." + pad * 8 + " "
    for first, second in ((held, other), (other, held)):
        answer = first + tail + second + tail
        assert len(answer) >= MEMO_FROM
        result = default_grounding_check("", chunks, answer)
        at = answer.index(other)
        fifty = answer.index("50", at)
        assert (
            (at + len("It cost "), at + len(other) - len(" dollars")),
            (fifty, fifty + 2),
        ) == tuple(sorted(result.findings[0].offsets))
