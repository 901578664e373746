"""Content capture: off by default, on by option or environment variable, redacted first."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import relapse
from helpers import CapturedLogs, forbid
from relapse._telemetry import attributes as attr
from relapse.testing import CapturedMetrics, CapturedSpans, ScriptedLLM

QUERY = "Q-SECRET: when did the museum open?"
DOCS = ["CHUNKTEXT the museum opened in 1931 CHUNKTEXT"]
ANSWERS = ["A-SECRET it opened in BAD-SECRET.", "A-SECRET it opened in 1931."]
CHECK = forbid("BAD-SECRET")
ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"


@dataclass
class Sinks:
    """Every signal relapse can emit, captured in memory."""

    tracer_provider: TracerProvider
    spans: InMemorySpanExporter
    logger_provider: LoggerProvider
    logs: InMemoryLogRecordExporter
    meter_provider: MeterProvider
    metrics: InMemoryMetricReader

    def strings(self) -> list[str]:
        """Every string exported: names, attribute values, event and log data, status text."""
        found: list[str] = []

        def add(attributes: Any) -> None:
            for key, value in dict(attributes or {}).items():
                found.append(key)
                found.extend(value if isinstance(value, tuple) else [value])

        for span in self.spans.get_finished_spans():
            found.extend([span.name, span.status.description or ""])
            add(span.attributes)
            for event in span.events:
                found.append(event.name)
                add(event.attributes)
        for record in self.logs.get_finished_logs():
            found.extend([str(record.log_record.body), record.log_record.event_name or ""])
            add(record.log_record.attributes)
        data = self.metrics.get_metrics_data()
        for resource in data.resource_metrics if data else ():
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    found.extend([metric.name, metric.description, metric.unit])
                    for point in metric.data.data_points:
                        add(point.attributes)
        return [s for s in found if isinstance(s, str)]


@pytest.fixture
def sinks(
    monkeypatch: pytest.MonkeyPatch,
    spans: CapturedSpans,
    logs: CapturedLogs,
    metrics: CapturedMetrics,
) -> Sinks:
    """The conftest span, log and metric fixtures together, the environment unset."""
    monkeypatch.delenv(ENV, raising=False)
    return Sinks(
        spans.provider,
        spans.exporter,
        logs.provider,
        logs.exporter,
        metrics.provider,
        metrics.reader,
    )


def ask(sinks: Sinks, *, events_as_logs: bool = False, **options: Any) -> relapse.RelapseResult:
    """One recovered call (2 iterations) with every provider injected."""
    llm = ScriptedLLM(ANSWERS)

    @relapse.grounded(
        chunks_arg="docs",
        grounding_check=CHECK,
        tracer_provider=sinks.tracer_provider,
        meter_provider=sinks.meter_provider,
        logger_provider=sinks.logger_provider if events_as_logs else None,
        **options,
    )
    def answer(query: str, docs: list[str]) -> str:
        return llm(query)

    result: relapse.RelapseResult = answer.run(QUERY, DOCS)
    assert (True, 2) == (result.grounded, result.iterations)
    return result


def leaks(strings: list[str], *markers: str) -> list[str]:
    return [s for s in strings if any(m in s for m in markers)]


def iteration_spans(sinks: Sinks) -> list[Any]:
    return sorted(
        (s for s in sinks.spans.get_finished_spans() if s.name == attr.ITERATION_SPAN_NAME),
        key=lambda s: s.attributes[attr.RELAPSE_ITERATION],
    )


def check_spans(sinks: Sinks) -> list[Any]:
    """The check spans, in iteration order (they end in that order)."""
    return sorted(
        (s for s in sinks.spans.get_finished_spans() if s.name == attr.CHECK_SPAN_NAME),
        key=lambda s: s.start_time,
    )


CONTENT_KEYS = {attr.GEN_AI_INPUT_MESSAGES, attr.GEN_AI_OUTPUT_MESSAGES,
                attr.RELAPSE_FINDINGS_SPANS}  # fmt: skip


class TestOffByDefault:
    @pytest.mark.parametrize("events_as_logs", [False, True])
    def test_no_content_anywhere(self, sinks: Sinks, events_as_logs: bool) -> None:
        """No prompt, answer, failing span or chunk text in any span, event, log or metric."""
        ask(sinks, events_as_logs=events_as_logs)
        strings = sinks.strings()
        assert len(strings) > 20  # the sinks did receive telemetry
        assert [] == leaks(strings, "SECRET", "CHUNKTEXT", "museum", "1931")
        for span in iteration_spans(sinks):
            assert set() == CONTENT_KEYS & set(span.attributes or {})

    @pytest.mark.parametrize("value", ["false", "NO_CONTENT", "EVENT_ONLY", "", "yes"])
    def test_env_values_that_keep_it_off(
        self, sinks: Sinks, monkeypatch: pytest.MonkeyPatch, value: str
    ) -> None:
        """Only true / SPAN_ONLY / SPAN_AND_EVENT turn capture on."""
        monkeypatch.setenv(ENV, value)
        ask(sinks)
        assert [] == leaks(sinks.strings(), "SECRET", "CHUNKTEXT")

    def test_explicit_false_beats_the_environment(
        self, sinks: Sinks, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """capture_content=False wins over the environment variable."""
        monkeypatch.setenv(ENV, "true")
        ask(sinks, capture_content=False)
        assert [] == leaks(sinks.strings(), "SECRET", "CHUNKTEXT")


def messages(span: Any, key: str) -> list[dict[str, Any]]:
    value = span.attributes[key]
    assert isinstance(value, str)
    parsed: list[dict[str, Any]] = json.loads(value)
    return parsed


class TestOn:
    @pytest.mark.parametrize(
        "turn_on",
        [
            {"capture_content": True},
            {"env": "true"},
            {"env": " TRUE "},
            {"env": "SPAN_ONLY"},
            {"env": "span_and_event"},
        ],
    )
    def test_prompt_answer_and_spans_on_iteration_spans(
        self, sinks: Sinks, monkeypatch: pytest.MonkeyPatch, turn_on: dict[str, Any]
    ) -> None:
        """Each iteration span carries its prompt, answer and failing spans; never the chunks."""
        if "env" in turn_on:
            monkeypatch.setenv(ENV, turn_on["env"])
            ask(sinks)
        else:
            ask(sinks, **turn_on)
        first, second = iteration_spans(sinks)
        assert [{"role": "user", "parts": [{"type": "text", "content": QUERY}]}] == messages(
            first, attr.GEN_AI_INPUT_MESSAGES
        )
        assert [
            {
                "role": "assistant",
                "parts": [{"type": "text", "content": ANSWERS[0]}],
                "finish_reason": "stop",
            }
        ] == messages(first, attr.GEN_AI_OUTPUT_MESSAGES)
        assert ("BAD-SECRET",) == first.attributes[attr.RELAPSE_FINDINGS_SPANS]
        retry = messages(second, attr.GEN_AI_INPUT_MESSAGES)[0]["parts"][0]["content"]
        assert QUERY in retry  # the retry prompt quotes the question ...
        assert ANSWERS[1] == messages(second, attr.GEN_AI_OUTPUT_MESSAGES)[0]["parts"][0]["content"]
        assert attr.RELAPSE_FINDINGS_SPANS not in second.attributes  # nothing failed
        assert [] == leaks(sinks.strings(), "CHUNKTEXT")
        # ... but the evaluation explanation stays free of answer text.
        (event,) = first.events
        assert (
            "FG001: not in chunks: ['[span]']"
            == event.attributes[attr.GEN_AI_EVALUATION_EXPLANATION]
        )

    def test_redact_applies_to_every_captured_text(self, sinks: Sinks) -> None:
        """redact runs on prompt, answer and each failing span before they are recorded."""
        seen: list[str] = []

        def redact(text: str) -> str:
            seen.append(text)
            return text.replace("SECRET", "***")

        ask(sinks, capture_content=True, redact=redact)
        first, second = iteration_spans(sinks)
        assert (
            "Q-***: when did the museum open?"
            == messages(first, attr.GEN_AI_INPUT_MESSAGES)[0]["parts"][0]["content"]
        )
        assert (
            "A-*** it opened in BAD-***."
            == messages(first, attr.GEN_AI_OUTPUT_MESSAGES)[0]["parts"][0]["content"]
        )
        assert ("BAD-***",) == first.attributes[attr.RELAPSE_FINDINGS_SPANS]
        assert (
            "A-*** it opened in 1931."
            == messages(second, attr.GEN_AI_OUTPUT_MESSAGES)[0]["parts"][0]["content"]
        )
        # 2 prompts, 2 answers, 1 failing span, 1 explanation, the check span's
        # output (the messages), the call's query and answer
        assert 9 == len(seen)
        assert [] == leaks(sinks.strings(), "SECRET", "CHUNKTEXT")

    @pytest.mark.parametrize(
        "redact",
        [lambda text: 1 / 0, lambda text: None],
        ids=["raises", "returns-none"],
    )
    def test_broken_redact_records_no_content(
        self, sinks: Sinks, redact: Callable[[str], Any]
    ) -> None:
        """A redact that fails drops the content (never the raw text); the call is unaffected."""
        result = ask(sinks, capture_content=True, redact=redact)
        assert ANSWERS[1] == result.answer
        for span in iteration_spans(sinks):
            assert set() == CONTENT_KEYS & set(span.attributes or {})
        assert [] == leaks(sinks.strings(), "SECRET", "CHUNKTEXT")


class TestGuardrailPane:
    """The check span's output.value: what Phoenix shows in the guardrail's output pane."""

    def test_capture_on_shows_the_failing_span(self, sinks: Sinks) -> None:
        """The messages with the failing span in them, not "[span]"; the event stays scrubbed."""
        ask(sinks, capture_content=True)
        rejected, passed = check_spans(sinks)
        assert "FG001: not in chunks: ['BAD-SECRET']" == rejected.attributes[attr.OUTPUT_VALUE]
        assert ANSWERS[0] == rejected.attributes[attr.INPUT_VALUE]
        assert attr.OUTPUT_VALUE not in passed.attributes  # grounded: nothing to explain
        (event,) = iteration_spans(sinks)[0].events
        assert (
            "FG001: not in chunks: ['[span]']"
            == event.attributes[attr.GEN_AI_EVALUATION_EXPLANATION]
        )

    def test_capture_off_keeps_it_out(self, sinks: Sinks) -> None:
        """Capture off: no input or output value on the check spans, no byte of the span."""
        ask(sinks)
        for check in check_spans(sinks):
            assert set() == {attr.INPUT_VALUE, attr.OUTPUT_VALUE} & set(check.attributes or {})
        assert [] == leaks(sinks.strings(), "SECRET", "BAD-")

    def test_redacted_first(self, sinks: Sinks) -> None:
        """The pane's text goes through redact, the span in it too."""
        ask(sinks, capture_content=True, redact=lambda text: text.replace("SECRET", "***"))
        rejected, _ = check_spans(sinks)
        assert "FG001: not in chunks: ['BAD-***']" == rejected.attributes[attr.OUTPUT_VALUE]
        assert [] == leaks(sinks.strings(), "SECRET")

    def test_redact_failing_on_the_messages_falls_back_to_codes(self, sinks: Sinks) -> None:
        """redact raising on the messages only: the pane gets the codes-only explanation."""

        def redact(text: str) -> str:
            if "not in chunks" in text:
                raise ValueError("no")
            return text.replace("SECRET", "***")

        ask(sinks, capture_content=True, redact=redact)
        rejected, _ = check_spans(sinks)
        assert ("A-*** it opened in BAD-***.", "FG001: 1 failing span(s)") == (
            rejected.attributes[attr.INPUT_VALUE],
            rejected.attributes[attr.OUTPUT_VALUE],
        )
        assert [] == leaks(sinks.strings(), "SECRET")
