"""
Score grounding checks on real RAG answers with human-annotated hallucination spans.

Runs relapse's default check, relapse 0.1.0's and corroborate 0.1.0's over the
RAGTruth sample (445 responses in the development half) and prints, for each
(relapse's opt-in names check FG005 alone and with the default codes too):

- response-level precision and recall (a response is flagged when the check
  reports any finding; it is hallucinated when annotators marked any span),
- false-alarm rate: flagged clean responses / clean responses,
- span precision: flagged spans overlapping an annotated span / flagged spans,
- numeric-span recall: annotated spans holding a real number (not only a
  list marker or a passage reference) that a flagged span overlaps / such spans,
- milliseconds per check.

Usage::

    python benchmarks/eval_ragtruth.py [PATH_TO_JSONL] [--details NAME]

The peers are installed on demand into ``benchmarks/.peers`` (never into the
project's environment: the PyPI name ``relapse`` is this project's) and
loaded by file path under the aliases ``relapse_010`` and ``corroborate_010``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PEERS = ROOT / "benchmarks" / ".peers"
DEFAULT_DATA = ROOT / ".." / "shared" / "data" / "ragtruth-sample" / "ragtruth_sample.jsonl"
PEER_PACKAGES = {"relapse_010": "relapse==0.1.0", "corroborate_010": "corroborate==0.1.0"}
PEER_FILES = {"relapse_010": "relapse.py", "corroborate_010": "corroborate.py"}

#: A check under evaluation: (question, chunks, answer) -> [(code, start, end)].
Spans = list[tuple[str, int, int]]
Runner = Callable[[str, list[str], str], Spans]


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


def ours(codes: frozenset[str] | None = None) -> Runner:
    """relapse's check (default codes unless ``codes``), offsets as reported."""
    from relapse.grounding import GroundingCheck, default_grounding_check

    check = default_grounding_check if codes is None else GroundingCheck(codes=codes)

    def run(question: str, chunks: list[str], answer: str) -> Spans:
        result = check(question, chunks, answer)
        return [
            (finding.code, start, end)
            for finding in result.findings
            for start, end in finding.offsets
        ]

    return run


def relapse_010() -> Runner:
    """relapse 0.1.0's ``default_grounding_check``; spans located in the answer."""
    module = load_peer("relapse_010")

    def run(question: str, chunks: list[str], answer: str) -> Spans:
        result = module.default_grounding_check(question, chunks, answer)
        return [
            (finding.code, start, end)
            for finding in result.findings
            for start, end in locate(answer, finding.spans)
        ] or [(finding.code, 0, 0) for finding in result.findings]

    return run


def corroborate_010() -> Runner:
    """corroborate 0.1.0's ``check_answer``; flagged when its report is not ok."""
    module = load_peer("corroborate_010")

    def run(question: str, chunks: list[str], answer: str) -> Spans:
        report = module.check_answer(question, chunks, answer)
        if report.ok():
            return []
        return [
            (finding.code, start, end)
            for finding in report.findings
            for start, end in locate(answer, finding.spans)
        ] or [(finding.code, 0, 0) for finding in report.findings]

    return run


CHECKS: dict[str, Callable[[], Runner]] = {
    "relapse (this)": ours,
    # The opt-in names check, alone and with the default codes.
    "relapse FG005 alone": lambda: ours(frozenset({"FG005"})),
    "relapse + FG005": lambda: ours(frozenset({"FG001", "FG002", "FG003", "FG004", "FG005"})),
    "relapse 0.1.0": relapse_010,
    "corroborate 0.1.0": corroborate_010,
}

# What makes an annotated span "numeric" is decided here, independently of
# any check: it holds a digit run that is neither a line-leading list marker
# ("3. Print") nor a reference to the context ("Passage 2", "passages 1 and 3").
_DIGITS = re.compile(r"\d+")
_LIST_MARKER = re.compile(r"(?:^|\n)[ \t*#>-]*\Z")
_LIST_MARKER_AFTER = re.compile(r"[.)]\s")
_PASSAGE_REFERENCE = re.compile(
    r"(?i:passages?|documents?)\s*(?:\d+\s*(?:,|and|&)\s*)*\Z",
)


