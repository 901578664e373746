"""
Every telemetry name relapse emits, in one place.

Names under ``relapse.`` are the project's own. The others are OpenTelemetry
semantic-convention names; they are spelled out here rather than imported
from ``opentelemetry-semantic-conventions`` because the runtime depends on
``opentelemetry-api`` alone. ``tests/telemetry/test_semconv.py`` pins each of
them to the semantic-conventions constant of the same meaning.

``docs/telemetry.md`` documents every name: its type and when it is set.
"""

from __future__ import annotations

from typing import Final

#: Instrumentation scope name for the tracer, meter and logger.
SCOPE_NAME: Final = "relapse"

#: Name of the span wrapping one LLM call of the loop.
ITERATION_SPAN_NAME: Final = "relapse.iteration"
#: Name of the span wrapping one run of the grounding check, a child of its
#: iteration span.
CHECK_SPAN_NAME: Final = "relapse.check"
#: Prefix of the call span name; the decorated function's qualname follows.
CALL_SPAN_PREFIX: Final = "relapse "

# Iteration span (the verdict attributes are repeated on the check span).
#: int, from 1.
RELAPSE_ITERATION: Final = "relapse.iteration"
#: bool; also on the call span.
RELAPSE_GROUNDED: Final = "relapse.grounded"
#: str[]: sorted, unique finding codes; empty when grounded.
RELAPSE_FINDINGS_CODES: Final = "relapse.findings.codes"
#: int: number of findings.
RELAPSE_FINDINGS_COUNT: Final = "relapse.findings.count"
#: str[]: the failing spans of every finding (content capture only).
RELAPSE_FINDINGS_SPANS: Final = "relapse.findings.spans"
#: double: seconds the grounding check took on this iteration's answer.
RELAPSE_CHECK_DURATION: Final = "relapse.check.duration"
#: double: the highest score (GroundingFinding.score, a probability) among the
#: findings that have one; absent when none has. Also on the check span and
#: the evaluation event.
RELAPSE_FINDINGS_SCORE_MAX: Final = "relapse.findings.score.max"

# Check span: what the check itself spent (an LLMJudge's model call), under
# relapse's own names for the reason given at relapse.usage.* below.
#: int: input tokens the check's model calls reported (IterationRecord.check_usage).
RELAPSE_CHECK_USAGE_INPUT_TOKENS: Final = "relapse.check.usage.input_tokens"
#: int: output tokens the check's model calls reported.
RELAPSE_CHECK_USAGE_OUTPUT_TOKENS: Final = "relapse.check.usage.output_tokens"

# Check span of a cascade (relapse.checks.cascade): one entry per stage, in
# the order the stages run, in parallel arrays (IterationRecord.stages).
#: str[]: the stages' names.
RELAPSE_CHECK_STAGES: Final = "relapse.check.stages"
#: str[]: each stage's verdict: ``pass``, ``fail`` or ``skipped`` (not run).
RELAPSE_CHECK_STAGES_VERDICT: Final = "relapse.check.stages.verdict"
#: double[]: seconds each stage took (0.0 when skipped).
RELAPSE_CHECK_STAGES_DURATION: Final = "relapse.check.stages.duration"
#: int[]: findings each stage raised (after its threshold).
RELAPSE_CHECK_STAGES_FINDINGS_COUNT: Final = "relapse.check.stages.findings.count"
#: int[]: input tokens each stage reported (0 where it reported none: see
#: relapse.check.stages.usage.known).
RELAPSE_CHECK_STAGES_INPUT_TOKENS: Final = "relapse.check.stages.usage.input_tokens"
#: int[]: output tokens each stage reported (0 where it reported none).
RELAPSE_CHECK_STAGES_OUTPUT_TOKENS: Final = "relapse.check.stages.usage.output_tokens"
#: bool[]: whether each stage reported its tokens.
RELAPSE_CHECK_STAGES_USAGE_KNOWN: Final = "relapse.check.stages.usage.known"
#: Values of RELAPSE_CHECK_STAGES_VERDICT.
STAGE_PASS: Final = "pass"
STAGE_FAIL: Final = "fail"
STAGE_SKIPPED: Final = "skipped"

