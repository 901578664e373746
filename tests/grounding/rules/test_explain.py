"""
``check(..., explain=True)``: each claim's reader, rule, outcome, evidence; messages that say why.

Each case is worked out by hand from the rules' specifications
(docs/findings.md): which reader finds the claim, which rule of
``relapse.grounding.rules.RULES`` decides it last, and where the chunk
supports it.
"""

from __future__ import annotations

import dataclasses

import pytest

import relapse.grounding.rules as rules_module
from relapse import ClaimTrace, Evidence
from relapse.grounding import GroundingCheck, default_grounding_check
from relapse.grounding._read.quantity import Quantity
from relapse.grounding.rules import RULES, Phase, Reads, Role, plan, plans
from relapse.grounding.rules._rule import rule

CHUNKS = ["The bridge opened in 1937.", "It is 2,737 metres long and carries 6 lanes."]


def test_the_trace_names_reader_rule_outcome_and_evidence() -> None:
    answer = 'It opened in 1937, is 2,737 km long, carries six lanes and 2,900 cars; "the bridge'
    answer += ' opened" first.'
    result = default_grounding_check("", CHUNKS, answer, explain=True)
    assert (
        ClaimTrace(
            "FG002", (13, 17), "1937", "digits", "held", "supported",
            Evidence("date", (13, 17), 0, (21, 25)),
        ),
        # 2,737 is the chunk's, in metres: the unit disagrees.
        ClaimTrace("FG001", (22, 27), "2,737", "digits", "units-agree", "fails"),
        ClaimTrace(
            "FG001", (45, 48), "six", "words", "held", "supported",
            Evidence("number", (45, 48), 1, (36, 37)),
        ),
        # No rule supports 2,900: the last to decide is the spelled-out lookup.
        ClaimTrace("FG001", (59, 64), "2,900", "digits", "spelled-out", "fails"),
        ClaimTrace(
            "FG003", (72, 89), "the bridge opened", "quotations", "verbatim", "supported",
            Evidence("quotation", (72, 89), 0, (0, 17)),
        ),
        # No chunk ranks anything after "opened": the small ordinal passes.
        ClaimTrace("FG001", (91, 96), "first", "ordinals", "ordinal-slot", "exempt"),
    ) == result.trace  # fmt: skip
    assert ("2,737", "2,900") == result.findings[0].spans


def test_explain_changes_nothing_else() -> None:
    answer = "It is 2,737 km long and opened in 1937 with 6 lanes, 3. of them new."
    plain = default_grounding_check("", CHUNKS, answer)
    explained = default_grounding_check("", CHUNKS, answer, explain=True)
    assert () == plain.trace
    assert explained.trace
    assert plain == dataclasses.replace(explained, trace=())


def test_an_exempt_claim_and_a_covered_one() -> None:
    result = default_grounding_check(
        "", CHUNKS, 'Steps:\n3. Cross it.\nHe said "it is 900 metres long" once.', explain=True
    )
    assert [
        ("3", "digits", "marker", "exempt"),
        ("it is 900 metres long", "quotations", "verbatim", "fails"),
        # The quotation's finding covers its number.
        ("900", "digits", "spelled-out", "covered"),
    ] == [(item.text, item.reader, item.rule, item.outcome) for item in result.trace]


def test_an_empty_answer_is_traced_to_its_rule() -> None:
    result = default_grounding_check("", CHUNKS, "  ", explain=True)
    assert (ClaimTrace("FG004", (0, 2), "  ", "answer", "empty", "fails"),) == result.trace


class TestMessages:
    """A finding's message says why each span fails; "not in the chunks" only when it is not."""

    def test_a_unit_that_disagrees_is_not_missing(self) -> None:
        result = default_grounding_check("", CHUNKS, "It is 2,737 km long.")
        assert (
            "1 number(s) the retrieved chunks state with another unit or bound to something"
            " else: '2,737'"
        ) == result.findings[0].message

    def test_each_reason_gets_its_part_missing_first(self) -> None:
        result = default_grounding_check("", CHUNKS, "It is 2,737 km long, 2,900 m wide.")
        assert (
            "1 number(s) not in the retrieved chunks: '2,900'; 1 number(s) the retrieved"
            " chunks state with another unit or bound to something else: '2,737'"
        ) == result.findings[0].message
        assert ("2,737", "2,900") == result.findings[0].spans

    def test_an_ordinal_ranked_otherwise(self) -> None:
        result = default_grounding_check(
            "", ["She finished 3rd in the race."], "She finished fourth in the race."
        )
        assert "1 ordinal(s) the retrieved chunks rank otherwise: 'fourth'" == (
            result.findings[0].message
        )

    def test_a_number_of_another_subject(self) -> None:
        # tests/grounding/rules/test_subjects.py's first case (RAGTruth 15010).
        chunks = [
            "Monozygotic twins are identical twins. Monoamniotic twins occur when the split"
            " takes place after the ninth day after fertilization. Conjoined twins: When the"
            " division of the developing zygote occurs, it is within 8 days of fertilization."
        ]
        answer = "Monozygotic twins occur when the division happens within 8 days."
        result = default_grounding_check("", chunks, answer, explain=True)
        assert "1 number(s) the retrieved chunks state only of another subject: '8'" == (
            result.findings[0].message
        )
        assert [("8", "subject", "fails")] == [
            (item.text, item.rule, item.outcome) for item in result.trace if item.text == "8"
        ]

    def test_a_missing_number_keeps_the_message(self) -> None:
        result = default_grounding_check("", CHUNKS, "It is 2,900 metres long.")
        assert "1 number(s) not in the retrieved chunks: '2,900'" == result.findings[0].message


class TestPreview:
    """A rule added with ``preview=True`` applies only when the check is configured so."""

    @pytest.fixture
    def accepts_42(self, monkeypatch: pytest.MonkeyPatch) -> None:
        def judgement(lookup: object, value: Quantity, verdict: object) -> bool | None:
            """
            Accept 42.

            Accepts:
                The number 42.

            Why:
                A test of the preview switch.
            """
            claim = value.claim
            return True if value.answer[claim.start : claim.end] == "42" else None

        preview = rule(
            "accepts-42",
            frozenset({"FG001"}),
            Role.SUPPORTS,
            Phase.RESCUE,
            frozenset({Reads.DIGITS}),
            (0, 0),
            judgement,
            preview=True,
        )
        monkeypatch.setattr(rules_module, "RULES", (*RULES, preview))
        plan.cache_clear()
        plans.cache_clear()
        yield
        plan.cache_clear()
        plans.cache_clear()

    @pytest.mark.usefixtures("accepts_42")
    def test_off_by_default_on_with_preview(self) -> None:
        assert "accepts-42" not in [rule.name for _, rule in plan(Reads.DIGITS).rescue]
        assert "accepts-42" == plan(Reads.DIGITS, True).rescue[-1][1].name
        assert not GroundingCheck()("", CHUNKS, "It has 42 lanes.").ok
        previewed = GroundingCheck(preview=True)("", CHUNKS, "It has 42 lanes.", explain=True)
        assert previewed.ok
        assert "accepts-42" == previewed.trace[0].rule

    def test_preview_must_be_a_bool(self) -> None:
        with pytest.raises(TypeError, match="preview must be a bool, got str"):
            GroundingCheck(preview="yes")  # type: ignore[arg-type]
