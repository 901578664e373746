"""
The loop: ask, check, rewrite, ask again.

The loop's logic is written once, as a generator (:func:`steps`) that yields
requests (call the model with this :class:`Ask`, or await this async verdict)
and receives replies. :func:`drive` answers them with a synchronous LLM call
and :func:`adrive` with an asynchronous one, so sync and async callers share
every decision the loop makes.

Nothing the user's code raises ever escapes the generator: it records the
error on the spans, attaches the transcript and *returns* it wrapped in
:class:`Raised`, and the driver raises it, outside any handler, unchanged.
(A generator cannot let ``StopIteration`` through: PEP 479 would turn it
into ``RuntimeError``.)

What a call returned is read in one place, :meth:`Readers.read
<relapse._read.replies.Readers.read>`, into a :class:`~relapse._read.replies.Reply`
(answer text, raw response, usage), and :func:`make_record` turns it and the
verdict into the transcript record.
"""

from __future__ import annotations

import contextlib
import inspect
import time
from collections.abc import Awaitable, Callable, Generator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from opentelemetry.trace import INVALID_SPAN, Span

from relapse._policy import Policy
from relapse._read.replies import Reply
from relapse._read.streams import BrokenStream, Streamed, asettle, settle
from relapse._results import (
    GroundingFinding,
    GroundingResult,
    IterationRecord,
    RelapseResult,
    total_usage,
)
from relapse._state import _CURRENT, Attempt, attempt_scope
from relapse._telemetry import active
from relapse._telemetry import attributes as attr
from relapse.checks._contract import SILENT_REJECTION_CODE, Verdict, prepare
from relapse.exceptions import MalformedResponseError, NotGroundedError
from relapse.prompts import fit_retry

#: The start of the note relapse adds to an exception it lets through.
NOTE_PREFIX = "relapse: raised during iteration"

#: Error codes saying the answer is no answer at all: an echo of the retry
#: instructions, and a composed check's rejection without a finding.
_NON_ANSWER_CODES = frozenset({"FG004", SILENT_REJECTION_CODE})


@dataclass(frozen=True)
class Ask:
    """One request from the loop to its driver: call the model for ``attempt``."""

    attempt: Attempt
    span: Span
    #: The chunks to pass instead of the caller's, once ``retrieve`` replaced
    #: them; None while the caller's chunks are in use.
    chunks: Any = None


@dataclass(frozen=True)
class Await:
    """A request to await an async check's verdict (refused by the sync driver)."""

    pending: Awaitable[GroundingResult]
    #: The check span, current while the verdict is awaited.
    span: Span = INVALID_SPAN


@dataclass(frozen=True)
class Raised:
    """An exception travelling between the loop and its driver, to be raised unchanged."""

    error: BaseException
    #: What the failed LLM call had been paid for, to record before ``error``
    #: is raised: the pieces of a stream that broke midway, or a response the
    #: call could not read; None when there is nothing.
    paid: Any = None


def _raised(error: BaseException) -> Raised:
    """What a driver sends the loop for an LLM call that raised ``error``."""
    if isinstance(error, BrokenStream):
        return Raised(error.error, error.partial)
    if isinstance(error, MalformedResponseError):
        return Raised(error, error.response)
    return Raised(error)


Steps = Generator[Ask | Await, object, RelapseResult | Raised]


def failing_span_count(findings: Sequence[GroundingFinding]) -> int:
    """How many failing spans the error ``findings`` cite; a finding with no span counts as one."""
    return sum(max(1, len(f.spans)) for f in findings if f.severity == "error")


def is_non_answer(record: IterationRecord) -> bool:
    """
    Whether ``record``'s answer is no answer at all.

    True for an empty (or blank) answer, an answer the check reported as
    echoing the retry instructions (FG004), and an answer the check rejected
    without a single error finding (it could not read it), also when it is
    one check of a composition (its rejection recorded as AO001).
    """
    if not record.answer.strip():
        return True
    errors = [f for f in record.findings if f.severity == "error"]
    if not record.grounded and not errors:
        return True
    return any(f.code in _NON_ANSWER_CODES for f in errors)


def _best(record: IterationRecord) -> tuple[bool, int, int]:
    # Real answers first, then the fewest failing spans, then the earliest.
    return (is_non_answer(record), failing_span_count(record.findings), record.iteration)


