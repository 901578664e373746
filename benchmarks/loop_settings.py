"""
Measure the loop controls on the real local model over the 76 dev questions.

Runs ``relapse.run`` with Gemma 3 270M (:class:`relapse.llms.local.LocalModel`),
``max_iterations=3`` and the default grounding check over every item of
``relapse/data/dev.jsonl`` under four settings:

(a) today's loop: greedy decoding on every iteration;
(b) ``stop_on_repeat=True``: a retry failing with the same spans ends the
    call as ``stalled``;
(c) sampling varied on retries through :func:`relapse.current_attempt`
    (``LocalModel(retry_temperature=...)``: from iteration 2 a higher
    temperature and a new seed per iteration);
(d) both.

and prints per setting: first answers failing, how many of those recovered,
how many recovered *as a refusal* (the grounded answer says the context does
not contain the answer), exhausted, stalled, identical repeats paid for (a
retry answer equal to the previous answer) and mean LLM calls per question.

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
from dataclasses import dataclass

import relapse
from relapse.demo import load_items
from relapse.evaluation._outcomes import RECOVERED_REFUSAL, outcome_of
from relapse.llms.local import LocalModel


@dataclass
class Tally:
    """Counts for one setting."""

    name: str
    questions: int = 0
    first_failed: int = 0
    recovered: int = 0
    recovered_refusal: int = 0
    exhausted: int = 0
    stalled: int = 0
    repeats: int = 0
    calls: int = 0

    def add(self, result: relapse.RelapseResult) -> None:
        """Count one question's result."""
        self.questions += 1
        self.calls += result.iterations
        self.first_failed += not result.transcript[0].grounded
        self.recovered += result.outcome == "recovered"
        self.recovered_refusal += outcome_of(result) == RECOVERED_REFUSAL
        self.exhausted += result.outcome == "exhausted"
        self.stalled += result.outcome == "stalled"
        answers = [r.answer for r in result.transcript]
        self.repeats += sum(a == b for a, b in itertools.pairwise(answers))

    def row(self) -> str:
        """One Markdown table row."""
        n = max(1, self.questions)
        return (
            f"| {self.name} | {self.first_failed}/{self.questions} |"
            f" {self.recovered}/{self.first_failed} | {self.recovered_refusal} |"
            f" {self.exhausted} | {self.stalled} | {self.repeats} | {self.calls / n:.2f} |"
        )


HEADER = (
    "| setting | first answers failing | recovered | recovered as a refusal | exhausted |"
    " stalled | identical repeats paid | mean calls |\n"
    "|---|---:|---:|---:|---:|---:|---:|---:|"
)

#: name -> (stop_on_repeat, vary sampling on retries)
SETTINGS: dict[str, tuple[bool, bool]] = {
    "(a) today's loop": (False, False),
    "(b) stop_on_repeat": (True, False),
    "(c) sampling varied on retries": (False, True),
    "(d) both": (True, True),
}


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

    items = [
        item
        for item in load_items("dev")
        if not args.only or any(text in item.question for text in args.only)
    ][: args.limit]
    if not items:
        parser.error("no dev question matches --only")
    model = LocalModel()
    memo: dict[tuple[str, float, int], str] = {}

    def call(prompt: str) -> str:
        key = (prompt, *model.sampling())
        if key not in memo:
            memo[key] = model(prompt)
        return memo[key]

    started = time.monotonic()
    tallies: list[Tally] = []
    for name, (stop_on_repeat, vary) in SETTINGS.items():
        model.retry_temperature = args.temperature if vary else None
        tally = Tally(name)
        for item in items:
            tally.add(
                relapse.run(
                    item.question,
                    item.passages,
                    call_llm=call,
                    build_prompt=model.build_prompt,
                    max_iterations=3,
                    stop_on_repeat=stop_on_repeat,
                )
            )
        tallies.append(tally)
        print(f"# {name} done at {time.monotonic() - started:.0f}s", file=sys.stderr)

    elapsed = time.monotonic() - started
    print(
        f"{len(items)} dev questions, max_iterations=3, retry temperature"
        f" {args.temperature} in (c) and (d), {elapsed:.0f} s\n"
    )
    print(HEADER)
    for tally in tallies:
        print(tally.row())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