# Iteration span, on retries (iteration 2+): what the retry did to the previous
# answer's error findings (IterationRecord.resolved/.persisted/.introduced).
# Codes, sorted and unique, with the count of failing spans of each code in
# the parallel int[]; no content.
#: str[]: codes of the failing spans this retry resolved.
RELAPSE_RETRY_RESOLVED_CODES: Final = "relapse.retry.resolved.codes"
#: int[]: failing spans resolved, per code of RELAPSE_RETRY_RESOLVED_CODES.
RELAPSE_RETRY_RESOLVED_COUNTS: Final = "relapse.retry.resolved.counts"
#: str[]: codes of the failing spans this retry kept.
RELAPSE_RETRY_PERSISTED_CODES: Final = "relapse.retry.persisted.codes"
#: int[]: failing spans kept, per code.
RELAPSE_RETRY_PERSISTED_COUNTS: Final = "relapse.retry.persisted.counts"
#: str[]: codes of the failing spans this retry introduced.
RELAPSE_RETRY_INTRODUCED_CODES: Final = "relapse.retry.introduced.codes"
#: int[]: failing spans introduced, per code.
RELAPSE_RETRY_INTRODUCED_COUNTS: Final = "relapse.retry.introduced.counts"

# Iteration and call spans: tokens, under relapse's own names. Not
# gen_ai.usage.*: the provider's own LLM span (a child of the iteration span)
# carries those, and a backend summing gen_ai.usage.* over a trace would
# count every retry twice (semantic-conventions-genai issue 476).
#: int: input tokens of this iteration's LLM call; on the call span, of all of them.
RELAPSE_USAGE_INPUT_TOKENS: Final = "relapse.usage.input_tokens"
#: int: output tokens of this iteration's LLM call; on the call span, of all of them.
RELAPSE_USAGE_OUTPUT_TOKENS: Final = "relapse.usage.output_tokens"
#: bool: whether the tokens are known: on the iteration span, whether its LLM
#: call reported usage; on the call span, whether every iteration's did (when
#: false, the call's relapse.usage.* are a lower bound, or absent). Never a
#: silent absence: a response without usage says so here.
RELAPSE_USAGE_KNOWN: Final = "relapse.usage.known"

# Call span.
#: int: LLM calls made.
RELAPSE_ITERATIONS: Final = "relapse.iterations"
#: int: the configured budget of LLM calls.
RELAPSE_MAX_ITERATIONS: Final = "relapse.max_iterations"
#: str: a :data:`relapse.Outcome` (the calls counter also has :data:`OUTCOME_ERROR`).
RELAPSE_OUTCOME: Final = "relapse.outcome"
#: int: number of retrieved chunks passed to the call; on each iteration span,
#: the chunks that iteration's answer was checked against (re-retrieval changes them).
RELAPSE_CHUNKS_COUNT: Final = "relapse.chunks.count"

# Metric dimension.
#: str: one finding code, on the findings counter.
RELAPSE_FINDING_CODE: Final = "relapse.finding.code"

# Metric instruments.
#: Histogram, unit ``{iteration}``: LLM calls per completed grounded call.
METRIC_CALL_ITERATIONS: Final = "relapse.call.iterations"
#: Counter, unit ``{call}``: grounded calls, by ``relapse.outcome``.
METRIC_CALLS: Final = "relapse.calls"
#: Counter, unit ``{finding}``: findings, by ``relapse.finding.code``.
METRIC_FINDINGS: Final = "relapse.findings"
#: Histogram, unit ``s``: grounding-check duration per iteration.
METRIC_CHECK_DURATION: Final = "relapse.check.duration"
#: Histogram, unit ``{token}``: tokens one grounded call spent over all its
#: LLM calls, by ``relapse.outcome`` and ``gen_ai.token.type``.
METRIC_CALL_TOKENS: Final = "relapse.call.tokens"

