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
from collections.abc import AsyncGenerator, Awaitable, Callable, Generator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from opentelemetry.trace import INVALID_SPAN, Span

from relapse._lineage import NO_LINEAGE, lineage
from relapse._policy import RELEASE_SENTENCE, Policy
from relapse._read.chunks import chunk_id_of
from relapse._read.compress import CompressedChunk
from relapse._read.rebuild import carrying, rebuilt, restreamed
from relapse._read.replies import Reply
from relapse._read.streams import BrokenStream, Streamed, asettle, settle, stream_kind
from relapse._redaction import Redactor
from relapse._results import (
    Evidence,
    GroundingFinding,
    GroundingResult,
    IterationRecord,
    Outcome,
    RelapseResult,
    total_usage,
)
from relapse._state import _CURRENT, Attempt, attempt_scope
from relapse._stream.grounded import (
    STREAMING,
    APassedThrough,
    AsyncGroundedStream,
    GroundedStream,
    PassedThrough,
)
from relapse._stream.release import (
    END,
    Broken,
    Close,
    Pull,
    Release,
    Released,
    piece_text,
    read_released,
)
from relapse._telemetry.context import active
from relapse._telemetry.streaming import (
    FALLBACK_CALL,
    fallback_attribute,
    first_release_attribute,
    release_attributes,
    stopped_by_caller,
)
from relapse.checks._contract import SILENT_REJECTION_CODE, Verdict, prepare
from relapse.checks._incremental import incremental
from relapse.exceptions import MalformedResponseError, NotGroundedError
from relapse.prompts import fit_retry

#: The start of the note relapse adds to an exception it lets through.
NOTE_PREFIX = "relapse: raised during iteration"

#: Error codes saying the answer is no answer at all: an echo of the retry
#: instructions, and a composed check's rejection without a finding.
_NON_ANSWER_CODES = frozenset({"FG004", SILENT_REJECTION_CODE})


# The loop's messages to its drivers are slotted and not frozen: a frozen
# dataclass's __init__ pays one object.__setattr__ per field, and an Ask is
# built on every iteration of every call. Nothing mutates them.
@dataclass(slots=True)
class Ask:
    """One request from the loop to its driver: call the model for ``attempt``."""

    attempt: Attempt
    span: Span
    #: The chunks to pass instead of the caller's, once ``retrieve`` replaced
    #: them; None while the caller's chunks are in use.
    chunks: Any = None
    #: ``release="sentence"``: send a stream the call returns back unread, to
    #: be read piece by piece (:mod:`relapse._stream.release`).
    keep_streams: bool = False


@dataclass(slots=True)
class Await:
    """A request to await an async check's verdict (refused by the sync driver)."""

    pending: Awaitable[GroundingResult]
    #: The check span, current while the verdict is awaited.
    span: Span = INVALID_SPAN


@dataclass(slots=True)
class Raised:
    """An exception travelling between the loop and its driver, to be raised unchanged."""

    error: BaseException
    #: What the failed LLM call had been paid for, to record before ``error``
    #: is raised: the pieces of a stream that broke midway, or a response the
    #: call could not read; None when there is nothing.
    paid: Any = None
    #: The text of ``paid`` already handed to the caller (``release="sentence"``).
    released: str = ""


def _raised(error: BaseException) -> Raised:
    """What a driver sends the loop for an LLM call that raised ``error``."""
    if isinstance(error, BrokenStream):
        return Raised(error.error, error.partial)
    if isinstance(error, MalformedResponseError):
        return Raised(error, error.response)
    return Raised(error)


Steps = Generator[Ask | Await | Pull | Release | Close, object, RelapseResult | Raised]


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
    attempt: Attempt,
    reply: Reply,
    verdict: GroundingResult | None,
    duration_s: float,
    released: str = "",
) -> IterationRecord:
    """
    The transcript record of one iteration.

    ``verdict`` is None when the answer could not be read or checked (the
    reading or the check raised); the paid response is recorded all the same,
    with an empty lineage. On a retry, the lineage (``resolved``,
    ``persisted``, ``introduced``) compares the verdict with the previous
    record's. ``released`` is the text of it handed to the caller
    (``release="sentence"``).
    """
    grounded, findings = (False, ()) if verdict is None else (verdict.ok, tuple(verdict.findings))
    evidence = () if verdict is None else with_ids(verdict.evidence, attempt.chunks)
    change = NO_LINEAGE
    # An answer that was not checked neither resolved nor kept anything.
    if attempt.transcript and verdict is not None:
        before = attempt.transcript[-1]
        change = lineage(before.findings, before.answer, findings, reply.answer)
    return IterationRecord(
        attempt.iteration,
        attempt.prompt,
        reply.answer,
        grounded,
        findings,
        duration_s,
        reply.response,
        reply.usage,
        change.resolved,
        change.persisted,
        change.introduced,
        evidence,
        released,
        None if verdict is None else verdict.usage,
        () if verdict is None else verdict.stages,
    )


