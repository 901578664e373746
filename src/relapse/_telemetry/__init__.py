"""
Everything relapse reports through OpenTelemetry: spans, evaluation events, metrics.

One call span named ``relapse <qualname>``, one ``relapse.iteration`` child
span per LLM call, one ``relapse.check`` child of that span per run of the
grounding check, one ``gen_ai.evaluation.result`` event per check verdict
(a log record through the Logs API when a logger provider is given, else a
span event on the iteration span), and five metric instruments.
``docs/telemetry.md`` lists every name with its type and when it is set.

Two rules shape this module:

* **Harmless when broken.** Every SDK interaction is guarded: a processor,
  exporter or provider that raises (or was shut down) is logged at debug
  level on the ``relapse.telemetry`` logger and otherwise ignored, so
  telemetry never changes what the decorated function returns or raises.
* **Cheap when off.** Attribute work happens only when ``span.is_recording()``;
  instruments are created once per meter provider, and their attribute sets
  are cached, so a call with no SDK allocates next to nothing here.
"""

from __future__ import annotations

import contextlib
import copy
import json
import logging
import os
import threading
import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from opentelemetry import context as otel_context
from opentelemetry import metrics, trace
from opentelemetry._logs import SeverityNumber
from opentelemetry.trace import INVALID_SPAN, Span, Status, StatusCode

from relapse._telemetry import attributes as attr
from relapse._version import VERSION

if TYPE_CHECKING:
    from contextvars import Token
    from types import TracebackType

    from opentelemetry._logs import Logger, LoggerProvider
    from opentelemetry.context.context import Context
    from opentelemetry.metrics import MeterProvider
    from opentelemetry.util.types import AttributeValue

    from relapse._results import GroundingFinding, IterationRecord, RelapseResult, Usage

_log = logging.getLogger("relapse.telemetry")

#: Values of ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`` (compared
#: case-insensitively) that turn content capture on. ``true`` is the boolean
#: form of the GenAI instrumentations; ``span_only`` and ``span_and_event`` are
#: the enum form of ``opentelemetry-util-genai``. Anything else means off.
CAPTURE_CONTENT_ON_VALUES = frozenset({"true", "span_only", "span_and_event"})

#: Bucket boundaries (iterations) advised for the iterations histogram.
ITERATION_BUCKETS: tuple[float, ...] = (1, 2, 3, 4, 5, 6, 8, 10)
#: Bucket boundaries (seconds) advised for the check-duration histogram:
#: checks are local and usually well under a millisecond.
CHECK_DURATION_BUCKETS: tuple[float, ...] = (
    0.0001,
    0.00025,
    0.0005,
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
    10.0,
)
#: Bucket boundaries (tokens) advised for the tokens histogram: those the
#: GenAI semantic conventions advise for ``gen_ai.client.token.usage``.
TOKEN_BUCKETS: tuple[float, ...] = tuple(float(4**power) for power in range(14))
#: What replaces a failing span quoted in a finding message in the
#: ``gen_ai.evaluation.explanation``, which must not carry answer text (with
#: content capture on, the check span's ``output.value`` keeps the spans).
SCRUBBED_SPAN = "[span]"

# Cached attribute sets keyed by a free-form string (finding codes, check
# names) stop growing here, so a check inventing codes cannot leak memory.
_ATTRIBUTE_CACHE_LIMIT = 256

Attributes = Mapping[str, "AttributeValue"]

#: The kind of the call and iteration spans, in the names Phoenix (OpenInference)
#: and Langfuse read.
_CHAIN_KIND: dict[str, AttributeValue] = {
    attr.OPENINFERENCE_SPAN_KIND: attr.SPAN_KIND_CHAIN,
    attr.LANGFUSE_OBSERVATION_TYPE: attr.OBSERVATION_TYPE_CHAIN,
}
#: The kind of the check span: its verdict decides whether the answer is
#: returned or the model asked again, which is what a guardrail does (an
#: evaluator scores an output without acting on it).
_GUARDRAIL_KIND: dict[str, AttributeValue] = {
    attr.OPENINFERENCE_SPAN_KIND: attr.SPAN_KIND_GUARDRAIL,
    attr.LANGFUSE_OBSERVATION_TYPE: attr.OBSERVATION_TYPE_GUARDRAIL,
}