# Semantic-convention names (opentelemetry.semconv.attributes.error_attributes,
# ....attributes.code_attributes and ..._incubating.attributes.gen_ai_attributes).
ERROR_TYPE: Final = "error.type"
CODE_FUNCTION_NAME: Final = "code.function.name"
GEN_AI_INPUT_MESSAGES: Final = "gen_ai.input.messages"
GEN_AI_OUTPUT_MESSAGES: Final = "gen_ai.output.messages"
GEN_AI_EVALUATION_NAME: Final = "gen_ai.evaluation.name"
#: On the tokens histogram: ``"input"`` or ``"output"`` (GenAI token type values).
GEN_AI_TOKEN_TYPE: Final = "gen_ai.token.type"
TOKEN_TYPE_INPUT: Final = "input"
TOKEN_TYPE_OUTPUT: Final = "output"
GEN_AI_EVALUATION_SCORE_LABEL: Final = "gen_ai.evaluation.score.label"
GEN_AI_EVALUATION_SCORE_VALUE: Final = "gen_ai.evaluation.score.value"
GEN_AI_EVALUATION_EXPLANATION: Final = "gen_ai.evaluation.explanation"
#: Event name of one check verdict (GenAI evaluation event).
GEN_AI_EVALUATION_RESULT_EVENT: Final = "gen_ai.evaluation.result"
#: str, on the evaluation event: the provider's id of the judged response
#: (OpenAI ``chatcmpl-...``, Anthropic ``msg_...``), since the event is not
#: parented to the provider's own span.
GEN_AI_RESPONSE_ID: Final = "gen_ai.response.id"
#: str: the GenAI operation of a span; ``retrieval`` on the retrieval span.
GEN_AI_OPERATION_NAME: Final = "gen_ai.operation.name"
#: Value of GEN_AI_OPERATION_NAME on the span of a ``retrieve=`` call.
OPERATION_RETRIEVAL: Final = "retrieval"
#: Name of the span wrapping one ``retrieve=`` call (GenAI: ``{operation}``).
RETRIEVAL_SPAN_NAME: Final = "retrieval"
#: The GenAI content-capture switch (instrumentation-genai convention).
CAPTURE_CONTENT_ENV: Final = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"

# What tracing backends read to render a span as what it is. Phoenix reads the
# OpenInference names; Langfuse resolves langfuse.*, then gen_ai.*, then
# OpenInference. Neither is an OpenTelemetry semantic convention.
#: str: the OpenInference span kind (``CHAIN`` on the call and iteration spans,
#: ``GUARDRAIL`` on the check span).
OPENINFERENCE_SPAN_KIND: Final = "openinference.span.kind"
#: str: OpenInference's input of a span (content capture only).
INPUT_VALUE: Final = "input.value"
#: str: OpenInference's output of a span (content capture only).
OUTPUT_VALUE: Final = "output.value"
#: str: Langfuse's observation type (``chain`` on the call and iteration spans,
#: ``guardrail`` on the check span).
LANGFUSE_OBSERVATION_TYPE: Final = "langfuse.observation.type"
#: Value of OPENINFERENCE_SPAN_KIND: a step that links other steps.
SPAN_KIND_CHAIN: Final = "CHAIN"
#: Value of LANGFUSE_OBSERVATION_TYPE, Langfuse's name for the same.
OBSERVATION_TYPE_CHAIN: Final = "chain"
#: Value of OPENINFERENCE_SPAN_KIND: a check whose verdict decides what happens
#: to an input or output (here: return the answer, or ask again).
SPAN_KIND_GUARDRAIL: Final = "GUARDRAIL"
#: Value of LANGFUSE_OBSERVATION_TYPE, Langfuse's name for the same.
OBSERVATION_TYPE_GUARDRAIL: Final = "guardrail"
#: Value of OPENINFERENCE_SPAN_KIND on the retrieval span.
SPAN_KIND_RETRIEVER: Final = "RETRIEVER"
#: Value of LANGFUSE_OBSERVATION_TYPE on the retrieval span.
OBSERVATION_TYPE_RETRIEVER: Final = "retriever"
#: str: Langfuse's observation level; WARNING on a rejected iteration.
LANGFUSE_OBSERVATION_LEVEL: Final = "langfuse.observation.level"
#: Value of LANGFUSE_OBSERVATION_LEVEL on an iteration whose answer was rejected.
OBSERVATION_LEVEL_WARNING: Final = "WARNING"
#: str: Langfuse's status message; on a rejected iteration, its error codes
#: (sorted, unique, comma-separated): no content.
LANGFUSE_OBSERVATION_STATUS_MESSAGE: Final = "langfuse.observation.status_message"

# OpenInference inline evaluations on the iteration span: the check's verdict.
# Phoenix (20.26) lists them among the span's attributes; it does not turn
# them into its own annotations on ingest (relapse.integrations.phoenix's
# exporter posts them as annotations). The iteration span holds one: index 0.
#: Prefix of the inline evaluations; keys are ``evaluations.{N}.{attribute}``.
OPENINFERENCE_EVALUATIONS: Final = "evaluations"
#: str: the check's name.
EVALUATION_NAME: Final = "evaluation.name"
#: str: ``pass`` or ``fail``.
EVALUATION_LABEL: Final = "evaluation.label"
#: double: 1.0 (pass) or 0.0 (fail).
EVALUATION_SCORE: Final = "evaluation.score"
#: str: the explanation, as on the evaluation event (content rules apply).
EVALUATION_EXPLANATION: Final = "evaluation.explanation"
#: str: who judged: ``CODE`` (a deterministic check) or ``LLM`` (LLMJudge).
EVALUATION_ANNOTATOR_KIND: Final = "evaluation.annotator_kind"
ANNOTATOR_CODE: Final = "CODE"
ANNOTATOR_LLM: Final = "LLM"
# OpenInference retrieval documents, on the retrieval span:
# ``retrieval.documents.{N}.document.id`` / ``.score`` / ``.content``.
RETRIEVAL_DOCUMENTS: Final = "retrieval.documents"
DOCUMENT_ID: Final = "document.id"
DOCUMENT_SCORE: Final = "document.score"
#: Content capture only.
DOCUMENT_CONTENT: Final = "document.content"


