"""
Everything relapse reports through OpenTelemetry: spans, evaluation events, metrics.

One call span named ``relapse <qualname>``, one ``relapse.iteration`` child
span per LLM call, one ``relapse.check`` child of that span per run of the
grounding check, one ``gen_ai.evaluation.result`` event per check verdict
(a log record through the Logs API when a logger provider is given, else a
span event on the iteration span), and five metric instruments.
``docs/telemetry.md`` lists every name with its type and when it is set.

This module is the span lifecycle (:class:`Telemetry`: start, end and fail
of the call, iteration and check spans, and the evaluation event); the rest
of the package is split by signal:

* :mod:`relapse._telemetry.attributes`: every name, pinned to the semantic
  conventions by tests;
* :mod:`relapse._telemetry.metrics`: the five instruments, created once per
  meter provider;
* :mod:`relapse._telemetry.content`: content capture, redaction and the
  evaluation explanation;
* :mod:`relapse._telemetry.context`: span activation and
  :class:`~relapse._telemetry.context.Harmless`, the one guard;
* :mod:`relapse._telemetry.sdk`: whether a global SDK provider is set, the
  per-call test of the no-SDK fast path (:meth:`Telemetry.for_call`).

Two rules shape the package:

* **Harmless when broken.** Every SDK interaction runs in a ``Harmless``
  block: a processor, exporter or provider that raises (or was shut down) is
  logged at debug level on the ``relapse.telemetry`` logger and otherwise
  ignored, so telemetry never changes what the decorated function returns or
  raises.
* **Cheap when off.** Attribute work happens only when ``span.is_recording()``;
  instruments are created once per meter provider, and their attribute sets
  are cached. A call no SDK can see (the API's no-op and proxy providers,
  none set globally yet) runs on the :meth:`Telemetry.for_call` twin that
  starts the spans the API's no-op tracer would and does nothing else.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from opentelemetry import trace
from opentelemetry._logs import SeverityNumber
from opentelemetry.trace import INVALID_SPAN, Span, Status, StatusCode

from relapse._read.chunks import chunk_id_of
from relapse._read.shapes import member
from relapse._telemetry import attributes as attr
from relapse._telemetry.content import Content, capture_content_from_env
from relapse._telemetry.context import Harmless
from relapse._telemetry.metrics import Instruments, instruments_for
from relapse._telemetry.records import (
    check_cost_attributes,
    inline_evaluation,
    lineage_attributes,
    rejection_attributes,
    response_id,
    score_attribute,
    usage_attributes,
    verdict_attributes,
)
from relapse._telemetry.sdk import can_watch, metrics_set, tracing_set
from relapse._version import VERSION

if TYPE_CHECKING:
    from opentelemetry._logs import Logger, LoggerProvider
    from opentelemetry.context.context import Context
    from opentelemetry.metrics import MeterProvider
    from opentelemetry.util.types import AttributeValue

    from relapse._results import IterationRecord, RelapseResult, Usage

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
#: The kind of the span of one ``retrieve=`` call: a retrieval, in the GenAI,
#: OpenInference and Langfuse names.
_RETRIEVER_KIND: dict[str, AttributeValue] = {
    attr.GEN_AI_OPERATION_NAME: attr.OPERATION_RETRIEVAL,
    attr.OPENINFERENCE_SPAN_KIND: attr.SPAN_KIND_RETRIEVER,
    attr.LANGFUSE_OBSERVATION_TYPE: attr.OBSERVATION_TYPE_RETRIEVER,
}

# One guard per thing that can fail, each named by what it protects (the
# text of its debug record), built once here.
_GETTING_TRACER = Harmless("could not get a tracer; spans are off")
_GETTING_LOGGER = Harmless("could not get a logger; events go on spans")
_STARTING_CALL = Harmless("could not start the call span")
_SETTING_CALL = Harmless("could not set call span attributes")
_SETTING_CALL_USAGE = Harmless("could not set call span usage")
_ENDING_CALL = Harmless("could not end the call span")
_STARTING_ITERATION = Harmless("could not start an iteration span")
_SETTING_ITERATION = Harmless("could not set iteration span attributes")
_SETTING_VERDICT = Harmless("could not set iteration attributes")
_EXPLAINING = Harmless("could not explain the findings")
_ENDING_ITERATION = Harmless("could not end an iteration span")
_STARTING_CHECK = Harmless("could not start a check span")
_SETTING_CHECK = Harmless("could not set check span attributes")
_ENDING_CHECK = Harmless("could not end a check span")
_EMITTING_EVENT = Harmless("could not emit an evaluation event")
_RECORDING_ERROR = Harmless("could not record an error on a span")
_STARTING_RETRIEVAL = Harmless("could not start a retrieval span")
_ENDING_RETRIEVAL = Harmless("could not end a retrieval span")
_ENDING_FAILED = Harmless("could not end a failed span")


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
        "content",
        "follows_global_meter",
        "follows_global_tracer",
        "instruments",
        "logger",
        "qualname",
        "silent",
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
        self.content = Content(
            capture_content_from_env() if capture_content is None else bool(capture_content),
            redact,
        )
        self.tracer: trace.Tracer = trace.NoOpTracer()
        with _GETTING_TRACER:
            self.tracer = trace.get_tracer(
                attr.SCOPE_NAME, VERSION, tracer_provider=tracer_provider
            )
        self.instruments: Instruments | None = instruments_for(meter_provider)
        self.logger: Logger | None = None
        if logger_provider is not None:
            with _GETTING_LOGGER:
                self.logger = logger_provider.get_logger(attr.SCOPE_NAME, VERSION)
        # The no-SDK fast path (for_call): possible only when every signal
        # goes to the API's no-op or proxy objects and no logger is given.
        tracer_kind = type(self.tracer)
        #: Whether the tracer is the API's proxy, which follows a global provider set later.
        self.follows_global_tracer = tracer_kind is trace.ProxyTracer
        instruments = self.instruments
        #: Whether the instruments are the API's proxies, which follow a global provider set later.
        self.follows_global_meter = instruments is not None and instruments.proxied
        quiet = (
            can_watch()
            and self.logger is None
            and (self.follows_global_tracer or tracer_kind is trace.NoOpTracer)
            and (instruments is None or instruments.proxied or instruments.no_op)
        )
        #: The twin :meth:`for_call` returns while no SDK can see a call, or None.
        self.silent: Telemetry | None = _Silent(self) if quiet else None

    def renamed(self, qualname: str) -> Telemetry:
        """A copy reporting under ``qualname`` (same providers and settings)."""
        twin = copy.copy(self)
        twin.qualname = qualname
        twin.call_span_name = attr.CALL_SPAN_PREFIX + qualname
        if twin.silent is not None:
            twin.silent = _Silent(twin)
        return twin

    def for_call(self) -> Telemetry:
        """
        The telemetry of one call: this one, or its silent twin when no SDK can see the call.

        Checked at the start of every call (two module-global reads), so a
        provider set globally after the loop was built is used from the next
        call on. The twin starts the spans the API's no-op tracer starts
        (the caller's current span when it is not recording, else a
        non-recording span with its context), so what the LLM call sees as
        its current span is unchanged, and skips everything such spans, the
        proxy instruments and a missing logger would drop anyway.
        """
        silent = self.silent
        if silent is None:
            return self
        if self.follows_global_tracer and tracing_set():
            return self
        if self.follows_global_meter and metrics_set():
            return self
        return silent

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
        span: Span = INVALID_SPAN
        with _STARTING_CALL:
            span = self.tracer.start_span(self.call_span_name)
        with _SETTING_CALL:
            if span.is_recording():
                attributes: dict[str, AttributeValue] = {
                    attr.RELAPSE_MAX_ITERATIONS: max_iterations,
                    attr.CODE_FUNCTION_NAME: self.qualname,
                    **_CHAIN_KIND,
                }
                if chunk_count is not None:
                    attributes[attr.RELAPSE_CHUNKS_COUNT] = chunk_count
                span.set_attributes(attributes)
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
        span: Span = INVALID_SPAN
        with _STARTING_ITERATION:
            span = self.tracer.start_span(
                attr.ITERATION_SPAN_NAME, context=trace.set_span_in_context(call_span)
            )
        with _SETTING_ITERATION:
            if span.is_recording():
                span.set_attributes({attr.RELAPSE_ITERATION: iteration, **_CHAIN_KIND})
        return span

    def start_check(self, iteration_span: Span, check_name: str) -> Span:
        """
        Start the check span under ``iteration_span``, just before the check runs.

        The loop makes it current while the check runs (see
        :func:`relapse._telemetry.context.active`), so spans a check starts
        (an LLM judge's own LLM call) are its children.

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
        # Given at start, not set after: one attribute update fewer per iteration.
        attributes = {attr.GEN_AI_EVALUATION_NAME: check_name, **_GUARDRAIL_KIND}
        return self._start_child(iteration_span, attr.CHECK_SPAN_NAME, attributes, _STARTING_CHECK)

    def _start_child(
        self, parent: Span, name: str, attributes: dict[str, AttributeValue], guard: Harmless
    ) -> Span:
        """
        Start the span ``name`` under ``parent``, with ``attributes``.

        Returns:
            The span; ``INVALID_SPAN`` when ``parent`` is not recording (its
            child would not be either) or the SDK failed to start one (which
            ``guard`` logs).
        """
        with guard:
            if parent.is_recording():
                return self.tracer.start_span(
                    name, context=trace.set_span_in_context(parent), attributes=attributes
                )
        return INVALID_SPAN

    def end_iteration(
        self,
        span: Span,
        record: IterationRecord,
        check_name: str,
        check_s: float,
        check_span: Span,
        chunk_count: int | None = None,
        annotator: str = attr.ANNOTATOR_CODE,
    ) -> None:
        """
        Report one iteration's verdict and end its check span and its span.

        The iteration span also gets ``relapse.chunks.count`` (the chunks this
        answer was checked against), on a retry the ``relapse.retry.*``
        lineage counts, when rejected Langfuse's WARNING level with the error
        codes as status message, and the OpenInference inline evaluation
        ``evaluations.0.*`` of the verdict.

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
            chunk_count: How many chunks the answer was checked against.
            annotator: ``CODE`` or ``LLM``: who judged (the inline evaluation's
                annotator kind).
        """
        content = self.content
        recording = False
        verdict: dict[str, AttributeValue] = {}
        answer: str | None = None
        with _SETTING_VERDICT:
            recording = span.is_recording()
            if recording:
                verdict = verdict_attributes(record)
                span.set_attributes(
                    {
                        **verdict,
                        attr.RELAPSE_CHECK_DURATION: float(check_s),
                        **usage_attributes(record.usage, record.usage is not None),
                    }
                )
                extra: dict[str, AttributeValue] = {}
                if chunk_count is not None:
                    extra[attr.RELAPSE_CHUNKS_COUNT] = chunk_count
                if record.iteration > 1:
                    extra.update(lineage_attributes(record))
                if not record.grounded:
                    extra.update(rejection_attributes(record))
                span.set_attributes(extra)
                if content.capture:
                    captured = content.iteration(record)
                    if captured is not None:
                        span.set_attributes(captured[0])
                        answer = captured[1]
        explained: str | None = None
        if record.findings and (recording or self.logger is not None):
            with _EXPLAINING:
                explained = content.explain(record.findings)
        if recording:
            with _SETTING_VERDICT:
                span.set_attributes(inline_evaluation(record, check_name, annotator, explained))
        if check_span is not INVALID_SPAN:
            self._end_check(check_span, record, verdict, answer, explained)
        self._evaluation_event(span, recording, record, check_name, explained)
        instruments = self.instruments
        if instruments is not None:
            instruments.record_iteration(check_name, check_s, record.findings)
        with _ENDING_ITERATION:
            span.end()

    def start_retrieval(self, call_span: Span, iteration: int) -> Span:
        """
        Start the span of one ``retrieve=`` call under ``call_span``, before the retry.

        Args:
            call_span: What :meth:`start_call` returned.
            iteration: The iteration the retrieval prepares (``relapse.iteration``).

        Returns:
            The span; ``INVALID_SPAN`` when ``call_span`` is not recording or
            the SDK failed to start one.
        """
        if call_span is INVALID_SPAN:
            return INVALID_SPAN
        attributes = {attr.RELAPSE_ITERATION: iteration, **_RETRIEVER_KIND}
        return self._start_child(
            call_span, attr.RETRIEVAL_SPAN_NAME, attributes, _STARTING_RETRIEVAL
        )

    def end_retrieval(self, span: Span, fresh: tuple[object, Sequence[str]] | None) -> None:
        """
        Put what ``retrieve`` returned on its span and end it.

        ``relapse.chunks.count`` and, per chunk, OpenInference's
        ``retrieval.documents.N.document.id`` (when the chunk has one) and
        ``.score`` (a document's or mapping's numeric ``score``, a LlamaIndex
        ``NodeWithScore``'s); ``.content`` only with content capture, through
        ``redact``. When ``retrieve`` returned None (keep the chunks), only
        the kind and iteration.
        """
        with _ENDING_RETRIEVAL:
            if span.is_recording() and fresh is not None:
                span.set_attributes(self._documents(*fresh))
        with _ENDING_RETRIEVAL:
            span.end()

    def _documents(self, value: object, texts: Sequence[str]) -> dict[str, AttributeValue]:
        """The retrieval span's attributes of the chunks ``value`` (texts ``texts``)."""
        items: Sequence[object] = texts
        if isinstance(value, (list, tuple)) and len(value) == len(texts):
            items = value
        attributes: dict[str, AttributeValue] = {attr.RELAPSE_CHUNKS_COUNT: len(texts)}
        contents = self.content.redacted(*texts) if self.content.capture else None
        for index, item in enumerate(items):
            found = chunk_id_of(item)
            if found is None:
                found = chunk_id_of(texts[index])
            if found is not None:
                attributes[attr.document_key(index, attr.DOCUMENT_ID)] = found
            score = None if isinstance(item, str) else member(item, "score")
            if isinstance(score, (int, float)) and not isinstance(score, bool):
                attributes[attr.document_key(index, attr.DOCUMENT_SCORE)] = float(score)
            if contents is not None:
                attributes[attr.document_key(index, attr.DOCUMENT_CONTENT)] = contents[index]
        return attributes

    def end_call(self, span: Span, result: RelapseResult) -> None:
        """
        Report the call's outcome, count it in the metrics and end ``span``.

        Args:
            span: What :meth:`start_call` returned.
            result: The call's result (iterations, grounded, outcome).
        """
        with _SETTING_CALL:
            if span.is_recording():
                span.set_attributes(
                    {
                        attr.RELAPSE_ITERATIONS: result.iterations,
                        attr.RELAPSE_GROUNDED: result.grounded,
                        attr.RELAPSE_OUTCOME: result.outcome,
                        **usage_attributes(
                            result.usage,
                            all(record.usage is not None for record in result.transcript),
                        ),
                    }
                )
                if self.content.capture and result.transcript:
                    # Iteration 1's prompt is the caller's query, unchanged.
                    texts = self.content.redacted(result.transcript[0].prompt, str(result.answer))
                    if texts is not None:
                        span.set_attributes(
                            {attr.INPUT_VALUE: texts[0], attr.OUTPUT_VALUE: texts[1]}
                        )
        instruments = self.instruments
        if instruments is not None:
            instruments.record_call(result)
        with _ENDING_CALL:
            span.end()

    def fail_call(self, span: Span, error: BaseException, usage: Usage | None = None) -> None:
        """
        Mark the call span as failed by ``error``, end it, count the call as ``"error"``.

        The calls counter gets ``relapse.outcome="error"`` and ``error.type``;
        the iterations histogram records completed calls only. ``usage``, the
        tokens the call's iterations reported before it failed, goes on the
        span and on the tokens histogram (outcome ``"error"``): they were paid.
        """
        with _SETTING_CALL_USAGE:
            if usage is not None and span.is_recording():
                span.set_attributes(usage_attributes(usage, None))
        self.fail(span, error)
        instruments = self.instruments
        if instruments is not None:
            instruments.record_failed_call(error, usage)

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
        with _RECORDING_ERROR:
            if span.is_recording():
                if usage is not None:
                    span.set_attributes(usage_attributes(usage, None))
                span.set_attribute(attr.ERROR_TYPE, type(error).__qualname__)
                span.set_status(Status(StatusCode.ERROR, str(error) or type(error).__name__))
                if isinstance(error, Exception):
                    span.record_exception(error)
        with _ENDING_FAILED:
            span.end()

    # Helpers ----------------------------------------------------------------

    def _end_check(
        self,
        span: Span,
        record: IterationRecord,
        verdict: Mapping[str, AttributeValue],
        answer: str | None,
        explained: str | None,
    ) -> None:
        """
        Put the verdict on the check ``span`` and end it.

        ``verdict`` is what the iteration span got (empty when it is not
        recording). ``answer`` is the redacted answer when content capture is
        on and ``redact`` did not fail; only then does the span get content:
        the answer as ``input.value`` and, when there are findings, their
        messages with the failing spans in them as ``output.value`` (see
        :meth:`Content.check_output <relapse._telemetry.content.Content.check_output>`).
        ``explained`` is the event's explanation, recorded instead when
        ``redact`` fails on the messages.
        """
        with _SETTING_CHECK:
            if span.is_recording():
                attributes = dict(verdict) if verdict else verdict_attributes(record)
                attributes.update(check_cost_attributes(record))
                if answer is not None:
                    attributes[attr.INPUT_VALUE] = answer
                    output = self.content.check_output(record.findings, explained)
                    if output is not None:
                        attributes[attr.OUTPUT_VALUE] = output
                span.set_attributes(attributes)
        with _ENDING_CHECK:
            span.end()

    def _evaluation_event(
        self,
        span: Span,
        recording: bool,
        record: IterationRecord,
        check_name: str,
        explained: str | None,
    ) -> None:
        """Emit ``gen_ai.evaluation.result``: a log record, or a span event."""
        logger = self.logger
        if logger is None and not recording:
            return
        with _EMITTING_EVENT:
            event: dict[str, AttributeValue] = {
                attr.GEN_AI_EVALUATION_NAME: check_name,
                attr.GEN_AI_EVALUATION_SCORE_LABEL: (
                    attr.LABEL_PASS if record.grounded else attr.LABEL_FAIL
                ),
                attr.GEN_AI_EVALUATION_SCORE_VALUE: 1.0 if record.grounded else 0.0,
                **score_attribute(record.findings),
            }
            if explained is not None:
                event[attr.GEN_AI_EVALUATION_EXPLANATION] = explained
            identifier = response_id(record.response)
            if identifier is not None:
                event[attr.GEN_AI_RESPONSE_ID] = identifier
            self._emit(span, event)

    def fail_check(
        self,
        span: Span,
        check_span: Span,
        check_name: str,
        record: IterationRecord,
        error: BaseException,
    ) -> None:
        """
        Report a check that raised: an evaluation event with ``error.type``; fail ``check_span``.

        Args:
            span: The iteration span (the event's parent).
            check_span: What :meth:`start_check` returned.
            check_name: The check's name (``gen_ai.evaluation.name``).
            record: The iteration's record (its response's id goes on the event).
            error: What the check raised.
        """
        if self.logger is not None or span.is_recording():
            with _EMITTING_EVENT:
                event: dict[str, AttributeValue] = {
                    attr.GEN_AI_EVALUATION_NAME: check_name,
                    attr.ERROR_TYPE: type(error).__qualname__,
                }
                identifier = response_id(record.response)
                if identifier is not None:
                    event[attr.GEN_AI_RESPONSE_ID] = identifier
                self._emit(span, event)
        self.fail(check_span, error)

    def _emit(self, span: Span, event: dict[str, AttributeValue]) -> None:
        """Emit one ``gen_ai.evaluation.result`` event: a log record, or a span event."""
        logger = self.logger
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


class _Silent(Telemetry):
    """
    The telemetry of a call no SDK can see: the no-op tracer's spans, nothing else.

    Its spans come from the API's :class:`~opentelemetry.trace.NoOpTracer`
    (what the proxy tracer delegates to while no provider is set), so they
    never record, and a provider set in the middle of a call cannot leave a
    recording span of it unended. Ending a non-recording span, setting its
    attributes and recording on the proxy instruments do nothing, so
    :meth:`end_iteration` and :meth:`end_call` return at once; the other
    methods are :class:`Telemetry`'s (with no instruments and no logger).
    """

    __slots__ = ()

    def __init__(self, loud: Telemetry) -> None:
        self.qualname = loud.qualname
        self.call_span_name = loud.call_span_name
        self.content = loud.content
        self.tracer = trace.NoOpTracer()
        self.instruments = None
        self.logger = None
        self.follows_global_tracer = False
        self.follows_global_meter = False
        self.silent = None

    def start_call(self, max_iterations: int, chunk_count: int | None) -> Span:
        """The no-op tracer's span for the call (see :meth:`Telemetry.start_call`)."""
        with _STARTING_CALL:
            return self.tracer.start_span(self.call_span_name)
        return INVALID_SPAN

    def end_iteration(
        self,
        span: Span,
        record: IterationRecord,
        check_name: str,
        check_s: float,
        check_span: Span,
        chunk_count: int | None = None,
        annotator: str = attr.ANNOTATOR_CODE,
    ) -> None:
        """Nothing to report: ``span`` and ``check_span`` do not record, no metric is read."""

    def end_call(self, span: Span, result: RelapseResult) -> None:
        """Nothing to report: ``span`` does not record, no metric is read."""
