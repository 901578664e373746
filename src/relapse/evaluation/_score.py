"""
Scoring a grounding check against annotated answers.

A response is *hallucinated* when its annotators marked at least one span, and
*flagged* when the check does not accept it (``GroundingResult.ok`` is
False). The metrics follow the RAGTruth paper's response-level evaluation
(Niu et al., ACL 2024, arXiv:2401.00396), plus span-level counts that need the
findings' character offsets.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from relapse._results import GroundingResult, Usage
from relapse.evaluation._data import AnnotatedRecord
from relapse.evaluation._spans import is_numeric_span, overlaps

__all__ = [
    "CodeCounts",
    "EvalReport",
    "Miss",
    "ResponseCounts",
    "StageCounts",
    "evaluate",
    "score_results",
]

#: A check as the evaluation calls it: ``check(question, passages, response)``.
Check = Callable[[str, Sequence[str], str], GroundingResult]


def _ratio(numerator: int, denominator: int) -> float | None:
    return numerator / denominator if denominator else None


@dataclass
class ResponseCounts:
    """
    Response-level counts of one group of records (all, or one task type).

    Attributes:
        responses: Records scored.
        hallucinated: Records with at least one annotated span.
        flagged_hallucinated: Hallucinated records the check flagged (true
            positives).
        flagged_clean: Clean records the check flagged (false alarms).
    """

    responses: int = 0
    hallucinated: int = 0
    flagged_hallucinated: int = 0
    flagged_clean: int = 0

    def add(self, *, hallucinated: bool, flagged: bool) -> None:
        """Count one record."""
        self.responses += 1
        self.hallucinated += hallucinated
        self.flagged_hallucinated += hallucinated and flagged
        self.flagged_clean += flagged and not hallucinated

    @property
    def clean(self) -> int:
        """Records without an annotated span."""
        return self.responses - self.hallucinated

    @property
    def flagged(self) -> int:
        """Records the check flagged."""
        return self.flagged_hallucinated + self.flagged_clean

    @property
    def precision(self) -> float | None:
        """Flagged hallucinated / flagged; None when nothing was flagged."""
        return _ratio(self.flagged_hallucinated, self.flagged)

    @property
    def recall(self) -> float | None:
        """Flagged hallucinated / hallucinated; None without hallucinated records."""
        return _ratio(self.flagged_hallucinated, self.hallucinated)

    @property
    def f1(self) -> float | None:
        """Harmonic mean of precision and recall; None when either is undefined."""
        precision, recall = self.precision, self.recall
        if precision is None or recall is None:
            return None
        return 2 * precision * recall / (precision + recall) if precision + recall else 0.0

    @property
    def false_alarm_rate(self) -> float | None:
        """Flagged clean / clean; None without clean records."""
        return _ratio(self.flagged_clean, self.clean)

    def to_dict(self) -> dict[str, Any]:
        """The counts and the four rates, JSON-ready (undefined rates are None)."""
        return {
            "responses": self.responses,
            "hallucinated": self.hallucinated,
            "clean": self.clean,
            "flagged_hallucinated": self.flagged_hallucinated,
            "flagged_clean": self.flagged_clean,
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
            "false_alarm_rate": self.false_alarm_rate,
        }


@dataclass
class CodeCounts:
    """
    Counts for one finding code.

    Attributes:
        flagged_hallucinated: Hallucinated records with a finding of this code.
        flagged_clean: Clean records with a finding of this code.
        spans: Located spans of this code's findings.
        spans_overlapping: Those overlapping an annotated span.
        scored: Findings of this code that carried a score.
        score_sum: The sum of their scores.
    """

    flagged_hallucinated: int = 0
    flagged_clean: int = 0
    spans: int = 0
    spans_overlapping: int = 0
    scored: int = 0
    score_sum: float = 0.0

    @property
    def mean_score(self) -> float | None:
        """The mean score of this code's scored findings; None when none had a score."""
        return self.score_sum / self.scored if self.scored else None

    @property
    def precision(self) -> float | None:
        """Response-level precision of this code alone; None if it never fired."""
        return _ratio(self.flagged_hallucinated, self.flagged_hallucinated + self.flagged_clean)

    @property
    def span_precision(self) -> float | None:
        """Overlapping spans / located spans; None without located spans."""
        return _ratio(self.spans_overlapping, self.spans)