def evaluation_key(index: int, name: str) -> str:
    """The key of one inline evaluation attribute: ``evaluations.{index}.{name}``."""
    return f"{OPENINFERENCE_EVALUATIONS}.{index}.{name}"


def document_key(index: int, name: str) -> str:
    """The key of one retrieved document's attribute: ``retrieval.documents.{index}.{name}``."""
    return f"{RETRIEVAL_DOCUMENTS}.{index}.{name}"


# Outcomes: the values of RELAPSE_OUTCOME are those of relapse.Outcome
# (relapse._results), defined once there; the calls counter adds one more.
#: Only on the calls counter: the call raised (the LLM call, the check, ...).
OUTCOME_ERROR: Final = "error"

# Values of GEN_AI_EVALUATION_SCORE_LABEL.
LABEL_PASS: Final = "pass"
LABEL_FAIL: Final = "fail"

# Iteration span of a stream released sentence by sentence (release="sentence").
#: int: sentences the check judged on this iteration (the released prefix's included).
RELAPSE_STREAM_SENTENCES_CHECKED: Final = "relapse.stream.sentences_checked"
#: int: sentences wholly released to the caller (the released prefix's included).
RELAPSE_STREAM_SENTENCES_RELEASED: Final = "relapse.stream.sentences_released"
#: int: characters of this iteration's text released to the caller.
RELAPSE_STREAM_RELEASED_CHARS: Final = "relapse.stream.released_chars"
#: int: characters this iteration's stream had produced when reading ended.
RELAPSE_STREAM_READ_CHARS: Final = "relapse.stream.read_chars"
#: bool: whether relapse stopped reading the stream before its end.
RELAPSE_STREAM_STOPPED: Final = "relapse.stream.stopped"
#: str: why it stopped: one of the STOP_* values below.
RELAPSE_STREAM_STOP_REASON: Final = "relapse.stream.stop_reason"
#: double: seconds from the start of the call to the first piece with text
#: released to the caller; on the iteration span that released it.
RELAPSE_STREAM_FIRST_RELEASE: Final = "relapse.stream.first_release_s"
#: int: characters of the prefix released by earlier iterations, which this
#: iteration's continuation did not have to generate again.
RELAPSE_STREAM_PREFIX_CHARS: Final = "relapse.stream.prefix_chars"
#: int: an ESTIMATE of the output tokens this iteration did not generate
#: because it continued after the released prefix: prefix characters / 4.
#: Not a provider count (a stopped stream never reports its usage).
RELAPSE_STREAM_SAVED_TOKENS_ESTIMATE: Final = "relapse.stream.saved_output_tokens_estimate"
#: str: release="sentence" fell back to "answer" on this iteration: one of the
#: FALLBACK_* values below.
RELAPSE_STREAM_FALLBACK: Final = "relapse.stream.fallback"

# Values of RELAPSE_STREAM_STOP_REASON.
#: A sentence failed the check: the stream was closed there.
STOP_FAILED_SENTENCE: Final = "failed_sentence"
#: The caller closed the stream (``close()``/``aclose()``, or left ``with``).
STOP_CLOSED: Final = "closed"

# Values of RELAPSE_STREAM_FALLBACK.
#: The check cannot judge text incrementally (``LLMJudge``, a plain function).
FALLBACK_CHECK: Final = "check_not_incremental"
#: ``answer_of`` reads the text: relapse cannot read pieces one by one.
FALLBACK_ANSWER_OF: Final = "answer_of"
#: ``chunks_of``: the chunks are known only once the stream is read.
FALLBACK_CHUNKS_OF: Final = "chunks_of"
#: The check returned no incremental form for this call.
FALLBACK_CALL: Final = "call_not_incremental"