def with_ids(evidence: Sequence[Evidence], chunks: Sequence[str]) -> tuple[Evidence, ...]:
    """
    ``evidence`` naming the caller's chunks.

    Each missing ``chunk_id`` is read from its chunk (see
    :func:`chunk_id_of`); evidence in a compressed chunk
    (``run(compress=True)``) is moved to the chunk the caller passed: its
    index, its id and offsets in its own text.
    """
    if not evidence:
        return ()
    named = []
    for item in evidence:
        if 0 <= item.chunk_index < len(chunks):
            chunk = chunks[item.chunk_index]
            if isinstance(chunk, CompressedChunk):
                start, end = item.chunk_span
                if 0 <= start <= end <= len(chunk):
                    # (A custom check's span outside its chunk is left as it
                    # gave it: there is no original to map it to.)
                    item = replace(
                        item,
                        chunk_index=chunk.source_index,
                        chunk_span=chunk.source_span(start, end),
                    )
            if item.chunk_id is None:
                found = chunk_id_of(chunk)
                if found is not None:
                    item = replace(item, chunk_id=found)
        named.append(item)
    return tuple(named)


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


def is_stall(record: IterationRecord, previous: IterationRecord) -> bool:
    """
    Whether the failing retry ``record`` is a stall after ``previous``.

    A stall is a retry that resolved nothing and introduced nothing (its
    :attr:`~IterationRecord.resolved` and :attr:`~IterationRecord.introduced`
    are empty): every failure persisted. When neither answer has an error
    finding (a check that rejects without one), there is nothing to match,
    and only the same answer again is a stall.
    """
    if record.resolved or record.introduced:
        return False
    if record.persisted:
        return True
    return record.answer == previous.answer


def _stop(policy: Policy, transcript: list[IterationRecord], started: float) -> Outcome | None:
    """The outcome when the loop must end after the last record, else None."""
    last = transcript[-1]
    if last.grounded:
        return "grounded_first_try" if last.iteration == 1 else "recovered"
    if policy.stop_on_repeat and len(transcript) > 1 and is_stall(last, transcript[-2]):
        return "stalled"
    if last.iteration >= policy.max_iterations:
        return "exhausted"
    if policy.max_total_tokens is not None:
        spent = total_usage(record.spent for record in transcript)
        if spent is not None and spent.total_tokens >= policy.max_total_tokens:
            return "budget"
    if _spent(policy, started):
        return "timeout"
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
    outcome: Outcome,
    last: Attempt,
    elapsed_s: float,
    released: str = "",
) -> RelapseResult:
    record = transcript[-1]
    if record.grounded:
        return RelapseResult(
            record.answer,
            True,
            len(transcript),
            transcript,
            outcome,
            record.response,
            evidence=record.evidence,
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
            released,  # release="sentence": what the caller was shown, its text follows
        )
        answer = policy.on_exhausted(after)
        if not isinstance(answer, str):
            raise TypeError(f"on_exhausted returned {type(answer).__name__}; expected str")
        # The handler's text is what the caller gets: there is no response
        # behind it. A stream's caller iterates, so it gets a stream of the
        # same kind and piece type carrying the text.
        response: Any = answer
        if isinstance(record.response, Streamed):
            pieces = restreamed(record.response.pieces, answer, piece_text)
            response = Streamed(record.response.kind, pieces)
        return RelapseResult(answer, False, len(transcript), transcript, outcome, response)
    if policy.on_exhausted == "best":
        record = min(transcript, key=_best)
    return RelapseResult(
        record.answer,
        False,
        len(transcript),
        transcript,
        outcome,
        record.response,
        evidence=record.evidence,
    )


