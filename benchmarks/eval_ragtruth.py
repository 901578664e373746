"""
Score grounding checks on real RAG answers with human-annotated hallucination spans.

Runs relapse's default check, relapse 0.1.0's and corroborate 0.1.0's over the
RAGTruth sample (445 responses in the development half) and prints, for each
(relapse's opt-in names check FG005 alone and with the default codes too):

- response-level precision and recall (a response is flagged when the check
  does not accept it; it is hallucinated when annotators marked any span),
- false-alarm rate: flagged clean responses / clean responses,
- span precision: flagged spans overlapping an annotated span / flagged spans,
- numeric-span recall: annotated spans holding a real number (not only a
  list marker or a passage reference) that a flagged span overlaps / such spans,
- milliseconds per check.

The scoring is ``relapse.evaluation``'s, the same as ``relapse eval``'s; this
script adds the two peers. A peer finding whose spans cannot be located in
the answer flags the response but is not a span.

Usage::

    python benchmarks/eval_ragtruth.py [PATH_TO_JSONL] [--details NAME]

The peers are installed on demand into ``benchmarks/.peers`` (never into the
project's environment: the PyPI name ``relapse`` is this project's) and
loaded by file path under the aliases ``relapse_010`` and ``corroborate_010``.
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from relapse import GroundingFinding, GroundingResult
from relapse.evaluation import EvalReport, evaluate, load_annotated

ROOT = Path(__file__).resolve().parent.parent
PEERS = ROOT / "benchmarks" / ".peers"
DEFAULT_DATA = ROOT / ".." / "shared" / "data" / "ragtruth-sample" / "ragtruth_sample.jsonl"
PEER_PACKAGES = {"relapse_010": "relapse==0.1.0", "corroborate_010": "corroborate==0.1.0"}
PEER_FILES = {"relapse_010": "relapse.py", "corroborate_010": "corroborate.py"}

#: A check under evaluation: (question, chunks, answer) -> GroundingResult.
Check = Callable[[str, Sequence[str], str], GroundingResult]


def load_peer(alias: str) -> ModuleType:
    """
    Load relapse 0.1.0 or corroborate 0.1.0 by file path, installing it if needed.

    Args:
        alias: ``"relapse_010"`` or ``"corroborate_010"``.

    Returns:
        The module, registered under ``alias`` in ``sys.modules``.
    """
    path = PEERS / PEER_FILES[alias]
    if not path.exists():
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "install",
                "--quiet",
                "--no-deps",
                "--target",
                str(PEERS),
                *PEER_PACKAGES.values(),
            ],
            check=True,
        )
    if alias in sys.modules:
        return sys.modules[alias]
    spec = importlib.util.spec_from_file_location(alias, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[alias] = module  # dataclasses look their module up while building
    spec.loader.exec_module(module)
    return module


def locate(answer: str, texts: Sequence[str]) -> list[tuple[int, int]]:
    """Find offsets for spans reported without them: each next unused occurrence."""
    found: list[tuple[int, int]] = []
    used: set[int] = set()
    for text in texts:
        position = answer.find(text)
        while position >= 0 and position in used:
            position = answer.find(text, position + 1)
        if position < 0:
            continue
        used.add(position)
        found.append((position, position + len(text)))
    return found


def ours(codes: frozenset[str] | None = None) -> Check:
    """relapse's check (default codes unless ``codes``), offsets as reported."""
    from relapse.grounding import GroundingCheck, default_grounding_check

    return default_grounding_check if codes is None else GroundingCheck(codes=codes)


def _located(findings: Sequence[Any], answer: str) -> GroundingResult:
    """A peer's findings as relapse's, their spans located in the answer."""
    return GroundingResult(
        ok=not findings,
        findings=tuple(
            GroundingFinding(
                finding.code,
                str(getattr(finding, "message", "")),
                tuple(finding.spans),
                tuple(locate(answer, finding.spans)),
            )
            for finding in findings
        ),
    )


def relapse_010() -> Check:
    """relapse 0.1.0's ``default_grounding_check``; spans located in the answer."""
    module = load_peer("relapse_010")

    def run(question: str, chunks: Sequence[str], answer: str) -> GroundingResult:
        result = module.default_grounding_check(question, list(chunks), answer)
        return _located(result.findings, answer)

    return run


def corroborate_010() -> Check:
    """corroborate 0.1.0's ``check_answer``; flagged when its report is not ok."""
    module = load_peer("corroborate_010")

    def run(question: str, chunks: Sequence[str], answer: str) -> GroundingResult:
        report = module.check_answer(question, list(chunks), answer)
        return _located([] if report.ok() else report.findings, answer)

    return run


CHECKS: dict[str, Callable[[], Check]] = {
    "relapse (this)": ours,
    # The opt-in names check, alone and with the default codes.
    "relapse FG005 alone": lambda: ours(frozenset({"FG005"})),
    "relapse + FG005": lambda: ours(frozenset({"FG001", "FG002", "FG003", "FG004", "FG005"})),
    "relapse 0.1.0": relapse_010,
    "corroborate 0.1.0": corroborate_010,
}


def _rate(value: float | None) -> str:
    return "    n/a" if value is None else f"{value:.3f}"


def row(name: str, report: EvalReport) -> str:
    """Format one check's report as one line of the table."""
    overall = report.overall
    ms = report.ms_per_check or 0.0
    return (
        f"{name:<20} {_rate(overall.precision):>9} {_rate(overall.recall):>7}"
        f" {_rate(overall.false_alarm_rate):>7} ({overall.flagged_clean:>3}/{overall.clean})"
        f" {_rate(report.span_precision):>8} ({report.spans_overlapping:>3}/{report.spans:<3})"
        f" {_rate(report.numeric_recall):>8} ({report.numeric_caught:>2}/{report.numeric_spans})"
        f" {ms:>8.3f}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run every check over the corpus and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", nargs="?", type=Path, default=DEFAULT_DATA)
    parser.add_argument(
        "--details",
        choices=list(CHECKS),
        help="also list this check's false alarms and missed numeric spans",
    )
    args = parser.parse_args(argv)
    records = load_annotated(args.path)
    print(f"RAGTruth sample: {args.path.resolve()} ({len(records)} responses)")
    print(
        f"{'check':<21} {'precision':>9} {'recall':>7} {'false-alarm':>17}"
        f" {'span-precision':>18} {'numeric-recall':>15} {'ms/check':>8}"
    )
    reports = {name: evaluate(records, make(), name=name) for name, make in CHECKS.items()}
    for name, report in reports.items():
        print(row(name, report))
    if args.details:
        report = reports[args.details]
        print(f"\nfalse alarms of {args.details}:")
        for miss in report.false_alarms:
            print(f"  {miss.id}: {'; '.join(miss.texts)[:300]}")
        print(f"\nmissed numeric spans of {args.details}:")
        for miss in report.numeric_misses:
            print(f"  {miss.id}: {miss.texts[0][:200]!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
