"""``@relapse.grounded``: a thin skin adapting an ``answer(query, chunks)`` call to the loop."""

from __future__ import annotations

import functools
import importlib
import inspect
import pickle
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import TYPE_CHECKING, Any

import wrapt

from relapse._binding import CallShape, Slot, call_shape
from relapse._loop import Steps, astart, start, steps
from relapse._policy import LoopOptions, Policy, is_enabled, make_policy
from relapse._read.chunks import materialize
from relapse._read.replies import ChunksOf, unchecked_result
from relapse._read.streams import Streamed
from relapse._results import RelapseResult
from relapse._streams import AsyncGroundedStream, GroundedStream
from relapse.typing import GroundedDecorator

if TYPE_CHECKING:
    from typing import Unpack

Args = tuple[Any, ...]
Kwargs = dict[str, Any]


def _found(slot: Slot, args: Args, kwargs: Kwargs, role: str) -> Any:
    try:
        return slot.get(args, kwargs)
    except TypeError:
        raise TypeError(f"missing the {role} argument {slot.name!r}") from None


class _Engine:
    """What one decorated function needs at call time; holds no per-call state."""

    __slots__ = ("policy", "shape")

    def __init__(self, shape: CallShape, policy: Policy) -> None:
        self.shape = shape
        self.policy = policy

    def _start(
        self, wrapped: Callable[..., Any], instance: Any, args: Args, kwargs: Kwargs
    ) -> tuple[Steps, Callable[[str, Any], Any]]:
        """
        Read and validate the query and chunks (once) and start the loop.

        Returns:
            The loop, and ``call(prompt, replaced_chunks_or_none)`` making one
            iteration's call with the query (and chunks) re-bound.
        """
        # wrapt hands us args without self/cls whenever ``instance`` is set.
        slots = self.shape.slots(bound=instance is not None)
        query = _found(slots.query, args, kwargs, "query")
        if not isinstance(query, str):
            raise TypeError(f"{slots.query.name} must be str, got {type(query).__name__}")
        texts: list[str] = []
        chunks_slot = slots.chunks
        if chunks_slot is not None:
            chunks = _found(chunks_slot, args, kwargs, "chunks")
            passed, texts = materialize(chunks, chunks_slot.name)
            if passed is not chunks:
                args, kwargs = chunks_slot.replace(args, kwargs, passed)
        first_args, first_kwargs = args, kwargs
        # The retry text replaces the query, or goes to the feedback parameter.
        retry_slot = slots.feedback or slots.query

        def call(prompt: str, replaced: Any) -> Any:
            call_args, call_kwargs = first_args, first_kwargs
            if prompt is not query:
                call_args, call_kwargs = retry_slot.replace(call_args, call_kwargs, prompt)
            if replaced is not None and chunks_slot is not None:
                call_args, call_kwargs = chunks_slot.replace(call_args, call_kwargs, replaced)
            return wrapped(*call_args, **call_kwargs)

        return steps(self.policy, query, texts), call

    def _unchecked(self, raw: Any, instance: Any, args: Args, kwargs: Kwargs) -> RelapseResult:
        """The result of a call made straight through, with the kill switch off."""
        query_slot = self.shape.slots(bound=instance is not None).query
        try:
            query = query_slot.get(args, kwargs)
        except TypeError:
            query = ""
        return unchecked_result(query if isinstance(query, str) else "", raw)

    def execute(
        self, wrapped: Callable[..., Any], instance: Any, args: Args, kwargs: Kwargs
    ) -> RelapseResult | GroundedStream[Any]:
        """
        The wrapt wrapper of a sync function: run the loop, return the result.

        With ``release="sentence"``, once a call returns a stream: the
        :class:`GroundedStream` running the rest of the loop.
        """
        if not is_enabled(self.policy.enabled):
            return self._unchecked(wrapped(*args, **kwargs), instance, args, kwargs)
        return start(*self._start(wrapped, instance, args, kwargs))

    async def aexecute(
        self, wrapped: Callable[..., Any], instance: Any, args: Args, kwargs: Kwargs
    ) -> RelapseResult | AsyncGroundedStream[Any]:
        """
        The wrapt wrapper of an ``async def`` (or async generator) function.

        Every error surfaces on await.
        """
        if not is_enabled(self.policy.enabled):
            raw = wrapped(*args, **kwargs)
            if inspect.isawaitable(raw):
                raw = await raw
            return self._unchecked(raw, instance, args, kwargs)
        return await astart(*self._start(wrapped, instance, args, kwargs))


