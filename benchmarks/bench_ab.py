r"""
Time the default grounding check of two source trees, interleaved run by run, on the same inputs.

Three worker processes stay up for the whole run: the base tree, the new
tree and the base tree again (A/A), each with ``PYTHONPATH`` set to its
tree. The parent asks them in turn, in an order that rotates from run to
run, to time one call of the check each, so every run of every tree sees
nearly the same machine load: on a busy machine the load drifts over
seconds, and trees timed one after the other (process after process) differ
by that drift, not by their code. The inputs are ``bench_check.py``'s:
RAGTruth passages at 10 KB, 100 KB and 1 MB of context, number-dense chunks
of 100 KB and 1 MB (built, untimed, from the run's seed, the same for every
tree, fresh on every run, so no cache helps a run an earlier one warmed),
and 1 MB answers of unsupported claims.

The table gives each tree's median time and the median of the per-run
ratios new/base and base'/base: the A/A column is the noise of the
machine, against which the new tree's ratio is read.

With ``--phases`` the check is split where its time goes, at RAGTruth 10 KB
and 100 KB and number-dense 100 KB: the prepare (reading the chunks into
the index), the first check after it (which also builds what the prepared
check keeps for every later answer, such as the copy rule's digest) and a
check again of the same answer on the same prepared check (the rules
alone, as a retry or a stream's next sentence pays them).

With ``--new-without RULE,...`` the new tree runs with those rules of
``bench_rules.py`` switched off (each replaced by one that finds nothing),
for instance ``_copies,_place_claims``: the rules a later issue added, so the
A/B shows what the rest of the new tree costs against a base that lacks them.
The verdicts change; only the cost is read.

Usage::

    python benchmarks/bench_ab.py BASE_SRC NEW_SRC [--repeats N] [--phases]
        [--new-without RULE,...]

for instance ``git archive main src | tar -x -C /tmp/base`` and
``python benchmarks/bench_ab.py /tmp/base/src src``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

#: The 1 MB answers: one unsupported claim repeated.
PIECES = {
    "1 MB '7 7 7'": "7 ",
    "1 MB '3rd 3rd'": "3rd ",
    "1 MB '10-15'": "10-15 ",
    "1 MB '$5 5%'": "$5 5% ",
    "1 MB 'seventy'": "seventy ",
    "1 MB '12.5 km'": "12.5 km ",
}

#: Number-dense context sizes.
DENSE = {"number-dense 100 KB": 100_000, "number-dense 1 MB": 1_000_000}

#: The parts of a check ``--phases`` times, as label suffixes.
PHASES = (": prepare", ": first check", ": check again")

#: The environment variable that hands ``--new-without`` to the new tree's worker.
_WITHOUT_VARIABLE = "RELAPSE_BENCH_WITHOUT"

#: The inputs ``--phases`` splits.
PHASED = ("RAGTruth 10 KB", "RAGTruth 100 KB", "number-dense 100 KB")


def labels(phases: bool = False) -> list[str]:
    """Return the inputs' labels, in the table's order."""
    if phases:
        return [f"{name}{phase}" for name in PHASED for phase in PHASES]
    return [
        *(f"RAGTruth {size}" for size in ("10 KB", "100 KB", "1 MB")),
        *DENSE,
        *PIECES,
    ]


def time_phase(check: Any, query: str, chunks: list[str], answer: str, phase: str) -> float:
    """
    Time one phase of a check in milliseconds (see ``--phases``).

    Args:
        check: The tree's ``default_grounding_check``.
        query: The question.
        chunks: The chunk texts.
        answer: The answer.
        phase: One of :data:`PHASES`.

    Returns:
        The wall time of that phase alone.
    """
    started = time.perf_counter()
    prepared = check.prepare(query, chunks)
    if phase == ": prepare":
        return (time.perf_counter() - started) * 1000
    if phase == ": check again":
        prepared.check(answer)
    started = time.perf_counter()
    prepared.check(answer)
    return (time.perf_counter() - started) * 1000


def serve() -> None:
    """
    Time one call per request (run inside a tree's worker process).

    Each request is a line ``label seed``; the answer is a line with the
    call's wall time in milliseconds.
    """
    sys.path.insert(0, str(HERE))
    # Imported in the worker only, where PYTHONPATH picks the tree.
    import bench_check

    from relapse.grounding import default_grounding_check as check

    without = os.environ.get(_WITHOUT_VARIABLE)
    if without:
        # Imported only here: bench_rules reads the tree this worker runs.
        import bench_rules

        bench_rules.switch(without.split(","))
    texts = bench_check.passages(bench_check.DEFAULT_DATA)
    answer = bench_check.answer_of(texts)
    query = "What do the passages say about costs, dates and numbers?"
    calls: dict[str, Callable[[], object]] = {}
    for size_label, size in bench_check.SIZES.items():
        chunks = bench_check.context_of(texts, size)
        check(query, chunks, answer)  # warm the caches of the regexes, as every run does
        calls[f"RAGTruth {size_label}"] = lambda c=chunks: check(query, c, answer)
    for label, piece in PIECES.items():
        long_answer = piece * (1_000_000 // len(piece))
        calls[label] = lambda a=long_answer: check("q", ["Some 5 context."], a)
    print("ready", flush=True)
    for line in sys.stdin:
        label, seed = line.rsplit(" ", 1)
        phase = next((phase for phase in PHASES if label.endswith(phase)), None)
        if phase is not None:
            name = label.removesuffix(phase)
            if name in DENSE:
                chunks = bench_check.dense_chunks(DENSE[name], seed=int(seed))
                inputs = ("", chunks, bench_check.dense_answer(chunks, seed=int(seed)))
            else:
                size = bench_check.SIZES[name.removeprefix("RAGTruth ")]
                inputs = (query, bench_check.context_of(texts, size), answer)
            print(time_phase(check, *inputs, phase), flush=True)
            continue
        call = calls.get(label)
        if call is None:
            chunks = bench_check.dense_chunks(DENSE[label], seed=int(seed))
            dense = bench_check.dense_answer(chunks, seed=int(seed))
            call = lambda c=chunks, d=dense: check("", c, d)  # noqa: E731
        started = time.perf_counter()
        call()
        print((time.perf_counter() - started) * 1000, flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the workers in turn and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base", type=Path, nargs="?", help="the source tree to compare against")
    parser.add_argument("new", type=Path, nargs="?", help="the source tree under test")
    parser.add_argument("--repeats", type=int, default=40, help="runs per input and tree")
    parser.add_argument(
        "--phases", action="store_true", help="split the check: prepare, first check, check again"
    )
    parser.add_argument(
        "--new-without",
        default="",
        metavar="RULE,...",
        help="switch off these rules of bench_rules.py in the new tree (_copies,_place_claims)",
    )
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        serve()
        return 0
    if args.base is None or args.new is None:
        parser.error("BASE_SRC and NEW_SRC are required")
    # "base'" is the base tree again, in a worker of its own: the A/A column.
    trees = {"base": args.base, "new": args.new, "base'": args.base}
    workers = {}
    for side, tree in trees.items():
        env = {**os.environ, "PYTHONPATH": str(tree.resolve())}
        env.pop(_WITHOUT_VARIABLE, None)
        if side == "new" and args.new_without:
            env[_WITHOUT_VARIABLE] = args.new_without
        workers[side] = subprocess.Popen(
            [sys.executable, __file__, "--serve"],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
    for side, worker in workers.items():
        assert worker.stdout is not None
        if worker.stdout.readline().strip() != "ready":
            raise RuntimeError(f"the {side} worker did not start")
    times: dict[str, dict[str, list[float]]] = {side: {} for side in trees}
    sides = list(trees)
    try:
        for label in labels(args.phases):
            # The 1 MB inputs take a second or more per run and tree: fewer runs.
            repeats = args.repeats if "100 KB" in label or "10 KB" in label else args.repeats // 4
            for run in range(max(3, repeats)):
                shift = run % len(sides)
                for side in sides[shift:] + sides[:shift]:
                    worker = workers[side]
                    assert worker.stdin is not None
                    assert worker.stdout is not None
                    worker.stdin.write(f"{label} {run}\n")
                    worker.stdin.flush()
                    times[side].setdefault(label, []).append(float(worker.stdout.readline()))
    finally:
        for worker in workers.values():
            assert worker.stdin is not None
            worker.stdin.close()
            worker.wait()
    print(f"medians, the trees interleaved run by run ({args.repeats} runs each, 1 MB: a quarter)")
    if args.new_without:
        print(f"the new tree without {args.new_without}")
    width = 36 if args.phases else 26
    # The fastest run of each tree, too: on a loaded machine (the medians' A/A
    # far from 1) the runs no other process interrupted are the ones to compare.
    print(
        f"{'input':<{width}} {'base ms':>10} {'new ms':>10} {'new/base':>9} {'A/A':>6}"
        f" {'min new/base':>13} {'min A/A':>8}"
    )
    for label in labels(args.phases):
        base, new, again = (times[side][label] for side in sides)
        ratio = statistics.median(n / b for n, b in zip(new, base, strict=True))
        noise = statistics.median(a / b for a, b in zip(again, base, strict=True))
        print(
            f"{label:<{width}} {statistics.median(base):10.2f} {statistics.median(new):10.2f}"
            f" {ratio:9.3f} {noise:6.3f} {min(new) / min(base):13.3f}"
            f" {min(again) / min(base):8.3f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
