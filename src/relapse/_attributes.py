"""
Every telemetry name relapse emits, in one place.

Names under ``relapse.`` are the project's own. The others are OpenTelemetry
semantic-convention names; they are spelled out here rather than imported
from ``opentelemetry-semantic-conventions`` because the runtime depends on
``opentelemetry-api`` alone. ``tests/test_attributes.py`` pins each of them to
the semantic-conventions constant of the same meaning.
"""

from __future__ import annotations

from typing import Final

#: Instrumentation scope name for the tracer, meter and logger.
SCOPE_NAME: Final = "relapse"

#: Name of the span wrapping one LLM call of the loop.
ITERATION_SPAN_NAME: Final = "relapse.iteration"
#: Prefix of the call span name; the decorated function's qualname follows.
CALL_SPAN_PREFIX: Final = "relapse "

# Iteration span.
RELAPSE_ITERATION: Final = "relapse.iteration"
RELAPSE_GROUNDED: Final = "relapse.grounded"
RELAPSE_FINDINGS_CODES: Final = "relapse.findings.codes"
RELAPSE_FINDINGS_COUNT: Final = "relapse.findings.count"
RELAPSE_FINDINGS_SPANS: Final = "relapse.findings.spans"
RELAPSE_CHECK_DURATION: Final = "relapse.check.duration_s"

# Call span.
RELAPSE_ITERATIONS: Final = "relapse.iterations"
RELAPSE_MAX_ITERATIONS: Final = "relapse.max_iterations"
RELAPSE_OUTCOME: Final = "relapse.outcome"
RELAPSE_CHUNKS_COUNT: Final = "relapse.chunks.count"

# Metric dimension.
RELAPSE_FINDING_CODE: Final = "relapse.finding.code"

# Semantic-convention names (opentelemetry.semconv.attributes.error_attributes,
# ...._incubating.attributes.code_attributes and gen_ai_attributes).
ERROR_TYPE: Final = "error.type"
CODE_FUNCTION_NAME: Final = "code.function.name"
GEN_AI_INPUT_MESSAGES: Final = "gen_ai.input.messages"
GEN_AI_OUTPUT_MESSAGES: Final = "gen_ai.output.messages"
GEN_AI_EVALUATION_NAME: Final = "gen_ai.evaluation.name"
GEN_AI_EVALUATION_SCORE_LABEL: Final = "gen_ai.evaluation.score.label"
GEN_AI_EVALUATION_SCORE_VALUE: Final = "gen_ai.evaluation.score.value"
GEN_AI_EVALUATION_EXPLANATION: Final = "gen_ai.evaluation.explanation"
#: Event name of one check verdict (GenAI evaluation event).
GEN_AI_EVALUATION_RESULT_EVENT: Final = "gen_ai.evaluation.result"

# Outcomes (values of RELAPSE_OUTCOME).
OUTCOME_FIRST_TRY: Final = "grounded_first_try"
OUTCOME_RECOVERED: Final = "recovered"
OUTCOME_EXHAUSTED: Final = "exhausted"
OUTCOME_TIMEOUT: Final = "timeout"