def make_record(
    attempt: Attempt, reply: Reply, verdict: GroundingResult | None, duration_s: float
) -> IterationRecord:
    """
    The transcript record of one iteration.

    ``verdict`` is None when the answer could not be read or checked (the
    reading or the check raised); the paid response is recorded all the same.
    """
    grounded, findings = (False, ()) if verdict is None else (verdict.ok, tuple(verdict.findings))
    return IterationRecord(
        attempt.iteration,
        attempt.prompt,
        reply.answer,
        grounded,
        findings,
        duration_s,
        reply.response,
        reply.usage,
    )


def _unwrapped(reply: object) -> object:
    """A driver's reply; raises the error it carries when it is a :class:`Raised`."""
    if isinstance(reply, Raised):
        raise reply.error
    return reply


def _verified(verdict: object) -> GroundingResult:
    if not isinstance(verdict, GroundingResult):
        raise TypeError(
            f"grounding_check returned {type(verdict).__name__}; expected relapse.GroundingResult"
        )
    return verdict


def attach(
    error: BaseException,
    transcript: Sequence[IterationRecord],
    within: Attempt | None,
    attempt: Attempt,
) -> None:
    """
    Attach the transcript so far to an exception the loop lets through.

    ``within`` is the :class:`Attempt` the loop itself runs inside (None at
    top level) and ``attempt`` the loop's own attempt the error arrived in.
    An exception already carrying the transcript of a loop nested in
    ``attempt`` keeps it (the innermost call tells the most); one carrying a
    transcript from an earlier, separate call (the same instance raised
    again) gets this call's instead, and its relapse note is replaced, not
    piled up. Never raises.
    """
    if getattr(error, "_relapse_within", None) is attempt:
        return  # this error left a loop nested in our attempt, which told already
    with contextlib.suppress(Exception):
        # Exceptions with __slots__ cannot carry it; the note below still tells.
        error.relapse_transcript = tuple(transcript)  # type: ignore[attr-defined]
        error._relapse_within = within  # type: ignore[attr-defined]
    with contextlib.suppress(Exception):
        notes = getattr(error, "__notes__", None)
        if isinstance(notes, list):
            notes[:] = [n for n in notes if not (isinstance(n, str) and n.startswith(NOTE_PREFIX))]
        # A __notes__ that is not a list makes add_note raise: the note is lost, nothing else.
        error.add_note(f"{NOTE_PREFIX} {attempt.iteration}; see .relapse_transcript")


def _repeat_key(record: IterationRecord) -> tuple[Any, ...]:
    errors = [f for f in record.findings if f.severity == "error"]
    spans = tuple((f.code, f.spans) for f in errors)
    if any(f.spans for f in errors):
        return spans
    # Without spans to compare, only the same answer is the same failure.
    return (spans, record.answer)


def _stop(policy: Policy, transcript: list[IterationRecord], started: float) -> str | None:
    """The outcome when the loop must end after the last record, else None."""
    last = transcript[-1]
    if last.grounded:
        return attr.OUTCOME_FIRST_TRY if last.iteration == 1 else attr.OUTCOME_RECOVERED
    if (
        policy.stop_on_repeat
        and len(transcript) > 1
        and _repeat_key(last) == _repeat_key(transcript[-2])
    ):
        return attr.OUTCOME_STALLED
    if last.iteration >= policy.max_iterations:
        return attr.OUTCOME_EXHAUSTED
    if policy.max_total_tokens is not None:
        spent = total_usage(record.usage for record in transcript)
        if spent is not None and spent.total_tokens >= policy.max_total_tokens:
            return attr.OUTCOME_BUDGET
    if _spent(policy, started):
        return attr.OUTCOME_TIMEOUT
    return None


def _spent(policy: Policy, started: float) -> bool:
    """Whether ``timeout_s`` is set and the time since ``started`` has reached it."""
    return policy.timeout_s is not None and policy.clock() - started >= policy.timeout_s