def is_numeric_span(response: str, start: int, end: int) -> bool:
    """Tell whether ``response[start:end]`` holds a real number (see above)."""
    for match in _DIGITS.finditer(response, start, end):
        digit_start = match.start()
        before = response[max(0, digit_start - 40) : digit_start]
        if _LIST_MARKER.search(before) and _LIST_MARKER_AFTER.match(response, match.end()):
            continue
        if _PASSAGE_REFERENCE.search(before):
            continue
        return True
    return False


@dataclass
class Score:
    """Counts for one check over the corpus."""

    flagged_bad: int = 0
    flagged_clean: int = 0
    bad: int = 0
    clean: int = 0
    spans: int = 0
    spans_overlapping: int = 0
    numeric_spans: int = 0
    numeric_caught: int = 0
    seconds: float = 0.0
    checks: int = 0
    false_alarms: list[tuple[str, list[str]]] = field(default_factory=list)
    misses: list[tuple[str, str]] = field(default_factory=list)

    def row(self, name: str) -> str:
        """Format this score as one line of the table."""
        flagged = self.flagged_bad + self.flagged_clean
        precision = self.flagged_bad / flagged if flagged else 0.0
        recall = self.flagged_bad / self.bad if self.bad else 0.0
        false_alarm = self.flagged_clean / self.clean if self.clean else 0.0
        span_precision = self.spans_overlapping / self.spans if self.spans else 0.0
        numeric = self.numeric_caught / self.numeric_spans if self.numeric_spans else 0.0
        ms = 1000 * self.seconds / self.checks if self.checks else 0.0
        return (
            f"{name:<21} {precision:>9.3f} {recall:>7.3f} {false_alarm:>7.3f}"
            f" ({self.flagged_clean:>3}/{self.clean}) {span_precision:>8.3f}"
            f" ({self.spans_overlapping:>3}/{self.spans:<3}) {numeric:>8.3f}"
            f" ({self.numeric_caught:>2}/{self.numeric_spans}) {ms:>8.3f}"
        )


def overlaps(a_start: int, a_end: int, b_start: int, b_end: int) -> bool:
    """Tell whether two half-open spans share a character."""
    return a_start < b_end and b_start < a_end


def evaluate(records: list[dict[str, Any]], runner: Runner) -> Score:
    """Run one check over every record and count."""
    score = Score()
    for record in records:
        question = record["question"] or ""
        chunks = record["passages"]
        response = record["response"]
        annotated = [(span["start"], span["end"]) for span in record["hallucinated_spans"]]
        started = time.perf_counter()
        flagged = runner(question, chunks, response)
        score.seconds += time.perf_counter() - started
        score.checks += 1
        if annotated:
            score.bad += 1
            score.flagged_bad += bool(flagged)
        else:
            score.clean += 1
            score.flagged_clean += bool(flagged)
            if flagged:
                score.false_alarms.append(
                    (record["id"], [f"{code} {response[s:e]!r}" for code, s, e in flagged])
                )
        for _, start, end in flagged:
            score.spans += 1
            score.spans_overlapping += any(overlaps(start, end, a, b) for a, b in annotated)
        for start, end in annotated:
            if is_numeric_span(response, start, end):
                score.numeric_spans += 1
                caught = any(overlaps(start, end, s, e) for _, s, e in flagged if e > s)
                score.numeric_caught += caught
                if not caught:
                    score.misses.append((record["id"], response[start:end]))
    return score


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
    records = [json.loads(line) for line in args.path.read_text(encoding="utf-8").splitlines()]
    print(f"RAGTruth sample: {args.path.resolve()} ({len(records)} responses)")
    print(
        f"{'check':<21} {'precision':>9} {'recall':>7} {'false-alarm':>17}"
        f" {'span-precision':>18} {'numeric-recall':>15} {'ms/check':>8}"
    )
    scores = {name: evaluate(records, make()) for name, make in CHECKS.items()}
    for name, score in scores.items():
        print(score.row(name))
    if args.details:
        score = scores[args.details]
        print(f"\nfalse alarms of {args.details}:")
        for record_id, spans in score.false_alarms:
            print(f"  {record_id}: {'; '.join(spans)[:300]}")
        print(f"\nmissed numeric spans of {args.details}:")
        for record_id, text in score.misses:
            print(f"  {record_id}: {text[:200]!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
