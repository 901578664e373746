r"""
Time the default grounding check of two source trees, alternately, on the same inputs.

Each round runs one fresh process per tree (``PYTHONPATH`` set to it), in
turn, so all see the same machine load; each process times this check
alone on the inputs of ``bench_check.py``: RAGTruth passages at 10 KB,
100 KB and 1 MB of context, number-dense chunks of 100 KB and 1 MB (built
from the round's seed, the same for every tree, fresh on every run), and
1 MB answers of unsupported claims. A third process runs the base tree
again (A/A): the spread of its ratio to the base is the noise of the
machine, against which the new tree's ratio is read. The order of the three
rotates from round to round. The table gives each tree's median time over
every run of every round, and the two ratios.

Usage::

    python benchmarks/bench_ab.py BASE_SRC NEW_SRC [--rounds N] [--repeats N]

for instance ``git archive main src | tar -x -C /tmp/base`` and
``python benchmarks/bench_ab.py /tmp/base/src src``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _times(function: Callable[[], object], repeats: int) -> list[float]:
    """Return the wall times of ``repeats`` calls, in milliseconds."""
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        function()
        times.append((time.perf_counter() - started) * 1000)
    return times


def measure(seed: int, repeats: int) -> dict[str, list[float]]:
    """Time this check on every input (run inside the tree's process)."""
    sys.path.insert(0, str(HERE))
    # Imported in the measuring process only, where PYTHONPATH picks the tree.
    import bench_check

    from relapse.grounding import default_grounding_check

    check = default_grounding_check
    texts = bench_check.passages(bench_check.DEFAULT_DATA)
    answer = bench_check.answer_of(texts)
    query = "What do the passages say about costs, dates and numbers?"
    times: dict[str, list[float]] = {}
    for label, size in bench_check.SIZES.items():
        chunks = bench_check.context_of(texts, size)
        check(query, chunks, answer)  # warm the caches of the regexes, as every run does
        times[f"RAGTruth {label}"] = _times(lambda c=chunks: check(query, c, answer), repeats)
    for label, size in (("100 KB", 100_000), ("1 MB", 1_000_000)):
        rounds = repeats if size < 1_000_000 else max(3, repeats // 4)
        dense_times = []
        for offset in range(rounds):
            # Fresh chunks every run: no cache helps a run an earlier one warmed.
            chunks = bench_check.dense_chunks(size, seed=seed * 1000 + offset)
            dense = bench_check.dense_answer(chunks, seed=seed * 1000 + offset)
            started = time.perf_counter()
            check("", chunks, dense)
            dense_times.append((time.perf_counter() - started) * 1000)
        times[f"number-dense {label}"] = dense_times
    pieces = {
        "1 MB '7 7 7'": "7 ",
        "1 MB '3rd 3rd'": "3rd ",
        "1 MB '10-15'": "10-15 ",
        "1 MB '$5 5%'": "$5 5% ",
        "1 MB 'seventy'": "seventy ",
        "1 MB '12.5 km'": "12.5 km ",
    }
    for label, piece in pieces.items():
        long_answer = piece * (1_000_000 // len(piece))
        times[label] = _times(lambda a=long_answer: check("q", ["Some 5 context."], a), 3)
    return times


def main(argv: Sequence[str] | None = None) -> int:
    """Run the rounds and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base", type=Path, help="the source tree to compare against")
    parser.add_argument("new", type=Path, help="the source tree under test")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--measure", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.measure is not None:
        print(json.dumps(measure(args.measure, args.repeats)))
        return 0
    # "base'" is the base tree again, in a process of its own: the A/A line.
    trees = [("base", args.base), ("new", args.new), ("base'", args.base)]
    runs: dict[str, dict[str, list[float]]] = {side: {} for side, _ in trees}
    for round_number in range(args.rounds):
        shift = round_number % len(trees)
        for side, tree in trees[shift:] + trees[:shift]:
            environment = {**os.environ, "PYTHONPATH": str(tree.resolve())}
            output = subprocess.run(
                [
                    *(sys.executable, __file__, str(args.base), str(args.new)),
                    *("--repeats", str(args.repeats), "--measure", str(round_number)),
                ],
                env=environment,
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            for label, milliseconds in json.loads(output.splitlines()[-1]).items():
                runs[side].setdefault(label, []).extend(milliseconds)
    median = {side: {k: statistics.median(v) for k, v in runs[side].items()} for side in runs}
    print(f"medians of {args.rounds} rounds, trees in rotating order ({args.repeats} runs each)")
    print(f"{'input':<26} {'base ms':>10} {'new ms':>10} {'new/base':>9} {'A/A':>6}")
    for label, base_time in median["base"].items():
        new_time, again = median["new"][label], median["base'"][label]
        print(
            f"{label:<26} {base_time:10.2f} {new_time:10.2f}"
            f" {new_time / base_time:9.3f} {again / base_time:6.3f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
