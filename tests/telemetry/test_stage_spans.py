"""A cascade's stages, a judge's tokens and the findings' scores on the spans and the event."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import relapse
from relapse import GroundingFinding, GroundingResult
from relapse._telemetry import attributes as attr
from relapse.checks import LLMJudge, cascade, stage
from relapse.testing import CapturedSpans, ScriptedLLM

DOCS = ["The depot stores 40 buses.", "It opened in 1932."]


def completion(text: str, prompt_tokens: int, completion_tokens: int) -> dict[str, Any]:
    """An OpenAI Chat Completion in its JSON form, with usage."""
    return {
        "choices": [{"message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens},
    }


def detector(query: str, chunks: Sequence[str], answer: str) -> GroundingResult:
    """Scores "red" 0.9 and "bright" 0.6: threshold 0.8 and band 0.5 make an error and a warning."""
    findings = tuple(
        GroundingFinding(
            "LD001",
            word,
            (word,),
            ((answer.index(word), answer.index(word) + len(word)),),
            score=score,
        )
        for word, score in (("bright", 0.6), ("red", 0.9))
        if word in answer
    )
    return GroundingResult(ok=not findings, findings=findings)


def run(spans: CapturedSpans, check: Any, answers: list[str]) -> relapse.RelapseResult:
    return relapse.run(
        "q",
        DOCS,
        call_llm=ScriptedLLM(answers),
        grounding_check=check,
        tracer_provider=spans.provider,
    )


class TestCheckSpan:
    def test_each_stage_on_the_check_span(self, spans: CapturedSpans) -> None:
        """Iteration 1: the rules reject 1931, the judge is skipped; iteration 2: both run."""
        replies = iter([completion("SUPPORTED", 120, 2)])
        check = cascade(relapse.default_grounding_check, LLMJudge(lambda p: next(replies)))
        result = run(spans, check, ["It opened in 1931.", "It opened in 1932."])
        assert (True, 2) == (result.grounded, result.iterations)
        first, second = spans.named(attr.CHECK_SPAN_NAME)
        for span in (first, second):
            assert span.attributes is not None
            assert ("relapse.default", "relapse.llm_judge") == span.attributes[
                attr.RELAPSE_CHECK_STAGES
            ]
        assert first.attributes is not None
        assert second.attributes is not None
        assert ("fail", "skipped") == first.attributes[attr.RELAPSE_CHECK_STAGES_VERDICT]
        assert ("pass", "pass") == second.attributes[attr.RELAPSE_CHECK_STAGES_VERDICT]
        assert (1, 0) == first.attributes[attr.RELAPSE_CHECK_STAGES_FINDINGS_COUNT]
        assert 0.0 == first.attributes[attr.RELAPSE_CHECK_STAGES_DURATION][1]  # type: ignore[index]
        assert (0, 120) == second.attributes[attr.RELAPSE_CHECK_STAGES_INPUT_TOKENS]
        assert (0, 2) == second.attributes[attr.RELAPSE_CHECK_STAGES_OUTPUT_TOKENS]
        assert (False, True) == second.attributes[attr.RELAPSE_CHECK_STAGES_USAGE_KNOWN]
        # The check's own tokens: only where it reported some, never a made-up zero.
        assert attr.RELAPSE_CHECK_USAGE_INPUT_TOKENS not in first.attributes
        assert (120, 2) == (
            second.attributes[attr.RELAPSE_CHECK_USAGE_INPUT_TOKENS],
            second.attributes[attr.RELAPSE_CHECK_USAGE_OUTPUT_TOKENS],
        )

    def test_the_judges_tokens_count_on_the_call_span_not_the_iteration_span(
        self, spans: CapturedSpans
    ) -> None:
        """The iteration span's relapse.usage.* are the answering call's; the call span's both."""
        judge = LLMJudge(lambda prompt: completion("SUPPORTED", 50, 3))
        relapse.run(
            "q",
            DOCS,
            call_llm=ScriptedLLM(["It opened in 1932."]),
            usage_of=lambda response: relapse.Usage(10, 4),
            grounding_check=judge,
            tracer_provider=spans.provider,
        )
        (iteration,) = spans.named(attr.ITERATION_SPAN_NAME)
        (call,) = [s for s in spans.spans if s.name.startswith(attr.CALL_SPAN_PREFIX)]
        assert iteration.attributes is not None
        assert call.attributes is not None
        assert (10, 4) == (
            iteration.attributes[attr.RELAPSE_USAGE_INPUT_TOKENS],
            iteration.attributes[attr.RELAPSE_USAGE_OUTPUT_TOKENS],
        )
        assert (60, 7) == (
            call.attributes[attr.RELAPSE_USAGE_INPUT_TOKENS],
            call.attributes[attr.RELAPSE_USAGE_OUTPUT_TOKENS],
        )

    def test_no_stage_no_stage_attributes(self, spans: CapturedSpans) -> None:
        """The default check alone: no stage, usage or score attribute on any span."""
        run(spans, relapse.default_grounding_check, ["It opened in 1932."])
        added = {
            attr.RELAPSE_CHECK_STAGES,
            attr.RELAPSE_CHECK_USAGE_INPUT_TOKENS,
            attr.RELAPSE_FINDINGS_SCORE_MAX,
        }
        for span in spans.spans:
            assert not added & set(span.attributes or {})


class TestScores:
    def test_the_highest_score_on_both_spans_and_the_event(self, spans: CapturedSpans) -> None:
        """An error at 0.9 and a warning at 0.6: the maximum 0.9 on spans and event."""
        graded = stage(detector, threshold=0.8, warn_from=0.5)
        result = run(
            spans,
            cascade(relapse.default_grounding_check, graded),
            ["The depot is bright red.", "It stores 40 buses."],
        )
        first = result.transcript[0]
        assert [("bright", "warning"), ("red", "error")] == [
            (f.spans[0], f.severity) for f in first.findings
        ]
        iteration = spans.named(attr.ITERATION_SPAN_NAME)[0]
        check = spans.named(attr.CHECK_SPAN_NAME)[0]
        for span in (iteration, check):
            assert span.attributes is not None
            assert 0.9 == span.attributes[attr.RELAPSE_FINDINGS_SCORE_MAX]
        (event,) = [e for e in iteration.events if e.name == attr.GEN_AI_EVALUATION_RESULT_EVENT]
        assert event.attributes is not None
        assert 0.9 == event.attributes[attr.RELAPSE_FINDINGS_SCORE_MAX]
        assert (
            "LD001 (warning) (score 0.60): 1 failing span(s); LD001 (score 0.90): 1 failing span(s)"
            == event.attributes[attr.GEN_AI_EVALUATION_EXPLANATION]
        )
