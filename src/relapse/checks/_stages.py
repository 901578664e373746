"""
The stages of a :func:`relapse.checks.cascade`: :func:`stage`, grading by score, the verdict.

A stage may grade its findings by their :attr:`relapse.GroundingFinding.score`:
at or above ``threshold`` an error, in the band ``[warn_from, threshold)`` a
warning, below it dropped; a finding without a score keeps its severity.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal, get_args

from relapse._results import (
    Evidence,
    GroundingFinding,
    GroundingResult,
    StageRun,
    total_usage,
)
from relapse.checks._contract import (
    SILENT_REJECTION_CODE,
    Check,
    annotator_kind,
    can_judge_incrementally,
    check_name,
)

__all__ = [
    "SENTENCE_MODES",
    "Stage",
    "combine",
    "is_async",
    "ran",
    "skipped",
    "stage",
    "verified",
]

#: How a stage judges a streamed answer (``release="sentence"``):
#: ``"prefix"``, the growing text as it arrives (a check that
#: :func:`~relapse.checks.can_judge_incrementally`: the default check);
#: ``"sentence"``, each sentence once it closed and every cheaper stage
#: passed it, on its own; ``"end"``, the whole answer once the stream ended
#: (nothing is released before that).
SentenceMode = Literal["prefix", "sentence", "end"]
SENTENCE_MODES: tuple[str, ...] = get_args(SentenceMode)

#: The ordering cost, in estimated milliseconds per answer, of a stage whose
#: check declares none: a model's judgement (``annotator_kind == "LLM"``),
#: or code.
LLM_COST_MS = 1000.0
CODE_COST_MS = 1.0


def _declared_cost(check: object) -> float:
    """A check's ``cost`` attribute (milliseconds per answer), else by who judges."""
    cost = getattr(check, "cost", None)
    if isinstance(cost, (int, float)) and not isinstance(cost, bool) and math.isfinite(cost):
        return float(cost)
    return LLM_COST_MS if annotator_kind(check) == "LLM" else CODE_COST_MS


def _probability(name: str, value: object) -> float | None:
    if value is None:
        return None
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not 0.0 <= float(value) <= 1.0
    ):
        raise ValueError(f"stage {name} must be a number in [0, 1] or None, got {value!r}")
    return float(value)


@dataclass(frozen=True)
class Stage:
    """
    One stage of a :func:`cascade`: a check, its cost, its threshold.

    Built by :func:`stage`, which documents the fields and validates them.
    """

    check: Check
    name: str
    cost: float
    threshold: float | None
    warn_from: float | None
    sentence: SentenceMode

    def graded(self, verdict: GroundingResult) -> GroundingResult:
        """
        ``verdict`` with its scored findings graded by this stage's threshold and band.

        A rejection without any finding becomes an ``AO001`` error naming
        the stage (as in :func:`relapse.checks.all_of`), so it survives next
        to another stage's warnings.
        """
        findings = list(verdict.findings)
        if self.threshold is not None:
            findings = [kept for f in findings if (kept := self._grade(f)) is not None]
        ok = verdict.ok
        if not verdict.findings and not ok:
            findings.append(
                GroundingFinding(
                    SILENT_REJECTION_CODE,
                    f"the check {self.name!r} rejected the answer without a finding",
                )
            )
        elif verdict.findings:
            # The threshold decides: the errors left are the rejection.
            ok = not any(f.severity == "error" for f in findings)
        return GroundingResult(ok, tuple(findings), verdict.evidence, verdict.usage)

    def _grade(self, finding: GroundingFinding) -> GroundingFinding | None:
        score, threshold = finding.score, self.threshold
        if score is None or threshold is None:
            return finding
        if score >= threshold:
            return finding if finding.severity == "error" else replace(finding, severity="error")
        if self.warn_from is not None and score >= self.warn_from:
            return replace(finding, severity="warning")
        return None


