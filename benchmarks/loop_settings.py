"""
Measure the loop controls on the real local model over the 76 dev questions.

A thin driver of :func:`relapse.evaluation.evaluate_loop`: one
``relapse.Loop(max_iterations=3, ...)`` per setting, with Gemma 3 270M
(:class:`relapse.llms.local.LocalModel`) and the default grounding check, over
every item of ``relapse/data/dev.jsonl``, under four settings:

(a) today's loop: greedy decoding on every iteration;
(b) ``stop_on_repeat=True``: a retry failing with the same spans ends the
    call as ``stalled``;
(c) sampling varied on retries through :func:`relapse.current_attempt`
    (``LocalModel(retry_temperature=...)``: from iteration 2 a higher
    temperature and a new seed per iteration);
(d) both.

and prints per setting, from the :class:`relapse.evaluation.LoopReport`: first
answers failing, how many of those recovered, how many recovered *as a
refusal* (the grounded answer says the context does not contain the answer),
echoed (a final answer copying the context, question or instructions back;
never counted as recovered), exhausted, stalled, identical repeats paid for
(a retry answer equal to the previous answer) and mean LLM calls per
question.

Calls are memoised by ``(prompt, temperature, seed)``: the model is
deterministic for those (every call starts from a reset context), so first
answers are computed once and shared by all four settings.

Usage::

    .venv/bin/python benchmarks/loop_settings.py [--limit N] [--only TEXT] [--temperature T]

``--only "symptoms and causes of ibs"`` runs one question whose first answer
fails and whose greedy retries repeat it byte for byte.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from collections.abc import Sequence

import relapse
from relapse.demo import load_items
from relapse.evaluation import LoopReport, QuestionRecord, evaluate_loop
from relapse.llms.local import LocalModel

HEADER = (
    "| setting | first answers failing | recovered | recovered as a refusal | echoed |"
    " exhausted | stalled | identical repeats paid | mean calls |\n"
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
)

#: name -> (stop_on_repeat, vary sampling on retries)
SETTINGS: dict[str, tuple[bool, bool]] = {
    "(a) today's loop": (False, False),
    "(b) stop_on_repeat": (True, False),
    "(c) sampling varied on retries": (False, True),
    "(d) both": (True, True),
}


class Memoised:
    """
    The local model, memoised by ``(prompt, temperature, seed)``.

    Deterministic for those (every call starts from a reset context), so the
    four settings share their first answers; ``build_prompt`` is the model's.
    """

    def __init__(self, model: LocalModel) -> None:
        self.model = model
        self.build_prompt = model.build_prompt
        self.memo: dict[tuple[str, float, int], str] = {}

    def __call__(self, prompt: str) -> str:
        key = (prompt, *self.model.sampling())
        if key not in self.memo:
            self.memo[key] = self.model(prompt)
        return self.memo[key]


def row(name: str, report: LoopReport) -> str:
    """One Markdown table row of a setting's report."""
    outcomes = report.outcomes
    first_failed = sum(not run.first_grounded for run in report.runs)
    recovered = outcomes["recovered"] + outcomes["recovered_refusal"]
    repeats = sum(a == b for run in report.runs for a, b in itertools.pairwise(run.answers))
    return (
        f"| {name} | {first_failed}/{len(report.runs)} | {recovered}/{first_failed} |"
        f" {outcomes['recovered_refusal']} | {outcomes['echoed']} | {outcomes['exhausted']} |"
        f" {outcomes['stalled']} | {repeats} | {report.mean_calls or 0.0:.2f} |"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the four settings and print a Markdown table."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=None, help="first N dev questions only")
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="TEXT",
        help="only the questions containing TEXT (repeatable), before --limit",
    )
    parser.add_argument(
        "--temperature", type=float, default=0.8, help="retry temperature of settings (c), (d)"
    )
    args = parser.parse_args(argv)
    if args.limit is not None and args.limit < 1:
        parser.error("--limit must be >= 1")

    records = [
        QuestionRecord(line, item.id, item.question, item.passages, "QA", "dev")
        for line, item in enumerate(load_items("dev"), start=1)
        if not args.only or any(text in item.question for text in args.only)
    ][: args.limit]
    if not records:
        parser.error("no dev question matches --only")
    model = Memoised(LocalModel())

    started = time.monotonic()
    reports: dict[str, LoopReport] = {}
    for name, (stop_on_repeat, vary) in SETTINGS.items():
        model.model.retry_temperature = args.temperature if vary else None
        loop = relapse.Loop(max_iterations=3, stop_on_repeat=stop_on_repeat)
        reports[name] = evaluate_loop(records, lambda: model, loop=loop)
        print(f"# {name} done at {time.monotonic() - started:.0f}s", file=sys.stderr)

    elapsed = time.monotonic() - started
    print(
        f"{len(records)} dev questions, max_iterations=3, retry temperature"
        f" {args.temperature} in (c) and (d), {elapsed:.0f} s\n"
    )
    print(HEADER)
    for name, report in reports.items():
        print(row(name, report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
