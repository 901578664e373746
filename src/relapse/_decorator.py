"""
The decorator's mechanics: the wrapt classes and the per-function call adapter.

:meth:`relapse.Loop.grounded` (and so :func:`relapse.grounded`) returns
:func:`decorator`'s decorator; :class:`_Adapter` turns one call of the
decorated function into a run of the loop.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import pickle
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any

import wrapt

from relapse._binding import CallShape, Slot, call_shape
from relapse._loop import Steps, astart, start, steps, unchecked
from relapse._policy import Policy, is_enabled
from relapse._read.chunks import materialize
from relapse._read.replies import ChunksOf
from relapse._read.streams import Streamed
from relapse._results import RelapseResult
from relapse._stream.grounded import AsyncGroundedStream, GroundedStream
from relapse.typing import GroundedDecorator

Args = tuple[Any, ...]
Kwargs = dict[str, Any]
#: What one call of the loop ends with: the result, or the stream running (or replaying) it.
Outcome = RelapseResult | GroundedStream[Any] | AsyncGroundedStream[Any]


def _found(slot: Slot, args: Args, kwargs: Kwargs, role: str) -> Any:
    try:
        return slot.get(args, kwargs)
    except TypeError:
        raise TypeError(f"missing the {role} argument {slot.name!r}") from None


class _Adapter:
    """The per-function call adapter: what one decorated function needs at call time."""

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

    def _unchecked(
        self, raw: Any, awaited: bool, instance: Any, args: Args, kwargs: Kwargs
    ) -> Outcome:
        """
        A call made straight through, with the kill switch off: its unchecked result.

        A stream is handed back as the stream type the enabled loop hands
        over (see :func:`relapse._loop.unchecked`).
        """
        query_slot = self.shape.slots(bound=instance is not None).query
        try:
            query = query_slot.get(args, kwargs)
        except TypeError:
            query = ""
        return unchecked(query, raw, awaited)

    def execute(
        self, wrapped: Callable[..., Any], instance: Any, args: Args, kwargs: Kwargs
    ) -> Outcome:
        """
        The wrapt wrapper of a sync function: run the loop, return the result.

        With ``release="sentence"``, once a call returns a stream: the
        :class:`GroundedStream` running the rest of the loop.
        """
        if not is_enabled(self.policy.enabled):
            return self._unchecked(wrapped(*args, **kwargs), False, instance, args, kwargs)
        return start(*self._start(wrapped, instance, args, kwargs))

    async def aexecute(
        self, wrapped: Callable[..., Any], instance: Any, args: Args, kwargs: Kwargs
    ) -> Outcome:
        """
        The wrapt wrapper of an ``async def`` (or async generator) function.

        Every error surfaces on await.
        """
        if not is_enabled(self.policy.enabled):
            raw = wrapped(*args, **kwargs)
            if inspect.isawaitable(raw):
                raw = await raw
            return self._unchecked(raw, True, instance, args, kwargs)
        return await astart(*self._start(wrapped, instance, args, kwargs))


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


def outcome_of(function: Any, /, *args: Any, **kwargs: Any) -> Any:
    """
    Call a grounded function, returning the loop's :data:`Outcome` as it ended.

    The :class:`RelapseResult`, or with ``release="sentence"`` the running
    :class:`GroundedStream` (a coroutine of either for an ``async def``):
    for an integration that needs the result of a call that did not stream
    and the stream of one that did (``GroundedQueryEngine``).
    """
    return wrapt.FunctionWrapper.__call__(function, *args, **kwargs)


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
    box: list[RelapseResult | BaseException] = []

    async def pieces() -> AsyncIterator[Any]:
        outcome = returned(await begin())
        # An async generator's stream, also with the kill switch off (passed through).
        assert isinstance(outcome, AsyncGroundedStream)
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


def decorator(
    policy: Policy,
    function: object = None,
    /,
    *,
    chunks_arg: str | None,
    chunks_of: ChunksOf | None,
    query_arg: str | None,
    feedback_arg: str | None,
) -> GroundedDecorator:
    """
    The decorator :meth:`relapse.Loop.grounded` returns, running ``policy``.

    Raises:
        TypeError: ``function`` is given (a bare ``@grounded``), not exactly
            one of ``chunks_arg`` and ``chunks_of``, or a name not a ``str``.
        ValueError: see :meth:`Policy.for_function`.
    """
    if function is not None:
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
    # Validated now, when decorating; named after each function below.
    policy.for_function("grounded", chunks_of, feedback_arg is not None)

    def decorate(function: Any) -> Any:
        if isinstance(function, (staticmethod, classmethod)):
            target = function.__func__
        else:
            target = function
        if not callable(target):
            raise TypeError(f"@grounded decorates a function, got {type(function).__name__}")
        shape = call_shape(target, chunks_arg, query_arg, feedback_arg)
        qualname = getattr(target, "__qualname__", repr(target))
        engine = _Adapter(shape, policy.for_function(qualname, chunks_of, feedback_arg is not None))
        if inspect.isasyncgenfunction(target):
            # Calling it must give an async iterator at once: the loop runs on
            # its first step, and the chosen attempt's pieces are replayed.
            return StreamingGroundedFunction(function, engine.aexecute)
        wrapper = engine.aexecute if is_async(target) else engine.execute
        return GroundedFunction(function, wrapper)

    return decorate
