"""
Compare retry wordings on the real local model over the 76 dev questions.

A thin driver of :func:`relapse.evaluation.evaluate_loop`: for each candidate
``rewrite`` (an ``f(attempt) -> str``) it runs
``relapse.Loop(max_iterations=3, rewrite=...)`` with Gemma 3 270M
(:class:`relapse.llms.local.LocalModel`, greedy decoding) and the default
grounding check over every item of ``relapse/data/dev.jsonl``, scores each
run's answers (:attr:`relapse.evaluation.QuestionRun.answers`), and reports:

* first answers failing the check (the same for every wording: iteration 1
  does not depend on the wording);
* how many of those ended grounded (recovered);
* final grounded rate and mean LLM calls per question;
* how many retry answers the check flagged as echoes of the instructions
  (FG004), and how many retry answers *look* like echoes by a crude
  independent test (they quote a finding code or the note's own phrases),
  so a check that misses echoes shows up as a gap between the two columns.

relapse 0.1.0's own loop runs as the baseline when it is installed under
``benchmarks/.peers`` (``pip install --no-deps --target benchmarks/.peers
relapse==0.1.0``); it is loaded by file path under the alias ``relapse_010``
so it never shadows this package. Its prompts are not few-shot, so the
local adapter's worked examples are prepended to each of them; its answers
are scored with today's default check, like everyone else's.

The model is deterministic (every call starts from a reset context), so
answers are memoised by prompt: first answers are computed once and shared.

Usage::

    .venv/bin/python benchmarks/compare_retry_wordings.py [--limit N] [--json OUT]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import relapse
from relapse import prompts
from relapse.demo import load_items
from relapse.evaluation import QuestionRecord, evaluate_loop
from relapse.llms.local import LocalModel

PEERS = Path(__file__).resolve().parent / ".peers"

# Phrases of the candidate retry notes themselves (all three wordings); an
# answer holding one is repeating the instructions rather than answering.
# Independent of the check's own FG004 list on purpose: the gap between the
# two columns shows which echoes the check misses.
_ECHO_HINT = re.compile(
    r"FG\d{3}|previous answer|not in (the )?retrieved chunks|number\(s\)|does not support"
    r"|rejected|states things|Problems found|Answer using only|Use only the context"
    r"|question again",
    re.IGNORECASE,
)


def question_last_retry(attempt: relapse.Attempt) -> str:
    """
    Candidate 3: the problems first, the original question last (for completion models).

    :func:`relapse.prompts.retry_note` (the rejected answer, its findings and
    the instruction), then the question again.
    """
    return f"{prompts.retry_note(attempt)} The question again: {prompts.inline(attempt.query)}"


CANDIDATES: dict[str, Callable[[relapse.Attempt], str]] = {
    "compact_retry": prompts.compact_retry,
    "instruction_retry": prompts.instruction_retry,
    "question_last_retry": question_last_retry,
}


class Memoised:
    """The local model, memoised by prompt (it is deterministic); ``build_prompt`` is its own."""

    def __init__(self, model: LocalModel) -> None:
        self.model = model
        self.build_prompt = model.build_prompt
        self.memo: dict[str, str] = {}

    def __call__(self, prompt: str) -> str:
        if prompt not in self.memo:
            self.memo[prompt] = self.model(prompt)
        return self.memo[prompt]


@dataclass
class Tally:
    """Counts for one wording."""

    name: str
    questions: int = 0
    first_failed: int = 0
    recovered: int = 0
    final_grounded: int = 0
    final_honest: int = 0
    calls: int = 0
    retry_answers: int = 0
    fg004: int = 0
    echo_like: int = 0
    empty_retry: int = 0
    runs: list[dict[str, Any]] = field(default_factory=list)

    def row(self) -> str:
        """One Markdown table row."""
        n = self.questions
        return (
            f"| {self.name} | {self.first_failed}/{n} | {self.recovered}/{self.first_failed} |"
            f" {self.final_grounded / n:.2f} | {self.final_honest / n:.2f} |"
            f" {self.calls / n:.2f} | {self.retry_answers} |"
            f" {self.fg004} | {self.echo_like} | {self.empty_retry} |"
        )


HEADER = (
    "| wording | first answers failing | recovered | final grounded rate |"
    " final grounded, echoes and empty answers rejected | mean calls |"
    " retry answers | FG004 echoes | echo-like (crude) | empty retries |\n"
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
)


def _load_010() -> ModuleType | None:
    path = PEERS / "relapse.py"
    if not path.exists():
        return None
    spec = importlib.util.spec_from_file_location("relapse_010", path)
    if spec is None or spec.loader is None:
        return None
    module = importlib.util.module_from_spec(spec)
    sys.modules["relapse_010"] = module
    spec.loader.exec_module(module)
    return module


def _tally(tally: Tally, question: str, texts: list[str], answers: Sequence[str]) -> None:
    """Score one question's answers (one per LLM call) with today's default check."""
    verdicts = [relapse.default_grounding_check(question, texts, a) for a in answers]
    tally.questions += 1
    tally.calls += len(answers)
    if not verdicts[0].ok:
        tally.first_failed += 1
        if verdicts[-1].ok:
            tally.recovered += 1
    tally.final_grounded += verdicts[-1].ok
    # An empty answer, or a retry answer repeating the retry note, is not an
    # answer even when the check finds nothing wrong with it. (A first answer
    # cannot echo a note it never saw, and "rejected" can be a real answer.)
    final = answers[-1]
    echoed = len(answers) > 1 and bool(_ECHO_HINT.search(final))
    tally.final_honest += verdicts[-1].ok and bool(final.strip()) and not echoed
    for answer, verdict in zip(answers[1:], verdicts[1:], strict=True):
        tally.retry_answers += 1
        tally.fg004 += any(f.code == "FG004" for f in verdict.findings)
        tally.echo_like += bool(_ECHO_HINT.search(answer))
        tally.empty_retry += not answer.strip()
    tally.runs.append(
        {
            "question": question,
            "answers": list(answers),
            "codes": [[f.code for f in v.findings] for v in verdicts],
            "spans": [[list(f.spans) for f in v.findings] for v in verdicts],
        }
    )


def run_question(record: QuestionRecord) -> str:
    """The record's question (every dev record has one)."""
    if record.question is None:
        raise ValueError(f"dev record {record.id} has no question")
    return record.question


