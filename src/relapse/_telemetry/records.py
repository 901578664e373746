"""
What a result record says as span attributes: pure functions, no SDK call.

The iteration, check and call spans of :class:`relapse._telemetry.Telemetry`
carry a record's verdict, cost, lineage and usage; these functions build those
attribute dictionaries from the records (:mod:`relapse._results`), so the span
lifecycle in ``__init__`` only decides when to set them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from relapse._lineage import count_by_code
from relapse._read.shapes import member
from relapse._read.streams import Streamed
from relapse._telemetry import attributes as attr

if TYPE_CHECKING:
    from opentelemetry.util.types import AttributeValue

    from relapse._results import GroundingFinding, IterationRecord, StageRun, Usage


def score_attribute(findings: Sequence[GroundingFinding]) -> dict[str, AttributeValue]:
    """``relapse.findings.score.max``: the highest score of ``findings``; empty if none has one."""
    scores = [f.score for f in findings if f.score is not None]
    return {attr.RELAPSE_FINDINGS_SCORE_MAX: float(max(scores))} if scores else {}


def verdict_attributes(record: IterationRecord) -> dict[str, AttributeValue]:
    """The verdict attributes of ``record``, shared by its iteration and check spans."""
    findings = record.findings
    return {
        attr.RELAPSE_GROUNDED: record.grounded,
        attr.RELAPSE_FINDINGS_CODES: tuple(sorted({f.code for f in findings})),
        attr.RELAPSE_FINDINGS_COUNT: len(findings),
        **score_attribute(findings),
    }


def stage_verdict(run: StageRun) -> str:
    if not run.ran:
        return attr.STAGE_SKIPPED
    return attr.STAGE_PASS if run.ok else attr.STAGE_FAIL


def check_cost_attributes(record: IterationRecord) -> dict[str, AttributeValue]:
    """
    What the check spent, for its span: its tokens, and a cascade's stages.

    ``relapse.check.usage.*`` when the check reported tokens (never a
    made-up zero); the ``relapse.check.stages*`` arrays, one entry per stage
    in the order they run, when the check is a cascade.
    """
    attributes: dict[str, AttributeValue] = {}
    usage = record.check_usage
    if usage is not None:
        attributes[attr.RELAPSE_CHECK_USAGE_INPUT_TOKENS] = usage.input_tokens
        attributes[attr.RELAPSE_CHECK_USAGE_OUTPUT_TOKENS] = usage.output_tokens
    stages = record.stages
    if stages:
        attributes[attr.RELAPSE_CHECK_STAGES] = tuple(run.name for run in stages)
        attributes[attr.RELAPSE_CHECK_STAGES_VERDICT] = tuple(stage_verdict(r) for r in stages)
        attributes[attr.RELAPSE_CHECK_STAGES_DURATION] = tuple(
            float(run.duration_s) for run in stages
        )
        attributes[attr.RELAPSE_CHECK_STAGES_FINDINGS_COUNT] = tuple(
            len(run.findings) for run in stages
        )
        attributes[attr.RELAPSE_CHECK_STAGES_INPUT_TOKENS] = tuple(
            0 if run.usage is None else run.usage.input_tokens for run in stages
        )
        attributes[attr.RELAPSE_CHECK_STAGES_OUTPUT_TOKENS] = tuple(
            0 if run.usage is None else run.usage.output_tokens for run in stages
        )
        attributes[attr.RELAPSE_CHECK_STAGES_USAGE_KNOWN] = tuple(
            run.usage is not None for run in stages
        )
    return attributes


def lineage_attributes(record: IterationRecord) -> dict[str, AttributeValue]:
    """The ``relapse.retry.*`` attributes of a retry: codes and span counts, no content."""
    attributes: dict[str, AttributeValue] = {}
    for findings, codes_key, counts_key in (
        (record.resolved, attr.RELAPSE_RETRY_RESOLVED_CODES, attr.RELAPSE_RETRY_RESOLVED_COUNTS),
        (record.persisted, attr.RELAPSE_RETRY_PERSISTED_CODES, attr.RELAPSE_RETRY_PERSISTED_COUNTS),
        (
            record.introduced,
            attr.RELAPSE_RETRY_INTRODUCED_CODES,
            attr.RELAPSE_RETRY_INTRODUCED_COUNTS,
        ),
    ):
        counts = count_by_code(findings)
        attributes[codes_key] = tuple(counts)
        attributes[counts_key] = tuple(counts.values())
    return attributes


def rejection_attributes(record: IterationRecord) -> dict[str, AttributeValue]:
    """Langfuse's level and status message of a rejected iteration: its error codes only."""
    codes = sorted({f.code for f in record.findings if f.severity == "error"})
    return {
        attr.LANGFUSE_OBSERVATION_LEVEL: attr.OBSERVATION_LEVEL_WARNING,
        attr.LANGFUSE_OBSERVATION_STATUS_MESSAGE: ", ".join(codes) or "rejected",
    }


def response_id(response: object) -> str | None:
    """
    The provider's id of a response (``gen_ai.response.id``), or None.

    An SDK response's (or its JSON form's) ``id`` when it is a non-empty
    ``str``: OpenAI ``chatcmpl-...``/``resp_...``, Anthropic ``msg_...``; for a
    stream, that of its first piece that has one. A plain ``str`` has none.
    """
    if isinstance(response, str) or response is None:
        return None
    candidates: tuple[object, ...] = (response,)
    if isinstance(response, Streamed):
        candidates = response.pieces
    for candidate in candidates:
        if isinstance(candidate, str):
            continue
        found = member(candidate, "id")
        if isinstance(found, str) and found:
            return found
    return None


def inline_evaluation(
    record: IterationRecord, check_name: str, annotator: str, explained: str | None
) -> dict[str, AttributeValue]:
    """The OpenInference inline evaluation ``evaluations.0.*`` of an iteration's verdict."""
    attributes: dict[str, AttributeValue] = {
        attr.evaluation_key(0, attr.EVALUATION_NAME): check_name,
        attr.evaluation_key(0, attr.EVALUATION_LABEL): (
            attr.LABEL_PASS if record.grounded else attr.LABEL_FAIL
        ),
        attr.evaluation_key(0, attr.EVALUATION_SCORE): 1.0 if record.grounded else 0.0,
        attr.evaluation_key(0, attr.EVALUATION_ANNOTATOR_KIND): annotator,
    }
    if explained is not None:
        attributes[attr.evaluation_key(0, attr.EVALUATION_EXPLANATION)] = explained
    return attributes


def usage_attributes(usage: Usage | None, known: bool | None) -> dict[str, AttributeValue]:
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
