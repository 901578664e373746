"""
relapse: run-time grounding for RAG answers.

Wrap the function that calls your LLM; relapse checks each answer against the
retrieved chunks and, when the answer states numbers, dates or quotations the
chunks do not support, calls it again with a query that names exactly what
was wrong. Every attempt is an OpenTelemetry span.

>>> import relapse
>>> @relapse.grounded(chunks_arg="docs")
... def answer(query: str, docs: list[str]) -> str:
...     return "It ended in 1945."
>>> answer("When did the war end?", ["The war ended in 1945."])
'It ended in 1945.'
"""

from __future__ import annotations

from relapse import checks, chunks_from
from relapse._citations import Citation, citations, cite
from relapse._decorator import GroundedFunction
from relapse._engine import Loop, arun, grounded, run
from relapse._policy import LoopOptions
from relapse._read.answers import default_answer_of
from relapse._read.compress import default_compress
from relapse._read.streams import Streamed
from relapse._read.usage import default_usage_of
from relapse._results import (
    ClaimTrace,
    Evidence,
    GroundingFinding,
    GroundingResult,
    IterationRecord,
    Outcome,
    Redaction,
    RelapseResult,
    StageRun,
    Usage,
)
from relapse._state import Attempt, current_attempt
from relapse._stream.grounded import AsyncGroundedStream, GroundedStream
from relapse._version import VERSION as __version__  # noqa: N811 (the dunder is the convention)
from relapse.exceptions import NotGroundedError, RelapseError
from relapse.grounding import default_grounding_check
from relapse.prompts import compact_retry, instruction_retry, spans_only_retry

__all__ = [
    "AsyncGroundedStream",
    "Attempt",
    "Citation",
    "ClaimTrace",
    "Evidence",
    "GroundedFunction",
    "GroundedStream",
    "GroundingFinding",
    "GroundingResult",
    "IterationRecord",
    "Loop",
    "LoopOptions",
    "NotGroundedError",
    "Outcome",
    "Redaction",
    "RelapseError",
    "RelapseResult",
    "StageRun",
    "Streamed",
    "Usage",
    "__version__",
    "arun",
    "checks",
    "chunks_from",
    "citations",
    "cite",
    "compact_retry",
    "current_attempt",
    "default_answer_of",
    "default_compress",
    "default_grounding_check",
    "default_usage_of",
    "grounded",
    "instruction_retry",
    "run",
    "spans_only_retry",
]
