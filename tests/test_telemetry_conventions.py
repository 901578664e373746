"""Issue 22 trace conventions: response id on the event, inline evaluations, chunk counts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import relapse
from helpers import forbid
from relapse._telemetry import attributes as attr
from relapse._telemetry import response_id
from relapse.checks import LLMJudge
from relapse.testing import CapturedSpans, ScriptedLLM

DOCS = ["The museum opened in 1931."]


def _completion(text: str, id_: str = "chatcmpl-abc") -> dict[str, Any]:
    """A Chat Completion in its JSON form, with its id."""
    return {"id": id_, "object": "chat.completion", "choices": [{"message": {"content": text}}]}


class TestEvaluationEvent:
    def test_the_response_id_is_on_the_event(self, spans: CapturedSpans) -> None:
        """Each verdict's event names the response it judged: gen_ai.response.id."""
        replies = iter([_completion("WRONG", "chatcmpl-1"), _completion("1931.", "chatcmpl-2")])

        @relapse.grounded(
            chunks_arg="docs", grounding_check=forbid("WRONG"), tracer_provider=spans.provider
        )
        def answer(query: str, docs: Sequence[str]) -> dict[str, Any]:
            return next(replies)

        answer("When?", DOCS)
        iterations = spans.named(attr.ITERATION_SPAN_NAME)
        assert ["chatcmpl-1", "chatcmpl-2"] == [
            dict(s.events[0].attributes or {})[attr.GEN_AI_RESPONSE_ID] for s in iterations
        ]

    def test_a_str_has_no_response_id(self, spans: CapturedSpans) -> None:
        """A plain str answer carries no id: the attribute is absent, never empty."""
        relapse.run("When?", DOCS, call_llm=ScriptedLLM(["1931."]), tracer_provider=spans.provider)
        (iteration,) = spans.named(attr.ITERATION_SPAN_NAME)
        assert attr.GEN_AI_RESPONSE_ID not in dict(iteration.events[0].attributes or {})

    def test_response_id_reads_objects_dicts_and_streams(self) -> None:
        """An object's or a mapping's str id; a stream's first piece with one; else None."""

        class Message:
            id = "msg_01"

        assert ("msg_01", "chatcmpl-abc", None, None) == (
            response_id(Message()),
            response_id(_completion("x")),
            response_id("text"),
            response_id({"id": 7}),
        )
        stream = relapse.Streamed("sync", ("a", {"id": "chatcmpl-s"}))
        assert "chatcmpl-s" == response_id(stream)


class TestInlineEvaluation:
    def test_an_llm_judge_is_annotated_llm(self, spans: CapturedSpans) -> None:
        """LLMJudge's verdict on the iteration span: annotator kind LLM, label and score."""
        judge = LLMJudge(lambda prompt: "SUPPORTED")
        relapse.run(
            "When?",
            DOCS,
            call_llm=ScriptedLLM(["1931."]),
            grounding_check=judge,
            tracer_provider=spans.provider,
        )
        (iteration,) = spans.named(attr.ITERATION_SPAN_NAME)
        attributes = dict(iteration.attributes or {})
        assert ("relapse.llm_judge", "pass", 1.0, "LLM") == tuple(
            attributes[f"evaluations.0.evaluation.{name}"]
            for name in ("name", "label", "score", "annotator_kind")
        )
        assert attr.LANGFUSE_OBSERVATION_LEVEL not in attributes

    def test_a_composition_with_a_judge_is_llm(self) -> None:
        """A composition is LLM when any part is; the default check is CODE."""
        from relapse.checks._contract import annotator_kind
        from relapse.grounding import default_grounding_check

        judge = LLMJudge(lambda prompt: "SUPPORTED")
        assert ("CODE", "LLM", "LLM") == (
            annotator_kind(default_grounding_check),
            annotator_kind(judge),
            annotator_kind(default_grounding_check & judge),
        )


class TestChunksPerIteration:
    def test_re_retrieval_changes_the_count(self, spans: CapturedSpans) -> None:
        """relapse.chunks.count on each iteration span: 1, then the 2 chunks retrieve gave."""
        relapse.run(
            "When?",
            DOCS,
            call_llm=ScriptedLLM(["WRONG", "1931."]),
            grounding_check=forbid("WRONG"),
            retrieve=lambda attempt: [*DOCS, "It was rebuilt in 1950."],
            tracer_provider=spans.provider,
        )
        assert [1, 2] == [
            s.attributes[attr.RELAPSE_CHUNKS_COUNT]  # type: ignore[index]
            for s in spans.named(attr.ITERATION_SPAN_NAME)
        ]