def _retry_query(policy: Policy, attempt: Attempt) -> str:
    retry = policy.rewrite(attempt)
    if not isinstance(retry, str):
        raise TypeError(f"rewrite returned {type(retry).__name__}; expected str")
    if policy.max_prompt_chars is not None and len(retry) > policy.max_prompt_chars:
        retry = fit_retry(attempt.query, attempt.errors, policy.max_prompt_chars)
    return retry


def _final(
    policy: Policy,
    transcript: list[IterationRecord],
    outcome: str,
    last: Attempt,
    elapsed_s: float,
) -> RelapseResult:
    record = transcript[-1]
    if record.grounded:
        return RelapseResult(
            record.answer, True, len(transcript), transcript, outcome, record.response
        )
    if callable(policy.on_exhausted):
        after = Attempt(
            len(transcript) + 1,
            last.query,
            record.prompt,
            last.chunks,
            tuple(transcript),
            record.findings,
            elapsed_s,
        )
        answer = policy.on_exhausted(after)
        if not isinstance(answer, str):
            raise TypeError(f"on_exhausted returned {type(answer).__name__}; expected str")
        # The handler's text is what the caller gets: there is no response
        # behind it. A stream's caller iterates, so it gets a stream of the
        # same kind with the text as its one piece.
        response: Any = answer
        if isinstance(record.response, Streamed):
            response = Streamed(record.response.kind, (answer,))
        return RelapseResult(answer, False, len(transcript), transcript, outcome, response)
    if policy.on_exhausted == "best":
        record = min(transcript, key=_best)
    return RelapseResult(
        record.answer, False, len(transcript), transcript, outcome, record.response
    )


def steps(policy: Policy, query: str, chunks: Sequence[str]) -> Steps:
    """
    The loop as a generator: yields :class:`Ask` and :class:`Await`, receives replies.

    The driver sends the LLM call's raw result (or the awaited verdict), or a
    :class:`Raised` wrapping what the call raised; its ``paid`` response (a
    stream's pieces before it broke, a reply the call could not read) is
    recorded, not grounded, before the error is raised.

    Returns:
        The :class:`RelapseResult`, or a :class:`Raised` the driver must raise:
        the user's exception (recorded on the spans, with the transcript
        attached) or :class:`NotGroundedError` with ``on_exhausted="raise"``.
    """
    telemetry = policy.telemetry
    within = _CURRENT.get()
    own_chunks = policy.readers.chunks_of is not None
    call_span = telemetry.start_call(policy.max_iterations, None if own_chunks else len(chunks))
    transcript: list[IterationRecord] = []
    started = policy.clock()
    texts = tuple(chunks)
    replaced: Any = None
    attempt = Attempt(1, query, query, texts, (), (), 0.0)
    span: Span = INVALID_SPAN
    span_open = False
    try:
        # The check gets the texts list as it is; the Attempt an immutable copy.
        checker: Callable[[str], Verdict] = prepare(policy.check, query, chunks)
        while True:
            span = telemetry.start_iteration(call_span, attempt.iteration)
            span_open = True
            began = time.perf_counter()
            if policy.on_iteration is not None:
                with attempt_scope(attempt):
                    policy.on_iteration(attempt)
            sent = yield Ask(attempt, span, replaced)
            if isinstance(sent, Raised) and sent.paid is not None:
                # The call failed after it was paid for: what it got stays in
                # the transcript (not grounded), its usage in the spans.
                salvaged = policy.readers.salvage(sent.paid)
                transcript.append(make_record(attempt, salvaged, None, time.perf_counter() - began))
            raw = _unwrapped(sent)
            reply = Reply(raw, "", None)
            # Stays INVALID_SPAN (no check span) unless the check gets to run.
            check_span: Span = INVALID_SPAN
            try:
                reply = policy.readers.read(raw)
                own = policy.readers.chunks(raw)
                if own is not None:
                    # Each attempt is judged against the chunks it retrieved itself.
                    texts = own
                    checker = prepare(policy.check, query, texts)
                    attempt = replace(attempt, chunks=texts)
                check_span = telemetry.start_check(span, policy.check_name)
                checked = time.perf_counter()
                with active(check_span):
                    pending: object = checker(reply.answer)
                if type(pending) is not GroundingResult and inspect.isawaitable(pending):
                    pending = _unwrapped((yield Await(pending, check_span)))
                verdict = _verified(pending)
            except BaseException as error:
                # The paid response stays in the transcript even when reading
                # it or checking its answer fails.
                transcript.append(make_record(attempt, reply, None, time.perf_counter() - began))
                telemetry.fail(check_span, error)
                raise
            check_s = time.perf_counter() - checked
            record = make_record(attempt, reply, verdict, time.perf_counter() - began)
            transcript.append(record)
            span_open = False
            telemetry.end_iteration(span, record, policy.check_name, check_s, check_span)
            outcome = _stop(policy, transcript, started)
            if outcome is not None:
                break
            attempt = Attempt(
                attempt.iteration + 1,
                query,
                attempt.prompt,
                texts,
                tuple(transcript),
                record.findings,
                policy.clock() - started,
            )
            if policy.retrieve is not None:
                fresh = policy.retrieve(attempt)
                if fresh is not None:
                    # The check must judge the next answer against what the model saw.
                    replaced, new_texts = fresh
                    texts = tuple(new_texts)
                    checker = prepare(policy.check, query, new_texts)
                    attempt = replace(attempt, chunks=texts)
                if _spent(policy, started):
                    # A slow retrieve spent the budget: rewrite (which may
                    # call a model) and the next paid call must not start.
                    outcome = attr.OUTCOME_TIMEOUT
                    break
            attempt = replace(attempt, prompt=_retry_query(policy, attempt))
            if _spent(policy, started):
                # Nor may the next call start after a rewrite that spent it.
                outcome = attr.OUTCOME_TIMEOUT
                break
        result = _final(policy, transcript, outcome, attempt, policy.clock() - started)
    except BaseException as error:
        if span_open:
            # The failed iteration's record, when it has one, tells what it paid.
            last = transcript[-1] if transcript else None
            paid = last.usage if last is not None and last.iteration == attempt.iteration else None
            telemetry.fail(span, error, paid)
        telemetry.fail_call(call_span, error, total_usage(r.usage for r in transcript))
        attach(error, transcript, within, attempt)
        return Raised(error)
    telemetry.end_call(call_span, result)
    if not result.grounded and policy.on_exhausted == "raise":
        return Raised(NotGroundedError(result))
    return result