def main(argv: Sequence[str] | None = None) -> int:
    """Run the comparison and print a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=None, help="first N dev questions only")
    parser.add_argument("--json", type=Path, default=None, help="write every transcript here")
    parser.add_argument("--no-baseline", action="store_true", help="skip relapse 0.1.0")
    parser.add_argument(
        "--rescore",
        type=Path,
        default=None,
        help="re-score the answers saved by --json with today's check; no model calls",
    )
    args = parser.parse_args(argv)

    items = load_items("dev")[: args.limit]
    if args.rescore is not None:
        passages = {item.question: list(item.passages) for item in items}
        saved = json.loads(args.rescore.read_text())
        print(f"{len(items)} dev questions, re-scored from {args.rescore}\n")
        print(HEADER)
        for name, runs in saved.items():
            tally = Tally(name)
            for run in runs:
                _tally(tally, run["question"], passages[run["question"]], run["answers"])
            print(tally.row())
        return 0
    model = Memoised(LocalModel())
    records = [
        QuestionRecord(line, item.id, item.question, item.passages, "QA", "dev")
        for line, item in enumerate(items, start=1)
    ]
    by_id = {record.id: record for record in records}

    started = time.monotonic()
    tallies: list[Tally] = []
    for name, rewrite in CANDIDATES.items():
        tally = Tally(name)
        loop = relapse.Loop(max_iterations=3, rewrite=rewrite)
        for run in evaluate_loop(records, lambda: model, loop=loop).runs:
            record = by_id[run.id]
            _tally(tally, run_question(record), list(record.passages), run.answers)
        tallies.append(tally)
        print(f"# {name} done at {time.monotonic() - started:.0f}s", file=sys.stderr)

    old = None if args.no_baseline else _load_010()
    if old is not None:
        tally = Tally("relapse 0.1.0 loop (baseline)")
        # 0.1.0 writes its own prompts; the base model needs the worked
        # examples in front of them to answer at all.
        first_example = LocalModel.build_prompt("", []).split("\n\n")[0] + "\n\n"
        for item in items:
            result = old.run(
                item.question,
                list(item.passages),
                call_llm=lambda p: model(first_example + p),
                max_iterations=3,
            )
            _tally(tally, item.question, list(item.passages), [r.answer for r in result.transcript])
        tallies.append(tally)

    elapsed = time.monotonic() - started
    print(f"{len(items)} dev questions, max_iterations=3, temperature 0, {elapsed:.0f} s\n")
    print(HEADER)
    for tally in tallies:
        print(tally.row())
    if args.json is not None:
        args.json.write_text(
            json.dumps({t.name: t.runs for t in tallies}, indent=1, ensure_ascii=False)
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
