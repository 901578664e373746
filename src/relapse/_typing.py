"""
The static types of grounded functions: what ``@relapse.grounded(...)`` returns.

A decorated function keeps its parameters (``ParamSpec``) and its return
type (calling it returns the function's own return value of the chosen
attempt), and gains ``.run`` returning :class:`relapse.RelapseResult`; for
``async def`` functions both return awaitables. The shape follows tenacity's ``_RetryDecorated``.
``tests/typing/usage.py`` pins these types under ``mypy --strict``.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, Protocol, TypeVar, overload

if TYPE_CHECKING:
    from relapse._types import RelapseResult

P = ParamSpec("P")
Q = ParamSpec("Q")
S = TypeVar("S")
R = TypeVar("R", covariant=True)
T = TypeVar("T")


class Grounded(Protocol[P, R]):
    """A grounded sync function: ``f(...) -> R`` and ``f.run(...) -> RelapseResult``."""

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        """Return the chosen attempt's own return value (a stream is replayed)."""

    def run(self, *args: P.args, **kwargs: P.kwargs) -> RelapseResult:
        """Return the whole :class:`relapse.RelapseResult`."""

    @overload
    def __get__(self, instance: None, owner: type[Any], /) -> Grounded[P, R]: ...
    @overload
    def __get__(
        self: Grounded[Concatenate[S, Q], R], instance: S, owner: type[Any], /
    ) -> Grounded[Q, R]: ...
    def __get__(self, instance: Any, owner: type[Any], /) -> Any:
        """Bind like a function: a method drops ``self``."""


class AsyncGrounded(Protocol[P, R]):
    """A grounded ``async def`` function: both calls return coroutines."""

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> Coroutine[Any, Any, R]:
        """Return a coroutine of the chosen attempt's own return value."""

    def run(self, *args: P.args, **kwargs: P.kwargs) -> Coroutine[Any, Any, RelapseResult]:
        """Return a coroutine of the whole :class:`relapse.RelapseResult`."""

    @overload
    def __get__(self, instance: None, owner: type[Any], /) -> AsyncGrounded[P, R]: ...
    @overload
    def __get__(
        self: AsyncGrounded[Concatenate[S, Q], R], instance: S, owner: type[Any], /
    ) -> AsyncGrounded[Q, R]: ...
    def __get__(self, instance: Any, owner: type[Any], /) -> Any:
        """Bind like a function: a method drops ``self``."""


class GroundedDecorator(Protocol):
    """What ``relapse.grounded(...)`` returns: decorates a sync or an async function."""

    # The overloads overlap only for a plain ``def`` returning a coroutine,
    # which static types cannot tell from an ``async def``; the async one wins.
    @overload
    def __call__(  # type: ignore[overload-overlap]
        self, function: Callable[P, Coroutine[Any, Any, T]], /
    ) -> AsyncGrounded[P, T]: ...
    @overload
    def __call__(self, function: Callable[P, T], /) -> Grounded[P, T]: ...
    def __call__(self, function: Callable[..., Any], /) -> Any:
        """Wrap ``function`` in the loop."""
