"""
Exceptions raised by relapse.

They live in their own module so that every other module can import them
without import cycles.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from relapse._results import RelapseResult

__all__ = ["MalformedResponseError", "NotGroundedError", "RelapseError"]


class RelapseError(Exception):
    """Base class of every exception relapse defines."""


class NotGroundedError(RelapseError):
    """
    No answer passed the grounding check within the iteration budget.

    Raised only when ``on_exhausted="raise"``.

    Attributes:
        result: The full :class:`relapse.RelapseResult`, transcript included,
            with ``grounded`` False.
    """

    def __init__(self, result: RelapseResult) -> None:
        self.result = result
        codes = sorted({f.code for r in result.transcript for f in r.findings})
        super().__init__(
            f"no grounded answer after {result.iterations} iteration(s)"
            f" (outcome {result.outcome!r}; findings {', '.join(codes) or 'none'})"
        )

    def __reduce__(self) -> tuple[type[NotGroundedError], tuple[RelapseResult], dict[str, object]]:
        # The default rebuilds from ``args`` (the message), which __init__
        # cannot take: a worker process raising this would break its pool.
        return type(self), (self.result,), dict(self.__dict__)


class MalformedResponseError(RelapseError, ValueError):
    """
    An LLM call got a response it cannot read an answer from (no choices, no message).

    Raise it from an LLM call (a decorated function, ``call_llm``) with the
    response in hand: the loop then records that paid response, and the
    usage it reports, on the transcript before the exception propagates,
    unchanged. :mod:`relapse.llms.openai` raises it for a malformed reply.

    Args:
        message: What is missing, and from what.
        response: The response as received.

    Attributes:
        response: The response as received.

    .. versionadded:: 0.2.0
    """

    def __init__(self, message: str, response: Any) -> None:
        super().__init__(message)
        self.response = response

    def __reduce__(self) -> tuple[type[MalformedResponseError], tuple[str, Any], dict[str, object]]:
        # The default rebuilds from ``args`` (the message alone), which __init__ cannot take.
        return type(self), (str(self), self.response), dict(self.__dict__)
