"""
relapse as an MCP server (optional extra ``mcp``, the official ``mcp`` package).

Any MCP client (an IDE agent, a desktop assistant, an agent framework) can
check an answer before it states it. ``relapse mcp`` serves two tools over
stdio, or with ``--transport http`` over streamable HTTP on 127.0.0.1:

* ``check_answer(question, chunks, answer)``: whether the answer is grounded
  in the chunks, each finding with its failing spans and their character
  offsets, the citations of what the chunks support, and, when the loop
  wants another answer, the ``retry_note`` to re-ask the model with and a
  ``call_id``. Passing that ``call_id`` with the next answer continues the
  same loop: its ``max_iterations``, stop rules and ``on_exhausted`` apply,
  the outcome (``recovered``, ``exhausted``...) is the loop's, and every
  answer is one attempt span under one call span, as for the decorator.
  The client may report each answer's tokens (``input_tokens``,
  ``output_tokens``); the loop sums them.
* ``retry_note(question, chunks, answer)``: only the note to re-ask with
  (empty when the answer is grounded).

::

    from relapse.integrations.mcp import build_server

    build_server(max_iterations=3).run()        # stdio, as `relapse mcp` does

The server never calls a model: the client's model answers, the server
checks. Its loops live in the server process (at most
:data:`MAX_OPEN_CALLS` at once; the oldest is ended, its spans stopped, when
another starts).
"""

from __future__ import annotations

import inspect
import uuid
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from relapse._citations import citations
from relapse._engine import Loop, hook_policy, loop_of
from relapse._read.chunks import chunk_texts
from relapse._results import (
    GroundingFinding,
    GroundingResult,
    IterationRecord,
    RelapseResult,
    Usage,
)
from relapse._state import Attempt
from relapse._version import VERSION
from relapse.checks._contract import prepare
from relapse.exceptions import RelapseError
from relapse.integrations._stepper import Retry, Stepper

try:
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    # pydantic reads a TypedDict's schema from typing_extensions' only, before Python 3.12.
    from typing_extensions import TypedDict
except ImportError as error:  # pragma: no cover - exercised by the missing-extra test
    raise ImportError(
        "relapse.integrations.mcp needs the mcp package; run: pip install 'relapse[mcp]'"
    ) from error

if TYPE_CHECKING:
    from typing import Unpack

    from relapse._policy import LoopOptions

__all__ = [
    "MAX_OPEN_CALLS",
    "SERVER_NAME",
    "CheckReport",
    "CitationReport",
    "FindingReport",
    "SpanReport",
    "build_server",
    "check_report",
]

#: The server's name, as MCP clients list it.
SERVER_NAME = "relapse"

#: How many loops waiting for their next answer the server keeps.
MAX_OPEN_CALLS = 1024

#: The span name of each check_answer loop: ``relapse mcp``.
SPAN_NAME = "mcp"


class SpanReport(TypedDict):
    """A failing span: its text and character offsets into the answer (end exclusive)."""

    text: str
    start: int | None
    end: int | None


class FindingReport(TypedDict):
    """One finding: its code (``docs/findings.md``), severity, message and failing spans."""

    code: str
    severity: str
    message: str
    spans: list[SpanReport]


class CitationReport(TypedDict):
    """A claim the chunks support: its text, marker number, chunk index and span in it."""

    claim: str
    number: int
    chunk_index: int
    chunk_id: str | None
    chunk_start: int
    chunk_end: int


class CheckReport(TypedDict):
    """
    What ``check_answer`` returns.

    ``grounded``, ``findings`` and ``citations`` are about the answer just
    checked. While the loop wants another answer, ``retry_note`` holds the
    note to re-ask with, ``call_id`` the id to pass with that answer, and
    ``outcome`` is None. Once it ended, ``outcome`` is the loop's
    (``grounded_first_try``, ``recovered``, ``exhausted``, ``stalled``...),
    ``answer`` the one to state (per ``on_exhausted``), ``answer_grounded``
    whether it passed, and the token counts those the client reported,
    summed over the attempts (None when it reported none).
    """

    grounded: bool
    iteration: int
    findings: list[FindingReport]
    citations: list[CitationReport]
    retry_note: str | None
    call_id: str | None
    outcome: str | None
    answer: str | None
    answer_grounded: bool | None
    input_tokens: int | None
    output_tokens: int | None