def _redact(
    policy: Policy,
    transcript: list[IterationRecord],
    checkers: dict[int, tuple[Callable[[str], Verdict], tuple[str, ...]]],
) -> Generator[Await, object, RelapseResult]:
    """
    ``on_exhausted="redact"``: the best attempt without its failing sentences.

    Removes every sentence holding a failing span of the best record, then
    checks the redacted text with the check that judged that record and
    removes the sentences of what still fails, until it passes; when a
    failure cannot be located, or lies outside every sentence, nothing is
    kept. Yields :class:`Await` for an async check's verdict.
    """
    record = min(transcript, key=_best)
    redactor = Redactor(record.answer, record.iteration, policy.redact_marker)
    errors = [f for f in record.findings if f.severity == "error"]
    if errors:
        redactor.remove(errors)
    else:
        redactor.remove_all()  # rejected without a finding: the failure may be anywhere
    check, attempt_chunks = checkers.get(record.iteration, (None, ()))
    evidence: tuple[Evidence, ...] = ()
    while check is not None and not redactor.empty:
        pending: object = check(redactor.text())
        if type(pending) is not GroundingResult and inspect.isawaitable(pending):
            pending = _unwrapped((yield Await(pending)))
        verdict = _verified(pending)
        if verdict.ok:
            evidence = with_ids(verdict.evidence, attempt_chunks)
            break
        if not redactor.remove(verdict.errors, in_redacted=True):
            redactor.remove_all()
    text = redactor.text()
    response: Any
    if isinstance(record.response, Streamed):
        # The caller reads the stream's own piece type (an SDK chunk), never a bare str.
        pieces = restreamed(record.response.pieces, text, piece_text)
        response = Streamed(record.response.kind, pieces)
    else:
        response = rebuilt(record.response, text, policy.readers.answer)
        if response is None:
            response = text  # no way to rebuild it: the caller gets the text itself
    return RelapseResult(
        text,
        False,
        len(transcript),
        transcript,
        "redacted",
        response,
        redactor.redactions(),
        evidence,
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
    telemetry = policy.telemetry.for_call()
    within = _CURRENT.get()
    own_chunks = policy.readers.chunks_of is not None
    call_span = telemetry.start_call(policy.max_iterations, None if own_chunks else len(chunks))
    transcript: list[IterationRecord] = []
    # The check that judged each iteration, for on_exhausted="redact" to judge its redaction.
    checkers: dict[int, tuple[Callable[[str], Verdict], tuple[str, ...]]] = {}
    started = policy.clock()
    texts = tuple(chunks)
    replaced: Any = None
    attempt = Attempt(1, query, query, texts, (), (), 0.0)
    span: Span = INVALID_SPAN
    span_open = False
    streaming = policy.release == RELEASE_SENTENCE
    #: The text handed to the caller so far (release="sentence").
    released = ""
    #: Whether a stream had to be read whole (the check is not incremental).
    fell_back = False
    #: Whether an attempt's stream was released sentence by sentence.
    sentence_read = False
    #: Whether a call returned a stream: the caller holds a GroundedStream.
    handed = False
    #: The pieces of the last stream read with any: what a text released
    #: without pieces of its own is shaped like (see relapse._read.rebuild.carrying).
    shown: tuple[Any, ...] = ()
    started_at = time.perf_counter()
    #: Seconds from the start to the first piece released with text.
    first_release: float | None = None
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
            sent = yield Ask(attempt, span, replaced, streaming)
            read: Released | None = None
            check_span: Span = INVALID_SPAN
            if streaming and not isinstance(sent, Raised) and stream_kind(sent) is not None:
                handed = True
                if own_chunks:
                    # A chunks_of that reads the chunks off the unread stream
                    # (Policy.for_function kept "sentence" for it): this
                    # attempt is judged against its own, as a read reply is.
                    texts = policy.readers.chunks(sent) or ()
                    checker = prepare(policy.check, query, texts)
                    attempt = replace(attempt, chunks=texts)
                read, sent, check_span = yield from _read_attempt(
                    policy, query, texts, sent, released, span, attempt, checker
                )
                fell_back = fell_back or read is None
                sentence_read = sentence_read or read is not None
                if isinstance(sent, Streamed) and sent.pieces:
                    shown = sent.pieces
            if isinstance(sent, Raised) and sent.paid is not None:
                # The call failed after it was paid for: what it got stays in
                # the transcript (not grounded), its usage in the spans.
                salvaged = policy.readers.salvage(sent.paid)
                duration = time.perf_counter() - began
                transcript.append(make_record(attempt, salvaged, None, duration, sent.released))
            raw = _unwrapped(sent)
            reply: Reply | None = None
            checking = False
            try:
                if read is not None:
                    # Read and checked piece by piece (release="sentence").
                    assert read.verdict is not None  # None only when the stream broke
                    usage = policy.readers.streamed_usage(read.streamed, read.usage)
                    reply = Reply(read.streamed, read.text, usage)
                    verdict, check_s = read.verdict, read.check_s
                else:
                    # Stays INVALID_SPAN (no check span) unless the check gets to run.
                    check_span = INVALID_SPAN
                    reply = policy.readers.read(raw)
                    own = policy.readers.chunks(raw)
                    if own is not None:
                        # Each attempt is judged against the chunks it retrieved itself.
                        texts = own
                        checker = prepare(policy.check, query, texts)
                        attempt = replace(attempt, chunks=texts)
                    if handed:
                        # The caller holds a stream: a plain value (a cache, a
                        # fallback call) is released to it as a piece of that
                        # stream's type, checked after the released text.
                        read, check_span = yield from _read_value(
                            policy, texts, reply.answer, shown, released, span, attempt, checker
                        )
                        fell_back = fell_back or read is None
                    if read is not None:
                        assert read.verdict is not None  # None only when reading raised
                        reply = Reply(reply.response, read.text, reply.usage)
                        verdict, check_s = read.verdict, read.check_s
                        sentence_read = True
                    else:
                        check_span = telemetry.start_check(span, policy.check_name)
                        checked = time.perf_counter()
                        checking = True
                        with active(check_span):
                            pending: object = checker(reply.answer)
                        if type(pending) is not GroundingResult and inspect.isawaitable(pending):
                            pending = _unwrapped((yield Await(pending, check_span)))
                        verdict = _verified(pending)
                        check_s = time.perf_counter() - checked
            except StreamClosed:
                raise  # the caller closed its stream while a value was released: no failure
            except BaseException as error:
                # The paid response stays in the transcript even when reading
                # it or checking its answer fails.
                if reply is None:
                    reply = Reply(raw, "", None)
                failed = make_record(attempt, reply, None, time.perf_counter() - began)
                transcript.append(failed)
                if checking:
                    # The check raised: its evaluation event says so (error.type).
                    telemetry.fail_check(span, check_span, policy.check_name, failed, error)
                else:
                    telemetry.fail(check_span, error)
                raise
            checkers[attempt.iteration] = (checker, attempt.chunks)
            record = make_record(
                attempt,
                reply,
                verdict,
                time.perf_counter() - began,
                "" if read is None else read.released,
            )
            transcript.append(record)
            span_open = False
            if read is not None:
                released += read.released
                if first_release is None and read.first_release_s is not None:
                    first_release = read.first_release_s - started_at
                    release_attributes(
                        span, read, first_release, len(released) - len(read.released)
                    )
                else:
                    release_attributes(span, read, None, len(released) - len(read.released))
            elif policy.release_fallback is not None or (streaming and fell_back):
                fallback_attribute(span, policy.release_fallback or FALLBACK_CALL)
            telemetry.end_iteration(
                span,
                record,
                policy.check_name,
                check_s,
                check_span,
                len(attempt.chunks),
                policy.annotator,
            )
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
                released,
            )
            if policy.retrieve is not None:
                retrieval = telemetry.start_retrieval(call_span, attempt.iteration)
                try:
                    with active(retrieval):
                        fresh = policy.retrieve(attempt)
                        # Read inside the span: chunks of a wrong shape fail it.
                        fetched = (
                            None
                            if fresh is None
                            else policy.read_chunks(fresh, "retrieve() result")
                        )
                except BaseException as error:
                    telemetry.fail(retrieval, error)
                    raise
                telemetry.end_retrieval(retrieval, fetched)
                if fetched is not None:
                    # The check must judge the next answer against what the model saw.
                    replaced, new_texts = fetched
                    texts = tuple(new_texts)
                    checker = prepare(policy.check, query, new_texts)
                    attempt = replace(attempt, chunks=texts)
                if _spent(policy, started):
                    # A slow retrieve spent the budget: rewrite (which may
                    # call a model) and the next paid call must not start.
                    outcome = "timeout"
                    break
            attempt = replace(attempt, prompt=_retry_query(policy, attempt))
            if _spent(policy, started):
                # Nor may the next call start after a rewrite that spent it.
                outcome = "timeout"
                break
        redacting = policy.on_exhausted == "redact" and not transcript[-1].grounded
        if redacting and not sentence_read:
            result = yield from _redact(policy, transcript, checkers)
        else:
            # release="sentence" released the verified prefix already: that
            # is the answer (_after_released), nothing is left to redact.
            elapsed = policy.clock() - started
            result = _final(policy, transcript, outcome, attempt, elapsed, released)
        if sentence_read:
            result = yield from _after_released(
                policy, query, texts, result, released, attempt, shown
            )
    except StreamClosed as closed:
        # The caller closed the stream: the loop ends where it was, no error.
        if span_open:
            stopped_by_caller(span)
        stopped_by_caller(call_span)
        return Raised(closed)
    except BaseException as error:
        if span_open:
            # The failed iteration's record, when it has one, tells what it paid.
            last = transcript[-1] if transcript else None
            paid = last.usage if last is not None and last.iteration == attempt.iteration else None
            telemetry.fail(span, error, paid)
        telemetry.fail_call(call_span, error, total_usage(r.spent for r in transcript))
        attach(error, transcript, within, attempt)
        return Raised(error)
    if first_release is not None:
        first_release_attribute(call_span, first_release)
    telemetry.end_call(call_span, result)
    if fell_back:
        # The check could not judge incrementally: released once checked whole;
        # a plain value the caller's stream never had, as a piece of its type.
        if isinstance(result.response, Streamed):
            yield Release(result.response.pieces)
        else:
            yield Release((carrying(shown, result.answer, piece_text),))
    if not result.grounded and policy.on_exhausted == "raise":
        return Raised(NotGroundedError(result))
    return result


