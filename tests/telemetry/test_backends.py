"""What Phoenix (OpenInference) and Langfuse read: span kinds; input/output only with capture."""

from __future__ import annotations

import pytest

import relapse
from helpers import forbid
from relapse._telemetry import attributes as attr
from relapse.testing import CapturedSpans, ScriptedLLM

QUERY = "When did the museum open?"
DOCS = ["The museum opened in 1931."]
ANSWERS = ["It opened in 1932.", "It opened in 1931."]


def recovered_call(spans: CapturedSpans, **options: object) -> relapse.RelapseResult:
    return relapse.run(
        QUERY,
        DOCS,
        call_llm=ScriptedLLM(ANSWERS),
        build_prompt=lambda question, chunks: f"PROMPT {question}",
        grounding_check=forbid("1932"),
        tracer_provider=spans.provider,
        **options,  # type: ignore[arg-type]
    )


class TestSpanKinds:
    def test_call_and_iterations_are_chains(self, spans: CapturedSpans) -> None:
        """The call span and each iteration span say CHAIN to Phoenix and chain to Langfuse."""
        recovered_call(spans, capture_content=False)
        named = spans.named("relapse run") + spans.named(attr.ITERATION_SPAN_NAME)
        assert 3 == len(named)
        assert [("CHAIN", "chain")] * 3 == [
            (s.attributes["openinference.span.kind"], s.attributes["langfuse.observation.type"])
            for s in named
            if s.attributes is not None
        ]

    def test_checks_are_guardrails(self, spans: CapturedSpans) -> None:
        """Each check span says GUARDRAIL to Phoenix and guardrail to Langfuse."""
        recovered_call(spans, capture_content=False)
        checks = spans.named(attr.CHECK_SPAN_NAME)
        assert [("GUARDRAIL", "guardrail")] * 2 == [
            (s.attributes["openinference.span.kind"], s.attributes["langfuse.observation.type"])
            for s in checks
            if s.attributes is not None
        ]

    def test_no_input_or_output_without_capture(self, spans: CapturedSpans) -> None:
        """With content capture off no span carries input.value or output.value."""
        recovered_call(spans, capture_content=False)
        assert [] == [
            (s.name, key)
            for s in spans.spans
            for key in (s.attributes or {})
            if key in ("input.value", "output.value")
        ]


class TestCapturedContent:
    def test_input_and_output_values(self, spans: CapturedSpans) -> None:
        """Capture on: the call's query and final answer; each iteration's prompt and answer."""
        result = recovered_call(spans, capture_content=True)
        (call,) = spans.named("relapse run")
        first, second = spans.named(attr.ITERATION_SPAN_NAME)
        assert (QUERY, "It opened in 1931.") == (
            call.attributes["input.value"],  # type: ignore[index]
            call.attributes["output.value"],  # type: ignore[index]
        )
        assert [
            (QUERY, "It opened in 1932."),
            (result.transcript[1].prompt, "It opened in 1931."),
        ] == [
            (s.attributes["input.value"], s.attributes["output.value"])  # type: ignore[index]
            for s in (first, second)
        ]
        assert result.transcript[1].prompt != QUERY
        # A check span's input is the answer it judged, its output the findings' messages
        # (if any), the failing span in them: Phoenix's guardrail pane shows what failed.
        checks = spans.named(attr.CHECK_SPAN_NAME)
        assert [
            {
                "input.value": "It opened in 1932.",
                "output.value": "FG001: not in chunks: ['1932']",
            },
            {"input.value": "It opened in 1931."},
        ] == [
            {k: v for k, v in (s.attributes or {}).items() if k in ("input.value", "output.value")}
            for s in checks
        ]

    def test_redacted_first(self, spans: CapturedSpans) -> None:
        """redact applies to input.value and output.value as to every captured text."""
        recovered_call(spans, capture_content=True, redact=lambda text: text.replace("19", "##"))
        values = [
            value
            for s in spans.spans
            for key, value in (s.attributes or {}).items()
            if key in ("input.value", "output.value")
        ]
        # Call and iterations: input and output each; checks: both answers, one explanation.
        assert 9 == len(values)
        assert not any("19" in str(v) for v in values)

    def test_failing_redact_drops_the_content(
        self, spans: CapturedSpans, caplog: pytest.LogCaptureFixture
    ) -> None:
        """A redact that raises records no input/output at all, and the call still succeeds."""

        def broken(text: str) -> str:
            raise RuntimeError("redactor down")

        result = recovered_call(spans, capture_content=True, redact=broken)
        assert result.grounded
        assert [] == [k for s in spans.spans for k in (s.attributes or {}) if k.endswith(".value")]
        assert "redact failed" in caplog.text
