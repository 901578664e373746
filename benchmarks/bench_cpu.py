r"""
The CPU time of the default check of several source trees: the fastest of many checks.

On a machine shared with other work, wall times drift with the load;
``time.process_time`` counts only this process's CPU, and the fastest of
many checks is the one least disturbed (caches evicted, the CPU's clock
lowered). Each tree runs in a worker process of its own (``PYTHONPATH``
set to it) for the whole run; round after round, each worker in turn (the
order rotating) prepares and checks the same input ``--checks`` times and
reports its fastest check, so every tree sees nearly the same load. The
table gives each tree's fastest check over all rounds, the median of its
rounds, and the median of its per-round ratio to the first tree.

The inputs are ``bench_ab.py``'s: ``RAGTruth 10 KB`` (the sample's passages,
``bench_check.py``'s answer of about 24 numeric claims) and the 1 MB
answers of one claim repeated.

Usage::

    python benchmarks/bench_cpu.py TREE_SRC [TREE_SRC ...] [--checks N] [--rounds R]
        [--input LABEL ...]

Give the base tree twice (``/tmp/base/src /tmp/new/src /tmp/base/src``):
the third row is then the A/A noise. With ``--passes`` each worker times
the check's passes instead (:data:`PASSES`: the prepare, the digits'
pass and, within it, the claims' judge, the words' pass, the copy rule,
the findings...), and the table gives each pass's fastest round.

for instance ``python benchmarks/bench_cpu.py /tmp/base40/src src``.
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
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_ab import PIECES  # noqa: E402

#: The inputs a run may time, by label.
INPUTS = ("RAGTruth 10 KB", "RAGTruth 100 KB", *PIECES)


def _call(label: str) -> Callable[[], object]:
    """Return a call of the check of the tree this process imports, on one input."""
    # Imported here: the tree is the one PYTHONPATH names in this worker.
    import bench_check

    from relapse.grounding import default_grounding_check as check

    if label in PIECES:
        answer = PIECES[label] * (1_000_000 // len(PIECES[label]))
        return lambda: check("q", ["Some 5 context."], answer)
    texts = bench_check.passages(bench_check.DEFAULT_DATA)
    chunks = bench_check.context_of(texts, bench_check.SIZES[label.removeprefix("RAGTruth ")])
    query = "What do the passages say about costs, dates and numbers?"
    rag_answer = bench_check.answer_of(texts)
    return lambda: check(query, chunks, rag_answer)


#: The check's passes ``--passes`` times, by where they are found: methods of
#: the bound check, functions of ``relapse.grounding._check`` and the claims'
#: judge. Names a tree lacks are left out (trees before and after a
#: refactoring name some passes differently: ``_evidence``, ``evidence_of``).
PASSES = {
    "BoundGroundingCheck": (
        "__init__",
        "_echo",
        "_quotations",
        "_numbers_in_words",
        "_moved",
        "_copies",
        "_place_claims",
    ),
    "": ("judge_claims", "evidence_of", "_evidence", "_finding", "_cut"),
    # The claims' judge: in _check.py before issue 40's memo module, imported there since.
    "_ClaimJudge": ("__call__",),
    "ClaimJudge": ("__call__",),
}

#: What each pass timed is reported as.
_PASS_LABELS = {"__init__": "prepare", "__call__": "claims' judge", "judge_claims": "digits"}


def _timed_passes(spent: dict[str, float]) -> None:
    """Wrap the passes of :data:`PASSES` the tree has; their CPU time adds up in ``spent``."""
    import relapse.grounding._check as check_module

    def timed(owner: object, name: str) -> None:
        inner = getattr(owner, name)
        label = _PASS_LABELS.get(name, name.lstrip("_"))

        def run(*args: object, **kwargs: object) -> object:
            started = time.process_time()
            try:
                return inner(*args, **kwargs)
            finally:
                spent[label] = spent.get(label, 0.0) + time.process_time() - started

        setattr(owner, name, run)

    for owner_name, names in PASSES.items():
        owner = getattr(check_module, owner_name, None) if owner_name else check_module
        for name in names:
            if hasattr(owner, name):
                timed(owner, name)


def serve(label: str, passes: bool = False) -> None:
    """
    Answer each request line ``N`` with the fastest CPU time of N checks, in ms (a worker).

    The first line printed is ``ready``, once the input is built and checked
    once (the regexes compiled, the caches warm).
    """
    spent: dict[str, float] = {}
    if passes:
        _timed_passes(spent)
    call = _call(label)
    call()
    print("ready", flush=True)
    for line in sys.stdin:
        checks = int(line)
        if passes:
            # The mean of each pass over the checks (its time is too short
            # to read one check at a time), the whole check's among them.
            spent.clear()
            started = time.process_time()
            for _ in range(checks):
                call()
            spent["check"] = time.process_time() - started
            print(json.dumps({name: ms * 1000 / checks for name, ms in spent.items()}), flush=True)
            continue
        best = float("inf")
        for _ in range(checks):
            started = time.process_time()
            call()
            best = min(best, time.process_time() - started)
        print(best * 1000, flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    """Run each tree's worker in turn, round after round, and print the fastest times."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", type=Path, nargs="*", help="source trees to time")
    parser.add_argument("--checks", type=int, default=20, help="checks per worker and round")
    parser.add_argument("--rounds", type=int, default=20, help="rounds (each asks every tree)")
    parser.add_argument(
        "--input", action="append", choices=INPUTS, help="inputs to time (RAGTruth 10 KB)"
    )
    parser.add_argument(
        "--passes",
        action="store_true",
        help="time each pass of the check (the mean of each round's checks), not the check",
    )
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        serve(args.worker, args.passes)
        return 0
    if not args.trees:
        parser.error("name at least one source tree")
    for label in args.input or ["RAGTruth 10 KB"]:
        workers = []
        for tree in args.trees:
            env = {**os.environ, "PYTHONPATH": str(tree.resolve())}
            worker = subprocess.Popen(
                [
                    sys.executable,
                    __file__,
                    "--worker",
                    label,
                    *(["--passes"] if args.passes else []),
                ],
                env=env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            assert worker.stdout is not None
            assert worker.stdout.readline().strip() == "ready"
            workers.append(worker)
        if args.passes:
            _report_passes(args, label, workers)
            continue
        times: list[list[float]] = [[] for _ in workers]
        for round_number in range(args.rounds):
            # The order rotates from round to round: no tree always goes first.
            shift = round_number % len(workers)
            for index in [*range(shift, len(workers)), *range(shift)]:
                worker = workers[index]
                assert worker.stdin is not None
                assert worker.stdout is not None
                worker.stdin.write(f"{args.checks}\n")
                worker.stdin.flush()
                times[index].append(float(worker.stdout.readline()))
        for worker in workers:
            assert worker.stdin is not None
            worker.stdin.close()
            worker.wait()
        print(
            f"{label}: fastest CPU time of a check (ms), {args.rounds} rounds of"
            f" {args.checks} checks per tree, interleaved"
        )
        first = times[0]
        for tree, found in zip(args.trees, times, strict=True):
            ratios = sorted(now / then for now, then in zip(found, first, strict=True))
            print(
                f"  {tree}: min {min(found):.3f}, median of rounds"
                f" {statistics.median(found):.3f}; per round vs the first tree:"
                f" median {statistics.median(ratios):.3f}"
            )
    return 0


def _report_passes(args: argparse.Namespace, label: str, workers: list[Any]) -> None:
    """Ask the workers round after round for their passes' times; print each pass's fastest."""
    best: list[dict[str, float]] = [{} for _ in workers]
    for round_number in range(args.rounds):
        shift = round_number % len(workers)
        for index in [*range(shift, len(workers)), *range(shift)]:
            worker = workers[index]
            worker.stdin.write(f"{args.checks}\n")
            worker.stdin.flush()
            for name, ms in json.loads(worker.stdout.readline()).items():
                best[index][name] = min(best[index].get(name, float("inf")), ms)
    for worker in workers:
        worker.stdin.close()
        worker.wait()
    names = sorted({name for found in best for name in found}, key=lambda name: name == "check")
    print(f"{label}: CPU time of each pass (ms, the fastest round's mean of {args.checks} checks)")
    print(f"{'pass':<20}" + "".join(f"{str(tree)[-22:]:>24}" for tree in args.trees))
    for name in names:
        cells = "".join(
            f"{found[name]:>24.3f}" if name in found else f"{'-':>24}" for found in best
        )
        print(f"{name:<20}{cells}")


if __name__ == "__main__":
    sys.exit(main())