def _read_attempt(
    policy: Policy,
    query: str,
    texts: Sequence[str],
    stream: Any,
    prefix: str,
    span: Span,
    attempt: Attempt,
    checker: Callable[[str], Verdict],
) -> Generator[Pull | Release | Close, object, tuple[Released | None, Any, Span]]:
    """
    Read one attempt's stream for ``release="sentence"``.

    Returns:
        ``(read, sent, check_span)``: the :class:`Released` account and the
        stream's :class:`Streamed`; or ``(None, sent, INVALID_SPAN)`` when the
        check cannot judge this call incrementally (the stream is then read
        whole, to be checked as ``release="answer"`` would) or the stream
        broke (``sent`` is then the :class:`Raised` to record).
    """
    kind = stream_kind(stream)
    assert kind is not None  # only streams are sent here
    inc = incremental(policy.check, query, texts)
    if inc is None:
        pieces: list[Any] = []
        while True:
            got = yield Pull(stream, kind, span, attempt)
            if got is END:
                return None, Streamed(kind, tuple(pieces)), INVALID_SPAN
            if isinstance(got, Broken):
                paid = Streamed(kind, tuple(pieces)) if pieces else None
                return None, Raised(got.error, paid), INVALID_SPAN
            pieces.append(got)
    check_span = policy.telemetry.start_check(span, policy.check_name)

    def whole(text: str) -> GroundingResult:
        return _verified(checker(text))

    try:
        read = yield from read_released(inc, stream, kind, prefix, span, attempt, whole)
    except StreamClosed:
        stopped_by_caller(check_span)
        raise
    except BaseException as error:
        # Reading a piece or checking raised, or the caller closed the stream.
        policy.telemetry.fail(check_span, error)
        raise
    if read.error is not None:
        # The stream broke, a piece could not be read or the check raised:
        # every piece read is kept, with what of it the caller got.
        policy.telemetry.fail(check_span, read.error)
        paid = read.streamed if read.streamed.pieces else None
        return None, Raised(read.error, paid, read.released), INVALID_SPAN
    return read, read.streamed, check_span