def capture_content_from_env() -> bool:
    """
    Whether ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`` turns capture on.

    Returns:
        True for ``true``, ``SPAN_ONLY`` or ``SPAN_AND_EVENT`` (any case,
        surrounding spaces ignored); False when unset or anything else.
    """
    return os.environ.get(attr.CAPTURE_CONTENT_ENV, "").strip().lower() in CAPTURE_CONTENT_ON_VALUES


class _AttributeCache:
    """``key -> {name: key}`` mappings, built once per key (bounded)."""

    __slots__ = ("_cache", "_name")

    def __init__(self, name: str) -> None:
        self._name = name
        self._cache: dict[str, dict[str, AttributeValue]] = {}

    def __call__(self, key: str) -> dict[str, AttributeValue]:
        found = self._cache.get(key)
        if found is None:
            found = {self._name: key}
            if len(self._cache) < _ATTRIBUTE_CACHE_LIMIT:
                self._cache[key] = found
        return found


class Instruments:
    """
    The five relapse instruments of one meter, created once.

    Attributes:
        iterations: Histogram of LLM calls per completed grounded call
            (unit ``{iteration}``), by ``relapse.outcome``.
        calls: Counter of grounded calls (unit ``{call}``), by
            ``relapse.outcome`` (plus ``error.type`` for ``"error"``).
        findings: Counter of findings (unit ``{finding}``), by
            ``relapse.finding.code``.
        check_duration: Histogram of check durations in seconds (unit ``s``),
            by ``gen_ai.evaluation.name``.
        tokens: Histogram of the tokens one grounded call spent over all
            its LLM calls (unit ``{token}``), by ``relapse.outcome`` and
            ``gen_ai.token.type``; recorded only when a call reported usage.
    """

    __slots__ = (
        "calls",
        "check_attributes",
        "check_duration",
        "code_attributes",
        "findings",
        "iterations",
        "outcome_attributes",
        "token_attributes",
        "tokens",
    )

    def __init__(self, meter: metrics.Meter) -> None:
        self.iterations = meter.create_histogram(
            attr.METRIC_CALL_ITERATIONS,
            unit="{iteration}",
            description="LLM calls made by one grounded call that completed.",
            explicit_bucket_boundaries_advisory=ITERATION_BUCKETS,
        )
        self.calls = meter.create_counter(
            attr.METRIC_CALLS,
            unit="{call}",
            description="Grounded calls, by outcome.",
        )
        self.findings = meter.create_counter(
            attr.METRIC_FINDINGS,
            unit="{finding}",
            description="Findings reported by the grounding check, by finding code.",
        )
        self.check_duration = meter.create_histogram(
            attr.METRIC_CHECK_DURATION,
            unit="s",
            description="Duration of one grounding check.",
            explicit_bucket_boundaries_advisory=CHECK_DURATION_BUCKETS,
        )
        self.tokens = meter.create_histogram(
            attr.METRIC_CALL_TOKENS,
            unit="{token}",
            description="Tokens one grounded call spent over all its LLM calls, by outcome.",
            explicit_bucket_boundaries_advisory=TOKEN_BUCKETS,
        )
        self.outcome_attributes = _AttributeCache(attr.RELAPSE_OUTCOME)
        self.token_attributes: dict[tuple[str, str], dict[str, AttributeValue]] = {}
        self.code_attributes = _AttributeCache(attr.RELAPSE_FINDING_CODE)
        self.check_attributes = _AttributeCache(attr.GEN_AI_EVALUATION_NAME)