@dataclass
class StageCounts:
    """
    What one stage of a cascade did over the records (from :attr:`relapse.GroundingResult.stages`).

    Attributes:
        judged: Records the stage ran on (in mode ``"escalate"``, those every
            earlier stage passed).
        flagged_hallucinated: Hallucinated records it rejected (what it caught).
        flagged_clean: Clean records it rejected (its false alarms).
        seconds: Wall time it spent, in seconds.
        input_tokens: Input tokens it reported.
        output_tokens: Output tokens it reported.
        usage_reported: Runs that reported tokens.
    """

    judged: int = 0
    flagged_hallucinated: int = 0
    flagged_clean: int = 0
    seconds: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0
    usage_reported: int = 0

    @property
    def ms_per_judged(self) -> float | None:
        """Mean wall time per record judged, in milliseconds."""
        return 1000 * self.seconds / self.judged if self.judged else None

    @property
    def tokens_per_judged(self) -> float | None:
        """Mean tokens (input and output) per record judged; None when no run reported any."""
        if not self.usage_reported:
            return None
        return (self.input_tokens + self.output_tokens) / self.judged

    def to_dict(self, responses: int) -> dict[str, Any]:
        """The counts, the share of ``responses`` judged, and the means, JSON-ready."""
        return {
            "judged": self.judged,
            "share_judged": _ratio(self.judged, responses),
            "flagged_hallucinated": self.flagged_hallucinated,
            "flagged_clean": self.flagged_clean,
            "seconds": self.seconds,
            "ms_per_judged": self.ms_per_judged,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "tokens_per_judged": self.tokens_per_judged,
        }


@dataclass(frozen=True)
class Miss:
    """
    One record a report lists by name.

    Attributes:
        line: The record's line in the dataset.
        id: The record's id.
        texts: The spans concerned: the flagged spans of a false alarm
            (``"FG001 '145'"``), or the annotated text of a missed numeric span.
    """

    line: int
    id: str
    texts: tuple[str, ...]


