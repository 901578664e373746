"""
A claim is walked only through its kind's rules, and that changes no verdict (issue 40).

Each rule declares the kinds of claim it may decide (``Rule.kinds``); the
check indexes the rules by kind once (``plans``) and asks a claim only the
rules of its kind. That is right only when every rule left out of a kind
says "not mine" to every claim of that kind it would be asked about in the
walk: None in the decide and check phases, nothing that rescues in the
rescue phase. These tests walk every claim of real and generated answers
through the whole reader's rules, against chunks that hold the answer's
numbers and chunks that hold none, record every rule that decided
something, and compare the walk of the claim's kind with the whole walk.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grounding_texts import DENSE_TEXT, TEXT
from property_budget import examples as property_examples
from relapse.grounding import GroundingCheck, default_grounding_check
from relapse.grounding._read.claims import Claim
from relapse.grounding._read.quantity import Quantity, kind_of
from relapse.grounding._read.scan import scan
from relapse.grounding._read.word_claims import word_claims
from relapse.grounding._values.tags import ALL_KINDS, CLAIM_MARKS, KEY_TAGS, Kind
from relapse.grounding.rules import (
    RULES,
    Lookup,
    Phase,
    Plan,
    Reads,
    Rule,
    Support,
    judge,
    plan,
    plans,
)
from relapse.grounding.rules._rule import Judge, examples

SAMPLE = (
    Path(__file__).resolve().parents[3]
    / ".."
    / "shared"
    / "data"
    / "ragtruth-sample"
    / "ragtruth_sample.jsonl"
)

#: The readers whose claims the walk judges, and how each finds its claims.
READERS = {
    Reads.DIGITS: scan,
    Reads.WORDS: lambda text: [c for c in word_claims(text) if kind_of(c) is not Kind.ORDINAL],
}


def _lookups(answer: str, chunks: list[str], question: str) -> list[Lookup]:
    """The prepared chunks and question as the rules see them: with and without the question."""
    return [
        check.prepare(question, chunks)._lookup
        for check in (default_grounding_check, GroundingCheck(exempt_question=False))
    ]


def _recording(whole: Plan, decided: list[Rule]) -> Plan:
    """The whole reader's plan, each rule's judgement recording when it is not "not mine"."""

    def recorded(judgement: Judge, rule: Rule) -> Judge:
        def ask(lookup: Lookup, value: Quantity, verdict: Support | None) -> Support | None:
            found = judgement(lookup, value, verdict)
            if found if rule.phase is Phase.RESCUE else found is not None:
                decided.append(rule)
            return found

        return ask

    return Plan(*(tuple((recorded(j, rule), rule) for j, rule in phase) for phase in whole))


def _assert_kinds_hold(answer: str, chunks: list[str], question: str = "") -> None:
    """Every rule that decides a claim in the whole walk is of its kind; the kind's walk agrees."""
    for lookup in _lookups(answer, chunks, question):
        for reads, claims_of in READERS.items():
            whole = plan(reads, True)
            for claim in claims_of(answer):
                kind = kind_of(claim)
                assert claim.unit in CLAIM_MARKS, claim
                for alternative in (*claim.needs, claim.provides):
                    assert {key[0] for key in alternative} <= KEY_TAGS.keys(), claim
                for rescue in (True, False):
                    decided: list[Rule] = []
                    walked = judge(
                        _recording(whole, decided), lookup, Quantity(answer, claim, kind), rescue
                    )
                    assert [rule.name for rule in decided if kind not in rule.kinds] == [], claim
                    assert walked == judge(
                        plans(reads, True)[kind], lookup, Quantity(answer, claim, kind), rescue
                    ), claim


def _sample() -> list[dict[str, object]]:
    if not SAMPLE.exists():
        pytest.skip(f"the RAGTruth sample is not at {SAMPLE}")
    with SAMPLE.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def test_every_rule_out_of_a_kind_says_not_mine_on_the_ragtruth_answers() -> None:
    records = _sample()
    for number, record in enumerate(records[::5]):
        answer = str(record["response"])
        passages = [str(p) for p in record["passages"]]  # type: ignore[attr-defined]
        question = str(record.get("question") or "")
        _assert_kinds_hold(answer, passages, question)
        # Against another record's passages: the claims fail, the rescues are asked.
        other = [str(p) for p in records[(number * 5 + 1) % len(records)]["passages"]]  # type: ignore[attr-defined]
        _assert_kinds_hold(answer, other)


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.name)
def test_every_rule_out_of_a_kind_says_not_mine_on_the_examples(rule: object) -> None:
    for example in examples(rule):  # type: ignore[arg-type]
        _assert_kinds_hold(example.answer, list(example.chunks))
        _assert_kinds_hold(example.answer, ["Nothing here."])


