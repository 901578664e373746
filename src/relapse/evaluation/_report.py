"""Rendering an :class:`~relapse.evaluation.EvalReport`: text tables and a per-code plot."""

from __future__ import annotations

from pathlib import Path

from relapse.evaluation._score import EvalReport, ResponseCounts

__all__ = ["format_report", "plot_report"]


def _rate(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _response_row(name: str, counts: ResponseCounts) -> str:
    return (
        f"{name:<12} {counts.responses:>9} {counts.hallucinated:>12}"
        f" {_rate(counts.precision):>9} {_rate(counts.recall):>7} {_rate(counts.f1):>7}"
        f" {_rate(counts.false_alarm_rate):>11} ({counts.flagged_clean}/{counts.clean})"
    )


def _tokens(per_answer: float | None) -> str:
    return "" if per_answer is None else f", {per_answer:.1f} check tokens per answer"


def _throughput(report: EvalReport) -> str:
    rate, per_core = report.answers_per_s, report.answers_per_s_per_core
    if rate is None or per_core is None:
        return ""
    return (
        f", {rate:.2f} answers/s over {report.wall_s:.1f} s wall"
        f" ({per_core:.2f} per core; {report.workers} worker(s), engine {report.engine})"
    )


def _stage_rows(report: EvalReport) -> list[str]:
    """The cascade's table: per stage, what it judged, caught, and cost."""
    responses = report.overall.responses
    rows = [
        f"{'stage':<28} {'judged':>6} {'share':>6} {'caught':>6} {'false-alarms':>12}"
        f" {'ms/judged':>10} {'tokens/judged':>13}"
    ]
    for name, counts in report.stages.items():
        ms = counts.ms_per_judged
        tokens = counts.tokens_per_judged
        share = counts.judged / responses if responses else None
        rows.append(
            f"{name[:28]:<28} {counts.judged:>6} {_rate(share):>6}"
            f" {counts.flagged_hallucinated:>6} {counts.flagged_clean:>12}"
            f" {'n/a' if ms is None else f'{ms:.1f}':>10}"
            f" {'n/a' if tokens is None else f'{tokens:.1f}':>13}"
        )
    return rows


def format_report(report: EvalReport, *, dataset: str = "") -> str:
    """
    The report as plain-text tables, as ``relapse eval`` prints it.

    Args:
        report: From :func:`relapse.evaluation.evaluate`.
        dataset: A heading naming the data (for example its path).

    Returns:
        Several lines: a summary line (with the check's tokens per answer
        when it reported any, and the throughput), response-level metrics
        overall and per task type, then per finding code (with the mean
        score when findings carried one), then, for a cascade, per stage:
        records judged and their share, hallucinated records caught, false
        alarms, milliseconds and tokens per record judged. Undefined rates
        print as ``n/a``.
    """
    overall = report.overall
    ms = report.ms_per_check
    scored = any(counts.scored for counts in report.by_code.values())
    lines = [
        f"check: {report.check}" + (f"   data: {dataset}" if dataset else ""),
        f"summary: {overall.responses} responses ({overall.hallucinated} hallucinated),"
        f" precision {_rate(overall.precision)}, recall {_rate(overall.recall)},"
        f" F1 {_rate(overall.f1)}, false-alarm rate {_rate(overall.false_alarm_rate)}"
        f" ({overall.flagged_clean}/{overall.clean}),"
        f" span precision {_rate(report.span_precision)}"
        f" ({report.spans_overlapping}/{report.spans}),"
        f" numeric-span recall {_rate(report.numeric_recall)}"
        f" ({report.numeric_caught}/{report.numeric_spans}),"
        f" {'n/a' if ms is None else f'{ms:.3f}'} ms per check"
        + _tokens(report.tokens_per_answer)
        + _throughput(report),
        "",
        f"{'task type':<12} {'responses':>9} {'hallucinated':>12} {'precision':>9}"
        f" {'recall':>7} {'F1':>7} {'false-alarm':>11}",
        _response_row("all", overall),
    ]
    lines += [_response_row(name, counts) for name, counts in report.by_task_type.items()]
    lines += [
        "",
        f"{'code':<8} {'flagged':>7} {'precision':>9} {'recall':>7} {'spans':>6}"
        f" {'span-precision':>14}" + (f" {'mean-score':>10}" if scored else ""),
    ]
    for code, counts in report.by_code.items():
        flagged = counts.flagged_hallucinated + counts.flagged_clean
        lines.append(
            f"{code:<8} {flagged:>7} {_rate(counts.precision):>9}"
            f" {_rate(report.code_recall(code)):>7} {counts.spans:>6}"
            f" {_rate(counts.span_precision):>14}"
            + (f" {_rate(counts.mean_score):>10}" if scored else "")
        )
    if not report.by_code:
        lines.append("(no finding)")
    if report.stages:
        lines += ["", *_stage_rows(report)]
    if report.unlocated_findings:
        lines.append(
            f"{report.unlocated_findings} finding(s) had no offsets: they flag their response"
            " but are not in the span counts"
        )
    return "\n".join(lines)


def plot_report(report: EvalReport, path: Path) -> None:
    """
    Draw per-code response-level precision and recall as a bar chart.

    Args:
        report: From :func:`relapse.evaluation.evaluate`.
        path: The image file to write; the format follows its suffix
            (``.png``, ``.svg``, ``.pdf``).

    Raises:
        ModuleNotFoundError: matplotlib is not installed (``pip install
            'relapse[plot]'``).
        OSError: the file cannot be written.
    """
    import matplotlib

    matplotlib.use("Agg")  # a file, never a window
    from matplotlib import pyplot

    codes = list(report.by_code)
    precision = [report.by_code[code].precision or 0.0 for code in codes]
    recall = [report.code_recall(code) or 0.0 for code in codes]
    positions = range(len(codes))
    figure, axes = pyplot.subplots(figsize=(max(4.0, 1.2 * len(codes) + 2), 3.5))
    try:
        width = 0.38
        axes.bar([p - width / 2 for p in positions], precision, width, label="precision")
        axes.bar([p + width / 2 for p in positions], recall, width, label="recall")
        axes.set_xticks(list(positions), codes)
        axes.set_ylim(0, 1)
        axes.set_ylabel("response level")
        axes.set_title(f"{report.check}: {report.overall.responses} responses")
        axes.legend()
        figure.tight_layout()
        figure.savefig(path)
    finally:
        pyplot.close(figure)