@dataclass
class EvalReport:
    """
    Everything :func:`evaluate` measured.

    Attributes:
        check: The check's name.
        overall: Response-level counts over every record.
        by_task_type: The same per ``task_type``, in order of first appearance.
        by_code: Per finding code, sorted by code.
        spans: Located flagged spans (findings with offsets).
        spans_overlapping: Those overlapping an annotated span.
        unlocated_findings: Findings without offsets (they flag the record but
            have no span to score).
        numeric_spans: Annotated spans holding a real number
            (:func:`relapse.evaluation.is_numeric_span`).
        numeric_caught: Those overlapped by a located flagged span.
        check_seconds: Total time spent inside the check, in seconds.
        checks: Checks run (one per record).
        false_alarms: The clean records the check flagged.
        numeric_misses: Numeric annotated spans no flagged span overlaps.
        input_tokens: Input tokens the check reported over every record
            (:attr:`relapse.GroundingResult.usage`: a judge's calls).
        output_tokens: Output tokens likewise.
        usage_reported: Records whose verdict reported tokens.
        stages: Per stage of a cascade, in the order they run; empty for
            any other check.
        wall_s: Wall time of the whole run, in seconds (with workers, the
            pool's; ``check_seconds`` sums the time inside each check).
        workers: Worker processes that judged (1: this process).
        engine: ``"local"`` (this process), ``"process"`` or ``"ray"``.
    """

    check: str
    overall: ResponseCounts = field(default_factory=ResponseCounts)
    by_task_type: dict[str, ResponseCounts] = field(default_factory=dict)
    by_code: dict[str, CodeCounts] = field(default_factory=dict)
    spans: int = 0
    spans_overlapping: int = 0
    unlocated_findings: int = 0
    numeric_spans: int = 0
    numeric_caught: int = 0
    check_seconds: float = 0.0
    checks: int = 0
    false_alarms: list[Miss] = field(default_factory=list)
    numeric_misses: list[Miss] = field(default_factory=list)
    input_tokens: int = 0
    output_tokens: int = 0
    usage_reported: int = 0
    stages: dict[str, StageCounts] = field(default_factory=dict)
    wall_s: float = 0.0
    workers: int = 1
    engine: str = "local"

    @property
    def tokens_per_answer(self) -> float | None:
        """Mean tokens the check spent per record; None when no verdict reported any."""
        if not self.usage_reported:
            return None
        return (self.input_tokens + self.output_tokens) / self.checks

    @property
    def answers_per_s(self) -> float | None:
        """Records judged per second of wall time."""
        return self.checks / self.wall_s if self.wall_s > 0 else None

    @property
    def answers_per_s_per_core(self) -> float | None:
        """:attr:`answers_per_s` over the cores used: the workers, at most the machine's cores."""
        rate = self.answers_per_s
        if rate is None:
            return None
        return rate / max(1, min(self.workers, os.cpu_count() or 1))

    @property
    def span_precision(self) -> float | None:
        """Located flagged spans overlapping an annotated span / located flagged spans."""
        return _ratio(self.spans_overlapping, self.spans)

    @property
    def numeric_recall(self) -> float | None:
        """Numeric annotated spans overlapped by a flagged span / numeric annotated spans."""
        return _ratio(self.numeric_caught, self.numeric_spans)

    @property
    def ms_per_check(self) -> float | None:
        """Mean wall time of one check, in milliseconds."""
        return 1000 * self.check_seconds / self.checks if self.checks else None

    def code_recall(self, code: str) -> float | None:
        """Hallucinated records with a finding of ``code`` / hallucinated records."""
        return _ratio(self.by_code[code].flagged_hallucinated, self.overall.hallucinated)

    def to_dict(self) -> dict[str, Any]:
        """
        The report as JSON-ready data.

        Returns:
            ``{"check", "responses": {...}, "span_precision", "spans",
            "spans_overlapping", "unlocated_findings", "numeric_recall",
            "numeric_spans", "numeric_caught", "ms_per_check", "by_code":
            {code: {...}}, "by_task_type": {type: {...}}, "input_tokens",
            "output_tokens", "tokens_per_answer", "stages": {name: {...}},
            "wall_s", "workers", "engine", "answers_per_s",
            "answers_per_s_per_core", "false_alarms": [...],
            "numeric_misses": [...]}``; undefined rates are None.
        """
        return {
            "check": self.check,
            "responses": self.overall.to_dict(),
            "span_precision": self.span_precision,
            "spans": self.spans,
            "spans_overlapping": self.spans_overlapping,
            "unlocated_findings": self.unlocated_findings,
            "numeric_recall": self.numeric_recall,
            "numeric_spans": self.numeric_spans,
            "numeric_caught": self.numeric_caught,
            "ms_per_check": self.ms_per_check,
            "by_code": {
                code: {
                    "flagged_hallucinated": counts.flagged_hallucinated,
                    "flagged_clean": counts.flagged_clean,
                    "precision": counts.precision,
                    "recall": self.code_recall(code),
                    "spans": counts.spans,
                    "spans_overlapping": counts.spans_overlapping,
                    "span_precision": counts.span_precision,
                    "mean_score": counts.mean_score,
                }
                for code, counts in self.by_code.items()
            },
            "by_task_type": {name: c.to_dict() for name, c in self.by_task_type.items()},
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "tokens_per_answer": self.tokens_per_answer,
            "stages": {
                name: counts.to_dict(self.overall.responses) for name, counts in self.stages.items()
            },
            "wall_s": self.wall_s,
            "workers": self.workers,
            "engine": self.engine,
            "answers_per_s": self.answers_per_s,
            "answers_per_s_per_core": self.answers_per_s_per_core,
            "false_alarms": [m.__dict__ | {"texts": list(m.texts)} for m in self.false_alarms],
            "numeric_misses": [m.__dict__ | {"texts": list(m.texts)} for m in self.numeric_misses],
        }


def _add_usage(counts: EvalReport | StageCounts, usage: Usage | None) -> None:
    if usage is not None:
        counts.input_tokens += usage.input_tokens
        counts.output_tokens += usage.output_tokens
        counts.usage_reported += 1


def _score_cost(report: EvalReport, result: GroundingResult, *, hallucinated: bool) -> None:
    """Count the check's tokens and what each stage of a cascade judged, caught and cost."""
    _add_usage(report, result.usage)
    for run in result.stages:
        counts = report.stages.setdefault(run.name, StageCounts())
        if not run.ran:
            continue
        counts.judged += 1
        counts.seconds += run.duration_s
        _add_usage(counts, run.usage)
        if run.ok is False:
            counts.flagged_hallucinated += hallucinated
            counts.flagged_clean += not hallucinated


