"""relapse.checks.cascade and stage: cheapest first, escalate or all, each stage's account."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

import relapse
from relapse import GroundingFinding, GroundingResult, StageRun, Usage
from relapse.checks import LLMJudge, cascade, stage
from relapse.evaluation import resolve_check
from relapse.testing import ScriptedLLM

DOCS = ["The depot stores 40 buses.", "It opened in 1932."]


def completion(text: str, prompt_tokens: int, completion_tokens: int) -> dict[str, Any]:
    """An OpenAI Chat Completion in its JSON form, as a judge's client returns it."""
    return {
        "choices": [{"message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens},
    }


class Counting:
    """A judge callable that counts its calls and replies from a script."""

    def __init__(self, *replies: object) -> None:
        self.replies = list(replies)
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> object:
        self.prompts.append(prompt)
        return self.replies[min(len(self.prompts), len(self.replies)) - 1]


def scored(*scores: float, code: str = "LD001") -> Any:
    """A check raising one finding per score, each on its own word of the answer."""

    def check(query: str, chunks: Sequence[str], answer: str) -> GroundingResult:
        words = answer.split()
        findings = tuple(
            GroundingFinding(code, f"span {i}", (words[i],), score=score)
            for i, score in enumerate(scores)
        )
        return GroundingResult(ok=not findings, findings=findings)

    check.name = "detector"  # type: ignore[attr-defined]
    check.cost = 50.0  # type: ignore[attr-defined]
    return check


class TestOrderAndModes:
    def test_stages_run_cheapest_first_whatever_the_order_given(self) -> None:
        """A judge (cost 1000) given first runs after the default check (1) and a detector (50)."""
        judge = LLMJudge(Counting("SUPPORTED"))
        combined = cascade(judge, scored(), relapse.default_grounding_check)
        assert ["relapse.default", "detector", "relapse.llm_judge"] == [
            s.name for s in combined.stages
        ]
        assert "cascade(relapse.default > detector > relapse.llm_judge)" == combined.name

    def test_escalate_pays_the_judge_only_for_answers_the_rules_passed(self) -> None:
        """The default check rejects 1931: the judge is never asked; its stage is skipped."""
        replies = Counting(completion("SUPPORTED", 120, 1))
        combined = cascade(relapse.default_grounding_check, LLMJudge(replies))
        verdict = combined("When?", DOCS, "It opened in 1931.")
        assert isinstance(verdict, GroundingResult)
        assert (False, ["FG002"], 0) == (
            verdict.ok,
            [f.code for f in verdict.findings],
            len(replies.prompts),
        )
        assert (True, False) == (verdict.stages[0].ran, verdict.stages[0].ok)
        assert StageRun("relapse.llm_judge", ran=False) == verdict.stages[1]
        assert verdict.usage is None

    def test_the_judge_judges_what_the_rules_passed_and_its_tokens_are_counted(self) -> None:
        """A passing answer goes to the judge: its rejection, located, with its tokens."""
        replies = Counting(completion('UNSUPPORTED\n- "the depot HAS 40  red buses"', 120, 9))
        combined = cascade(relapse.default_grounding_check, LLMJudge(replies))
        answer = "The depot has 40 red buses."
        verdict = combined("How many?", DOCS, answer)
        assert isinstance(verdict, GroundingResult)
        assert 1 == len(replies.prompts)
        (finding,) = verdict.findings
        # Re-cased and re-spaced by the judge, found loosely, offsets in the answer.
        assert ("LJ001", ("The depot has 40 red buses",), ((0, 26),)) == (
            finding.code,
            finding.spans,
            finding.offsets,
        )
        assert "The depot has 40 red buses" == answer[0:26]
        assert Usage(120, 9) == verdict.usage
        assert [True, False] == [run.ok for run in verdict.stages]
        assert Usage(120, 9) == verdict.stages[1].usage
        assert (finding,) == verdict.stages[1].findings

    def test_mode_all_runs_every_stage_on_every_answer(self) -> None:
        """Mode all asks the judge even about an answer the rules rejected; both codes kept."""
        replies = Counting("UNSUPPORTED\nIt opened in 1931")
        combined = cascade(relapse.default_grounding_check, LLMJudge(replies), mode="all")
        verdict = combined("When?", DOCS, "It opened in 1931.")
        assert isinstance(verdict, GroundingResult)
        assert ["FG002", "LJ001"] == [f.code for f in verdict.findings]
        assert [True, True] == [run.ran for run in verdict.stages]
        assert [False, False] == [run.ok for run in verdict.stages]

    def test_a_silent_rejection_is_named(self) -> None:
        """A stage that rejects without a finding gives AO001 naming it, as all_of does."""

        def silent(query: str, chunks: Sequence[str], answer: str) -> GroundingResult:
            return GroundingResult(ok=False)

        verdict = cascade(relapse.default_grounding_check, stage(silent, name="mute"))(
            "q", DOCS, "It stores 40 buses."
        )
        assert isinstance(verdict, GroundingResult)
        assert [("AO001", "the check 'mute' rejected the answer without a finding")] == [
            (f.code, f.message) for f in verdict.findings
        ]

    def test_nothing_changes_without_a_stage(self) -> None:
        """The default check alone gives the same verdict with no stages and no usage."""
        verdict = relapse.default_grounding_check("q", DOCS, "It opened in 1931.")
        assert ((), None) == (verdict.stages, verdict.usage)


class TestThreshold:
    def test_threshold_and_band_decide_error_warning_or_nothing(self) -> None:
        """0.9 >= 0.8 is an error, 0.6 in [0.5, 0.8) a warning, 0.3 below the band dropped."""
        graded = stage(scored(0.9, 0.6, 0.3), threshold=0.8, warn_from=0.5)
        verdict = cascade(relapse.default_grounding_check, graded)("q", DOCS, "a b c d")
        assert isinstance(verdict, GroundingResult)
        assert [("a", "error", 0.9), ("b", "warning", 0.6)] == [
            (f.spans[0], f.severity, f.score) for f in verdict.findings
        ]
        assert verdict.ok is False

    def test_only_the_band_reports_warnings_and_passes(self) -> None:
        """Scores under the threshold alone: the answer passes with warnings."""
        graded = stage(scored(0.7, 0.55), threshold=0.8, warn_from=0.5)
        verdict = cascade(relapse.default_grounding_check, graded)("q", DOCS, "a b")
        assert isinstance(verdict, GroundingResult)
        assert (True, ["warning", "warning"]) == (
            verdict.ok,
            [f.severity for f in verdict.findings],
        )
        assert verdict.stages[1].ok is True

    def test_no_band_drops_what_is_under_the_threshold(self) -> None:
        """Without warn_from a finding under the threshold is not reported at all."""
        verdict = cascade(relapse.default_grounding_check, stage(scored(0.4), threshold=0.5))(
            "q", DOCS, "a"
        )
        assert isinstance(verdict, GroundingResult)
        assert (True, ()) == (verdict.ok, verdict.findings)

    @pytest.mark.parametrize(
        ("options", "message"),
        [
            ({"threshold": 1.5}, r"threshold must be a number in \[0, 1\]"),
            ({"warn_from": 0.2}, "warn_from .* needs a threshold"),
            ({"threshold": 0.3, "warn_from": 0.5}, "warn_from .* needs a threshold at or above"),
            ({"cost": -1}, "cost must be a finite number >= 0"),
            ({"sentence": "word"}, "sentence must be one of"),
        ],
    )
    def test_bad_stage_options_are_refused_by_name(
        self, options: dict[str, Any], message: str
    ) -> None:
        """Each bad option names itself and what was expected."""
        with pytest.raises(ValueError, match=message):
            stage(relapse.default_grounding_check, **options)

    def test_prefix_needs_a_check_that_judges_a_prefix(self) -> None:
        """A judge cannot judge a stream's prefix: refused, naming the other settings."""
        with pytest.raises(ValueError, match="'relapse\\.llm_judge' does not"):
            stage(LLMJudge(Counting("SUPPORTED")), sentence="prefix")

    def test_cascade_arguments(self) -> None:
        """One stage, a non-check and an unknown mode are refused."""
        with pytest.raises(TypeError, match="at least two stages, got 1"):
            cascade(relapse.default_grounding_check)
        with pytest.raises(TypeError, match=r"stages\[1\] is int"):
            cascade(relapse.default_grounding_check, 3)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="mode must be one of 'escalate', 'all'"):
            cascade(relapse.default_grounding_check, scored(), mode="some")  # type: ignore[arg-type]


class TestInTheLoop:
    def test_the_judges_tokens_are_on_the_record_the_attempt_and_the_result(self) -> None:
        """check_usage per record; Attempt.usage and result.usage count it with the LLM's."""
        replies = Counting(completion("UNSUPPORTED\nred", 100, 5), completion("SUPPORTED", 110, 1))
        seen: list[Usage | None] = []
        llm = ScriptedLLM(["The depot is red.", "It stores 40 buses."])
        result = relapse.run(
            "q",
            DOCS,
            call_llm=llm,
            usage_of=lambda response: Usage(10, 3),
            grounding_check=cascade(relapse.default_grounding_check, LLMJudge(replies)),
            on_iteration=lambda attempt: seen.append(attempt.usage),
        )
        assert (True, 2) == (result.grounded, result.iterations)
        assert [Usage(100, 5), Usage(110, 1)] == [r.check_usage for r in result.transcript]
        assert [Usage(10, 3), Usage(10, 3)] == [r.usage for r in result.transcript]
        assert [None, Usage(110, 8)] == seen
        assert Usage(230, 12) == result.usage
        assert ["pass", "fail"] == [
            "pass" if run.ok else "fail" for run in result.transcript[0].stages
        ]

    def test_the_token_budget_counts_the_judge(self) -> None:
        """max_total_tokens=100: the judge's 100 tokens on iteration 1 end the loop as budget."""
        replies = Counting(completion("UNSUPPORTED\nred", 95, 5))
        result = relapse.run(
            "q",
            DOCS,
            call_llm=ScriptedLLM(["The depot is red."]),
            grounding_check=LLMJudge(replies),
            max_total_tokens=100,
            max_iterations=3,
        )
        assert ("budget", 1) == (result.outcome, result.iterations)

    async def test_an_async_judge_stage_under_arun(self) -> None:
        """An async judge in a cascade is awaited; its stage is recorded."""

        async def judge(prompt: str) -> str:
            return "UNSUPPORTED\nred" if "red" in prompt else "SUPPORTED"

        llm = ScriptedLLM(["The depot is red.", "It stores 40 buses."])
        result = await relapse.arun(
            "q",
            DOCS,
            call_llm=llm.acall,
            grounding_check=cascade(relapse.default_grounding_check, LLMJudge(judge)),
        )
        assert (True, 2) == (result.grounded, result.iterations)
        assert [True, False] == [run.ok for run in result.transcript[0].stages]


class TestResolve:
    def test_greater_than_joins_stages(self) -> None:
        """'default > default' is a cascade of two stages in the given order."""
        check = resolve_check("default > default")
        assert ["relapse.default", "relapse.default"] == [s.name for s in check.stages]  # type: ignore[attr-defined]


class TestAllOf:
    def test_all_of_sums_the_judges_tokens_too(self) -> None:
        """default & LLMJudge: the judge's tokens reach the record through the composition."""
        replies = Counting(completion("SUPPORTED", 70, 2))
        check = relapse.default_grounding_check & LLMJudge(replies)
        result = relapse.run(
            "q", DOCS, call_llm=ScriptedLLM(["It stores 40 buses."]), grounding_check=check
        )
        assert Usage(70, 2) == result.transcript[0].check_usage
        assert Usage(70, 2) == result.usage
