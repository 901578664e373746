"""Broken or slow telemetry never changes what a grounded call returns or raises."""

from __future__ import annotations

import ast
import asyncio
import contextlib
import logging
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry._logs import Logger, LoggerProvider, NoOpLoggerProvider
from opentelemetry.context import Context
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.metrics import Meter, MeterProvider, NoOpMeterProvider
from opentelemetry.sdk._logs import LoggerProvider as SdkLoggerProvider
from opentelemetry.sdk._logs import LogRecordProcessor, ReadWriteLogRecord
from opentelemetry.sdk._logs.export import LogRecordExporter, SimpleLogRecordProcessor
from opentelemetry.sdk.metrics import MeterProvider as SdkMeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import (
    BatchSpanProcessor,
    SimpleSpanProcessor,
    SpanExporter,
    SpanExportResult,
)

import relapse
from helpers import forbid
from relapse._telemetry.context import Harmless
from relapse.testing import ScriptedLLM

DOCS = ["x"]
CHECK = forbid("WRONG")


class RaisingExporter(SpanExporter):
    def export(self, spans: Any) -> SpanExportResult:
        raise RuntimeError("exporter exploded")


class RaisingProcessor(SpanProcessor):
    def __init__(self, where: str) -> None:
        self.where = where

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        if self.where == "start":
            raise RuntimeError("on_start exploded")

    def on_end(self, span: ReadableSpan) -> None:
        if self.where == "end":
            raise RuntimeError("on_end exploded")


class SlowProcessor(SpanProcessor):
    def __init__(self) -> None:
        self.ended = 0

    def on_end(self, span: ReadableSpan) -> None:
        time.sleep(0.02)
        self.ended += 1


class RaisingLogExporter(LogRecordExporter):
    def export(self, batch: Any) -> Any:
        raise RuntimeError("log exporter exploded")

    def shutdown(self) -> None:
        pass

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True


class RaisingLogProcessor(LogRecordProcessor):
    def on_emit(self, log_record: ReadWriteLogRecord) -> None:
        raise RuntimeError("log processor exploded")

    def shutdown(self) -> None:
        pass

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True


class BrokenTracerProvider(trace.TracerProvider):
    def get_tracer(self, *args: Any, **kwargs: Any) -> trace.Tracer:
        raise RuntimeError("no tracer for you")


class BrokenMeterProvider(NoOpMeterProvider):
    def get_meter(self, *args: Any, **kwargs: Any) -> Meter:
        raise RuntimeError("no meter for you")


class BrokenLoggerProvider(NoOpLoggerProvider):
    def get_logger(self, *args: Any, **kwargs: Any) -> Logger:
        raise RuntimeError("no logger for you")


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def tracer_with(*processors: SpanProcessor) -> TracerProvider:
    provider = TracerProvider()
    for processor in processors:
        provider.add_span_processor(processor)
    return provider


def logger_with(processor: LogRecordProcessor) -> SdkLoggerProvider:
    provider = SdkLoggerProvider()
    provider.add_log_record_processor(processor)
    return provider


def shut_down_providers() -> dict[str, Any]:
    tracer_provider = tracer_with(SimpleSpanProcessor(RaisingExporter()))
    meter_provider = SdkMeterProvider(metric_readers=[InMemoryMetricReader()])
    logger_provider = SdkLoggerProvider()
    tracer_provider.shutdown()
    meter_provider.shutdown()
    logger_provider.shutdown()
    return {
        "tracer_provider": tracer_provider,
        "meter_provider": meter_provider,
        "logger_provider": logger_provider,
    }