Outcome = RelapseResult | GroundedStream[Any] | AsyncGroundedStream[Any]


def returned(outcome: Outcome) -> Any:
    """
    What calling the decorated function gives back for a finished loop or a running stream.

    The chosen attempt's own return value; a stream it returned is handed
    back as a :class:`GroundedStream` (or :class:`AsyncGroundedStream`)
    replaying its pieces, with the result already known.
    """
    if not isinstance(outcome, RelapseResult):
        return outcome  # release="sentence": the stream running the loop
    response = outcome.response
    if not isinstance(response, Streamed):
        return response
    if response.kind == "sync":
        return GroundedStream(response.replay(), outcome)  # type: ignore[arg-type]
    return AsyncGroundedStream(response.replay(), [outcome])  # type: ignore[arg-type]


def drained(outcome: Outcome) -> RelapseResult:
    """The :class:`RelapseResult` of ``outcome``, reading a running sync stream to its end."""
    if isinstance(outcome, GroundedStream):
        with outcome:
            for _ in outcome:
                pass
        return outcome.result
    assert isinstance(outcome, RelapseResult)  # an async stream comes from a coroutine
    return outcome


async def _adrained(pending: Coroutine[Any, Any, Outcome]) -> RelapseResult:
    outcome = await pending
    if isinstance(outcome, AsyncGroundedStream):
        async with outcome:
            async for _ in outcome:
                pass
        return outcome.result
    return drained(outcome)


async def _await_response(pending: Coroutine[Any, Any, Outcome]) -> Any:
    return returned(await pending)


def _response_of(outcome: Outcome | Coroutine[Any, Any, Outcome]) -> Any:
    """What calling the decorated function returns: the chosen attempt's own return value."""
    if isinstance(outcome, (RelapseResult, GroundedStream)):
        return returned(outcome)
    return _await_response(outcome)  # type: ignore[arg-type]


def _result_of(outcome: Outcome | Coroutine[Any, Any, Outcome]) -> Any:
    """What ``.run`` returns: the :class:`RelapseResult` (a coroutine of it for async functions)."""
    if isinstance(outcome, (RelapseResult, GroundedStream)):
        return drained(outcome)
    return _adrained(outcome)  # type: ignore[arg-type]


class _BoundGrounded(wrapt.BoundFunctionWrapper):  # type: ignore[type-arg]
    """A grounded function bound to an instance or class (methods)."""

    def __call__(self, /, *args: Any, **kwargs: Any) -> Any:
        return _response_of(super().__call__(*args, **kwargs))

    def run(self, /, *args: Any, **kwargs: Any) -> Any:
        """Call like the function, but return the :class:`relapse.RelapseResult`."""
        return _result_of(super().__call__(*args, **kwargs))


def _replayed(begin: Callable[[], Coroutine[Any, Any, Outcome]]) -> AsyncGroundedStream[Any]:
    """
    The stream of a grounded async generator function: the loop runs on its first step.

    ``begin()`` makes the loop's coroutine; it is called on the first
    ``__anext__``, so a stream that is never iterated leaves no coroutine
    behind to warn that it was never awaited.
    """
    box: list[RelapseResult] = []

    async def pieces() -> AsyncIterator[Any]:
        done = await begin()
        outcome = returned(done)
        if not isinstance(outcome, AsyncGroundedStream):
            # The kill switch was off: the function's own stream, unread.
            box.append(done)  # type: ignore[arg-type]
            async for piece in outcome:
                yield piece
            return
        async with outcome:
            async for piece in outcome:
                yield piece
        box.append(outcome.result)

    return AsyncGroundedStream(pieces(), box)


class _BoundStreamingGrounded(_BoundGrounded):
    """A grounded async generator method, bound."""

    def __call__(self, /, *args: Any, **kwargs: Any) -> Any:
        return _replayed(lambda: wrapt.BoundFunctionWrapper.__call__(self, *args, **kwargs))


def _resolve(module: str, qualname: str) -> Any:
    """Find a decorated module-level function again by name (unpickling)."""
    found: Any = importlib.import_module(module)
    for part in qualname.split("."):
        found = getattr(found, part)
    return found


