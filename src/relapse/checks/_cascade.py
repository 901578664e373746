"""
Cost-ordered stages: :func:`cascade`.

A cascade runs its stages cheapest first. In mode ``"escalate"`` (the
default) a stage runs only for an answer every earlier stage passed, so an
answer the rules reject costs nothing more; in mode ``"all"`` every stage
judges every answer (to measure what each one catches). Each stage's
findings keep their own codes; each stage's wall time and tokens are in the
verdict's :attr:`relapse.GroundingResult.stages`, which the loop puts on the
check span and in the transcript record, and ``relapse eval`` in its table.
Under ``release="sentence"`` the cascade streams through
:class:`relapse.checks._cascade_stream.CascadeStream`.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from relapse._results import GroundingResult, StageRun
from relapse.checks._cascade_stream import CascadeStream
from relapse.checks._contract import Check, CheckOperators, PendingVerdict, Verdict, prepare
from relapse.checks._stages import Stage, combine, is_async, ran, skipped, stage, verified

__all__ = ["MODES", "Cascade", "cascade"]

#: How a cascade runs its stages: ``"escalate"`` (a later stage only for
#: answers every earlier stage passed) or ``"all"`` (every stage, every answer).
Mode = Literal["escalate", "all"]
MODES: tuple[str, ...] = get_args(Mode)


def _as_stage(item: object, index: int) -> Stage:
    if isinstance(item, Stage):
        return item
    if not callable(item):
        raise TypeError(
            f"cascade stages[{index}] is {type(item).__name__}; expected a check or a stage()"
        )
    return stage(item)


@dataclass(frozen=True)
class _BoundCascade:
    """A cascade bound to one call's query and chunks."""

    stages: tuple[Stage, ...]
    checks: tuple[Callable[[str], Verdict], ...]
    mode: Mode

    def check(self, answer: str) -> Verdict:
        runs: list[StageRun] = []
        results: list[GroundingResult] = []
        for index, (current, bound) in enumerate(zip(self.stages, self.checks, strict=True)):
            began = time.perf_counter()
            verdict = bound(answer)
            if inspect.isawaitable(verdict):
                # An async stage (an async judge): finish awaiting, in the same order.
                return PendingVerdict(
                    self._finish(verdict, began, index, answer, runs, results), verdict
                )
            if not self._step(current, verdict, began, runs, results):
                runs.extend(skipped(self.stages[index + 1 :]))
                break
        return combine(runs, results)

    def _step(
        self,
        current: Stage,
        verdict: object,
        began: float,
        runs: list[StageRun],
        results: list[GroundingResult],
    ) -> bool:
        """Record one stage's verdict; True when the cascade goes on to the next stage."""
        graded = current.graded(verified(verdict, current.name))
        runs.append(ran(current, graded, time.perf_counter() - began))
        results.append(graded)
        return graded.ok or self.mode == "all"

    async def _finish(
        self,
        pending: Awaitable[GroundingResult],
        began: float,
        index: int,
        answer: str,
        runs: list[StageRun],
        results: list[GroundingResult],
    ) -> GroundingResult:
        going = self._step(self.stages[index], await pending, began, runs, results)
        for later in range(index + 1, len(self.stages)):
            if not going:
                runs.extend(skipped(self.stages[later:]))
                break
            began = time.perf_counter()
            verdict = self.checks[later](answer)
            if inspect.isawaitable(verdict):
                verdict = await verdict
            going = self._step(self.stages[later], verdict, began, runs, results)
        return combine(runs, results)


@dataclass(frozen=True)
class Cascade(CheckOperators):
    """
    Stages run cheapest first; see :func:`cascade`.

    Attributes:
        stages: The stages in the order they run.
        mode: ``"escalate"`` or ``"all"``.
        name: ``"cascade(a > b)"``, the stages' names in order.
    """

    stages: tuple[Stage, ...]
    mode: Mode
    name: str

    @property
    def checks(self) -> tuple[Check, ...]:
        """The stages' checks, in order (a model among them makes the verdict ``LLM``'s)."""
        return tuple(s.check for s in self.stages)

    @property
    def incremental(self) -> bool:
        """
        Whether ``release="sentence"`` can stream it: when no stage is async.

        Every sync stage judges a stream by its ``sentence`` setting, through
        :meth:`stream`, which keeps the promise for every stage: nothing a
        stage rejects is released.
        """
        return not any(is_async(s.check) for s in self.stages)

    def prepare(self, query: str, chunks: Sequence[str]) -> _BoundCascade:
        """Bind every stage to ``query`` and ``chunks`` (each prepares its own index once)."""
        return _BoundCascade(
            self.stages, tuple(prepare(s.check, query, chunks) for s in self.stages), self.mode
        )

    def stream(self, query: str, chunks: Sequence[str]) -> CascadeStream:
        """
        Bind the cascade to one streamed answer (``release="sentence"``).

        Returns:
            A :class:`relapse.checks._cascade_stream.CascadeStream`, fed the
            stream's text like :class:`relapse.checks.IncrementalCheck`.

        Raises:
            TypeError: from a stage's ``prepare`` (a bad ``query`` or ``chunks``).
        """
        return CascadeStream(self.stages, query, chunks)

    def __call__(self, query: str, chunks: Sequence[str], answer: str) -> Verdict:
        """Judge ``answer`` against ``chunks``, stage by stage."""
        return self.prepare(query, chunks).check(answer)


def cascade(*stages: Check | Stage, mode: Mode = "escalate") -> Cascade:
    """
    Combine checks into stages run cheapest first.

    ``cascade(default_grounding_check, LLMJudge(judge))`` runs the default
    check, then the judge on the answers it passed: the judge's tokens are
    paid only for answers the rules could not reject. Each stage's findings
    keep their own codes; the verdict's :attr:`~relapse.GroundingResult.stages`
    says what each stage did (ran or not, verdict, wall time, tokens), and
    the loop records it on the check span and in the transcript.

    Args:
        stages: Two or more checks, or :func:`stage` descriptions of them
            (a bare check is ``stage(check)``). They run in order of their
            ``cost``; equal costs keep the order given.
        mode: ``"escalate"`` (the default): a stage runs only when every
            earlier stage passed the answer. ``"all"``: every stage judges
            every answer; the answer passes when all pass.

    Returns:
        The :class:`Cascade`, a check (it composes with ``&`` too).

    Raises:
        TypeError: fewer than two stages, or one is not a check.
        ValueError: ``mode`` is unknown; from :func:`stage` for a bare check.
    """
    if len(stages) < 2:
        raise TypeError(f"cascade needs at least two stages, got {len(stages)}")
    if mode not in MODES:
        raise ValueError(f"cascade mode must be one of {', '.join(map(repr, MODES))}, got {mode!r}")
    described = [_as_stage(item, index) for index, item in enumerate(stages)]
    ordered = tuple(sorted(described, key=lambda s: s.cost))
    name = f"cascade({' > '.join(s.name for s in ordered)})"
    return Cascade(ordered, mode, name)