def _read_value(
    policy: Policy,
    texts: Sequence[str],
    answer: str,
    shown: tuple[Any, ...],
    prefix: str,
    span: Span,
    attempt: Attempt,
    checker: Callable[[str], Verdict],
) -> Generator[Pull | Release | Close, object, tuple[Released | None, Span]]:
    """
    Release a plain value's ``answer`` to a caller holding a stream (``release="sentence"``).

    A retry that returned a value (a cache, a fallback call) instead of a
    stream: its answer is one piece shaped like ``shown``, the pieces of the
    stream the caller reads (:func:`~relapse._read.rebuild.carrying`), checked
    after ``prefix`` and released like a stream's pieces.

    Returns:
        ``(read, check_span)``; ``(None, INVALID_SPAN)`` when the check cannot
        judge it incrementally (it is then checked whole, and released at the
        loop's end).

    Raises:
        BaseException: what the check raised.
    """
    stream = iter((carrying(shown, answer, piece_text),))
    read, sent, check_span = yield from _read_attempt(
        policy, attempt.query, texts, stream, prefix, span, attempt, checker
    )
    if isinstance(sent, Raised):
        raise sent.error
    return read, check_span


def _after_released(
    policy: Policy,
    query: str,
    texts: Sequence[str],
    result: RelapseResult,
    released: str,
    attempt: Attempt,
    shown: tuple[Any, ...],
) -> Generator[Pull | Release | Close, object, RelapseResult]:
    """
    The result of a ``release="sentence"`` loop: its answer is what the caller read.

    A grounded answer was released whole. When none passed, the caller has
    the verified prefix; a callable ``on_exhausted``'s text is checked (after
    the prefix) and released like any piece, as a piece of the type of
    ``shown`` (the caller's stream), so what passes of it follows. The
    evidence is that of the answer: the chosen attempt's (or the handler's)
    items that lie in the text the caller read, and none when it read nothing.

    Raises:
        BaseException: what the check raised on the handler's text.
    """
    if result.grounded:
        return result
    answer, evidence, about = released, result.evidence, result.answer
    if callable(policy.on_exhausted) and result.answer:
        inc = incremental(policy.check, query, texts)
        if inc is not None:
            checker = prepare(policy.check, query, texts)

            def whole(text: str) -> GroundingResult:
                return _verified(checker(text))

            handler = iter((carrying(shown, result.answer, piece_text),))
            read = yield from read_released(
                inc, handler, "sync", released, INVALID_SPAN, attempt, whole
            )
            if read.error is not None:
                raise read.error
            assert read.verdict is not None  # set unless reading raised
            answer = released + read.released
            evidence, about = with_ids(read.verdict.evidence, attempt.chunks), read.text
    return replace(result, answer=answer, evidence=evidence_within(evidence, about, answer))