def _record_tokens(instruments: Instruments, outcome: str, usage: Usage | None) -> None:
    """Record a call's input and output tokens on the tokens histogram, when it reported any."""
    if usage is None:
        return
    for kind, tokens in (
        (attr.TOKEN_TYPE_INPUT, usage.input_tokens),
        (attr.TOKEN_TYPE_OUTPUT, usage.output_tokens),
    ):
        key = (outcome, kind)
        attributes = instruments.token_attributes.get(key)
        if attributes is None:
            attributes = {attr.RELAPSE_OUTCOME: outcome, attr.GEN_AI_TOKEN_TYPE: kind}
            if len(instruments.token_attributes) < _ATTRIBUTE_CACHE_LIMIT:
                instruments.token_attributes[key] = attributes
        instruments.tokens.record(tokens, attributes)


def _verdict_attributes(record: IterationRecord) -> dict[str, AttributeValue]:
    """The verdict attributes of ``record``, shared by its iteration and check spans."""
    findings = record.findings
    return {
        attr.RELAPSE_GROUNDED: record.grounded,
        attr.RELAPSE_FINDINGS_CODES: tuple(sorted({f.code for f in findings})),
        attr.RELAPSE_FINDINGS_COUNT: len(findings),
    }


def _usage_attributes(usage: Usage | None, known: bool | None) -> dict[str, AttributeValue]:
    """
    The ``relapse.usage.*`` span attributes of ``usage``.

    The token counts when ``usage`` is not None (never a made-up zero), and
    ``relapse.usage.known`` set to ``known`` unless it is None (a failed
    call, whose later iterations never ran, cannot say).
    """
    attributes: dict[str, AttributeValue] = {}
    if known is not None:
        attributes[attr.RELAPSE_USAGE_KNOWN] = known
    if usage is not None:
        attributes[attr.RELAPSE_USAGE_INPUT_TOKENS] = usage.input_tokens
        attributes[attr.RELAPSE_USAGE_OUTPUT_TOKENS] = usage.output_tokens
    return attributes


_instruments_lock = threading.Lock()
_global_instruments: list[Instruments] = []
_provider_instruments: weakref.WeakKeyDictionary[object, Instruments] = weakref.WeakKeyDictionary()


def instruments_for(meter_provider: MeterProvider | None) -> Instruments | None:
    """
    The relapse instruments of ``meter_provider`` (the global one when None).

    Created on first use and shared by every :class:`Telemetry` of that
    provider (weakly keyed: it never keeps a provider alive), so
    :func:`relapse.run`, which builds its telemetry per call, does not create
    instruments per call. With the global provider the API's proxy
    instruments are cached; they follow a provider set globally later.

    Returns:
        The instruments, or None when the provider failed to create them
        (the failure is logged at debug level).
    """
    with _instruments_lock:
        try:
            if meter_provider is None:
                if not _global_instruments:
                    meter = metrics.get_meter(attr.SCOPE_NAME, VERSION)
                    _global_instruments.append(Instruments(meter))
                return _global_instruments[0]
            try:
                found = _provider_instruments.get(meter_provider)
            except TypeError:  # not weak-referenceable: no caching
                found = None
            if found is None:
                meter = metrics.get_meter(attr.SCOPE_NAME, VERSION, meter_provider=meter_provider)
                found = Instruments(meter)
                with contextlib.suppress(TypeError):
                    _provider_instruments[meter_provider] = found
        except Exception:
            _log.debug("relapse: could not create metric instruments", exc_info=True)
            return None
        return found


def scrub(message: str, spans: Sequence[str]) -> str:
    """
    ``message`` with every occurrence of each of ``spans`` replaced by ``[span]``.

    Longer spans are replaced first, so a span inside another does not leave
    part of the longer one behind.
    """
    for span in sorted(set(spans), key=len, reverse=True):
        if span:
            message = message.replace(span, SCRUBBED_SPAN)
    return message


