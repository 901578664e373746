"""
The static types of grounded functions: what ``@relapse.grounded(...)`` returns.

A decorated function keeps its parameters (``ParamSpec``) and its return
type (calling it returns the function's own return value of the chosen
attempt), and gains ``.run`` returning :class:`relapse.RelapseResult`; for
``async def`` functions both return awaitables.

A function that returns a stream is the exception, as at run time: calling
it returns the stream relapse hands the caller, not the function's own.

* ``Iterator[T]`` (a generator, the OpenAI SDK's ``Stream[T]``, any
  iterator): :class:`relapse.GroundedStream` ``[T]``;
* ``AsyncIterator[T]`` (an async generator function, or a plain ``def``
  returning one): :class:`relapse.AsyncGroundedStream` ``[T]``;
* ``Coroutine[Any, Any, AsyncIterator[T]]`` (an ``async def`` returning an
  ``AsyncStream[T]``): ``Coroutine[Any, Any, AsyncGroundedStream[T]]``;
* anything else, ``T``: ``T`` (``Coroutine[Any, Any, T]`` for ``async def``).

A return type that is a stream only sometimes (``Iterator[str] | str``)
matches no stream overload: it is typed as written, though at run time
the stream it returns is a :class:`relapse.GroundedStream` (which is an
``Iterator[str]``, so the type stays true; narrow with ``isinstance`` to
reach ``.result``). ``tests/typing/usage.py`` and ``tests/typing/streams.py``
pin these types under ``mypy --strict``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, Protocol, TypeVar, overload

if TYPE_CHECKING:
    from relapse._results import RelapseResult
    from relapse._stream.grounded import AsyncGroundedStream, GroundedStream

P = ParamSpec("P")
Q = ParamSpec("Q")
S = TypeVar("S")
#: What calling the grounded function returns: the function's own return type.
A = TypeVar("A", covariant=True)
#: What ``.run`` returns: ``RelapseResult``, or a coroutine of one.
R = TypeVar("R", covariant=True)
#: The decorated function's return type.
T = TypeVar("T")


class Grounded(Protocol[P, A, R]):
    """
    A grounded function: ``f(*args) -> A`` and ``f.run(*args) -> R``.

    ``Grounded[P, T, RelapseResult]`` for a sync function returning ``T``;
    ``Grounded[P, Coroutine[Any, Any, T], Coroutine[Any, Any, RelapseResult]]``
    for an ``async def`` one.
    """

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> A:
        """Return the chosen attempt's own return value (a stream: the caller's grounded stream)."""

    def run(self, *args: P.args, **kwargs: P.kwargs) -> R:
        """Return the whole :class:`relapse.RelapseResult`."""

    @overload
    def __get__(self, instance: None, owner: type[Any], /) -> Grounded[P, A, R]: ...
    @overload
    def __get__(
        self: Grounded[Concatenate[S, Q], A, R], instance: S, owner: type[Any], /
    ) -> Grounded[Q, A, R]: ...
    def __get__(self, instance: Any, owner: type[Any], /) -> Any:
        """Bind like a function: a method drops ``self``."""


class GroundedDecorator(Protocol):
    """What ``relapse.grounded(...)`` returns: decorates a sync or an async function."""

    # The overloads overlap only for a plain ``def`` returning a coroutine,
    # which static types cannot tell from an ``async def``; the async one wins.
    # An ``async def`` returning an async iterator (``AsyncStream``): awaiting
    # the call gives the caller's stream. Before the general coroutine overload.
    @overload
    def __call__(  # type: ignore[overload-overlap]
        self, function: Callable[P, Coroutine[Any, Any, AsyncIterator[T]]], /
    ) -> Grounded[
        P, Coroutine[Any, Any, AsyncGroundedStream[T]], Coroutine[Any, Any, RelapseResult]
    ]: ...
    @overload
    def __call__(  # type: ignore[overload-overlap]
        self, function: Callable[P, Coroutine[Any, Any, T]], /
    ) -> Grounded[P, Coroutine[Any, Any, T], Coroutine[Any, Any, RelapseResult]]: ...
    # An async generator function: calling gives the caller's async stream at
    # once, ``.run`` a coroutine (the same plain-``def`` caveat as above).
    @overload
    def __call__(  # type: ignore[overload-overlap]
        self, function: Callable[P, AsyncIterator[T]], /
    ) -> Grounded[P, AsyncGroundedStream[T], Coroutine[Any, Any, RelapseResult]]: ...
    # A generator function, or one returning an iterator (the OpenAI SDK's
    # ``Stream[T]`` is one): calling gives the caller's stream.
    @overload
    def __call__(
        self, function: Callable[P, Iterator[T]], /
    ) -> Grounded[P, GroundedStream[T], RelapseResult]: ...
    @overload
    def __call__(self, function: Callable[P, T], /) -> Grounded[P, T, RelapseResult]: ...
    def __call__(self, function: Callable[..., Any], /) -> Any:
        """Wrap ``function`` in the loop."""