def _score_record(report: EvalReport, record: AnnotatedRecord, result: GroundingResult) -> None:
    flagged = not result.ok
    hallucinated = bool(record.hallucinated)
    report.overall.add(hallucinated=hallucinated, flagged=flagged)
    report.by_task_type.setdefault(record.task_type, ResponseCounts()).add(
        hallucinated=hallucinated, flagged=flagged
    )
    located: list[tuple[str, int, int]] = []
    for code in dict.fromkeys(finding.code for finding in result.findings):
        counts = report.by_code.setdefault(code, CodeCounts())
        counts.flagged_hallucinated += hallucinated
        counts.flagged_clean += not hallucinated
    _score_cost(report, result, hallucinated=hallucinated)
    for finding in result.findings:
        if finding.score is not None:
            report.by_code[finding.code].scored += 1
            report.by_code[finding.code].score_sum += finding.score
        if not finding.offsets:
            report.unlocated_findings += 1
        for start, end in finding.offsets:
            hit = any(overlaps(start, end, a, b) for a, b in record.hallucinated)
            located.append((finding.code, start, end))
            report.spans += 1
            report.spans_overlapping += hit
            report.by_code[finding.code].spans += 1
            report.by_code[finding.code].spans_overlapping += hit
    if flagged and not hallucinated:
        texts = tuple(f"{code} {record.response[s:e]!r}" for code, s, e in located)
        report.false_alarms.append(Miss(record.line, record.id, texts))
    for start, end in record.hallucinated:
        if not is_numeric_span(record.response, start, end):
            continue
        report.numeric_spans += 1
        if any(overlaps(start, end, s, e) for _, s, e in located):
            report.numeric_caught += 1
        else:
            report.numeric_misses.append(
                Miss(record.line, record.id, (record.response[start:end],))
            )


def evaluate(
    records: Iterable[AnnotatedRecord],
    check: Check,
    *,
    name: str = "check",
    progress: Callable[[], None] | None = None,
) -> EvalReport:
    """
    Run ``check`` on every record and count.

    Args:
        records: From :func:`relapse.evaluation.load_annotated`.
        check: ``check(question, passages, response) -> GroundingResult``;
            a record without a question is checked with ``""``. Findings'
            ``offsets`` are scored as spans; a finding without offsets flags
            the record only.
        name: The check's name in the report.
        progress: Called once after each record (a progress bar's advance).

    Returns:
        The :class:`EvalReport`; ``by_code`` sorted by code.

    Raises:
        TypeError: the check returned something other than a
            :class:`relapse.GroundingResult`; the message names the line.
        ValueError: a finding's offsets are not inside the response; the
            message names the line.
    """
    began = time.perf_counter()

    def judged() -> Iterator[tuple[AnnotatedRecord, object, float]]:
        for record in records:
            started = time.perf_counter()
            result = check(record.question or "", record.passages, record.response)
            yield record, result, time.perf_counter() - started

    report = score_results(judged(), name=name, progress=progress)
    report.wall_s = time.perf_counter() - began
    return report


def score_results(
    judged: Iterable[tuple[AnnotatedRecord, object, float]],
    *,
    name: str = "check",
    progress: Callable[[], None] | None = None,
) -> EvalReport:
    """
    Score verdicts already given: the counting half of :func:`evaluate`.

    Args:
        judged: ``(record, verdict, seconds)`` per record, in record order:
            the check's verdict on it and the seconds the check took.
        name: The check's name in the report.
        progress: Called once after each record.

    Returns:
        The :class:`EvalReport` (its ``wall_s`` left at 0.0 for the caller).

    Raises:
        TypeError: a verdict is not a :class:`relapse.GroundingResult`; the
            message names the line.
        ValueError: a finding's offsets are not inside the response; the
            message names the line.
    """
    report = EvalReport(check=name)
    for record, result, seconds in judged:
        report.check_seconds += seconds
        report.checks += 1
        if not isinstance(result, GroundingResult):
            raise TypeError(
                f"line {record.line}: the check returned {type(result).__name__};"
                " expected relapse.GroundingResult"
            )
        for finding in result.findings:
            for start, end in finding.offsets:
                if not 0 <= start <= end <= len(record.response):
                    raise ValueError(
                        f"line {record.line}: the check's {finding.code} offsets"
                        f" ({start}, {end}) are outside the response"
                        f" ({len(record.response)} characters)"
                    )
        _score_record(report, record, result)
        if progress is not None:
            progress()
    report.by_code = dict(sorted(report.by_code.items()))
    return report