class GroundedFunction(wrapt.FunctionWrapper):  # type: ignore[type-arg]
    """
    A function wrapped by :func:`grounded`.

    Calling it returns the function's own return value (the response object,
    the dict, a replay of a stream) of the attempt the loop chose: the
    grounded one, or, when none passed, the one ``on_exhausted`` picks;
    :meth:`run` returns the whole :class:`relapse.RelapseResult`.
    For an ``async def`` function both return awaitables.

    A decorated module-level function pickles by reference, like a plain
    function (so it can be sent to a process pool), and ``copy.copy`` /
    ``copy.deepcopy`` return it unchanged, as they do for functions.
    """

    __bound_function_wrapper__ = _BoundGrounded

    def __call__(self, /, *args: Any, **kwargs: Any) -> Any:
        return _response_of(super().__call__(*args, **kwargs))

    def run(self, /, *args: Any, **kwargs: Any) -> Any:
        """Call like the function, but return the :class:`relapse.RelapseResult`."""
        return _result_of(super().__call__(*args, **kwargs))

    def __reduce_ex__(self, protocol: object) -> tuple[Any, ...]:
        module = getattr(self.__wrapped__, "__module__", None)
        qualname = getattr(self.__wrapped__, "__qualname__", None)
        if not isinstance(module, str) or not isinstance(qualname, str) or "<" in qualname:
            raise pickle.PicklingError(
                f"cannot pickle the grounded function {qualname!r}: only functions defined"
                " at module level pickle (by reference, like plain functions)"
            )
        return _resolve, (module, qualname)

    def __reduce__(self) -> tuple[Any, ...]:
        return self.__reduce_ex__(2)

    def __copy__(self) -> GroundedFunction:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> GroundedFunction:
        return self


class StreamingGroundedFunction(GroundedFunction):
    """
    An async generator function wrapped by :func:`grounded`.

    Calling it returns an async iterator at once, as the function did; the
    loop runs when it is first iterated, and it yields the chosen attempt's
    pieces. :meth:`run` returns a coroutine of the :class:`relapse.RelapseResult`.
    """

    __bound_function_wrapper__ = _BoundStreamingGrounded

    def __call__(self, /, *args: Any, **kwargs: Any) -> Any:
        return _replayed(lambda: wrapt.FunctionWrapper.__call__(self, *args, **kwargs))


def is_async(function: Callable[..., Any]) -> bool:
    """
    Whether calling ``function`` returns a coroutine (decided when decorating).

    Looks through ``functools.partial`` and bound methods, never through
    ``__wrapped__``: a sync wrapper made with ``functools.wraps(async_fn)``
    (an ``asyncio.run``-style wrapper) is sync.
    """
    target: Any = function
    while isinstance(target, functools.partial):
        target = target.func
    return inspect.iscoroutinefunction(target)


