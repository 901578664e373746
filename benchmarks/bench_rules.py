r"""
Attribute the default check's time to its rules: each rule switched off in turn, interleaved.

The first check after a prepare (what a loop pays once per call) of
``bench_check.py``'s RAGTruth answer, at 10 KB and 100 KB of context. Every
round times one fresh prepared check per variant, the variants in turn,
so the machine's drift over a run falls on all of them alike; the table
gives each variant's median, and what switching the rule off saves against
the whole check in the same rounds.

The variants replace one private method of
``relapse.grounding._check.BoundGroundingCheck`` by one that finds nothing
(the rule's verdicts change; only its cost is measured): the copy rule
(FG004 ``_copies``), the subject rule (``_moved``, issue 21), the unit
bindings (``_units_agree``, the judgement of the ``units-agree`` rule in
``relapse.grounding.rules.units``, replaced there), numbers in words (``_numbers_in_words``),
echoes (``_echo``), quotations (``_quotations``) and the evidence's places
(``_place_claims``); "none" switches off all of them, leaving the scanner
and the claims' lookups.

With ``--quality`` it also gives what each rule buys: the scores of
``relapse eval`` on the development half of the RAGTruth sample (false-alarm
rate, span precision, numeric-span recall) with the rule switched off, so a
rule's cost in time is read beside its worth in verdicts. Verdicts only: no
timing runs while they are scored.

Usage::

    python benchmarks/bench_rules.py [--rounds N] [--quality]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_check
from eval_ragtruth import DEFAULT_DATA

from relapse.evaluation import EvalReport, evaluate, load_annotated
from relapse.grounding import _check
from relapse.grounding import default_grounding_check as check
from relapse.grounding.rules import units

QUERY = "What do the passages say about costs, dates and numbers?"

#: Each rule, and what replaces it: a method of the same signature that finds nothing.
RULES: dict[str, Callable[..., Any]] = {
    "_copies": lambda self, answer: False,
    "_moved": lambda self, answer, supported: set(),
    "_units_agree": lambda lookup, answer, claim: True,
    "_numbers_in_words": lambda self, answer, failed, covered, judged, limit, *rest: limit,
    "_echo": lambda self, answer, failed, covered: None,
    "_quotations": lambda self, answer, failed, covered, placed, *rest: len(answer),
    "_place_claims": lambda self, supported, placed: None,
}

#: Where each rule lives: a pass of the check, or a rule's judgement in its module.
OWNERS: dict[str, Any] = dict.fromkeys(RULES, _check.BoundGroundingCheck) | {"_units_agree": units}

#: The rules as the check has them.
ORIGINAL = {name: getattr(OWNERS[name], name) for name in RULES}


def switch(off: Sequence[str]) -> None:
    """
    Put every rule back, then switch off those in ``off``.

    Raises:
        KeyError: A name of ``off`` is none of :data:`RULES`.
    """
    unknown = [name for name in off if name not in RULES]
    if unknown:
        raise KeyError(f"no such rule: {', '.join(unknown)} (the rules: {', '.join(RULES)})")
    for name in RULES:
        setattr(OWNERS[name], name, ORIGINAL[name])
    for name in off:
        setattr(OWNERS[name], name, RULES[name])


def variants() -> dict[str, Sequence[str]]:
    """Return each variant's name and the rules it switches off: none, each rule, all of them."""
    named: dict[str, Sequence[str]] = {"whole check": ()}
    named.update({name: (name,) for name in RULES})
    named["none"] = tuple(RULES)
    return named


def score(records: Sequence[Any]) -> dict[str, EvalReport]:
    """
    Return each variant's ``relapse eval`` report on ``records``.

    Args:
        records: Annotated responses (``relapse.evaluation.load_annotated``).

    Returns:
        The reports, by variant name; every rule is back in place after.
    """
    reports: dict[str, EvalReport] = {}
    try:
        for name, off in variants().items():
            switch(off)
            reports[name] = evaluate(records, check, name=name)
    finally:
        switch(())
    return reports


def _share(value: float | None, part: int, whole: int) -> str:
    """A score with its counts, as ``relapse eval`` prints it: ``0.941 (16/17)``."""
    shown = "n/a" if value is None else f"{value:.3f}"
    return f"{shown} ({part}/{whole})"


def attribute(chunks: list[str], answer: str, rounds: int) -> dict[str, float]:
    """Return each variant's median first-check time in microseconds."""
    named = variants()
    check(QUERY, chunks, answer)  # the regexes' caches, as every call has them
    times: dict[str, list[float]] = {name: [] for name in named}
    try:
        for _ in range(rounds):
            for name, off in named.items():
                switch(off)
                prepared = check.prepare(QUERY, chunks)
                started = time.perf_counter()
                prepared.check(answer)
                times[name].append((time.perf_counter() - started) * 1e6)
    finally:
        switch(())
    return {name: statistics.median(values) for name, values in times.items()}


def main(argv: Sequence[str] | None = None) -> int:
    """Print the table for each context size."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=200, help="checks per variant")
    parser.add_argument(
        "--quality", action="store_true", help="also score each variant on the RAGTruth dev half"
    )
    args = parser.parse_args(argv)
    texts = bench_check.passages(bench_check.DEFAULT_DATA)
    answer = bench_check.answer_of(texts)
    for label in ("10 KB", "100 KB"):
        chunks = bench_check.context_of(texts, bench_check.SIZES[label])
        medians = attribute(chunks, answer, args.rounds)
        whole = medians["whole check"]
        print(f"RAGTruth {label}: first check after a prepare, {args.rounds} rounds")
        print(f"{'switched off':<20} {'median us':>10} {'saves us':>9}")
        for name, median in medians.items():
            print(f"{name:<20} {median:10.1f} {whole - median:9.1f}")
        print()
    if args.quality:
        records = load_annotated(DEFAULT_DATA)
        print(f"RAGTruth development half ({len(records)} responses), each variant's verdicts")
        heads = ("false-alarm", "span-precision", "numeric-recall")
        print(f"{'switched off':<20}" + "".join(f" {head:>15}" for head in heads))
        for name, report in score(records).items():
            overall = report.overall
            print(
                f"{name:<20}"
                f" {_share(overall.false_alarm_rate, overall.flagged_clean, overall.clean):>15}"
                f" {_share(report.span_precision, report.spans_overlapping, report.spans):>15}"
                f" {_share(report.numeric_recall, report.numeric_caught, report.numeric_spans):>15}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