def _spans(finding: GroundingFinding) -> list[SpanReport]:
    # A check may report spans without offsets: then they are unknown, not zero.
    if len(finding.offsets) == len(finding.spans):
        return [
            {"text": text, "start": start, "end": end}
            for text, (start, end) in zip(finding.spans, finding.offsets, strict=True)
        ]
    return [{"text": text, "start": None, "end": None} for text in finding.spans]


def _findings(findings: Sequence[GroundingFinding]) -> list[FindingReport]:
    return [
        {
            "code": f.code,
            "severity": f.severity,
            "message": f.message,
            "spans": _spans(f),
        }
        for f in findings
    ]


def _citations(record: IterationRecord) -> list[CitationReport]:
    return [
        {
            "claim": c.claim,
            "number": c.number,
            "chunk_index": c.chunk_index,
            "chunk_id": c.chunk_id,
            "chunk_start": c.chunk_span[0],
            "chunk_end": c.chunk_span[1],
        }
        for c in citations(record.answer, record.evidence)
    ]


def check_report(step: Retry | RelapseResult, call_id: str | None) -> CheckReport:
    """
    The ``check_answer`` report of one step of a loop.

    Args:
        step: What :meth:`Stepper.submit` returned for the answer.
        call_id: The id the next answer continues this loop with (a
            :class:`Retry`), else None.

    Returns:
        The :class:`CheckReport`; every value JSON-serializable.
    """
    if isinstance(step, Retry):
        record = step.attempt.transcript[-1]
        return {
            "grounded": record.grounded,
            "iteration": record.iteration,
            "findings": _findings(record.findings),
            "citations": _citations(record),
            "retry_note": step.note,
            "call_id": call_id,
            "outcome": None,
            "answer": None,
            "answer_grounded": None,
            "input_tokens": None,
            "output_tokens": None,
        }
    record = step.transcript[-1]
    usage = step.usage
    return {
        "grounded": record.grounded,
        "iteration": record.iteration,
        "findings": _findings(record.findings),
        "citations": _citations(record),
        "retry_note": None,
        "call_id": None,
        "outcome": step.outcome,
        "answer": step.answer,
        "answer_grounded": step.grounded,
        "input_tokens": None if usage is None else usage.input_tokens,
        "output_tokens": None if usage is None else usage.output_tokens,
    }


def _usage(input_tokens: int | None, output_tokens: int | None) -> Usage | None:
    if input_tokens is None and output_tokens is None:
        return None
    return Usage(input_tokens or 0, output_tokens or 0)


class _Calls:
    """The loops waiting for their next answer, by call id; the oldest ended past the cap."""

    def __init__(self, loop: Loop, cap: int) -> None:
        self.loop = loop
        self.cap = cap
        self.open: OrderedDict[str, Stepper] = OrderedDict()

    def start(self, question: str) -> Stepper:
        return Stepper(self.loop, SPAN_NAME, question)

    def keep(self, stepper: Stepper) -> str:
        call_id = uuid.uuid4().hex
        self.open[call_id] = stepper
        while len(self.open) > self.cap:
            _, oldest = self.open.popitem(last=False)
            oldest.close()
        return call_id

    def take(self, call_id: str) -> Stepper:
        stepper = self.open.pop(call_id, None)
        if stepper is None:
            raise ValueError(
                f"call_id {call_id!r} is no open check_answer call (it ended, or the server"
                " restarted): call check_answer without call_id to start again"
            )
        return stepper


