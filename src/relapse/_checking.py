"""
The check contract, as ``typing.Protocol``s, and binding a check to one call.

A check is any ``check(query, chunks, answer) -> GroundingResult``
(:class:`Check`). It may also offer ``prepare(query, chunks)``
(:class:`PreparingCheck`) returning an :class:`AnswerCheck`, whose
``check(answer)`` judges answers against chunks indexed once per call. An
``async`` check (one that returns an awaitable verdict) works under
:func:`relapse.arun` and decorated ``async def`` functions.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine, Generator, Sequence
from typing import Any, Protocol, runtime_checkable

from relapse._types import GroundingResult

#: What a check may return: the verdict, or (async checks) an awaitable of it.
Verdict = GroundingResult | Awaitable[GroundingResult]

#: Finding code a composition (:func:`relapse.checks.all_of`) records for a
#: check that rejected the answer without any finding: the rejection must
#: survive next to another check's warnings, which alone never reject.
SILENT_REJECTION_CODE = "AO001"


@runtime_checkable
class Check(Protocol):
    """``check(query, chunks, answer) -> GroundingResult``: any grounding check."""

    def __call__(self, query: str, chunks: Sequence[str], answer: str, /) -> Verdict:
        """Judge ``answer`` to ``query`` against the chunk texts ``chunks``."""


@runtime_checkable
class AnswerCheck(Protocol):
    """A check bound to one call's query and chunks: ``check(answer) -> GroundingResult``."""

    def check(self, answer: str, /) -> Verdict:
        """Judge one answer against the bound chunks."""


@runtime_checkable
class PreparingCheck(Check, Protocol):
    """A :class:`Check` that can index one call's chunks once, for every answer."""

    def prepare(self, query: str, chunks: Sequence[str], /) -> AnswerCheck:
        """Bind the check to ``query`` and ``chunks``."""


class PendingVerdict:
    """
    An async check's verdict: awaitable once, or closable without awaiting.

    A sync call cannot await an async check; the loop then closes the
    verdict, which closes the coroutine the check was waiting on too, so
    Python does not warn that it was never awaited.

    Args:
        verdict: The coroutine that produces the verdict by awaiting ``inner``.
        inner: What it awaits first (the judge's reply, a sub-check's verdict).
    """

    __slots__ = ("_inner", "_verdict")

    def __init__(self, verdict: Coroutine[Any, Any, GroundingResult], inner: object) -> None:
        self._verdict = verdict
        self._inner = inner

    def __await__(self) -> Generator[Any, Any, GroundingResult]:
        return self._verdict.__await__()

    def close(self) -> None:
        """Close the verdict and what it awaits, never having run them."""
        self._verdict.close()
        close = getattr(self._inner, "close", None)
        if callable(close):
            close()


class CheckOperators:
    """
    Mixin giving checks composition by operator: ``check_a & check_b``.

    ``a & b`` is :func:`relapse.checks.all_of(a, b) <relapse.checks.all_of>`
    (tenacity composes its strategies the same way).
    """

    __slots__ = ()

    def __and__(self, other: object) -> Any:
        from relapse.checks import all_of

        if not callable(other):
            return NotImplemented
        return all_of(self, other)  # type: ignore[arg-type]

    def __rand__(self, other: object) -> Any:
        from relapse.checks import all_of

        if not callable(other):
            return NotImplemented
        return all_of(other, self)  # type: ignore[arg-type]


def check_name(check: Callable[..., Any]) -> str:
    """The name a check reports in telemetry: its ``name`` attribute or qualname."""
    name = getattr(check, "name", None)
    if isinstance(name, str) and name:
        return name
    return getattr(check, "__qualname__", type(check).__qualname__)


def prepare(check: Check, query: str, chunks: Sequence[str]) -> Callable[[str], Verdict]:
    """
    Bind ``check`` to one call, indexing the chunks once when it can.

    A check with a ``prepare(query, chunks)`` method (the default check has
    one) indexes the chunks once per call instead of once per iteration.

    Returns:
        ``answer -> verdict``.
    """
    preparer = getattr(check, "prepare", None)
    if callable(preparer):
        prepared = preparer(query, chunks)
        bound = getattr(prepared, "check", prepared)
        if callable(bound):
            return bound  # type: ignore[no-any-return]
    return lambda answer: check(query, chunks, answer)
