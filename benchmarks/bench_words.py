r"""
Time the default check on a megabyte of supported numbers in words, two source trees interleaved.

Issue 38: a megabyte of number words the chunks support took 2 to 7 s, as
the words pass read every run and judged every claim anew (the digits pass
keeps a verdict per claim in its surroundings). Each input is an answer of
1 MB built from one shape of numbers in words, and chunks that state every
number it holds, so every claim is supported and the whole answer is read:

- ``sentences``: ``There were seventy-seven of them.`` over and over (short runs);
- ``one run``: ``three hundred and twelve and seventy-seven ...`` (one run of a megabyte);
- ``mixed``: words, digits and words in one sentence;
- ``phrases``: fractions, scale phrases, percents, multipliers and ordinals in words;
- ``distinct``: the numbers 1 to 999 in words, each in its own sentence, in turn.

Three worker processes stay up (the base tree, the new tree, the base tree
again for the A/A noise), each with ``PYTHONPATH`` set to its tree; the
parent asks them in turn, in an order that rotates from run to run, to time
one check each, so every tree sees the same machine load (as
``bench_ab.py`` does). The table gives each tree's median seconds and the
median of the per-run ratios new/base and base'/base.

Usage::

    python benchmarks/bench_words.py BASE_SRC NEW_SRC [--repeats N]

for instance ``git archive 2df1526 src | tar -x -C /tmp/base`` and
``python benchmarks/bench_words.py /tmp/base/src src``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence

#: Characters of every answer.
SIZE = 1_000_000

_SMALL = (
    *("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"),
    *("eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen"),
    *("eighteen", "nineteen"),
)
_TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")


def spell(number: int) -> str:
    """``number`` (1 to 999) in words: ``three hundred and twelve``, ``seventy-seven``."""
    hundreds, rest = divmod(number, 100)
    if rest < 20:
        tail = _SMALL[rest] if rest else ""
    else:
        tens, units = divmod(rest, 10)
        tail = _TENS[tens - 2] + (f"-{_SMALL[units]}" if units else "")
    if not hundreds:
        return tail
    return f"{_SMALL[hundreds]} hundred" + (f" and {tail}" if tail else "")


def inputs() -> dict[str, tuple[list[str], str]]:
    """Each input's chunks and answer, by label."""
    distinct = "".join(f"The count was {spell(n)}. " for n in range(1, 1000))
    shapes = {
        "sentences": (["There were 77 of them."], "There were seventy-seven of them. "),
        "one run": (
            ["They counted 312 and 77."],
            "three hundred and twelve and seventy-seven ",
        ),
        "mixed": (
            ["It holds 77, 1,500 and 312."],
            "seventy-seven 1,500 three hundred and twelve. ",
        ),
        "phrases": (
            ["It grew 1,500,000 times, 2/3 of 99 percent, sevenfold in the 21st year."],
            "It grew a million and a half times, two thirds of ninety-nine percent,"
            " sevenfold in the twenty-first year. ",
        ),
        "distinct": (
            ["The counts were " + ", ".join(str(n) for n in range(1, 1000)) + "."],
            distinct,
        ),
    }
    return {
        label: (chunks, piece * (SIZE // len(piece))) for label, (chunks, piece) in shapes.items()
    }


def serve() -> None:
    """Time one check per request line (a label), inside a tree's worker process."""
    # Imported in the worker only, where PYTHONPATH picks the tree.
    from relapse.grounding import default_grounding_check as check

    built = inputs()
    check("", ["Some 5 context."], "It is five.")  # compile the patterns
    print("ready", flush=True)
    for line in sys.stdin:
        chunks, answer = built[line.strip()]
        started = time.perf_counter()
        result = check("", chunks, answer)
        elapsed = time.perf_counter() - started
        print(f"{elapsed} {int(result.ok)}", flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the workers in turn and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base", type=str, nargs="?", help="the source tree to compare against")
    parser.add_argument("new", type=str, nargs="?", help="the source tree under test")
    parser.add_argument("--repeats", type=int, default=5, help="runs per input and tree")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        serve()
        return 0
    if args.base is None or args.new is None:
        parser.error("BASE_SRC and NEW_SRC are required")
    trees = {"base": args.base, "new": args.new, "base'": args.base}
    workers = {}
    for side, tree in trees.items():
        env = {**os.environ, "PYTHONPATH": os.path.abspath(tree)}
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
    sides = list(trees)
    times: dict[str, dict[str, list[float]]] = {side: {} for side in sides}
    verdicts: dict[str, set[str]] = {side: set() for side in sides}
    labels = list(inputs())
    try:
        for label in labels:
            for run in range(args.repeats):
                shift = run % len(sides)
                for side in sides[shift:] + sides[:shift]:
                    worker = workers[side]
                    assert worker.stdin is not None
                    assert worker.stdout is not None
                    worker.stdin.write(f"{label}\n")
                    worker.stdin.flush()
                    seconds, ok = worker.stdout.readline().split()
                    times[side].setdefault(label, []).append(float(seconds))
                    if ok != "1":
                        verdicts[side].add(label)
    finally:
        for worker in workers.values():
            assert worker.stdin is not None
            worker.stdin.close()
            worker.wait()
    print(f"1 MB answers of supported numbers in words, medians of {args.repeats} runs each")
    print(f"{'input':<12} {'base s':>8} {'new s':>8} {'new/base':>9} {'A/A':>6}")
    for label in labels:
        base, new, again = (times[side][label] for side in sides)
        ratio = statistics.median(n / b for n, b in zip(new, base, strict=True))
        noise = statistics.median(a / b for a, b in zip(again, base, strict=True))
        print(
            f"{label:<12} {statistics.median(base):8.2f} {statistics.median(new):8.2f}"
            f" {ratio:9.3f} {noise:6.3f}"
        )
    for side, failed in verdicts.items():
        if failed:
            print(f"{side}: not grounded on {', '.join(sorted(failed))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
