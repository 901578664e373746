"""
The loop driven one answer at a time, for a framework that re-asks by itself.

Pydantic AI's output validators, Haystack's Agent exit hooks and an MCP
client each call the model themselves and re-ask when told to. They cannot
hand relapse a function to call, so the loop's generator
(:func:`relapse._loop.steps`) is driven from the outside: :meth:`Stepper.submit`
sends it one answer and returns either a :class:`Retry` (the note to re-ask
with) or the final :class:`relapse.RelapseResult`. Every decision (the check,
the stop rules, ``on_exhausted``, the retry wording, one span per attempt) is
the loop's own, exactly as for the decorator.

The first attempt's span starts when the first answer arrives (the
framework's model call is its own span, made before); each later one starts
when the previous ended, so it spans the framework's re-ask. The call span
stays open from the first answer to the last.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any, final

from relapse._engine import Loop, hook_policy
from relapse._loop import (
    Ask,
    Await,
    Raised,
    Steps,
    _async_check_refused,
    _closed_by_caller,
    steps,
    unchecked_result,
)
from relapse._policy import is_enabled
from relapse._read.chunks import chunk_texts
from relapse._read.replies import Readers
from relapse._results import RelapseResult, Usage
from relapse._state import Attempt

__all__ = ["Answered", "Retry", "Stepper"]


@dataclass(frozen=True, slots=True)
class Answered:
    """What a hook hands the loop for one attempt: the answer, its tokens, the raw response."""

    text: str
    usage: Usage | None
    response: Any
    #: The chunks this answer is checked against (what the run had retrieved by then).
    chunks: Any


def _text(answered: Answered) -> str:
    return answered.text


def _usage(answered: Answered) -> Usage | None:
    return answered.usage


def _chunks(answered: Answered) -> Any:
    return answered.chunks


@dataclass(frozen=True, slots=True)
class Retry:
    """
    The loop wants another attempt.

    Attributes:
        note: What to re-ask the model with: the rejected answer and each
            failing span (:func:`relapse.prompts.retry_note`, or the loop's
            ``rewrite``).
        attempt: The next :class:`relapse.Attempt` (its ``iteration``, the
            previous answer's ``findings`` and the transcript so far).
    """

    note: str
    attempt: Attempt


def _unwrapped_response(result: RelapseResult) -> RelapseResult:
    """``result`` with each record's (and its own) response the framework's, not the Answered."""
    transcript = [
        replace(r, response=r.response.response) if isinstance(r.response, Answered) else r
        for r in result.transcript
    ]
    response = result.response
    if isinstance(response, Answered):
        response = response.response
    return replace(result, transcript=transcript, response=response)


@final
class Stepper:
    """
    One grounded call whose model calls the framework makes.

    Args:
        loop: The :class:`relapse.Loop` whose options apply.
        name: The call span is named ``relapse <name>``.
        query: The user's question.

    Each answer is checked against the chunks submitted with it (a run's
    tools may retrieve more between attempts), as a decorated function's
    ``chunks_of`` answers are.

    Raises:
        TypeError: ``query`` is not a ``str``.
        ValueError: the loop has ``retrieve`` or ``release="sentence"``
            (see :func:`relapse._engine.hook_policy`).
    """

    __slots__ = ("_query", "_request", "_steps", "result")

    def __init__(self, loop: Loop, name: str, query: str) -> None:
        if not isinstance(query, str):
            raise TypeError(f"query must be str, got {type(query).__name__}")
        policy = replace(hook_policy(loop, name), readers=Readers(_text, _usage, _chunks))
        self._query = query
        #: The final result, once the loop ended; None before.
        self.result: RelapseResult | None = None
        self._steps: Steps | None = None
        self._request: object = None
        if is_enabled(policy.enabled):
            self._steps = steps(policy, query, ())
            self._request = next(self._steps)  # iteration 1's Ask: its span is open

    @property
    def iteration(self) -> int:
        """The iteration whose answer :meth:`submit` expects next (1 first)."""
        if isinstance(self._request, Ask):
            return self._request.attempt.iteration
        return len(self.result.transcript) if self.result is not None else 1

    @property
    def done(self) -> bool:
        """Whether the loop ended (:attr:`result` is set, or it raised)."""
        return self._steps is None or self.result is not None

    def _start(self, answered: Answered) -> object | RelapseResult:
        if self.result is not None:
            raise RuntimeError("this grounded call has ended: start another for a new question")
        if self._steps is None:
            # The kill switch: the answer passes unchecked, as the decorator's call does.
            self.result = replace(
                unchecked_result(self._query, answered.text), response=answered.response
            )
            return self.result
        return self._send(answered)

    def _send(self, reply: object) -> object:
        assert self._steps is not None
        try:
            return self._steps.send(reply)
        except StopIteration as stop:
            ended: RelapseResult | Raised = stop.value
        self._steps = None
        if isinstance(ended, Raised):
            raise ended.error
        self.result = _unwrapped_response(ended)
        return self.result

    def _next(self, request: object) -> Retry | RelapseResult:
        if isinstance(request, RelapseResult):
            return request
        assert isinstance(request, Ask)
        self._request = request
        return Retry(request.attempt.prompt, request.attempt)

    def submit(
        self,
        answer: str,
        chunks: Iterable[Any],
        *,
        usage: Usage | None = None,
        response: Any = None,
    ) -> Retry | RelapseResult:
        """
        Check one answer; return what to re-ask with, or the final result.

        Args:
            answer: The model's answer text.
            chunks: The chunks to check it against (any shape
                :func:`relapse.run` takes: ``str``, mappings with a ``text``,
                LangChain, LlamaIndex or Haystack documents).
            usage: Its tokens, if the framework reported them.
            response: The framework's raw response (kept in the transcript);
                ``answer`` when None.

        Returns:
            A :class:`Retry` when the loop wants another attempt, else the
            :class:`relapse.RelapseResult` (also in :attr:`result`).

        Raises:
            TypeError: the loop's check is async (use :meth:`asubmit`); a
                chunk of an unknown shape (the message names its index).
            NotGroundedError: the loop ended ungrounded with ``on_exhausted="raise"``.
            RuntimeError: the loop has already ended.
            Exception: whatever the check raises, unchanged.
        """
        request = self._start(self._answered(answer, chunks, usage, response))
        while isinstance(request, Await):
            request = self._send(_async_check_refused(request.pending))
        return self._next(request)

    async def asubmit(
        self,
        answer: str,
        chunks: Iterable[Any],
        *,
        usage: Usage | None = None,
        response: Any = None,
    ) -> Retry | RelapseResult:
        """:meth:`submit`, awaiting an async check's verdict."""
        request = self._start(self._answered(answer, chunks, usage, response))
        while isinstance(request, Await):
            try:
                verdict: object = await request.pending
            except BaseException as error:
                verdict = Raised(error)
            request = self._send(verdict)
        return self._next(request)

    @staticmethod
    def _answered(
        answer: str, chunks: Iterable[Any], usage: Usage | None, response: Any
    ) -> Answered:
        if not isinstance(answer, str):
            raise TypeError(f"answer must be str, got {type(answer).__name__}")
        # Read once here: a one-shot iterator would be empty when the loop reads it.
        texts = chunk_texts(chunks, "chunks")
        return Answered(answer, usage, answer if response is None else response, texts)

    def close(self) -> None:
        """End the loop where it is (the framework stopped asking); its spans end as stopped."""
        if self._steps is not None:
            _closed_by_caller(self._steps)
            self._steps = None
