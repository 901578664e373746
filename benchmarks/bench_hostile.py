"""
How the default check's time grows on the hostile sizes of issue 5.

For each input family it times the check at 1/8, 1/4, 1/2 and 1 of the full
size and prints seconds per run and the ratio to the previous size. Linear
time shows as ratios near 2; quadratic as ratios near 4. Timing lives here,
not in the unit tests, because shared machines make timing asserts flaky.

Run::

    .venv/bin/python benchmarks/bench_hostile.py [--repeat 3]

Families (full size): a 1 MB answer, 1 MB answers of one unsupported claim
repeated (issue 12), 10,000 chunks, a 5,000-digit number, a 200 KB
unclosed quote.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from relapse import default_grounding_check

Case = Callable[[int], tuple[list[str], str]]

SENTENCE = "The depot stores 40 buses and opened in 1987. "
CHUNK = "The depot stores 40 buses and opened in 1987."


def big_answer(size: int) -> tuple[list[str], str]:
    """An answer of ``size`` characters repeating supported claims, one bad number at the end."""
    return [CHUNK], SENTENCE * (size // len(SENTENCE)) + "It has 4321 seats."


def many_chunks(count: int) -> tuple[list[str], str]:
    """``count`` chunks, the number the answer cites only in the last one."""
    chunks = [f"Chunk {i} says the hall has {i} chairs." for i in range(count - 1)]
    chunks.append("The archive holds 987654 letters.")
    return chunks, "The archive holds 987654 letters and 12345678 maps."


def long_number(digits: int) -> tuple[list[str], str]:
    """A ``digits``-digit number in chunk and answer, differing in the last digit."""
    return [f"The key is {'7' * digits}."], f"The key is {'7' * (digits - 1)}8."


def unclosed_quote(size: int) -> tuple[list[str], str]:
    """An opening quote never closed, followed by ``size`` characters."""
    body = "the committee approved the plan without any changes "
    return ["The committee approved the plan."], 'The minutes say "' + body * (size // len(body))


def repeated_claim(piece: str) -> Case:
    """An answer of one unsupported claim (``7 ``, ``3rd ``, ``10-15 ``) repeated to ``size``."""

    def case(size: int) -> tuple[list[str], str]:
        return [CHUNK], (piece * (size // len(piece) + 1))[:size]

    return case


FAMILIES: list[tuple[str, Case, int]] = [
    ("answer chars", big_answer, 1_000_000),
    ("answer chars of '7 7 7 ...'", repeated_claim("7 "), 1_000_000),
    ("answer chars of '3rd 3rd ...'", repeated_claim("3rd "), 1_000_000),
    ("answer chars of '10-15 ...'", repeated_claim("10-15 "), 1_000_000),
    ("chunks", many_chunks, 10_000),
    ("number digits", long_number, 5_000),
    ("unclosed quote chars", unclosed_quote, 200_000),
]


def seconds(case: Case, size: int, repeat: int) -> float:
    """The best of ``repeat`` timings of one check, in seconds (inputs built outside)."""
    chunks, answer = case(size)
    best = float("inf")
    for _ in range(repeat):
        began = time.perf_counter()
        default_grounding_check("How many?", chunks, answer)
        best = min(best, time.perf_counter() - began)
    return best


def main() -> None:
    """Print a table per family: size, seconds, ratio to the previous size."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="timings per size (best kept)")
    options = parser.parse_args()
    for name, case, full in FAMILIES:
        print(f"\n{name}")
        previous: float | None = None
        for fraction in (8, 4, 2, 1):
            size = full // fraction
            took = seconds(case, size, options.repeat)
            ratio = f"{took / previous:5.2f}x" if previous else "   -  "
            print(f"  {size:>9,}  {took * 1000:9.2f} ms  {ratio}")
            previous = took


if __name__ == "__main__":
    main()
