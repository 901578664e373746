"""
The span shape of a grounded call.

One call span named ``relapse <qualname>``, one ``relapse.iteration`` child
span per LLM call. Every operation here is guarded: telemetry must never
change what the decorated function returns or raises, so an SDK, processor or
exporter failure is swallowed (and logged at debug level), never propagated.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from opentelemetry import trace
from opentelemetry.trace import INVALID_SPAN, Span, Status, StatusCode

from relapse import _attributes as attr
from relapse._version import VERSION

if TYPE_CHECKING:
    from opentelemetry._logs import LoggerProvider
    from opentelemetry.metrics import MeterProvider

    from relapse._types import IterationRecord, RelapseResult

_log = logging.getLogger("relapse.telemetry")


class Telemetry:
    """
    Creates and finishes the spans of one decorated function.

    Args:
        qualname: The decorated function's ``__qualname__``; it names the call
            span.
        tracer_provider: The provider to get the tracer from; ``None`` uses the
            global provider at the time of each call (never sets it).
        meter_provider: Not used yet (metrics land with the telemetry issue).
        logger_provider: Not used yet.
        capture_content: Not used yet.
        redact: Not used yet.
    """

    def __init__(
        self,
        qualname: str,
        tracer_provider: trace.TracerProvider | None = None,
        meter_provider: MeterProvider | None = None,
        logger_provider: LoggerProvider | None = None,
        capture_content: bool | None = None,
        redact: Callable[[str], str] | None = None,
    ) -> None:
        self.call_span_name = attr.CALL_SPAN_PREFIX + qualname
        self.qualname = qualname
        self.tracer = trace.get_tracer(attr.SCOPE_NAME, VERSION, tracer_provider=tracer_provider)

    def start_call(self, max_iterations: int, chunk_count: int) -> Span:
        """Start the call span as a child of the caller's current span."""
        try:
            return self.tracer.start_span(
                self.call_span_name,
                attributes={
                    attr.RELAPSE_MAX_ITERATIONS: max_iterations,
                    attr.CODE_FUNCTION_NAME: self.qualname,
                    attr.RELAPSE_CHUNKS_COUNT: chunk_count,
                },
            )
        except Exception:
            _log.debug("relapse: could not start the call span", exc_info=True)
            return INVALID_SPAN

    def start_iteration(self, call_span: Span, iteration: int) -> Span:
        """Start one iteration span under ``call_span``, before the LLM call."""
        try:
            return self.tracer.start_span(
                attr.ITERATION_SPAN_NAME,
                context=trace.set_span_in_context(call_span),
                attributes={attr.RELAPSE_ITERATION: iteration},
            )
        except Exception:
            _log.debug("relapse: could not start an iteration span", exc_info=True)
            return INVALID_SPAN

    def end_iteration(
        self, span: Span, record: IterationRecord, check_name: str, check_s: float
    ) -> None:
        """Record the check's verdict on the iteration span and end it."""
        try:
            if span.is_recording():
                codes = tuple(sorted({f.code for f in record.findings}))
                span.set_attributes(
                    {
                        attr.RELAPSE_GROUNDED: record.grounded,
                        attr.RELAPSE_FINDINGS_CODES: codes,
                        attr.RELAPSE_FINDINGS_COUNT: len(record.findings),
                    }
                )
                span.add_event(
                    attr.GEN_AI_EVALUATION_RESULT_EVENT,
                    {
                        attr.GEN_AI_EVALUATION_NAME: check_name,
                        attr.GEN_AI_EVALUATION_SCORE_LABEL: "pass" if record.grounded else "fail",
                        attr.GEN_AI_EVALUATION_SCORE_VALUE: 1.0 if record.grounded else 0.0,
                        attr.GEN_AI_EVALUATION_EXPLANATION: "; ".join(
                            f"{f.code}: {f.message}" for f in record.findings
                        ),
                    },
                )
            span.end()
        except Exception:
            _log.debug("relapse: could not end an iteration span", exc_info=True)

    def end_call(self, span: Span, result: RelapseResult) -> None:
        """Record the call's outcome on the call span and end it."""
        try:
            if span.is_recording():
                span.set_attributes(
                    {
                        attr.RELAPSE_ITERATIONS: result.iterations,
                        attr.RELAPSE_GROUNDED: result.grounded,
                        attr.RELAPSE_OUTCOME: result.outcome,
                    }
                )
            span.end()
        except Exception:
            _log.debug("relapse: could not end the call span", exc_info=True)

    @staticmethod
    def fail(span: Span, error: BaseException) -> None:
        """Mark ``span`` as failed by ``error`` and end it."""
        try:
            if span.is_recording():
                span.set_attribute(attr.ERROR_TYPE, type(error).__qualname__)
                span.set_status(Status(StatusCode.ERROR, str(error) or type(error).__name__))
                if isinstance(error, Exception):
                    span.record_exception(error)
            span.end()
        except Exception:
            _log.debug("relapse: could not record an error on a span", exc_info=True)


@contextmanager
def active(span: Span) -> Iterator[None]:
    """
    Make ``span`` the current span while the LLM is called.

    Spans the caller's own code starts inside (for example a provider's
    instrumentation) then become its children.
    """
    try:
        manager = trace.use_span(
            span, end_on_exit=False, record_exception=False, set_status_on_exception=False
        )
        manager.__enter__()
    except Exception:
        _log.debug("relapse: could not activate a span", exc_info=True)
        yield
        return
    try:
        yield
    finally:
        try:
            manager.__exit__(None, None, None)
        except Exception:
            _log.debug("relapse: could not deactivate a span", exc_info=True)