def stage(
    check: Check,
    *,
    name: str | None = None,
    cost: float | None = None,
    threshold: float | None = None,
    warn_from: float | None = None,
    sentence: SentenceMode | None = None,
) -> Stage:
    """
    Describe one stage of a :func:`cascade`.

    Args:
        check: Any grounding check (:class:`relapse.checks.Check`).
        name: The stage's name on spans and in ``relapse eval``; defaults to
            the check's ``name`` (or qualname).
        cost: Estimated milliseconds per answer, used only to order the
            stages (cheapest first; equal costs keep their order). Defaults
            to the check's own ``cost`` attribute, else 1000 for a model
            (``annotator_kind == "LLM"``, as :class:`relapse.checks.LLMJudge`)
            and 1 for code.
        threshold: A score in ``[0, 1]``: a finding with a
            :attr:`~relapse.GroundingFinding.score` at or above it is an error,
            one below it a warning (in the band from ``warn_from``) or
            dropped. Findings without a score keep their severity. None (the
            default): findings are kept as the check gave them.
        warn_from: With ``threshold``: the low end of the warning band, in
            ``[0, threshold]``; None drops every scored finding below
            ``threshold``.
        sentence: How the stage judges a stream under ``release="sentence"``:
            ``"prefix"`` (the growing text; only for a check that
            :func:`~relapse.checks.can_judge_incrementally`, and its default
            then), ``"sentence"`` (each sentence once it closed and the
            cheaper stages passed it, judged on its own; the default
            otherwise) or ``"end"`` (the whole answer once the stream ended:
            nothing is released before).

    Returns:
        The :class:`Stage`.

    Raises:
        TypeError: ``check`` is not callable, or ``name`` is not a ``str``.
        ValueError: ``cost`` is negative or not finite, ``threshold`` or
            ``warn_from`` is outside ``[0, 1]``, ``warn_from`` is set without
            ``threshold`` or above it, ``sentence`` is unknown, or
            ``"prefix"`` for a check that cannot judge a prefix.
    """
    if not callable(check):
        raise TypeError(f"stage check must be a callable check, got {type(check).__name__}")
    if name is not None and not isinstance(name, str):
        raise TypeError(f"stage name must be a str, got {type(name).__name__}")
    if cost is None:
        cost = _declared_cost(check)
    elif (
        isinstance(cost, bool)
        or not isinstance(cost, (int, float))
        or not math.isfinite(cost)
        or cost < 0
    ):
        raise ValueError(f"stage cost must be a finite number >= 0 (milliseconds), got {cost!r}")
    low = _probability("warn_from", warn_from)
    high = _probability("threshold", threshold)
    if low is not None and (high is None or low > high):
        raise ValueError(
            f"stage warn_from ({warn_from!r}) needs a threshold at or above it, got {threshold!r}"
        )
    incremental = can_judge_incrementally(check)
    if sentence is None:
        sentence = "prefix" if incremental else "sentence"
    elif sentence not in SENTENCE_MODES:
        raise ValueError(
            f"stage sentence must be one of {', '.join(map(repr, SENTENCE_MODES))},"
            f" got {sentence!r}"
        )
    elif sentence == "prefix" and not incremental:
        raise ValueError(
            f"stage sentence='prefix' needs a check that judges a prefix;"
            f" {check_name(check)!r} does not (use 'sentence' or 'end')"
        )
    return Stage(check, name or check_name(check), float(cost), high, low, sentence)


def merged_evidence(evidence: Sequence[Evidence]) -> tuple[Evidence, ...]:
    """The evidence of every stage, once each, in answer order."""
    return tuple(sorted(set(evidence), key=lambda e: (e.answer_span, e.chunk_index, e.chunk_span)))


def combine(runs: Sequence[StageRun], results: Sequence[GroundingResult]) -> GroundingResult:
    """
    The cascade's verdict from its stages' graded verdicts.

    Args:
        runs: One :class:`relapse.StageRun` per stage, in cascade order.
        results: The graded verdicts of the stages that ran, in order.

    Returns:
        Passing when every stage that ran passed; the findings of every
        stage in order; the evidence merged; the tokens summed.
    """
    findings = tuple(f for result in results for f in result.findings)
    evidence = merged_evidence([e for result in results for e in result.evidence])
    ok = all(result.ok for result in results)
    usage = total_usage(result.usage for result in results)
    return GroundingResult(ok, findings, evidence, usage, tuple(runs))


def skipped(stages: Sequence[Stage]) -> list[StageRun]:
    """The runs of stages that did not judge the answer."""
    return [StageRun(s.name, ran=False) for s in stages]


def ran(stage: Stage, result: GroundingResult, seconds: float) -> StageRun:
    """The run of ``stage`` that gave the graded ``result`` in ``seconds``."""
    return StageRun(stage.name, True, result.ok, seconds, result.usage, result.findings)


def verified(verdict: object, name: str) -> GroundingResult:
    """
    A stage's verdict, checked to be one.

    Raises:
        TypeError: ``verdict`` is not a :class:`relapse.GroundingResult`;
            the message names the stage.
    """
    if not isinstance(verdict, GroundingResult):
        raise TypeError(
            f"the cascade stage {name!r} returned {type(verdict).__name__};"
            " expected relapse.GroundingResult"
        )
    return verdict


def is_async(check: object) -> bool:
    """
    Whether ``check`` answers with an awaitable: a coroutine function, or a judge that is one.

    An :class:`relapse.checks.LLMJudge` over an ``async`` judge is async
    though its own ``__call__`` is not; it says so by its ``judge``.
    """
    call = getattr(check, "__call__", None)  # noqa: B004 -- the call itself, to test for a coroutine
    judge = getattr(check, "judge", None)
    return any(inspect.iscoroutinefunction(f) for f in (check, call, judge) if f is not None)
