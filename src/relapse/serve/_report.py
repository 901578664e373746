"""
The ``relapse`` object a response carries: what the loop did, in JSON.

Built from the :class:`relapse.RelapseResult` once the loop ended, the same
for a response, the final stream chunk and a ``not_grounded`` error. Offsets
are ``[start, end)`` character offsets into the answer the client received
(findings: into that attempt's answer) or into the chunk's text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from relapse._read.usage import default_usage_of
from relapse._results import RelapseResult, Usage, total_usage

#: The outcome of a request that carried no chunks: passed through, never checked.
UNCHECKED = "unchecked"

_NO_USAGE = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}


def usage_json(usage: Usage | None) -> dict[str, int] | None:
    """``usage`` in OpenAI's names, or None."""
    if usage is None:
        return None
    return {
        "prompt_tokens": usage.input_tokens,
        "completion_tokens": usage.output_tokens,
        "total_tokens": usage.total_tokens,
    }


def summed_usage(result: RelapseResult) -> Usage | None:
    """The tokens every attempt reported, summed; None when none reported any."""
    return total_usage(record.usage for record in result.transcript)


def report(result: RelapseResult) -> dict[str, Any]:
    """
    The ``relapse`` object of a checked request.

    Returns:
        ``{"checked": true, "outcome", "grounded", "iterations", "findings",
        "attempts", "citations", "redactions", "usage"}``: ``findings`` are
        every attempt's (each names its ``iteration``); ``usage`` sums the
        attempts' reports, and ``usage.attempts_unreported`` counts the
        attempts that reported none (a stream closed at a failing sentence
        never reaches its usage chunk).
    """
    findings = [
        {
            "iteration": record.iteration,
            "code": finding.code,
            "message": finding.message,
            "severity": finding.severity,
            "spans": list(finding.spans),
            "offsets": [list(offset) for offset in finding.offsets],
        }
        for record in result.transcript
        for finding in record.findings
    ]
    attempts = [
        {
            "iteration": record.iteration,
            "grounded": record.grounded,
            "codes": [finding.code for finding in record.findings],
            "usage": usage_json(record.usage),
        }
        for record in result.transcript
    ]
    usage = usage_json(summed_usage(result)) or _NO_USAGE
    unreported = sum(1 for record in result.transcript if record.usage is None)
    return {
        "checked": True,
        "outcome": result.outcome,
        "grounded": result.grounded,
        "iterations": result.iterations,
        "findings": findings,
        "attempts": attempts,
        "citations": citations(result),
        "redactions": [
            {"iteration": item.iteration, "offsets": list(item.span)} for item in result.redactions
        ],
        "usage": {**usage, "attempts_unreported": unreported},
    }


def citations(result: RelapseResult) -> list[dict[str, Any]]:
    """The evidence of the returned answer: which chunk supports which span of it."""
    return [
        {
            "chunk_index": item.chunk_index,
            "chunk_id": item.chunk_id,
            "kind": item.kind,
            "answer_offsets": list(item.answer_span),
            "chunk_offsets": list(item.chunk_span),
        }
        for item in result.evidence
    ]


def unchecked_report(responses: Sequence[object]) -> dict[str, Any]:
    """
    The ``relapse`` object of a request passed through unchecked (no chunks).

    Args:
        responses: What usage is read from: the response, or a stream's chunks.
    """
    usage = total_usage(default_usage_of(item) for item in responses)
    return {
        "checked": False,
        "outcome": UNCHECKED,
        "grounded": False,
        "iterations": 1,
        "findings": [],
        "attempts": [],
        "citations": [],
        "redactions": [],
        "usage": {**(usage_json(usage) or _NO_USAGE), "attempts_unreported": int(usage is None)},
    }