def _async_check_refused(pending: Awaitable[GroundingResult]) -> Raised:
    close = getattr(pending, "close", None)
    if callable(close):
        close()  # never awaited: close it so Python does not warn
    return Raised(
        TypeError(
            "the grounding check is async (it returned an awaitable); use it with"
            " relapse.arun or an async def decorated function"
        )
    )


def _finish(outcome: RelapseResult | Raised) -> RelapseResult:
    if isinstance(outcome, Raised):
        raise outcome.error
    return outcome


def drive(loop: Steps, call: Callable[[str, Any], object]) -> RelapseResult:
    """Run the loop with a synchronous LLM call ``call(query, chunks_or_none) -> answer``."""
    try:
        request = next(loop)
        while True:
            reply: object
            if isinstance(request, Await):
                reply = _async_check_refused(request.pending)
            else:
                with active(request.span), attempt_scope(request.attempt):
                    try:
                        reply = settle(call(request.attempt.prompt, request.chunks))
                    except BaseException as error:  # the loop records it; _finish raises it
                        reply = _raised(error)
            request = loop.send(reply)
    except StopIteration as done:
        outcome: RelapseResult | Raised = done.value
    # Raised outside the handler above, so StopIteration is not its context.
    return _finish(outcome)


async def adrive(loop: Steps, call: Callable[[str, Any], object]) -> RelapseResult:
    """
    Run the loop with an asynchronous LLM call ``call(query, chunks)``.

    The call returns an awaitable of the answer, or an async iterator (an
    async generator function's stream), which is read to its end.
    """
    try:
        request = next(loop)
        while True:
            reply: object
            try:
                if isinstance(request, Await):
                    with active(request.span):
                        reply = await request.pending
                else:
                    with active(request.span), attempt_scope(request.attempt):
                        reply = await asettle(call(request.attempt.prompt, request.chunks))
            except BaseException as error:  # the loop records it; _finish raises it
                reply = _raised(error)
            request = loop.send(reply)
    except StopIteration as done:
        outcome: RelapseResult | Raised = done.value
    return _finish(outcome)
