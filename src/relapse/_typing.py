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
#: What calling the grounded function returns: ``str``, or a coroutine of one.
A = TypeVar("A", covariant=True)
#: What ``.run`` returns: ``RelapseResult``, or a coroutine of one.
R = TypeVar("R", covariant=True)


class Grounded(Protocol[P, A, R]):
    """
    A grounded function: ``f(*args) -> A`` and ``f.run(*args) -> R``.

    ``Grounded[P, str, RelapseResult]`` for a sync function;
    ``Grounded[P, Coroutine[Any, Any, str], Coroutine[Any, Any, RelapseResult]]``
    for an ``async def`` one.
    """

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> A:
        """Return the answer (grounded, or the one ``on_exhausted`` picked)."""

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

    @overload
    def __call__(
        self, function: Callable[P, Coroutine[Any, Any, str]], /
    ) -> Grounded[P, Coroutine[Any, Any, str], Coroutine[Any, Any, RelapseResult]]: ...
    @overload
    def __call__(self, function: Callable[P, str], /) -> Grounded[P, str, RelapseResult]: ...
    def __call__(self, function: Callable[..., Any], /) -> Any:
        """Wrap ``function`` in the loop."""
