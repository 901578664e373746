"""
What relapse may record of the texts it sees: content capture, redaction, explanations.

Off by default (the GenAI instrumentations' rule): without content capture
no byte of a prompt, answer, chunk or finding message reaches telemetry, and
the evaluation explanation names finding codes and span counts only. On, every
text goes through the user's ``redact`` first; if that raises or returns a
non-``str`` the text is not recorded (logged as a warning), never the raw text.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from relapse._telemetry import attributes as attr
from relapse._telemetry.context import Harmless

if TYPE_CHECKING:
    from opentelemetry.util.types import AttributeValue

    from relapse._results import GroundingFinding, IterationRecord

#: Values of ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`` (compared
#: case-insensitively) that turn content capture on. ``true`` is the boolean
#: form of the GenAI instrumentations; ``span_only`` and ``span_and_event`` are
#: the enum form of ``opentelemetry-util-genai``. Anything else means off.
CAPTURE_CONTENT_ON_VALUES = frozenset({"true", "span_only", "span_and_event"})

#: What replaces a failing span quoted in a finding message in the
#: ``gen_ai.evaluation.explanation``, which must not carry answer text (with
#: content capture on, the check span's ``output.value`` keeps the spans).
SCRUBBED_SPAN = "[span]"

# The user's redact is user code: its failures are warnings, not debug noise.
_REDACTING = Harmless("redact failed; this span's content is not recorded", level=logging.WARNING)
_REDACTING_CHECK_OUTPUT = Harmless(
    "redact failed; the check span's output is the explanation", level=logging.WARNING
)
_REDACTING_EXPLANATION = Harmless(
    "redact failed; the explanation names codes only", level=logging.WARNING
)


def capture_content_from_env() -> bool:
    """
    Whether ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`` turns capture on.

    Returns:
        True for ``true``, ``SPAN_ONLY`` or ``SPAN_AND_EVENT`` (any case,
        surrounding spaces ignored); False when unset or anything else.
    """
    return os.environ.get(attr.CAPTURE_CONTENT_ENV, "").strip().lower() in CAPTURE_CONTENT_ON_VALUES


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
            finding's code, severity, score (``(score 0.93)``, when it has
            one) and span count. On, ``"CODE: message"`` (the score too)
            with each failing span scrubbed out of the message (see :func:`scrub`).

    Returns:
        One part per finding, joined by ``"; "``.
    """
    if content:
        return "; ".join(f"{f.code}{_scored(f)}: {scrub(f.message, f.spans)}" for f in findings)
    return "; ".join(
        f"{f.code}{' (warning)' if f.severity == 'warning' else ''}{_scored(f)}:"
        f" {len(f.spans)} failing span(s)"
        for f in findings
    )


def _scored(finding: GroundingFinding) -> str:
    """`` (score 0.93)`` for a finding with a score, else nothing."""
    return "" if finding.score is None else f" (score {finding.score:.2f})"


def _message(role: str, text: str, **extra: str) -> str:
    """One GenAI message list with a single text part, as a JSON string."""
    message: dict[str, Any] = {"role": role, "parts": [{"type": "text", "content": text}]}
    message.update(extra)
    return json.dumps([message], ensure_ascii=False)


class Content:
    """
    The content policy of one ``Telemetry``: whether texts are captured, and how redacted.

    Immutable after construction and safe to share between threads (it
    holds no per-call state). No method raises: a failing ``redact`` is
    logged as a warning and the text it was given is left out.

    Args:
        capture: Whether prompts, answers, failing spans and finding
            messages are recorded at all.
        redact: ``redact(text) -> text`` applied to every captured text, or
            None to record texts as they are.
    """

    __slots__ = ("capture", "redact")

    def __init__(self, capture: bool, redact: Callable[[str], str] | None) -> None:
        self.capture = capture
        self.redact = redact

    def redacted(self, *texts: str) -> tuple[str, ...] | None:
        """``texts`` through ``redact``; None (logged) when it fails or returns a non-str."""
        redact = self.redact
        if redact is None:
            return texts
        with _REDACTING:
            redacted = tuple(redact(t) for t in texts)
            if all(isinstance(t, str) for t in redacted):
                return redacted
            raise TypeError("redact must return str")
        return None

    def iteration(self, record: IterationRecord) -> tuple[dict[str, AttributeValue], str] | None:
        """
        The content attributes of an iteration span: prompt, answer and failing spans, redacted.

        Returns:
            The attributes and the redacted answer (for the check span), or
            None when ``redact`` failed and nothing may be recorded.
        """
        failing = tuple(s for f in record.findings for s in f.spans)
        texts = self.redacted(record.prompt, record.answer, *failing)
        if texts is None:
            return None
        prompt, answer, *rest = texts
        captured: dict[str, AttributeValue] = {
            attr.GEN_AI_INPUT_MESSAGES: _message("user", prompt),
            attr.GEN_AI_OUTPUT_MESSAGES: _message("assistant", answer, finish_reason="stop"),
            attr.INPUT_VALUE: prompt,
            attr.OUTPUT_VALUE: answer,
        }
        if rest:
            captured[attr.RELAPSE_FINDINGS_SPANS] = tuple(rest)
        return captured, answer

    def check_output(
        self, findings: Sequence[GroundingFinding], explained: str | None
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
            explained: The evaluation event's explanation (spans scrubbed),
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
        with _REDACTING_CHECK_OUTPUT:
            redacted = self.redact(text)
            return redacted if isinstance(redacted, str) else explained
        return explained

    def explain(self, findings: Sequence[GroundingFinding]) -> str:
        """The explanation of ``findings``: message text only with capture on, and redacted."""
        if not self.capture:
            return explanation(findings)
        text = explanation(findings, content=True)
        if self.redact is None:
            return text
        with _REDACTING_EXPLANATION:
            redacted = self.redact(text)
            if isinstance(redacted, str):
                return redacted
        return explanation(findings)
