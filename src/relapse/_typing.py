"""
The static types of grounded functions: what ``@relapse.grounded(...)`` returns.

A decorated function keeps its parameters (``ParamSpec``) and gains ``.run``
returning :class:`relapse.RelapseResult`; for ``async def`` functions both
return awaitables. The shape follows tenacity's ``_RetryDecorated``.
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


class Grounded(Protocol[P]):
    """A grounded sync function: ``f(...) -> str`` and ``f.run(...) -> RelapseResult``."""

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> str:
        """Return the answer (grounded, or the one ``on_exhausted`` picked)."""

    def run(self, *args: P.args, **kwargs: P.kwargs) -> RelapseResult:
        """Return the whole :class:`relapse.RelapseResult`."""

    @overload
    def __get__(self, instance: None, owner: type[Any], /) -> Grounded[P]: ...
    @overload
    def __get__(
        self: Grounded[Concatenate[S, Q]], instance: S, owner: type[Any], /
    ) -> Grounded[Q]: ...
    def __get__(self, instance: Any, owner: type[Any], /) -> Any:
        """Bind like a function: a method drops ``self``."""


class AsyncGrounded(Protocol[P]):
    """A grounded ``async def`` function: both calls return coroutines."""

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> Coroutine[Any, Any, str]:
        """Return a coroutine of the answer."""

    def run(self, *args: P.args, **kwargs: P.kwargs) -> Coroutine[Any, Any, RelapseResult]:
        """Return a coroutine of the whole :class:`relapse.RelapseResult`."""

    @overload
    def __get__(self, instance: None, owner: type[Any], /) -> AsyncGrounded[P]: ...
    @overload
    def __get__(
        self: AsyncGrounded[Concatenate[S, Q]], instance: S, owner: type[Any], /
    ) -> AsyncGrounded[Q]: ...
    def __get__(self, instance: Any, owner: type[Any], /) -> Any:
        """Bind like a function: a method drops ``self``."""


class GroundedDecorator(Protocol):
    """What ``relapse.grounded(...)`` returns: decorates a sync or an async function."""

    @overload
    def __call__(self, function: Callable[P, Coroutine[Any, Any, str]], /) -> AsyncGrounded[P]: ...
    @overload
    def __call__(self, function: Callable[P, str], /) -> Grounded[P]: ...
    def __call__(self, function: Callable[..., Any], /) -> Any:
        """Wrap ``function`` in the loop."""
