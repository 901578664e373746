"""The span tree of a grounded call, read from an in-memory exporter."""

from __future__ import annotations

import pytest
from opentelemetry import trace
from opentelemetry.trace import StatusCode

import relapse
from helpers import forbid
from relapse.testing import CapturedSpans, ScriptedLLM

DOCS = ["x"]


def decorate(spans: CapturedSpans, llm: ScriptedLLM, **options: object) -> object:
    @relapse.grounded(
        chunks_arg="docs",
        grounding_check=forbid("WRONG"),
        tracer_provider=spans.provider,
        **options,
    )
    def answer(query: str, docs: list[str]) -> str:
        # A provider's own instrumentation would start a span here.
        with trace.get_tracer("provider", tracer_provider=spans.provider).start_as_current_span(
            "chat model"
        ):
            return llm(query)

    return answer


class TestSpanTree:
    def test_recovered_call_has_one_child_per_iteration(self, spans: CapturedSpans) -> None:
        """Call span, two iteration spans under it, each LLM and check span under its iteration."""
        answer = decorate(spans, ScriptedLLM(["WRONG", "ok"]))
        answer("q", DOCS)  # type: ignore[operator]
        (call,) = [
            s
            for s in spans.spans
            if s.name.startswith("relapse ") and s.name != "relapse.iteration"
        ]
        assert call.name.endswith("decorate.<locals>.answer")
        iterations = spans.named("relapse.iteration")
        llm_spans = spans.named("chat model")
        assert 2 == len(iterations) == len(llm_spans)
        for it in iterations:
            assert call.context.span_id == it.parent.span_id
        for it, llm_span in zip(iterations, llm_spans, strict=True):
            assert it.context.span_id == llm_span.parent.span_id
        checks = spans.named("relapse.check")
        assert [it.context.span_id for it in iterations] == [c.parent.span_id for c in checks]
        assert 7 == len(spans.spans)  # call, 2 iterations, 2 LLM spans, 2 checks
        first, second = iterations
        assert {
            "relapse.iteration": 1,
            "relapse.grounded": False,
            "relapse.findings.codes": ("FG001",),
            "relapse.findings.count": 1,
        } == {
            k: first.attributes[k]
            for k in (
                "relapse.iteration",
                "relapse.grounded",
                "relapse.findings.codes",
                "relapse.findings.count",
            )
        }
        assert (2, True, (), 0) == (
            second.attributes["relapse.iteration"],
            second.attributes["relapse.grounded"],
            second.attributes["relapse.findings.codes"],
            second.attributes["relapse.findings.count"],
        )
        assert (2, True, 3, "recovered") == (
            call.attributes["relapse.iterations"],
            call.attributes["relapse.grounded"],
            call.attributes["relapse.max_iterations"],
            call.attributes["relapse.outcome"],
        )

    @pytest.mark.parametrize(
        ("answers", "outcome", "count"),
        [(["ok"], "grounded_first_try", 1), (["WRONG"], "exhausted", 3)],
    )
    def test_outcomes(
        self, spans: CapturedSpans, answers: list[str], outcome: str, count: int
    ) -> None:
        """The call span's outcome and the number of iteration spans agree."""
        decorate(spans, ScriptedLLM(answers))("q", DOCS)  # type: ignore[operator]
        (call,) = [s for s in spans.spans if s.name.endswith(".answer")]
        assert outcome == call.attributes["relapse.outcome"]
        assert count == len(spans.named("relapse.iteration"))

    def test_run_names_its_call_span_run(self, spans: CapturedSpans) -> None:
        """relapse.run produces a call span named 'relapse run'."""
        relapse.run("q", ["1945"], call_llm=ScriptedLLM(["1945"]), tracer_provider=spans.provider)
        # In the order they end: the check inside the iteration inside the call.
        assert ["relapse.check", "relapse.iteration", "relapse run"] == [
            s.name for s in spans.spans
        ]

    def test_llm_error_marks_both_spans(self, spans: CapturedSpans) -> None:
        """An LLM exception sets ERROR status and error.type on iteration and call spans."""
        answer = decorate(spans, ScriptedLLM([TimeoutError("slow")]))
        with pytest.raises(TimeoutError):
            answer("q", DOCS)  # type: ignore[operator]
        (iteration,) = spans.named("relapse.iteration")
        (call,) = [s for s in spans.spans if s.name.endswith(".answer")]
        for span in (iteration, call):
            assert StatusCode.ERROR == span.status.status_code
            assert "TimeoutError" == span.attributes["error.type"]

    def test_evaluation_event_on_each_iteration(self, spans: CapturedSpans) -> None:
        """Each iteration span carries a gen_ai.evaluation.result event with pass/fail."""
        decorate(spans, ScriptedLLM(["WRONG", "ok"]))("q", DOCS)  # type: ignore[operator]
        labels = [
            [
                e.attributes["gen_ai.evaluation.score.label"]
                for e in s.events
                if e.name == "gen_ai.evaluation.result"
            ]
            for s in spans.named("relapse.iteration")
        ]
        assert [["fail"], ["pass"]] == labels