#: name -> a factory of grounded() telemetry options that misbehave.
BROKEN: dict[str, Callable[[], dict[str, Any]]] = {
    "exporter raises": lambda: {
        "tracer_provider": tracer_with(SimpleSpanProcessor(RaisingExporter()))
    },
    "on_start raises": lambda: {"tracer_provider": tracer_with(RaisingProcessor("start"))},
    "on_end raises": lambda: {"tracer_provider": tracer_with(RaisingProcessor("end"))},
    "on_end sleeps": lambda: {"tracer_provider": tracer_with(SlowProcessor())},
    "collector down": lambda: {
        "tracer_provider": tracer_with(
            BatchSpanProcessor(
                OTLPSpanExporter(endpoint=f"http://127.0.0.1:{closed_port()}/v1/traces", timeout=1)
            )
        )
    },
    "providers shut down": shut_down_providers,
    "get_tracer/get_meter/get_logger raise": lambda: {
        "tracer_provider": BrokenTracerProvider(),
        "meter_provider": BrokenMeterProvider(),
        "logger_provider": BrokenLoggerProvider(),
    },
    "log exporter raises": lambda: {
        "logger_provider": logger_with(SimpleLogRecordProcessor(RaisingLogExporter()))
    },
    "log processor raises": lambda: {"logger_provider": logger_with(RaisingLogProcessor())},
    "content capture, redact raises": lambda: {
        "tracer_provider": tracer_with(),
        "capture_content": True,
        "redact": lambda text: 1 / 0,
    },
}


@pytest.fixture(params=sorted(BROKEN))
def broken(request: pytest.FixtureRequest) -> Iterator[dict[str, Any]]:
    options = BROKEN[request.param]()
    yield options
    for key in ("tracer_provider", "meter_provider", "logger_provider"):
        shutdown = getattr(options.get(key), "shutdown", None)
        if callable(shutdown):
            with contextlib.suppress(Exception):  # some are deliberately broken
                shutdown()


def decorate(options: dict[str, Any], script: list[Any], **more: Any) -> Any:
    llm = ScriptedLLM(script)

    @relapse.grounded(chunks_arg="docs", grounding_check=CHECK, **options, **more)
    def answer(query: str, docs: list[str]) -> str:
        return llm(query)

    return answer


class TestBrokenTelemetry:
    def test_same_return_value(self, broken: dict[str, Any]) -> None:
        """A recovered call returns the same answer and result as without telemetry."""
        expected = decorate({}, ["WRONG", "fine"]).run("q", DOCS)
        got = decorate(broken, ["WRONG", "fine"]).run("q", DOCS)
        assert (expected.answer, expected.grounded, expected.iterations, expected.outcome) == (
            got.answer,
            got.grounded,
            got.iterations,
            got.outcome,
        )
        assert "fine" == decorate(broken, ["WRONG", "fine"])("q", DOCS)

    def test_same_exception(self, broken: dict[str, Any]) -> None:
        """The LLM's exception object propagates unchanged."""
        boom = KeyError("model gone")
        with pytest.raises(KeyError) as raised:
            decorate(broken, ["WRONG", boom])("q", DOCS)
        assert boom is raised.value

    def test_same_not_grounded_error(self, broken: dict[str, Any]) -> None:
        """on_exhausted='raise' still raises NotGroundedError carrying the result."""
        with pytest.raises(relapse.NotGroundedError) as raised:
            decorate(broken, ["WRONG"], on_exhausted="raise")("q", DOCS)
        assert (3, "exhausted") == (raised.value.result.iterations, raised.value.result.outcome)

    async def test_async_same_answer(self, broken: dict[str, Any]) -> None:
        """The async path is as unaffected as the sync one."""
        llm = ScriptedLLM(["WRONG", "fine"])

        @relapse.grounded(chunks_arg="docs", grounding_check=CHECK, **broken)
        async def answer(query: str, docs: list[str]) -> str:
            return llm(query)

        assert "fine" == await answer("q", DOCS)


class TestSlowProcessor:
    def test_slow_processor_delays_but_does_not_change(self) -> None:
        """A processor sleeping in on_end slows the call (sync SDK) yet every span still ends."""
        slow = SlowProcessor()
        provider = tracer_with(slow)
        assert "fine" == decorate({"tracer_provider": provider}, ["WRONG", "fine"])("q", DOCS)
        assert 5 == slow.ended  # call + 2 iterations + their 2 check spans


