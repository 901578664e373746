"""The semantic-convention names in relapse._telemetry.attributes match opentelemetry.semconv."""

from __future__ import annotations

import pytest
from openinference.semconv.trace import (
    DocumentAttributes,
    EvaluationAttributes,
    OpenInferenceAnnotatorKindValues,
    OpenInferenceSpanKindValues,
    SpanAttributes,
)
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes
from opentelemetry.semconv.attributes import code_attributes, error_attributes

from relapse._telemetry import attributes as attr


class TestSemconvNames:
    @pytest.mark.parametrize(
        ("ours", "theirs"),
        [
            (attr.ERROR_TYPE, error_attributes.ERROR_TYPE),
            (attr.CODE_FUNCTION_NAME, code_attributes.CODE_FUNCTION_NAME),
            (attr.GEN_AI_INPUT_MESSAGES, gen_ai_attributes.GEN_AI_INPUT_MESSAGES),
            (attr.GEN_AI_OUTPUT_MESSAGES, gen_ai_attributes.GEN_AI_OUTPUT_MESSAGES),
            (attr.GEN_AI_EVALUATION_NAME, gen_ai_attributes.GEN_AI_EVALUATION_NAME),
            (attr.GEN_AI_EVALUATION_SCORE_LABEL, gen_ai_attributes.GEN_AI_EVALUATION_SCORE_LABEL),
            (attr.GEN_AI_EVALUATION_SCORE_VALUE, gen_ai_attributes.GEN_AI_EVALUATION_SCORE_VALUE),
            (attr.GEN_AI_EVALUATION_EXPLANATION, gen_ai_attributes.GEN_AI_EVALUATION_EXPLANATION),
            (attr.GEN_AI_TOKEN_TYPE, gen_ai_attributes.GEN_AI_TOKEN_TYPE),
            (attr.TOKEN_TYPE_INPUT, gen_ai_attributes.GenAiTokenTypeValues.INPUT.value),
            (attr.TOKEN_TYPE_OUTPUT, gen_ai_attributes.GenAiTokenTypeValues.COMPLETION.value),
            (attr.GEN_AI_RESPONSE_ID, gen_ai_attributes.GEN_AI_RESPONSE_ID),
            (attr.GEN_AI_OPERATION_NAME, gen_ai_attributes.GEN_AI_OPERATION_NAME),
            (
                attr.OPERATION_RETRIEVAL,
                gen_ai_attributes.GenAiOperationNameValues.RETRIEVAL.value,
            ),
        ],
    )
    def test_constant_matches_semconv(self, ours: str, theirs: str) -> None:
        """Each literal in _attributes equals the semconv constant of the same meaning."""
        assert theirs == ours

    @pytest.mark.parametrize(
        ("ours", "theirs"),
        [
            (attr.OPENINFERENCE_SPAN_KIND, SpanAttributes.OPENINFERENCE_SPAN_KIND),
            (attr.INPUT_VALUE, SpanAttributes.INPUT_VALUE),
            (attr.OUTPUT_VALUE, SpanAttributes.OUTPUT_VALUE),
            (attr.SPAN_KIND_CHAIN, OpenInferenceSpanKindValues.CHAIN.value),
            (attr.SPAN_KIND_GUARDRAIL, OpenInferenceSpanKindValues.GUARDRAIL.value),
            (attr.SPAN_KIND_RETRIEVER, OpenInferenceSpanKindValues.RETRIEVER.value),
            (attr.OPENINFERENCE_EVALUATIONS, SpanAttributes.EVALUATIONS),
            (attr.EVALUATION_NAME, EvaluationAttributes.EVALUATION_NAME),
            (attr.EVALUATION_LABEL, EvaluationAttributes.EVALUATION_LABEL),
            (attr.EVALUATION_SCORE, EvaluationAttributes.EVALUATION_SCORE),
            (attr.EVALUATION_EXPLANATION, EvaluationAttributes.EVALUATION_EXPLANATION),
            (attr.EVALUATION_ANNOTATOR_KIND, EvaluationAttributes.EVALUATION_ANNOTATOR_KIND),
            (attr.ANNOTATOR_CODE, OpenInferenceAnnotatorKindValues.CODE.value),
            (attr.ANNOTATOR_LLM, OpenInferenceAnnotatorKindValues.LLM.value),
            (attr.RETRIEVAL_DOCUMENTS, SpanAttributes.RETRIEVAL_DOCUMENTS),
            (attr.DOCUMENT_ID, DocumentAttributes.DOCUMENT_ID),
            (attr.DOCUMENT_SCORE, DocumentAttributes.DOCUMENT_SCORE),
            (attr.DOCUMENT_CONTENT, DocumentAttributes.DOCUMENT_CONTENT),
        ],
    )
    def test_constant_matches_openinference(self, ours: str, theirs: str) -> None:
        """The names Phoenix reads equal the OpenInference conventions' constants."""
        assert theirs == ours

    def test_langfuse_names(self) -> None:
        """
        Langfuse's own names, as its OpenTelemetry property mapping documents them.

        Langfuse ships them only inside its SDK (``LangfuseOtelSpanAttributes``),
        too heavy a test dependency; the mapping page names
        ``langfuse.observation.type`` and the lowercase types ``chain`` and
        ``guardrail`` (its observation types page lists both).
        """
        assert (
            "langfuse.observation.level",
            "WARNING",
            "langfuse.observation.status_message",
            "retriever",
        ) == (
            attr.LANGFUSE_OBSERVATION_LEVEL,
            attr.OBSERVATION_LEVEL_WARNING,
            attr.LANGFUSE_OBSERVATION_STATUS_MESSAGE,
            attr.OBSERVATION_TYPE_RETRIEVER,
        )
        assert ("langfuse.observation.type", "chain", "guardrail") == (
            attr.LANGFUSE_OBSERVATION_TYPE,
            attr.OBSERVATION_TYPE_CHAIN,
            attr.OBSERVATION_TYPE_GUARDRAIL,
        )

    def test_evaluation_event_name_is_the_attribute_namespace_plus_result(self) -> None:
        """The event name follows the gen_ai.evaluation.* attributes (semconv has no constant)."""
        prefix = gen_ai_attributes.GEN_AI_EVALUATION_NAME.rsplit(".", 1)[0]
        assert prefix + ".result" == attr.GEN_AI_EVALUATION_RESULT_EVENT

    def test_every_semconv_style_name_is_pinned(self) -> None:
        """No name outside relapse.* is added to _attributes without a pin above."""
        pinned = {
            "ERROR_TYPE",
            "CODE_FUNCTION_NAME",
            "GEN_AI_INPUT_MESSAGES",
            "GEN_AI_OUTPUT_MESSAGES",
            "GEN_AI_EVALUATION_NAME",
            "GEN_AI_EVALUATION_SCORE_LABEL",
            "GEN_AI_EVALUATION_SCORE_VALUE",
            "GEN_AI_EVALUATION_EXPLANATION",
            "GEN_AI_EVALUATION_RESULT_EVENT",
            "OPENINFERENCE_SPAN_KIND",
            "INPUT_VALUE",
            "OUTPUT_VALUE",
            "LANGFUSE_OBSERVATION_TYPE",
            "GEN_AI_TOKEN_TYPE",
            "GEN_AI_RESPONSE_ID",
            "GEN_AI_OPERATION_NAME",
            "LANGFUSE_OBSERVATION_LEVEL",
            "LANGFUSE_OBSERVATION_STATUS_MESSAGE",
            "EVALUATION_NAME",
            "EVALUATION_LABEL",
            "EVALUATION_SCORE",
            "EVALUATION_EXPLANATION",
            "EVALUATION_ANNOTATOR_KIND",
            "RETRIEVAL_DOCUMENTS",
            "DOCUMENT_ID",
            "DOCUMENT_SCORE",
            "DOCUMENT_CONTENT",
        }
        foreign = {
            name
            for name, value in vars(attr).items()
            if name.isupper()
            and isinstance(value, str)
            and "." in value
            and not value.startswith("relapse")
        }
        assert pinned == foreign