@settings(
    max_examples=property_examples(150), deadline=None, suppress_health_check=list(HealthCheck)
)
@given(answer=st.one_of(TEXT, DENSE_TEXT), chunk=st.one_of(TEXT, DENSE_TEXT))
def test_every_rule_out_of_a_kind_says_not_mine_on_generated_texts(answer: str, chunk: str) -> None:
    _assert_kinds_hold(answer, [chunk, answer[: len(answer) // 2]])


@pytest.mark.parametrize(
    ("answer", "kind"),
    [
        ("It is 2,737 metres long.", Kind.COUNT),
        ("About 45% agreed.", Kind.PERCENT),
        ("It cost $4,812.37.", Kind.MONEY),
        ("It takes 3-4 weeks.", Kind.RANGE),
        ("It opens at 3:30 pm.", Kind.TIME),
        ("It opened on March 3, 2017.", Kind.DATE),
        ("It opened in 1905.", Kind.DATE),
        ("It was built in the 80s.", Kind.DATE),
        ("It was built in the 19th century.", Kind.DATE),
        ("They use GPT-4.", Kind.TOKEN),
    ],
)
def test_the_kind_of_a_digit_claim(answer: str, kind: Kind) -> None:
    (claim,) = scan(answer)
    assert kind is kind_of(claim)


@pytest.mark.parametrize(
    ("answer", "kind"),
    [
        ("There were seventy of them.", Kind.COUNT),
        ("Two thirds of them left.", Kind.RATIO),
        ("Fifty percent of them left.", Kind.PERCENT),
        ("It opens at noon.", Kind.TIME),
        ("She finished fourth.", Kind.ORDINAL),
    ],
)
def test_the_kind_of_a_word_claim(answer: str, kind: Kind) -> None:
    claims: list[Claim] = list(word_claims(answer))
    assert [kind] == [kind_of(claim) for claim in claims]


def test_each_kind_s_walk_keeps_the_registry_order() -> None:
    for reads in READERS:
        whole = plan(reads, True)
        for kind in ALL_KINDS:
            for kept, every in zip(plans(reads, True)[kind], whole, strict=True):
                names = [rule.name for _, rule in every]
                assert [rule.name for _, rule in kept] == [
                    name
                    for name in names
                    if kind in next(r for _, r in every if r.name == name).kinds
                ]


def test_a_count_is_asked_fewer_rules_than_the_reader_has() -> None:
    """The point of the index: a failing count is not asked the rules of ranges, times, dates."""
    count = [rule.name for phase in plans(Reads.DIGITS)[Kind.COUNT] for _, rule in phase]
    assert "range-ends" not in count
    assert "named-time" not in count
    assert "dates-in-digits" not in count
    assert "percent-ratio" not in count
    assert ["held", "hedged", "bare-share", "spelled-out"] == [
        rule.name for _, rule in plans(Reads.DIGITS)[Kind.COUNT].decide
    ]


#: Claims of kinds other than a count that a rule decides: each keeps the
#: rule's declaration from narrowing below that kind unnoticed.
DECIDING = [
    ("About 45% agreed.", "44.8% agreed.", "hedged", Kind.PERCENT),
    ("It cost about $1,200.", "It cost $1,184.", "hedged", Kind.MONEY),
    ("Growth was 45% that year.", "It took 45 minutes.", "units-agree", Kind.PERCENT),
    ("It cost $30 in total.", "It took 30 minutes.", "units-agree", Kind.MONEY),
    ("It costs $75.", "It costs 7,500 cents.", "minor-money", Kind.MONEY),
    ("It costs 75 cents.", "It costs $0.75.", "minor-money", Kind.COUNT),
    ("Two thirds of them left.", "67% of them left.", "percent-ratio", Kind.RATIO),
    ("45% of voters agreed.", "A share of 0.45 of voters agreed.", "percent-ratio", Kind.PERCENT),
    ("It costs $70.", "It costs seventy dollars.", "spelled-out", Kind.MONEY),
    ("It opened in nineteen forty-five.", "In nineteen forty-five.", "spelled-out", Kind.DATE),
    ("It opens at 12 pm.", "It opens at noon.", "named-time", Kind.TIME),
    ("It was built in the 1980s.", "It was built in the eighties.", "decade-words", Kind.DATE),
    ("It takes 3-4 weeks.", "It takes three weeks, sometimes four.", "range-ends", Kind.RANGE),
    ("It opened in 1938.", "It opened in nineteen thirty-seven.", "dates-in-digits", Kind.DATE),
    ("Steps:\n3. Cross it.", "The 3 towers stand.", "cited-marker", Kind.COUNT),
]


@pytest.mark.parametrize(("answer", "chunk", "name", "kind"), DECIDING)
def test_a_rule_decides_a_claim_of_a_kind_it_declares(
    answer: str, chunk: str, name: str, kind: Kind
) -> None:
    lookup = default_grounding_check.prepare("", [chunk])._lookup
    decided: list[tuple[str, Kind]] = []
    for reads, claims_of in READERS.items():
        for claim in claims_of(answer):
            found: list[Rule] = []
            value = Quantity(answer, claim, kind_of(claim))
            judge(_recording(plan(reads, True), found), lookup, value)
            decided += [(rule.name, value.kind) for rule in found]
    assert (name, kind) in decided
    _assert_kinds_hold(answer, [chunk])