async def _note(loop: Loop, question: str, chunks: Sequence[Any], answer: str) -> str:
    """The retry note for ``answer`` (the loop's check and rewrite), or ``""`` when it passes."""
    policy = hook_policy(loop, SPAN_NAME)
    texts = chunk_texts(chunks, "chunks")
    pending = prepare(policy.check, question, texts)(answer)
    verdict = await pending if inspect.isawaitable(pending) else pending
    if not isinstance(verdict, GroundingResult):
        raise TypeError(
            f"grounding_check returned {type(verdict).__name__}; expected relapse.GroundingResult"
        )
    if verdict.ok:
        return ""
    record = IterationRecord(1, question, answer, False, tuple(verdict.findings))
    attempt = Attempt(2, question, question, tuple(texts), (record,), tuple(verdict.findings), 0.0)
    return policy.rewrite(attempt)


@contextmanager
def _told() -> Iterator[None]:
    """Within: a bad argument or an ungrounded end reaches the client with its message."""
    try:
        yield
    except (TypeError, ValueError, RelapseError) as error:
        # The SDK hides any other exception's text from the client (a crash).
        raise ToolError(str(error)) from error


def build_server(
    *,
    loop: Loop | None = None,
    max_open_calls: int = MAX_OPEN_CALLS,
    **options: Unpack[LoopOptions],
) -> MCPServer:
    """
    An MCP server with the ``check_answer`` and ``retry_note`` tools.

    Args:
        loop: The :class:`relapse.Loop` whose options the tools apply
            (``max_iterations``, ``grounding_check``, ``on_exhausted``,
            ``stop_on_repeat``, ``rewrite``, telemetry providers...).
        max_open_calls: How many loops waiting for their next answer to keep.
        options: Instead of ``loop``: the options of a new one
            (:class:`relapse.LoopOptions`).

    Returns:
        The ``mcp`` package's ``MCPServer``: ``.run()`` serves stdio,
        ``.run("streamable-http", host="127.0.0.1", port=...)`` HTTP.

    Raises:
        TypeError: a bad option, or both ``loop`` and options.
        ValueError: ``max_open_calls`` < 1; a loop with ``retrieve`` or
            ``release="sentence"`` (the server sees whole answers and
            retrieves nothing).
    """
    grounding = loop_of("build_server", loop, options)
    hook_policy(grounding, SPAN_NAME)  # fail now, not at the first tool call
    if isinstance(max_open_calls, bool) or not isinstance(max_open_calls, int):
        raise TypeError(f"max_open_calls must be an int, got {type(max_open_calls).__name__}")
    if max_open_calls < 1:
        raise ValueError(f"max_open_calls must be >= 1, got {max_open_calls}")
    calls = _Calls(grounding, max_open_calls)
    server = MCPServer(
        SERVER_NAME,
        version=VERSION,
        instructions=(
            "Before stating an answer drawn from documents, call check_answer with the question,"
            " the documents' texts and the answer. If it returns a retry_note, answer again"
            " following the note and call check_answer with the new answer and the call_id."
        ),
    )

    @server.tool(
        description=(
            "Check an answer against the chunks it should rest on. Returns grounded, each"
            " finding with its failing spans and their offsets in the answer, citations of the"
            " supported claims, and while another answer is wanted a retry_note and a call_id"
            " to pass with that answer; outcome once the loop ended."
        )
    )
    async def check_answer(
        question: str,
        chunks: list[str],
        answer: str,
        call_id: str | None = None,
        input_tokens: int | None = None,
        output_tokens: int | None = None,
    ) -> CheckReport:
        with _told():
            stepper = calls.start(question) if call_id is None else calls.take(call_id)
            try:
                usage = _usage(input_tokens, output_tokens)
                step = await stepper.asubmit(answer, chunks, usage=usage)
            except BaseException:
                stepper.close()
                raise
        return check_report(step, calls.keep(stepper) if isinstance(step, Retry) else None)

    @server.tool(
        description=(
            "The note to re-ask a model with: the rejected answer and each span the chunks do"
            " not support. Empty when the answer is grounded."
        )
    )
    async def retry_note(question: str, chunks: list[str], answer: str) -> str:
        with _told():
            return await _note(grounding, question, chunks, answer)

    return server