def explanation(findings: Sequence[GroundingFinding], content: bool = False) -> str:
    """
    The ``gen_ai.evaluation.explanation`` of ``findings``.

    Args:
        findings: The check's findings.
        content: Whether content capture is on. Off, the explanation holds
            no byte of any message (a message may quote the answer, a
            judge's claims, anything a custom check put there): only each
            finding's code, severity and span count. On, ``"CODE: message"``
            with each failing span scrubbed out of the message (see :func:`scrub`).

    Returns:
        One part per finding, joined by ``"; "``.
    """
    if content:
        return "; ".join(f"{f.code}: {scrub(f.message, f.spans)}" for f in findings)
    return "; ".join(
        f"{f.code}{' (warning)' if f.severity == 'warning' else ''}: {len(f.spans)} failing span(s)"
        for f in findings
    )


def _message(role: str, text: str, **extra: str) -> str:
    """One GenAI message list with a single text part, as a JSON string."""
    message: dict[str, Any] = {"role": role, "parts": [{"type": "text", "content": text}]}
    message.update(extra)
    return json.dumps([message], ensure_ascii=False)


class Telemetry:
    """
    Creates and finishes the spans, events and metrics of one decorated function.

    Built once per decorated function (at decoration time). Every method is
    safe to call from any thread or task and never raises.

    Args:
        qualname: The decorated function's ``__qualname__``; it names the call
            span and is its ``code.function.name``.
        tracer_provider: The provider to get the tracer from; ``None`` uses the
            global provider at the time of each call (relapse never sets it).
        meter_provider: The provider of the five metric instruments; ``None``
            uses the global one (through the API's proxy meter).
        logger_provider: When given, each ``gen_ai.evaluation.result`` event
            is emitted as a log record through it (parented to the iteration
            span); when ``None`` it is a span event on the iteration span.
        capture_content: Record prompts, answers and failing spans on the
            iteration spans (and answers and findings' messages on the check
            spans). ``None`` reads
            ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`` once, here.
        redact: ``redact(text) -> text`` applied to every captured text before
            it is recorded. If it raises or returns a non-``str``, the
            iteration's content is not recorded at all (logged as a warning).
    """

    __slots__ = (
        "call_span_name",
        "capture_content",
        "instruments",
        "logger",
        "qualname",
        "redact",
        "tracer",
    )

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
        self.capture_content = (
            capture_content_from_env() if capture_content is None else bool(capture_content)
        )
        self.redact = redact
        self.tracer: trace.Tracer
        try:
            self.tracer = trace.get_tracer(
                attr.SCOPE_NAME, VERSION, tracer_provider=tracer_provider
            )
        except Exception:
            _log.debug("relapse: could not get a tracer; spans are off", exc_info=True)
            self.tracer = trace.NoOpTracer()
        self.instruments = instruments_for(meter_provider)
        self.logger: Logger | None = None
        if logger_provider is not None:
            try:
                self.logger = logger_provider.get_logger(attr.SCOPE_NAME, VERSION)
            except Exception:
                _log.debug("relapse: could not get a logger; events go on spans", exc_info=True)

    def renamed(self, qualname: str) -> Telemetry:
        """A copy reporting under ``qualname`` (same providers and settings)."""
        twin = copy.copy(self)
        twin.qualname = qualname
        twin.call_span_name = attr.CALL_SPAN_PREFIX + qualname
        return twin

    # Spans ------------------------------------------------------------------

    def start_call(self, max_iterations: int, chunk_count: int | None) -> Span:
        """
        Start the call span as a child of the caller's current span.

        Args:
            max_iterations: The budget of LLM calls (``relapse.max_iterations``).
            chunk_count: How many chunks the call received (``relapse.chunks.count``);
                None when the function retrieves its own (``chunks_of``): not set then.

        Returns:
            The span, or ``INVALID_SPAN`` when the SDK failed to start one.
        """
        try:
            span = self.tracer.start_span(self.call_span_name)
        except Exception:
            _log.debug("relapse: could not start the call span", exc_info=True)
            return INVALID_SPAN
        try:
            if span.is_recording():
                attributes: dict[str, AttributeValue] = {
                    attr.RELAPSE_MAX_ITERATIONS: max_iterations,
                    attr.CODE_FUNCTION_NAME: self.qualname,
                    **_CHAIN_KIND,
                }
                if chunk_count is not None:
                    attributes[attr.RELAPSE_CHUNKS_COUNT] = chunk_count
                span.set_attributes(attributes)
        except Exception:
            _log.debug("relapse: could not set call span attributes", exc_info=True)
        return span

    def start_iteration(self, call_span: Span, iteration: int) -> Span:
        """
        Start one iteration span under ``call_span``, before the LLM call.

        Args:
            call_span: What :meth:`start_call` returned.
            iteration: 1 for the first LLM call, then 2, 3, ...

        Returns:
            The span; ``INVALID_SPAN`` when ``call_span`` is (no SDK and no
            current span, or the SDK failed) or the SDK failed to start one.
        """
        if call_span is INVALID_SPAN:
            return INVALID_SPAN
        try:
            span = self.tracer.start_span(
                attr.ITERATION_SPAN_NAME, context=trace.set_span_in_context(call_span)
            )
        except Exception:
            _log.debug("relapse: could not start an iteration span", exc_info=True)
            return INVALID_SPAN
        try:
            if span.is_recording():
                span.set_attributes({attr.RELAPSE_ITERATION: iteration, **_CHAIN_KIND})
        except Exception:
            _log.debug("relapse: could not set iteration span attributes", exc_info=True)
        return span

    def start_check(self, iteration_span: Span, check_name: str) -> Span:
        """
        Start the check span under ``iteration_span``, just before the check runs.

        The loop makes it current while the check runs (see :func:`active`),
        so spans a check starts (an LLM judge's own LLM call) are its children.

        Args:
            iteration_span: What :meth:`start_iteration` returned.
            check_name: The check's name (``gen_ai.evaluation.name``).

        Returns:
            The span; ``INVALID_SPAN`` when ``iteration_span`` is not recording
            (no SDK, or sampled out: its check span would not be either) or
            the SDK failed to start one.
        """
        if iteration_span is INVALID_SPAN:
            return INVALID_SPAN
        try:
            if not iteration_span.is_recording():
                return INVALID_SPAN
            return self.tracer.start_span(
                attr.CHECK_SPAN_NAME,
                context=trace.set_span_in_context(iteration_span),
                # Given at start, not set after: one attribute update fewer per iteration.
                attributes={attr.GEN_AI_EVALUATION_NAME: check_name, **_GUARDRAIL_KIND},
            )
        except Exception:
            _log.debug("relapse: could not start a check span", exc_info=True)
            return INVALID_SPAN

    def end_iteration(
        self,
        span: Span,
        record: IterationRecord,
        check_name: str,
        check_s: float,
        check_span: Span,
    ) -> None:
        """
        Report one iteration's verdict and end its check span and its span.

        Sets the verdict attributes (and, with content capture, the answer and
        the findings' messages, failing spans included) on ``check_span`` and
        ends it; sets the verdict
        attributes (and, with content capture, the prompt, answer and failing
        spans) on ``span``, emits the ``gen_ai.evaluation.result`` event,
        records the check duration and the findings in the metrics, then ends
        ``span``.

        Args:
            span: What :meth:`start_iteration` returned.
            record: The iteration's record (answer, verdict, findings).
            check_name: The check's name (``gen_ai.evaluation.name``).
            check_s: How long the check took, in seconds.
            check_span: What :meth:`start_check` returned for this iteration.
        """
        recording = False
        verdict: dict[str, AttributeValue] = {}
        answer: str | None = None
        try:
            recording = span.is_recording()
            if recording:
                verdict = _verdict_attributes(record)
                span.set_attributes(
                    {
                        **verdict,
                        attr.RELAPSE_CHECK_DURATION: float(check_s),
                        **_usage_attributes(record.usage, record.usage is not None),
                    }
                )
                if self.capture_content:
                    answer = self._capture(span, record)
        except Exception:
            _log.debug("relapse: could not set iteration attributes", exc_info=True)
        explanation: str | None = None
        if record.findings and (recording or self.logger is not None):
            try:
                explanation = self._explanation(record.findings)
            except Exception:
                _log.debug("relapse: could not explain the findings", exc_info=True)
        if check_span is not INVALID_SPAN:
            self._end_check(check_span, record, verdict, answer, explanation)
        self._evaluation_event(span, recording, record, check_name, explanation)
        instruments = self.instruments
        if instruments is not None:
            try:
                instruments.check_duration.record(check_s, instruments.check_attributes(check_name))
                for finding in record.findings:
                    instruments.findings.add(1, instruments.code_attributes(finding.code))
            except Exception:
                _log.debug("relapse: could not record iteration metrics", exc_info=True)
        _end(span, "an iteration span")

    def end_call(self, span: Span, result: RelapseResult) -> None:
        """
        Report the call's outcome, count it in the metrics and end ``span``.

        Args:
            span: What :meth:`start_call` returned.
            result: The call's result (iterations, grounded, outcome).
        """
        try:
            if span.is_recording():
                span.set_attributes(
                    {
                        attr.RELAPSE_ITERATIONS: result.iterations,
                        attr.RELAPSE_GROUNDED: result.grounded,
                        attr.RELAPSE_OUTCOME: result.outcome,
                        **_usage_attributes(
                            result.usage,
                            all(record.usage is not None for record in result.transcript),
                        ),
                    }
                )
                if self.capture_content and result.transcript:
                    # Iteration 1's prompt is the caller's query, unchanged.
                    texts = self._redacted(result.transcript[0].prompt, str(result.answer))
                    if texts is not None:
                        span.set_attributes(
                            {attr.INPUT_VALUE: texts[0], attr.OUTPUT_VALUE: texts[1]}
                        )
        except Exception:
            _log.debug("relapse: could not set call span attributes", exc_info=True)
        instruments = self.instruments
        if instruments is not None:
            try:
                outcome = instruments.outcome_attributes(result.outcome)
                instruments.calls.add(1, outcome)
                instruments.iterations.record(result.iterations, outcome)
                _record_tokens(instruments, result.outcome, result.usage)
            except Exception:
                _log.debug("relapse: could not record call metrics", exc_info=True)
        _end(span, "the call span")

    def fail_call(self, span: Span, error: BaseException, usage: Usage | None = None) -> None:
        """
        Mark the call span as failed by ``error``, end it, count the call as ``"error"``.

        The calls counter gets ``relapse.outcome="error"`` and ``error.type``;
        the iterations histogram records completed calls only. ``usage``, the
        tokens the call's iterations reported before it failed, goes on the
        span and on the tokens histogram (outcome ``"error"``): they were paid.
        """
        try:
            if usage is not None and span.is_recording():
                span.set_attributes(_usage_attributes(usage, None))
        except Exception:
            _log.debug("relapse: could not set call span usage", exc_info=True)
        self.fail(span, error)
        instruments = self.instruments
        if instruments is not None:
            try:
                instruments.calls.add(
                    1,
                    {
                        attr.RELAPSE_OUTCOME: attr.OUTCOME_ERROR,
                        attr.ERROR_TYPE: type(error).__qualname__,
                    },
                )
                _record_tokens(instruments, attr.OUTCOME_ERROR, usage)
            except Exception:
                _log.debug("relapse: could not count a failed call", exc_info=True)

    @staticmethod
    def fail(span: Span, error: BaseException, usage: Usage | None = None) -> None:
        """
        Mark ``span`` as failed by ``error`` and end it.

        Sets status ERROR with ``str(error)`` (or the type name when empty),
        ``error.type`` to the exception's qualname, and records an
        ``exception`` event for :class:`Exception` subclasses. ``usage``, the
        tokens a failed iteration had been paid for (a stream broken midway),
        goes on the span too.
        """
        try:
            if span.is_recording():
                if usage is not None:
                    span.set_attributes(_usage_attributes(usage, None))
                span.set_attribute(attr.ERROR_TYPE, type(error).__qualname__)
                span.set_status(Status(StatusCode.ERROR, str(error) or type(error).__name__))
                if isinstance(error, Exception):
                    span.record_exception(error)
        except Exception:
            _log.debug("relapse: could not record an error on a span", exc_info=True)
        _end(span, "a failed span")

    # Helpers ----------------------------------------------------------------

    def _capture(self, span: Span, record: IterationRecord) -> str | None:
        """
        Put the (redacted) prompt, answer and failing spans on ``span``.

        Returns:
            The redacted answer, for the check span; None when ``redact``
            failed and nothing was recorded.
        """
        failing = tuple(s for f in record.findings for s in f.spans)
        texts = self._redacted(record.prompt, record.answer, *failing)
        if texts is None:
            return None
        prompt, answer, *rest = texts
        failing = tuple(rest)
        captured: dict[str, AttributeValue] = {
            attr.GEN_AI_INPUT_MESSAGES: _message("user", prompt),
            attr.GEN_AI_OUTPUT_MESSAGES: _message("assistant", answer, finish_reason="stop"),
            attr.INPUT_VALUE: prompt,
            attr.OUTPUT_VALUE: answer,
        }
        if failing:
            captured[attr.RELAPSE_FINDINGS_SPANS] = failing
        span.set_attributes(captured)
        return answer

    def _end_check(
        self,
        span: Span,
        record: IterationRecord,
        verdict: Mapping[str, AttributeValue],
        answer: str | None,
        explanation: str | None,
    ) -> None:
        """
        Put the verdict on the check ``span`` and end it.

        ``verdict`` is what the iteration span got (empty when it is not
        recording). ``answer`` is the redacted answer when content capture is
        on and ``redact`` did not fail; only then does the span get content:
        the answer as ``input.value`` and, when there are findings, their
        messages with the failing spans in them as ``output.value`` (see
        :meth:`_check_output`). ``explanation`` is the event's explanation,
        recorded instead when ``redact`` fails on the messages.
        """
        try:
            if span.is_recording():
                attributes = dict(verdict) if verdict else _verdict_attributes(record)
                if answer is not None:
                    attributes[attr.INPUT_VALUE] = answer
                    output = self._check_output(record.findings, explanation)
                    if output is not None:
                        attributes[attr.OUTPUT_VALUE] = output
                span.set_attributes(attributes)
        except Exception:
            _log.debug("relapse: could not set check span attributes", exc_info=True)
        _end(span, "a check span")

    def _redacted(self, *texts: str) -> tuple[str, ...] | None:
        """``texts`` through ``redact``; None (logged) when it fails or returns a non-str."""
        redact = self.redact
        if redact is None:
            return texts
        try:
            redacted = tuple(redact(t) for t in texts)
            if not all(isinstance(t, str) for t in redacted):
                raise TypeError("redact must return str")  # noqa: TRY301
        except Exception:
            _log.warning(
                "relapse: redact failed; this span's content is not recorded", exc_info=True
            )
            return None
        return redacted

    def _check_output(
        self, findings: Sequence[GroundingFinding], explanation: str | None
    ) -> str | None:
        """
        The check span's ``output.value`` under content capture: why the answer failed.

        ``"CODE: message"`` per finding, joined by ``"; "``, with the failing
        spans the messages quote left in (unlike the evaluation event's
        explanation, which scrubs them): the check span is where a backend's
        guardrail pane shows the verdict, and it has no
        ``relapse.findings.spans`` of its own to show them otherwise. The text
        goes through ``redact`` first.

        Args:
            findings: The check's findings; none means nothing to explain.
            explanation: The evaluation event's explanation (spans scrubbed),
                the fallback when ``redact`` fails or returns a non-``str``,
                so the raw text is never recorded.

        Returns:
            The text, or None when there are no findings (or no fallback).
        """
        if not findings:
            return None
        text = "; ".join(f"{f.code}: {f.message}" for f in findings)
        if self.redact is None:
            return text
        try:
            redacted = self.redact(text)
        except Exception:
            _log.warning(
                "relapse: redact failed; the check span's output is the explanation",
                exc_info=True,
            )
            return explanation
        return redacted if isinstance(redacted, str) else explanation

    def _explanation(self, findings: Sequence[GroundingFinding]) -> str:
        """The explanation: message text only with content capture on, and redacted."""
        if not self.capture_content:
            return explanation(findings)
        text = explanation(findings, content=True)
        if self.redact is None:
            return text
        try:
            redacted = self.redact(text)
        except Exception:
            _log.warning("relapse: redact failed; the explanation names codes only", exc_info=True)
            return explanation(findings)
        return redacted if isinstance(redacted, str) else explanation(findings)

    def _evaluation_event(
        self,
        span: Span,
        recording: bool,
        record: IterationRecord,
        check_name: str,
        explanation: str | None,
    ) -> None:
        """Emit ``gen_ai.evaluation.result``: a log record, or a span event."""
        logger = self.logger
        if logger is None and not recording:
            return
        try:
            event: dict[str, AttributeValue] = {
                attr.GEN_AI_EVALUATION_NAME: check_name,
                attr.GEN_AI_EVALUATION_SCORE_LABEL: (
                    attr.LABEL_PASS if record.grounded else attr.LABEL_FAIL
                ),
                attr.GEN_AI_EVALUATION_SCORE_VALUE: 1.0 if record.grounded else 0.0,
            }
            if explanation is not None:
                event[attr.GEN_AI_EVALUATION_EXPLANATION] = explanation
            if logger is not None:
                parent: Context = trace.set_span_in_context(span)
                logger.emit(
                    event_name=attr.GEN_AI_EVALUATION_RESULT_EVENT,
                    attributes=event,
                    context=parent,
                    severity_number=SeverityNumber.INFO,
                )
            else:
                span.add_event(attr.GEN_AI_EVALUATION_RESULT_EVENT, event)
        except Exception:
            _log.debug("relapse: could not emit an evaluation event", exc_info=True)


