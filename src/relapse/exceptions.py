"""
Exceptions raised by relapse.

They live in their own module so that every other module can import them
without import cycles.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from relapse._types import RelapseResult

__all__ = ["NotGroundedError", "RelapseError"]


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
