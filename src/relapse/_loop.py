"""
The loop: ask, check, rewrite, ask again.

The loop's logic is written once, as a generator that yields "call the model
with this query" requests and receives the answers. :func:`drive` runs it
with a synchronous LLM call and :func:`adrive` with an asynchronous one, so
sync and async callers share every decision the loop makes.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Awaitable, Callable, Generator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from opentelemetry.trace import Span

from relapse import _attributes as attr
from relapse._chunks import materialize
from relapse._prompts import Rewrite, spans_only_retry
from relapse._telemetry import Telemetry, active
from relapse._types import GroundingFinding, GroundingResult, IterationRecord, RelapseResult
from relapse.exceptions import NotGroundedError

OnExhausted = Literal["return", "best", "raise"]
ON_EXHAUSTED_POLICIES: tuple[str, ...] = ("return", "best", "raise")

#: ``check(query, chunks, answer) -> GroundingResult``.
GroundingCheck = Callable[[str, Sequence[str], str], GroundingResult]
#: A check bound to one call's query and chunks: ``answer -> GroundingResult``.
PreparedCheck = Callable[[str], GroundingResult]
#: ``retrieve(query, previous_answer, findings) -> new chunks or None``.
Retrieve = Callable[[str, str, Sequence[GroundingFinding]], Any]


@dataclass(frozen=True)
class Policy:
    """Everything about a loop that is fixed when decorating."""

    max_iterations: int
    check: GroundingCheck
    check_name: str
    on_exhausted: OnExhausted
    rewrite: Rewrite
    timeout_s: float | None
    max_prompt_chars: int | None
    telemetry: Telemetry
    #: Seconds from an arbitrary origin, read to enforce ``timeout_s``;
    #: injectable so tests can move time without sleeping.
    clock: Callable[[], float] = time.monotonic
    #: The re-retrieval back-edge: fetches new chunks before a retry.
    retrieve: Retrieve | None = None


@dataclass(frozen=True)
class Ask:
    """One request from the loop to its driver: call the model with ``query``."""

    iteration: int
    query: str
    span: Span
    #: The chunks to pass instead of the caller's, once ``retrieve`` replaced
    #: them; None while the caller's chunks are in use.
    chunks: Any = None


Steps = Generator[Ask, str, RelapseResult]


def check_name(check: Callable[..., Any]) -> str:
    """The name a check reports in telemetry: its ``name`` attribute or qualname."""
    name = getattr(check, "name", None)
    if isinstance(name, str) and name:
        return name
    return getattr(check, "__qualname__", type(check).__qualname__)


def prepare(check: GroundingCheck, query: str, chunks: Sequence[str]) -> PreparedCheck:
    """
    Bind ``check`` to one call, indexing the chunks once when it can.

    A check with a ``prepare(query, chunks)`` method (the default check has
    one) indexes the chunks once per call instead of once per iteration.
    """
    preparer = getattr(check, "prepare", None)
    if callable(preparer):
        prepared = preparer(query, chunks)
        bound = getattr(prepared, "check", prepared)
        if callable(bound):
            return bound  # type: ignore[no-any-return]
    return lambda answer: check(query, chunks, answer)


def failing_span_count(findings: Sequence[GroundingFinding]) -> int:
    """How many failing spans ``findings`` cite; a finding with no span counts as one."""
    return sum(max(1, len(f.spans)) for f in findings)


def _verdict(prepared: PreparedCheck, answer: object) -> GroundingResult:
    if not isinstance(answer, str):
        raise TypeError(
            f"the LLM call returned {type(answer).__name__}; relapse expects the answer as str"
        )
    verdict = prepared(answer)
    if not isinstance(verdict, GroundingResult):
        raise TypeError(
            f"grounding_check returned {type(verdict).__name__}; expected relapse.GroundingResult"
        )
    return verdict


def _attach(error: BaseException, transcript: list[IterationRecord]) -> None:
    """Attach the transcript so far to an exception the loop lets through."""
    # Exceptions with __slots__ cannot carry it; the note below still tells.
    with contextlib.suppress(Exception):
        error.relapse_transcript = tuple(transcript)  # type: ignore[attr-defined]
    add_note = getattr(error, "add_note", None)
    if callable(add_note):
        add_note(f"relapse: raised during iteration {len(transcript) + 1}; see .relapse_transcript")


def _retry_query(policy: Policy, query: str, answer: str, verdict: GroundingResult) -> str:
    retry = policy.rewrite(query, answer, verdict.findings)
    if not isinstance(retry, str):
        raise TypeError(f"rewrite returned {type(retry).__name__}; expected str")
    if policy.max_prompt_chars is not None and len(retry) > policy.max_prompt_chars:
        retry = spans_only_retry(query, answer, verdict.findings)
    return retry


def _retrieve(policy: Policy, query: str, answer: str, verdict: GroundingResult) -> Any:
    """Ask the back-edge for new chunks; None keeps the current ones."""
    if policy.retrieve is None:
        return None
    fresh = policy.retrieve(query, answer, verdict.findings)
    if fresh is None:
        return None
    return materialize(fresh, "retrieve() result")


def _final(policy: Policy, transcript: list[IterationRecord], timed_out: bool) -> RelapseResult:
    last = transcript[-1]
    if last.grounded:
        outcome = attr.OUTCOME_FIRST_TRY if last.iteration == 1 else attr.OUTCOME_RECOVERED
        return RelapseResult(last.answer, True, len(transcript), transcript, outcome)
    chosen = last
    if policy.on_exhausted == "best":
        chosen = min(transcript, key=lambda r: failing_span_count(r.findings))
    outcome = attr.OUTCOME_TIMEOUT if timed_out else attr.OUTCOME_EXHAUSTED
    return RelapseResult(chosen.answer, False, len(transcript), transcript, outcome)


def steps(policy: Policy, query: str, chunks: Sequence[str]) -> Steps:
    """
    The loop as a generator: yields :class:`Ask`, receives answers.

    Exceptions thrown in by the driver (the LLM call's) are recorded on the
    spans, get the transcript attached, and propagate unchanged.

    Returns:
        The :class:`RelapseResult` (as ``StopIteration.value``).

    Raises:
        NotGroundedError: when exhausted and ``on_exhausted="raise"``.
    """
    telemetry = policy.telemetry
    call_span = telemetry.start_call(policy.max_iterations, len(chunks))
    transcript: list[IterationRecord] = []
    started = policy.clock()
    timed_out = False
    prompt = query
    replaced: Any = None
    try:
        prepared = prepare(policy.check, query, chunks)
        for iteration in range(1, policy.max_iterations + 1):
            span = telemetry.start_iteration(call_span, iteration)
            began = time.perf_counter()
            try:
                answer = yield Ask(iteration, prompt, span, replaced)
                checked = time.perf_counter()
                verdict = _verdict(prepared, answer)
                check_s = time.perf_counter() - checked
            except BaseException as error:
                telemetry.fail(span, error)
                raise
            record = IterationRecord(
                iteration,
                prompt,
                answer,
                verdict.ok,
                tuple(verdict.findings),
                time.perf_counter() - began,
            )
            transcript.append(record)
            telemetry.end_iteration(span, record, policy.check_name, check_s)
            if verdict.ok or iteration == policy.max_iterations:
                break
            if policy.timeout_s is not None and policy.clock() - started >= policy.timeout_s:
                timed_out = True
                break
            prompt = _retry_query(policy, query, answer, verdict)
            fresh = _retrieve(policy, query, answer, verdict)
            if fresh is not None:
                # The check must judge the next answer against what the model saw.
                replaced, texts = fresh
                prepared = prepare(policy.check, query, texts)
        result = _final(policy, transcript, timed_out)
    except BaseException as error:
        _attach(error, transcript)
        telemetry.fail_call(call_span, error)
        raise
    telemetry.end_call(call_span, result)
    if not result.grounded and policy.on_exhausted == "raise":
        raise NotGroundedError(result)
    return result


def drive(loop: Steps, call: Callable[[str, Any], str]) -> RelapseResult:
    """Run the loop with a synchronous LLM call ``call(query, chunks_or_none) -> answer``."""
    try:
        ask = next(loop)
        while True:
            with active(ask.span):
                try:
                    answer = call(ask.query, ask.chunks)
                except BaseException as error:
                    # The loop records the error and re-raises it unchanged.
                    loop.throw(error)
                    raise
            ask = loop.send(answer)
    except StopIteration as done:
        result: RelapseResult = done.value
        return result


async def adrive(loop: Steps, call: Callable[[str, Any], Awaitable[str]]) -> RelapseResult:
    """Run the loop with an asynchronous LLM call ``await call(query, chunks) -> answer``."""
    try:
        ask = next(loop)
        while True:
            with active(ask.span):
                try:
                    answer = await call(ask.query, ask.chunks)
                except BaseException as error:
                    # The loop records the error and re-raises it unchanged.
                    loop.throw(error)
                    raise
            ask = loop.send(answer)
    except StopIteration as done:
        result: RelapseResult = done.value
        return result
