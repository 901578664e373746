r"""
The CPU time of the default check of several source trees: the fastest of many checks.

On a machine shared with other work, wall times drift with the load;
``time.process_time`` counts only this process's CPU, and the fastest of
many checks is the one least disturbed (caches evicted, the CPU's clock
lowered). Each tree runs in a process of its own (``PYTHONPATH`` set to
it), the trees in turn, for several rounds; each process prepares and
checks the same input ``--checks`` times and reports its fastest check.

The inputs are ``bench_ab.py``'s: ``RAGTruth 10 KB`` (the sample's passages,
``bench_check.py``'s answer of about 24 numeric claims) and the 1 MB
answers of one claim repeated.

Usage::

    python benchmarks/bench_cpu.py TREE_SRC [TREE_SRC ...] [--checks N] [--rounds R]
        [--input LABEL ...]

for instance ``python benchmarks/bench_cpu.py /tmp/base40/src src``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_ab import PIECES  # noqa: E402

#: The inputs a run may time, by label.
INPUTS = ("RAGTruth 10 KB", "RAGTruth 100 KB", *PIECES)


def fastest(label: str, checks: int) -> float:
    """Return the fastest CPU time, in milliseconds, of ``checks`` checks of one input."""
    # Imported here: the tree is the one PYTHONPATH names in this worker.
    import bench_check

    from relapse.grounding import default_grounding_check as check

    call: Callable[[], object]
    if label in PIECES:
        piece = PIECES[label]
        answer = piece * (1_000_000 // len(piece))
        call = lambda: check("q", ["Some 5 context."], answer)  # noqa: E731
    else:
        texts = bench_check.passages(bench_check.DEFAULT_DATA)
        chunks = bench_check.context_of(texts, bench_check.SIZES[label.removeprefix("RAGTruth ")])
        query = "What do the passages say about costs, dates and numbers?"
        rag_answer = bench_check.answer_of(texts)
        call = lambda: check(query, chunks, rag_answer)  # noqa: E731
    call()  # the regexes compiled, the caches warm
    best = float("inf")
    for _ in range(checks):
        started = time.process_time()
        call()
        best = min(best, time.process_time() - started)
    return best * 1000


def main(argv: Sequence[str] | None = None) -> int:
    """Run each tree's worker in turn for every round and print the fastest times."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", type=Path, nargs="*", help="source trees to time")
    parser.add_argument("--checks", type=int, default=200, help="checks per worker")
    parser.add_argument("--rounds", type=int, default=2, help="workers per tree and input")
    parser.add_argument(
        "--input", action="append", choices=INPUTS, help="inputs to time (RAGTruth 10 KB)"
    )
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(fastest(args.worker, args.checks))
        return 0
    if not args.trees:
        parser.error("name at least one source tree")
    for label in args.input or ["RAGTruth 10 KB"]:
        times: dict[Path, list[float]] = {tree: [] for tree in args.trees}
        for _ in range(args.rounds):
            for tree in args.trees:
                env = {**os.environ, "PYTHONPATH": str(tree.resolve())}
                worker = [__file__, "--worker", label, "--checks", str(args.checks)]
                out = subprocess.run(
                    [sys.executable, *worker], env=env, check=True, capture_output=True, text=True
                )
                times[tree].append(float(out.stdout))
        print(f"{label}: fastest of {args.checks} checks (ms of CPU), per round")
        for tree, found in times.items():
            print(f"  {tree}: {', '.join(f'{ms:.3f}' for ms in found)}  (min {min(found):.3f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