def evidence_within(evidence: Sequence[Evidence], about: str, answer: str) -> tuple[Evidence, ...]:
    """
    The items of ``evidence`` (offsets into ``about``) that are evidence of ``answer`` too.

    ``answer`` is what the caller read: a prefix of ``about``, the attempt's
    text, or text that departs from it somewhere. An item is kept when its
    claim lies wholly in the text the two share from their start, so its
    offsets mean the same in ``answer``.
    """
    if not evidence:
        return ()
    shared = _shared_start(about, answer)
    return tuple(item for item in evidence if item.answer_span[1] <= shared)


def _shared_start(one: str, other: str) -> int:
    """How many characters ``one`` and ``other`` share from their start (a binary search)."""
    low, high = 0, min(len(one), len(other))
    if one[:high] == other[:high]:
        return high  # the common case: the answer is a prefix of the attempt's text
    while low < high:
        middle = (low + high + 1) // 2
        if one[:middle] == other[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def unchecked_result(query: object, raw: Any) -> RelapseResult:
    """
    The result of one call made straight through, with the kill switch off.

    The only place it is built, for every entry point. Nothing is read from
    ``raw``: the answer is ``raw`` when it is a ``str``, else empty; the
    response is ``raw`` (a decorated function's stream, passed through by
    :func:`unchecked`, as a :class:`~relapse.Streamed` of its pieces); the record's prompt is
    ``query`` when it is a ``str``, else empty (nothing was validated).
    """
    answer = raw if isinstance(raw, str) else ""
    record = IterationRecord(
        1, query if isinstance(query, str) else "", answer, False, response=raw
    )
    return RelapseResult(answer, False, 1, [record], "disabled", raw)


def unchecked(
    query: object, raw: Any, awaited: bool
) -> RelapseResult | GroundedStream[Any] | AsyncGroundedStream[Any]:
    """
    What a decorated function's call made straight through gives, with the kill switch off.

    A stream comes back as the :class:`~relapse.GroundedStream` (or
    :class:`~relapse.AsyncGroundedStream`) the enabled loop would hand over,
    so code written for it keeps working: it yields the stream's own pieces
    unchecked, closes the stream with it, and once done its ``result`` is
    :func:`unchecked_result` with the pieces as a :class:`~relapse.Streamed`.
    Anything else gives :func:`unchecked_result` of it, as does an async
    stream of a sync function (``awaited`` False), which the enabled loop
    refuses.
    """
    kind = stream_kind(raw)
    if kind is None or (kind == "async" and not awaited):
        return unchecked_result(query, raw)

    def ended(pieces: tuple[Any, ...]) -> RelapseResult:
        assert kind is not None  # a stream, checked above
        return unchecked_result(query, Streamed(kind, pieces))

    if kind == "sync":
        return GroundedStream(PassedThrough(raw, ended))
    box: list[RelapseResult | BaseException] = []
    return AsyncGroundedStream(APassedThrough(raw, ended, box), box)


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


#: What a generator cannot raise as itself (PEP 479 turns it into a
#: RuntimeError): the drivers hand it back as a value, raised by their callers.
_UNRAISABLE_IN_GENERATORS = (StopIteration, StopAsyncIteration)


def _ended(outcome: RelapseResult | Raised) -> RelapseResult | BaseException:
    """
    What a pump ends with: the result, or an error no generator can raise as itself.

    Raises:
        BaseException: the loop's error, when a generator can raise it.
    """
    if isinstance(outcome, Raised) and isinstance(outcome.error, _UNRAISABLE_IN_GENERATORS):
        return outcome.error
    return _finish(outcome)


def settled(ended: RelapseResult | BaseException) -> RelapseResult:
    """The result a pump ended with, or raise the error it handed back (as itself)."""
    if isinstance(ended, BaseException):
        raise ended
    return ended


def _finish(outcome: RelapseResult | Raised) -> RelapseResult:
    if isinstance(outcome, Raised):
        raise outcome.error
    return outcome


def _close(stream: Any) -> None:
    """Close a sync stream, when it has ``close()``."""
    close = getattr(stream, "close", None)
    if callable(close):
        close()


async def _aclose(stream: Any) -> None:
    """Close a stream with ``aclose()`` (or ``close()``), awaiting what it returns."""
    close = getattr(stream, "aclose", None) or getattr(stream, "close", None)
    if callable(close):
        closing = close()
        if inspect.isawaitable(closing):
            await closing


class StreamClosed(BaseException):
    """Thrown into the loop when the caller closed the stream it was reading."""


def _closed_by_caller(loop: Steps) -> None:
    """End a loop whose caller closed its stream mid-way: spans ended, stopped, not failed."""
    with contextlib.suppress(StopIteration, StreamClosed):
        loop.throw(StreamClosed())
    loop.close()


def pump(
    loop: Steps, call: Callable[[str, Any], object]
) -> Generator[Any, None, RelapseResult | BaseException]:
    """
    Run the loop with a synchronous LLM call, yielding what it releases.

    ``call(query, chunks_or_none) -> answer``. With ``release="sentence"``
    it yields :data:`~relapse._stream.grounded.STREAMING` when a call returned a
    stream (the caller may be handed a :class:`~relapse.GroundedStream`
    now), then each piece the loop releases. Closing it (the caller closed
    the stream) closes the stream being read and the loop.

    Returns:
        The :class:`RelapseResult`, or the ``StopIteration`` the loop raised
        (no generator can raise it as itself: :func:`settled` does); raises
        anything else the loop raises.
    """
    reading: Any = None
    try:
        request = next(loop)
        while True:
            reply: object = None
            if isinstance(request, Ask):
                with active(request.span), attempt_scope(request.attempt):
                    try:
                        reply = call(request.attempt.prompt, request.chunks)
                        if not (request.keep_streams and stream_kind(reply) == "sync"):
                            reply = settle(reply)
                    except BaseException as error:  # the loop records it; _finish raises it
                        reply = _raised(error)
                if request.keep_streams and stream_kind(reply) == "sync":
                    reading = reply  # closed with us if the caller never reads it
                    yield STREAMING
            elif isinstance(request, Pull):
                reading = request.stream
                with active(request.span), attempt_scope(request.attempt):
                    try:
                        reply = next(reading)
                    except StopIteration:
                        reply, reading = END, None
                        _close(request.stream)
                    except BaseException as error:
                        reply, reading = Broken(error), None
                        _close(request.stream)
            elif isinstance(request, Release):
                yield from request.pieces
            elif isinstance(request, Close):
                reading = None
                _close(request.stream)
            else:
                reply = _async_check_refused(request.pending)
            request = loop.send(reply)
    except StopIteration as done:
        outcome: RelapseResult | Raised = done.value
    except GeneratorExit:
        _closed_by_caller(loop)
        raise
    finally:
        if reading is not None:
            # The caller closed us, or the loop raised, mid-stream: stop the provider.
            with contextlib.suppress(Exception):
                _close(reading)
    # Raised outside the handler above, so StopIteration is not its context.
    return _ended(outcome)


def start(loop: Steps, call: Callable[[str, Any], object]) -> RelapseResult | GroundedStream[Any]:
    """
    Run the loop until it ends or a call returns a stream released sentence by sentence.

    Returns:
        The :class:`RelapseResult`, or the :class:`~relapse.GroundedStream`
        that runs the rest of the loop as the caller iterates it.
    """
    pumping = pump(loop, call)
    try:
        next(pumping)  # STREAMING: nothing is released before it
    except StopIteration as done:
        return settled(done.value)
    return GroundedStream(pumping)


async def astart(
    loop: Steps, call: Callable[[str, Any], object]
) -> RelapseResult | AsyncGroundedStream[Any]:
    """:func:`start` with an asynchronous LLM call."""
    box: list[RelapseResult | BaseException] = []
    pumping = apump(loop, call, box)
    try:
        await pumping.__anext__()
    except StopAsyncIteration:
        return settled(box[0])
    return AsyncGroundedStream(pumping, box)


def drive(loop: Steps, call: Callable[[str, Any], object]) -> RelapseResult:
    """Run the loop with a synchronous LLM call ``call(query, chunks_or_none) -> answer``."""
    pumping = pump(loop, call)
    try:
        while True:
            next(pumping)  # what it releases has no caller to go to
    except StopIteration as done:
        ended: RelapseResult | BaseException = done.value
    return settled(ended)


async def apump(
    loop: Steps, call: Callable[[str, Any], object], box: list[RelapseResult | BaseException]
) -> AsyncGenerator[Any, None]:
    """
    :func:`pump` with an asynchronous LLM call; the result goes into ``box``.

    The call returns an awaitable of the answer, or an async iterator (an
    async generator function's stream).
    """
    reading: Any = None
    try:
        request = next(loop)
        while True:
            reply: object = None
            if isinstance(request, Ask):
                kept = False
                try:
                    with active(request.span), attempt_scope(request.attempt):
                        reply = call(request.attempt.prompt, request.chunks)
                        if inspect.isawaitable(reply):
                            reply = await reply
                        kept = request.keep_streams and stream_kind(reply) is not None
                        if not kept:
                            reply = await asettle(reply)
                except BaseException as error:  # the loop records it; _finish raises it
                    reply = _raised(error)
                if kept:
                    reading = reply
                    yield STREAMING
            elif isinstance(request, Pull):
                reading = request.stream
                try:
                    with active(request.span), attempt_scope(request.attempt):
                        if request.kind == "async":
                            reply = await reading.__anext__()
                        else:
                            reply = next(reading)
                except (StopIteration, StopAsyncIteration):
                    reply, reading = END, None
                    await _aclose(request.stream)
                except BaseException as error:
                    reply, reading = Broken(error), None
                    await _aclose(request.stream)
            elif isinstance(request, Release):
                for piece in request.pieces:
                    yield piece
            elif isinstance(request, Close):
                reading = None
                await _aclose(request.stream)
            else:
                try:
                    with active(request.span):
                        reply = await request.pending
                except BaseException as error:
                    reply = _raised(error)
            request = loop.send(reply)
    except StopIteration as done:
        outcome: RelapseResult | Raised = done.value
    except GeneratorExit:
        _closed_by_caller(loop)
        raise
    finally:
        if reading is not None:
            with contextlib.suppress(Exception):
                await _aclose(reading)
    box.append(_ended(outcome))


async def adrive(loop: Steps, call: Callable[[str, Any], object]) -> RelapseResult:
    """
    Run the loop with an asynchronous LLM call ``call(query, chunks)``.

    The call returns an awaitable of the answer, or an async iterator (an
    async generator function's stream), which is read to its end.
    """
    box: list[RelapseResult | BaseException] = []
    async for _ in apump(loop, call, box):
        pass  # what it releases has no caller to go to
    return settled(box[0])
