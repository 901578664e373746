"""Issue 22 trace conventions: response id on the event, inline evaluations, chunk counts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

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


FRESH = [
    {"text": "It opened in 1931.", "id": "museum-1", "score": 0.875},
    {"text": "It was rebuilt in 1950.", "metadata": {"source": "history.pdf"}},
]


def _rerun(spans: CapturedSpans, retrieve: Any, **options: Any) -> None:
    """A decorated function (it receives the retrieved chunks themselves) retried once."""
    llm = ScriptedLLM(["WRONG", "1931."])

    @relapse.grounded(
        chunks_arg="docs",
        grounding_check=forbid("WRONG"),
        retrieve=retrieve,
        tracer_provider=spans.provider,
        **options,
    )
    def answer(query: str, docs: Any) -> str:
        return llm(query)

    answer("When?", DOCS)


class TestRetrievalSpan:
    def test_a_retrieval_span_per_retrieve(self, spans: CapturedSpans) -> None:
        """Under the call span, before iteration 2: kinds, ids and scores, no text."""
        _rerun(spans, lambda attempt: FRESH)
        (retrieval,) = spans.named(attr.RETRIEVAL_SPAN_NAME)
        (call,) = [s for s in spans.spans if s.name.startswith("relapse ")]
        first, second = spans.named(attr.ITERATION_SPAN_NAME)
        assert call.context.span_id == retrieval.parent.span_id  # type: ignore[union-attr]
        assert first.end_time <= retrieval.start_time  # type: ignore[operator]
        assert retrieval.end_time <= second.start_time  # type: ignore[operator]
        assert {
            "relapse.iteration": 2,
            "gen_ai.operation.name": "retrieval",
            "openinference.span.kind": "RETRIEVER",
            "langfuse.observation.type": "retriever",
            "relapse.chunks.count": 2,
            "retrieval.documents.0.document.id": "museum-1",
            "retrieval.documents.0.document.score": 0.875,
            "retrieval.documents.1.document.id": "history.pdf",
        } == dict(retrieval.attributes or {})

    def test_content_capture_adds_the_texts(self, spans: CapturedSpans) -> None:
        """With capture on, each document's text, through redact."""
        _rerun(spans, lambda attempt: FRESH, capture_content=True, redact=str.upper)
        (retrieval,) = spans.named(attr.RETRIEVAL_SPAN_NAME)
        attributes = dict(retrieval.attributes or {})
        assert ["IT OPENED IN 1931.", "IT WAS REBUILT IN 1950."] == [
            attributes[f"retrieval.documents.{n}.document.content"] for n in (0, 1)
        ]

    def test_keeping_the_chunks_records_no_documents(self, spans: CapturedSpans) -> None:
        """retrieve returning None keeps the chunks: the span has no documents."""
        _rerun(spans, lambda attempt: None)
        (retrieval,) = spans.named(attr.RETRIEVAL_SPAN_NAME)
        assert attr.RELAPSE_CHUNKS_COUNT not in dict(retrieval.attributes or {})

    def test_a_raising_retrieve_fails_its_span(self, spans: CapturedSpans) -> None:
        """The error is on the retrieval span (error.type) and reaches the caller unchanged."""
        boom = ConnectionError("index down")

        def retrieve(attempt: object) -> list[str]:
            raise boom

        with pytest.raises(ConnectionError) as raised:
            _rerun(spans, retrieve)
        assert boom is raised.value
        (retrieval,) = spans.named(attr.RETRIEVAL_SPAN_NAME)
        assert "ConnectionError" == dict(retrieval.attributes or {})[attr.ERROR_TYPE]