class TestWithoutSdk:
    def test_runs_with_the_api_alone(self) -> None:
        """With opentelemetry-sdk unimportable, relapse imports and runs, content flag and all."""
        code = textwrap.dedent(
            """
            import sys
            sys.modules["opentelemetry.sdk"] = None  # import opentelemetry.sdk -> ImportError
            import relapse
            from relapse.testing import ScriptedLLM
            result = relapse.run(
                "When?", ["It opened in 1931."], call_llm=ScriptedLLM(["1931", "1931"]),
                capture_content=True, redact=str.upper,
            )
            assert "opentelemetry.sdk.trace" not in sys.modules
            print(result.answer, result.grounded, result.iterations)
            """
        )
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
        )
        assert (0, "1931 True 1\n") == (done.returncode, done.stdout), done.stderr


def test_meter_and_logger_provider_abcs_are_the_api_ones() -> None:
    """The broken providers above are real API providers (not duck types)."""
    assert isinstance(BrokenMeterProvider(), MeterProvider)
    assert isinstance(BrokenLoggerProvider(), LoggerProvider)


class TestTheGuard:
    """``Harmless``, the one guard every SDK interaction of the telemetry package runs in."""

    def test_a_guarded_failure_is_logged_at_debug_with_its_traceback(
        self, caplog: pytest.LogCaptureFixture
    ) -> None:
        """The record names what failed; the call still returns the model's answer."""
        caplog.set_level(logging.DEBUG, logger="relapse.telemetry")
        provider = tracer_with(RaisingProcessor("start"))
        result = decorate({"tracer_provider": provider}, ["fine"]).run("q", DOCS)
        provider.shutdown()
        assert result.answer == "fine"
        records = [r for r in caplog.records if r.name == "relapse.telemetry"]
        assert [(r.levelno, r.getMessage()) for r in records] == [
            (logging.DEBUG, "relapse: could not start the call span")
        ]
        assert records[0].exc_info is not None
        assert str(records[0].exc_info[1]) == "on_start exploded"

    def test_swallows_an_exception_and_logs_at_its_level(
        self, caplog: pytest.LogCaptureFixture
    ) -> None:
        caplog.set_level(logging.DEBUG, logger="relapse.telemetry")
        guard = Harmless("could not frobnicate", level=logging.WARNING)
        reached = []
        with guard:
            reached.append("body")
            raise ValueError("boom")
        reached.append("after")
        assert reached == ["body", "after"]
        assert [
            (r.levelno, r.getMessage(), str(r.exc_info[1])) for r in caplog.records if r.exc_info
        ] == [(logging.WARNING, "relapse: could not frobnicate", "boom")]

    def test_a_clean_body_logs_nothing(self, caplog: pytest.LogCaptureFixture) -> None:
        caplog.set_level(logging.DEBUG, logger="relapse.telemetry")
        with Harmless("could not frobnicate"):
            pass
        assert caplog.records == []

    @pytest.mark.parametrize("error", [KeyboardInterrupt, SystemExit, asyncio.CancelledError])
    def test_stopping_the_program_or_a_task_is_not_a_telemetry_failure(
        self, error: type[BaseException]
    ) -> None:
        with pytest.raises(error), Harmless("could not frobnicate"):
            raise error

    def test_one_guard_serves_nested_and_repeated_blocks(self) -> None:
        """Stateless: the same instance guards a block inside itself, and again after."""
        guard = Harmless("could not frobnicate")
        seen = []
        for round_ in range(2):
            with guard:
                with guard:
                    raise RuntimeError(round_)
                seen.append(round_)  # the inner block swallowed it
        assert seen == [0, 1]

    def test_it_must_name_what_it_guards(self) -> None:
        with pytest.raises(ValueError, match="must name what it guards"):
            Harmless("")

    def test_no_hand_written_guard_is_left_in_the_package(self) -> None:
        """Every ``except`` in ``relapse/_telemetry`` catches a named type, never ``Exception``."""
        package = Path(relapse.__file__).parent / "_telemetry"
        broad = [
            f"{module.name}:{node.lineno}"
            for module in sorted(package.glob("*.py"))
            for node in ast.walk(ast.parse(module.read_text(encoding="utf-8")))
            if isinstance(node, ast.ExceptHandler)
            and (
                node.type is None
                or (
                    isinstance(node.type, ast.Name)
                    and node.type.id in {"Exception", "BaseException"}
                )
            )
        ]
        assert broad == []