def grounded(
    _function: None = None,
    /,
    *,
    chunks_arg: str | None = None,
    chunks_of: ChunksOf | None = None,
    query_arg: str | None = None,
    feedback_arg: str | None = None,
    **options: Unpack[LoopOptions],
) -> GroundedDecorator:
    """
    Re-invoke an LLM-calling function until its answer is grounded.

    Iteration 1 calls the function with its arguments untouched. When the
    answer fails the check, iteration n > 1 calls it again with the query
    argument replaced by a retry query that quotes the original query, the
    previous answer and every error finding, and asks for an answer from
    the context alone (or, with ``feedback_arg``, with the query untouched
    and that note in the feedback parameter).

    The function may return a ``str``, an SDK response (OpenAI, Anthropic,
    LangChain, LlamaIndex...), a dict, or a stream (a sync or async iterator,
    read to its end before the check; generator and async generator
    functions too); ``answer_of`` reads the text to check.
    Calling the decorated function returns the function's own return value
    of the chosen attempt (a stream is replayed as an iterator of the same
    kind, so its first piece arrives only once the whole answer is checked);
    ``.run`` returns the :class:`relapse.RelapseResult`, whose ``answer`` is
    the text, ``response`` the raw value and ``usage`` the tokens of every
    attempt.
    Inside it, :func:`relapse.current_attempt` gives the iteration's
    :class:`relapse.Attempt` (raise the temperature on a retry, for example).

    Works on plain and ``async def`` functions, instance methods,
    classmethods and staticmethods (apply ``@staticmethod``/``@classmethod``
    above it); name, docstring, signature and ``inspect.iscoroutinefunction``
    are those of the wrapped function (wrapt). The chunks argument may be
    passed positionally or by keyword; a one-shot iterator is read once and
    the same list is passed on every iteration; any other iterable is passed
    as it is. For ``async def`` functions every error, argument errors
    included, is raised when the coroutine is awaited.

    Args:
        _function: Only there so that a bare ``@relapse.grounded`` fails
            naming ``chunks_arg``/``chunks_of`` rather than with "takes 0
            positional arguments"; pass nothing.
        chunks_arg: Name of the parameter holding the retrieved chunks: an
            iterable of ``str``, of mappings with a ``text``, ``page_content``
            or ``content`` key, or of LangChain, LlamaIndex or Haystack
            documents. Exactly one of ``chunks_arg`` and ``chunks_of``.
        chunks_of: ``chunks_of(response) -> chunks`` for a function that
            retrieves its chunks itself and returns them with the answer
            (see :mod:`relapse.chunks_from`); each attempt is checked against
            the chunks it returned. Exactly one of ``chunks_arg`` and ``chunks_of``.
        query_arg: Name of the query parameter; by default the first
            parameter that is none of ``chunks_arg``, ``feedback_arg``,
            ``self``/``cls``.
        feedback_arg: Name of a parameter that receives, on iterations 2+,
            the retry note (the rejected answer and its findings, as text:
            :func:`relapse.prompts.retry_note`, or ``rewrite``'s result when
            given) while the query argument stays exactly the caller's, so the
            function's own retrieval, caches and logs see the real question.
            On iteration 1 it is passed untouched. DSPy's ``hint_`` field is
            the precedent.
        answer_of: ``answer_of(response) -> str`` reads the text to check
            from what the function returned; defaults to
            :func:`relapse.default_answer_of` (for a stream, the text of its
            pieces). For a stream it receives the :class:`relapse.Streamed`.
        usage_of: ``usage_of(response) -> relapse.Usage | None`` reads the
            tokens one call spent; defaults to :func:`relapse.default_usage_of`
            (for a stream, its final usage event).
        max_total_tokens: Stop retrying once the tokens the attempts
            reported reach this many (outcome ``"budget"``); the attempt that
            crossed it is still checked, and returned grounded if it passed.
        release: When a stream's pieces reach the caller: ``"answer"`` (the
            default) once the whole answer passed, replayed; ``"sentence"``
            each piece as soon as all its text has passed the check, the same
            objects in order, the stream closed at the first failing sentence
            and the retry asked to continue after the released text
            (``Attempt.released``). A check that cannot judge a prefix falls
            back to ``"answer"`` with one warning. Either way the caller gets a
            :class:`relapse.GroundedStream` (or :class:`relapse.AsyncGroundedStream`).
        max_iterations: Total LLM calls allowed, at least 1 (1 means no retry).
        grounding_check: A :class:`relapse.checks.Check`,
            ``check(query, chunks, answer) -> GroundingResult``; defaults to
            :func:`relapse.default_grounding_check`. ``chunks`` is the list of
            chunk texts. An async check (returning an awaitable) needs an
            ``async def`` function.
        on_exhausted: What to return when no answer passed: ``"return"`` the
            last answer; ``"best"`` the real answer with the fewest failing
            spans (earliest on ties), where an empty answer, an echo of the
            retry instructions (FG004) or an answer the check could not read
            ranks below every real answer; ``"raise"``
            :class:`relapse.NotGroundedError`; or a callable
            ``on_exhausted(attempt) -> answer`` given the
            :class:`relapse.Attempt` that was not made (its ``transcript``
            holds every record), whose ``str`` is returned; for a function
            returning a stream (generator and async generator functions
            too) it comes back as a stream of the same kind, sync or async,
            yielding that text as its one piece (the result's ``response``
            is then ``Streamed(kind, (text,))``).
        rewrite: ``rewrite(attempt) -> str`` builds the retry query from the
            :class:`relapse.Attempt` being prepared; the wordings'
            ``rewrite(query, previous_answer, findings)`` form is accepted too
            (it receives the error findings). Defaults to
            :func:`relapse.compact_retry`.
        timeout: Overall budget in seconds; checked after each iteration,
            and again after ``retrieve`` and after ``rewrite``, so no further
            iteration starts once it is spent: the loop then ends with outcome
            ``"timeout"`` per ``on_exhausted``. It does not interrupt a
            running LLM call (nor ``on_iteration``, ``retrieve``, ``rewrite``).
        max_prompt_chars: A hard upper bound, in characters, on every retry
            query: a longer one quotes only the failing spans, then only the
            finding codes, then a shortened question.
        retrieve: The re-retrieval back-edge, ``retrieve(attempt) -> chunks |
            None`` (or ``retrieve(query, previous_answer, findings)``): called
            before each retry, before ``rewrite``; new chunks (same shapes as
            the chunks argument) replace the chunks argument from then on and
            the check judges against them, None keeps the current ones. The
            idea of a refinement step that re-queries the retriever comes
            from agentic RAG evaluators.
        stop_on_repeat: Stop with outcome ``"stalled"`` when an answer fails
            with exactly the same failing spans (codes and spans) as the
            previous one, instead of paying for another identical call.
        on_iteration: ``on_iteration(attempt)``, called before each LLM call
            (inside its span); what it raises propagates like an LLM error.
        enabled: The kill switch: a bool, or ``enabled() -> bool`` read on
            every call. When off, or when the environment variable
            ``RELAPSE_ENABLED`` is ``0``/``false``/``no``/``off`` (read when
            decorating, like the content-capture variable; by ``run``/``arun``
            at each call), the function is called once, straight through: no
            check, no spans; ``.run`` returns a result with outcome ``"disabled"``.
        tracer_provider: OpenTelemetry tracer provider; the global one when None.
        meter_provider: OpenTelemetry meter provider; the global one when None.
        logger_provider: OpenTelemetry logger provider for evaluation events;
            when None they are span events.
        capture_content: Put prompts, answers and failing spans on spans;
            when None, decided by ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT``.
        redact: Applied to every captured text before it is recorded.

    Returns:
        A decorator; the decorated function also has ``.run(*args, **kwargs)``
        returning the :class:`relapse.RelapseResult`.

    Raises:
        TypeError: an option has the wrong type, or not exactly one of
            ``chunks_arg`` and ``chunks_of`` is given. At call time: the chunks
            or query argument is missing or of the wrong type (before any
            call), or the answer cannot be read from what the function
            returned (the raw value stays on the transcript).
        ValueError: ``max_iterations`` or ``max_total_tokens`` < 1, an
            unknown ``on_exhausted``, ``retrieve`` with ``chunks_of``, or a
            ``chunks_arg``/``query_arg``/``feedback_arg`` that is not a
            parameter (raised when decorating, listing the parameters).
        NotGroundedError: at call time, with ``on_exhausted="raise"``.

    .. versionchanged:: 0.2.0 ``stop_on_repeat``, ``on_iteration``,
       ``enabled``; policies take a :class:`relapse.Attempt`. ``chunks_of``,
       ``feedback_arg``, ``answer_of``, ``usage_of``, ``max_total_tokens``;
       calling returns the function's own return value.
    """
    if _function is not None:
        raise TypeError(
            "a bare @relapse.grounded is missing its options: use"
            " @relapse.grounded(chunks_arg=...) or @relapse.grounded(chunks_of=...)"
        )
    if (chunks_arg is None) == (chunks_of is None):
        raise TypeError(
            "grounded() takes exactly one of chunks_arg= (the parameter holding the chunks)"
            " and chunks_of= (reading them from what the function returns)"
        )
    for role, name in (
        ("chunks_arg", chunks_arg),
        ("query_arg", query_arg),
        ("feedback_arg", feedback_arg),
    ):
        if name is not None and not isinstance(name, str):
            raise TypeError(f"{role} must be a parameter name (str), got {type(name).__name__}")
    policy = make_policy(
        "grounded", options, chunks_of=chunks_of, feedback=feedback_arg is not None
    )

    def decorate(function: Any) -> Any:
        if isinstance(function, (staticmethod, classmethod)):
            target = function.__func__
        else:
            target = function
        if not callable(target):
            raise TypeError(f"@grounded decorates a function, got {type(function).__name__}")
        shape = call_shape(target, chunks_arg, query_arg, feedback_arg)
        engine = _Engine(shape, policy.named(getattr(target, "__qualname__", repr(target))))
        if inspect.isasyncgenfunction(target):
            # Calling it must give an async iterator at once: the loop runs on
            # its first step, and the chosen attempt's pieces are replayed.
            return StreamingGroundedFunction(function, engine.aexecute)
        wrapper = engine.aexecute if is_async(target) else engine.execute
        return GroundedFunction(function, wrapper)

    return decorate