class _Activation:
    """Context manager making one span current (see :func:`active`)."""

    __slots__ = ("_span", "_token")

    def __init__(self, span: Span) -> None:
        self._span = span
        self._token: Token[Context] | None = None

    def __enter__(self) -> None:
        span = self._span
        if span is INVALID_SPAN:
            return
        try:
            if trace.get_current_span() is span:
                return
            self._token = otel_context.attach(trace.set_span_in_context(span))
        except Exception:
            _log.debug("relapse: could not activate a span", exc_info=True)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        token = self._token
        if token is not None:
            self._token = None
            try:
                otel_context.detach(token)
            except Exception:
                _log.debug("relapse: could not deactivate a span", exc_info=True)


#: What :func:`active` returns for ``INVALID_SPAN``: one shared do-nothing
#: context manager, so the no-SDK path allocates nothing per call.
_NOT_ACTIVATED: contextlib.AbstractContextManager[None] = contextlib.nullcontext()


def _end(span: Span, what: str) -> None:
    """End ``span``; a failure is logged at debug level, never raised (``what`` names it)."""
    try:
        span.end()
    except Exception:
        _log.debug("relapse: could not end %s", what, exc_info=True)


def active(span: Span) -> contextlib.AbstractContextManager[None]:
    """
    Make ``span`` the current span while the LLM is called (or the check runs).

    Use it as ``with active(span): ...``.

    Spans the caller's own code starts inside (for example a provider's
    instrumentation) then become its children. Entering does nothing when
    ``span`` is ``INVALID_SPAN`` or already current (the no-SDK case), and
    never raises; exceptions from the body propagate unchanged.
    """
    if span is INVALID_SPAN:
        return _NOT_ACTIVATED
    return _Activation(span)
