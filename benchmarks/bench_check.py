r"""
Time the default grounding check against its peers and a floor, then on hostile inputs.

Contexts of 10 KB, 100 KB and 1 MB are built from the real passages of the
RAGTruth sample (cycled to reach the size, split into passage-sized chunks);
the answer makes about 20 numeric claims taken from those passages, plus
four that no passage supports. Each size times, in one run:

- this check: ``relapse.grounding.default_grounding_check``,
- relapse 0.1.0's ``default_grounding_check``,
- corroborate 0.1.0's ``check_answer``,
- the floor: one ``re.finditer(r"\d+", context)`` pass collecting the matches.

Then a number-dense corpus (every sentence a number, a date, money or a
quoted figure), built afresh from a new seed on every run so that no run
re-checks chunks an earlier one saw, at 100 KB and 1 MB against the same
peers and floor; then 1 MB answers made of one unsupported claim repeated
(``7 7 7 ...``, ``3rd 3rd ...``, ``10-15 ...``), with a breakdown of where
the time goes on the dense corpus (the floor, the scanner's regex alone, the
regex with a tuple per match, the check); then the hostile sizes: a
1 MB answer, 10,000 chunks, a 5,000-digit number and a 200 KB unclosed
quotation (peers run in a subprocess with a time limit).

Usage::

    python benchmarks/bench_check.py [--repeats N] [--data PATH]

Times are ``time.perf_counter`` wall times, min and median over the repeats.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import json
import multiprocessing
import random
import re
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from eval_ragtruth import DEFAULT_DATA, load_peer

SIZES = {"10 KB": 10_000, "100 KB": 100_000, "1 MB": 1_000_000}
#: Seconds a peer may take on one hostile input before it is reported as too slow.
PEER_LIMIT = 30.0
_DIGITS = re.compile(r"\d+")
_SENTENCE = re.compile(r"[^.!?\n]*\d[^.!?\n]*[.!?]")

Check = Callable[[str, list[str], str], Any]


def passages(path: Path) -> list[str]:
    """Return the distinct passages of the RAGTruth sample, in file order."""
    seen: dict[str, None] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        for passage in json.loads(line)["passages"]:
            seen.setdefault(passage, None)
    return list(seen)


def context_of(texts: list[str], size: int) -> list[str]:
    """Cycle through ``texts`` until the chunks hold ``size`` characters."""
    chunks: list[str] = []
    total = 0
    index = 0
    while total < size:
        text = texts[index % len(texts)][: size - total]
        chunks.append(text)
        total += len(text)
        index += 1
    return chunks


# A numeric claim, as the answer is built: a number other than 0, 1 and 2.
_CLAIM = re.compile(r"\d[\d,.]*\d|(?<![\d.,])[3-9](?![\d.,])")
_LIST_MARKER = re.compile(r"^\s*\d+[.)]?\s+")
#: Numeric claims the answer takes from the passages; four more are invented.
SUPPORTED_CLAIMS = 16
#: The answer's sentences come from this much of the context.
ANSWER_SOURCE = 100_000


def answer_of(texts: list[str]) -> str:
    """
    About 20 numeric claims: 16 distinct ones in sentences of the passages, and 4 invented.

    The sentences come from the first 100 KB of the context, so the answer is
    the same at every size; the 100 KB and 1 MB contexts support its 16, the
    10 KB context fewer.
    """
    sentences: list[str] = []
    seen: set[str] = set()
    for chunk in context_of(texts, ANSWER_SOURCE):
        for match in _SENTENCE.finditer(chunk):
            sentence = _LIST_MARKER.sub("", match.group().strip())
            claims = {claim.group() for claim in _CLAIM.finditer(sentence)} - seen
            if not claims or not 20 < len(sentence) < 240 or sentence in sentences:
                continue
            sentences.append(sentence)
            seen |= claims
            if len(seen) >= SUPPORTED_CLAIMS:
                break
        if len(seen) >= SUPPORTED_CLAIMS:
            break
    invented = (
        "It also costs $4,812.37 per unit, about 93.4% of buyers agree,"
        " and it shipped on March 3, 2017 to 27,345 stores."
    )
    return " ".join([*sentences, invented])


_SENTENCE_BREAK = re.compile(r"(?<=[.;]) (?=[A-Z])")
_NOUNS = ("depot", "clinic", "bridge", "mill", "harbour", "school", "plant", "library", "farm")
_UNITS = ("tonnes", "km", "litres", "kg", "acres", "metres", "barrels", "hours", "visitors")
_MONTHS = ("January", "March", "May", "July", "September", "November", "Sept.", "Aug")


def dense_sentence(rng: random.Random) -> str:
    """
    One number-dense sentence: every one holds numbers, a date, money or a quoted figure.

    The numbers are drawn afresh, so a new corpus repeats few digit strings
    of an earlier one and the scanner's caches help it no more than they
    would on new chunks in a real call.
    """
    noun, unit = rng.choice(_NOUNS), rng.choice(_UNITS)
    month, year = rng.choice(_MONTHS), rng.randint(1600, 2030)
    big, small = rng.randint(1_000, 9_999_999), rng.randint(3, 999)
    kind = rng.randrange(6)
    if kind == 0:
        return f"In {year}, the {noun} reported {big:,} {unit} and {small} staff."
    if kind == 1:
        percent, dollars = rng.randint(3, 99), rng.randint(3, 999)
        return (
            f"Revenue rose {percent}.{rng.randint(0, 9)}% to ${dollars}.{rng.randint(0, 9)}"
            f" million on {month} {rng.randint(1, 28)}, {year}."
        )
    if kind == 2:
        return (
            f"The {noun} measured {small}.{rng.randint(0, 99)} {unit} and cost"
            f" ${big:,}.{rng.randint(0, 99):02d} in {year}."
        )
    if kind == 3:
        return f'Officials said "{big:,} {unit} were counted" at the {noun} in {month} {year}.'
    if kind == 4:
        low = rng.randint(3, 500)
        return (
            f"Between {low} and {low + small} {unit} arrived at the {noun},"
            f" about {rng.randint(3, 99)} per day, or {low}-{low + small} a week."
        )
    return (
        f"On {rng.randint(1, 28)} {month} {year} the {noun} held {big} {unit};"
        f" {rng.randint(1, 12)}/{rng.randint(1, 28)}/{year % 100:02d} it held {small}."
    )


def dense_chunks(size: int, seed: int) -> list[str]:
    """A number-dense context of ``size`` characters in chunks of about 500 characters."""
    rng = random.Random(seed)
    chunks: list[str] = []
    total = 0
    while total < size:
        chunk = ""
        while len(chunk) < 500:
            chunk += dense_sentence(rng) + " "
        chunk = chunk[: size - total]
        chunks.append(chunk)
        total += len(chunk)
    return chunks


def dense_answer(chunks: list[str], seed: int) -> str:
    """About 20 claims: sentences copied from the chunks, and four invented numbers."""
    rng = random.Random(seed)
    sentences = [
        _SENTENCE_BREAK.split(chunk)[1] for chunk in rng.sample(chunks, min(8, len(chunks)))
    ]
    return " ".join(sentences) + (
        " It also costs $4,812.37 per unit, about 93.4% of buyers agree,"
        " and it shipped on March 3, 2017 to 27,345 stores."
    )


def ours() -> Check:
    """This check."""
    from relapse.grounding import default_grounding_check

    return default_grounding_check


def relapse_010() -> Check:
    """relapse 0.1.0's default check."""
    return load_peer("relapse_010").default_grounding_check  # type: ignore[no-any-return]


def corroborate_010() -> Check:
    """corroborate 0.1.0's check."""
    return load_peer("corroborate_010").check_answer  # type: ignore[no-any-return]


CHECKS: dict[str, Callable[[], Check]] = {
    "relapse (this)": ours,
    "relapse 0.1.0": relapse_010,
    "corroborate 0.1.0": corroborate_010,
}


def interleaved(
    functions: dict[str, Callable[[], object]], rounds: dict[str, int]
) -> dict[str, tuple[float, float]]:
    """
    Time each function round-robin and return (min, median) seconds of each.

    Running them in turn, rather than one after the other, exposes them all to
    the same background load, so their ratios stay meaningful on a busy machine.
    """
    samples: dict[str, list[float]] = {name: [] for name in functions}
    for round_number in range(max(rounds.values())):
        for name, function in functions.items():
            if round_number >= rounds[name]:
                continue
            started = time.perf_counter()
            function()
            samples[name].append(time.perf_counter() - started)
    return {name: (min(times), statistics.median(times)) for name, times in samples.items()}


def floor(chunks: list[str]) -> Callable[[], object]:
    """One pass of a plain digit-run pattern over the context, collecting the matches."""
    context = "\n".join(chunks)

    def run() -> object:
        return list(_DIGITS.finditer(context))

    return run


def milliseconds(seconds: float) -> str:
    """Format seconds as milliseconds."""
    return f"{1000 * seconds:10.3f}"


def speed(texts: list[str], repeats: int) -> dict[str, dict[str, tuple[float, float]]]:
    """Time every check and the floor at every size; print the table and ratios."""
    checks = {name: make() for name, make in CHECKS.items()}
    results: dict[str, dict[str, tuple[float, float]]] = {}
    query = "What do the passages say about costs, dates and numbers?"
    print(f"{'context':<8} {'what':<18} {'min ms':>10} {'median ms':>10} {'runs':>5}")
    for label, size in SIZES.items():
        chunks = context_of(texts, size)
        answer = answer_of(texts)
        functions: dict[str, Callable[[], object]] = {
            name: functools.partial(check, query, chunks, answer) for name, check in checks.items()
        }
        functions["floor"] = floor(chunks)
        # The peers take over a second a run at 1 MB: fewer runs for them there.
        slow = repeats if size < 1_000_000 else max(3, repeats // 5)
        rounds = {
            name: repeats if name in ("relapse (this)", "floor") else slow for name in functions
        }
        row = interleaved(functions, rounds)
        results[label] = row
        for name, (low, median) in row.items():
            times = f"{milliseconds(low)} {milliseconds(median)}"
            print(f"{label:<8} {name:<18} {times} {rounds[name]:>5}")
        claims = len(_CLAIM.findall(answer))
        shape = f"{len(chunks)} chunks; answer of {len(answer)} chars, {claims} numeric claims"
        print(f"{'':<8} ({shape})")
    print()
    print("ratios (min times):")
    for label, row in results.items():
        ours_time = row["relapse (this)"][0]
        print(
            f"  {label:<7} relapse 0.1.0 / this = {row['relapse 0.1.0'][0] / ours_time:8.1f}x"
            f"   corroborate 0.1.0 / this = {row['corroborate 0.1.0'][0] / ours_time:8.1f}x"
            f"   this / floor = {ours_time / row['floor'][0]:5.2f}x"
        )
    growth = results["1 MB"]["relapse (this)"][0] / results["100 KB"]["relapse (this)"][0]
    print(f"  this at 1 MB / this at 100 KB = {growth:.2f}x")
    hundred = results["100 KB"]
    speedup = hundred["relapse 0.1.0"][0] / hundred["relapse (this)"][0]
    over_floor = hundred["relapse (this)"][0] / hundred["floor"][0]
    print()
    print("targets:")
    for text, value, met in (
        ("at 100 KB, >= 20x faster than relapse 0.1.0:", f"{speedup:6.1f}x", speedup >= 20),
        ("at 100 KB, <= 3x the floor:", f"{over_floor:6.2f}x", over_floor <= 3),
        ("1 MB <= 12x the 100 KB cost:", f"{growth:6.2f}x", growth <= 12),
    ):
        print(f"  {text:<46} {value}  {_verdict(met)}")
    return results


#: Context sizes of the number-dense corpus, and the runs of this check and
#: the floor at each (the peers get a fifth of them at 1 MB).
DENSE_SIZES = {"100 KB": (100_000, 1), "1 MB": (1_000_000, 4)}


def dense_speed(repeats: int) -> None:
    """
    Time every check and the floor on number-dense chunks, fresh on every run.

    Round ``r`` builds a new corpus from seed ``r`` (outside the timing) and
    times each check and the floor on it once, so no run re-checks chunks an
    earlier run saw; the same corpus goes to every check of the round.
    """
    checks = {name: make() for name, make in CHECKS.items()}
    query = "What do the passages say about costs, dates and numbers?"
    print()
    print("number-dense chunks, fresh on every run (every sentence has a number, a date,")
    print("money or a quoted figure):")
    print(f"{'context':<8} {'what':<18} {'min ms':>10} {'median ms':>10} {'runs':>5}")
    ratios: dict[str, tuple[float, float]] = {}
    for label, (size, divisor) in DENSE_SIZES.items():
        runs = max(3, repeats // divisor)
        peer_runs = runs if size < 1_000_000 else max(3, runs // 5)
        samples: dict[str, list[float]] = {name: [] for name in [*checks, "floor"]}
        shape = ""
        for round_number in range(runs):
            chunks = dense_chunks(size, seed=round_number)
            answer = dense_answer(chunks, seed=round_number)
            context = "\n".join(chunks)
            shape = f"{len(chunks)} chunks; answer of {len(answer)} chars"
            for name, check in itertools.chain(checks.items(), [("floor", None)]):
                if name not in ("relapse (this)", "floor") and round_number >= peer_runs:
                    continue
                started = time.perf_counter()
                if check is None:
                    list(_DIGITS.finditer(context))
                else:
                    check(query, chunks, answer)
                samples[name].append(time.perf_counter() - started)
        for name, times in samples.items():
            low, median = min(times), statistics.median(times)
            print(
                f"{label:<8} {name:<18} {milliseconds(low)} {milliseconds(median)} {len(times):>5}"
            )
        print(f"{'':<8} ({shape})")
        ours_time = min(samples["relapse (this)"])
        ratios[label] = (
            min(samples["relapse 0.1.0"]) / ours_time,
            ours_time / min(samples["floor"]),
        )
    speedup, over_floor = ratios["100 KB"]
    print()
    print("targets (number-dense, fresh chunks):")
    for text, value, met in (
        ("at 100 KB, >= 20x faster than relapse 0.1.0:", f"{speedup:6.1f}x", speedup >= 20),
        ("at 100 KB, <= 3x the floor:", f"{over_floor:6.2f}x", over_floor <= 3),
    ):
        print(f"  {text:<46} {value}  {_verdict(met)}")
    print(
        f"  (1 MB: relapse 0.1.0 / this = {ratios['1 MB'][0]:.1f}x,"
        f" this / floor = {ratios['1 MB'][1]:.2f}x)"
    )


def dense_bounds(repeats: int) -> None:
    """
    Show where the time goes on number-dense chunks: the floor, the scanner's regex, the check.

    Each is timed on the same fresh 100 KB corpus per round: the floor, the
    scanner's regular expression alone (the least any design running it can
    cost), the regex with one Python tuple per match (the least a Python
    loop over its matches can cost) and the whole check.
    """
    from relapse.grounding import default_grounding_check
    from relapse.grounding._read.scan import _SCAN

    def regex_alone(joined: str) -> object:
        return list(_SCAN.finditer(joined))

    def regex_alone_floor(context: str) -> object:
        return list(_DIGITS.finditer(context))

    def tuple_per_match(joined: str) -> object:
        return [(match.lastgroup, match.start(), match.end()) for match in _SCAN.finditer(joined)]

    samples: dict[str, list[float]] = {
        "floor": [],
        "scanner regex alone": [],
        "regex + tuple per match": [],
        "check": [],
    }
    for round_number in range(repeats):
        chunks = dense_chunks(100_000, seed=10_000 + round_number)
        answer = dense_answer(chunks, seed=round_number)
        context, joined = "\n".join(chunks), "\x00".join(chunks)
        steps: dict[str, Callable[[], object]] = {
            "floor": functools.partial(regex_alone_floor, context),
            "scanner regex alone": functools.partial(regex_alone, joined),
            "regex + tuple per match": functools.partial(tuple_per_match, joined),
            "check": functools.partial(default_grounding_check, "q", chunks, answer),
        }
        for name, step in steps.items():
            started = time.perf_counter()
            step()
            samples[name].append(time.perf_counter() - started)
    floor_time = min(samples["floor"])
    print()
    print(f"where the time goes, 100 KB number-dense, fresh chunks (min of {repeats}):")
    for name, times in samples.items():
        print(f"  {name:<26} {milliseconds(min(times))} ms  {min(times) / floor_time:6.2f}x floor")


#: Answers of one unsupported claim repeated to 1 MB; the target is under a second each.
DENSE_UNSUPPORTED = {
    '"7 7 7 ..."': "7 ",
    '"3rd 3rd ..."': "3rd ",
    '"10-15 ..."': "10-15 ",
    '"$5 5% ..."': "$5 5% ",
    '"May 5, 1999 ..."': "May 5, 1999 ",
    '"12.5 km ..."': "12.5 km ",
    '"at least 200 ..."': "at least 200 ",
    '"seventy seventy ..."': "seventy ",
    "a quotation repeated": '"the plan was new" ',
    "an echo on every line": "Problems found in your previous answer: FG001\n",
}


def _filled(size: int, piece: Callable[[], str]) -> str:
    """Return ``size`` characters of pieces drawn one after the other."""
    pieces: list[str] = []
    length = 0
    while length < size:
        pieces.append(piece())
        length += len(pieces[-1])
    return "".join(pieces)[:size]


def distinct_numbers(rng: random.Random, size: int) -> str:
    """Return ``size`` characters of distinct-looking unsupported numbers (3 to 6 digits)."""
    return _filled(size, lambda: f"{rng.randrange(100, 1_000_000)} ")


def distinct_quotations(rng: random.Random, size: int) -> str:
    """Return ``size`` characters of quotations no chunk holds, each with a number of its own."""
    words = ("river", "stone", "cloud", "field", "north", "quiet", "amber", "signal")
    return _filled(
        size, lambda: f'"{rng.choice(words)} {rng.randrange(1_000_000)} {rng.choice(words)}" '
    )


def _repeated(piece: str, _run: int) -> str:
    """Return ``piece`` repeated to 1 MB."""
    return (piece * (1_000_000 // len(piece) + 1))[:1_000_000]


def _with_chunks(
    chunks: list[str], answer_for: Callable[[int], str], run: int
) -> tuple[list[str], str]:
    """Return the chunks and the answer of one run."""
    return chunks, answer_for(run)


def _best_seconds(repeat: int, case_for: Callable[[int], tuple[list[str], str]]) -> float:
    """Return this check's best time, in seconds, over ``repeat`` runs of ``case_for(run)``."""
    best = float("inf")
    for run in range(repeat):
        chunks, answer = case_for(run)
        started = time.perf_counter()
        ours()("q", chunks, answer)
        best = min(best, time.perf_counter() - started)
    return best


def dense_unsupported(texts: list[str], repeat: int = 3) -> None:
    """
    Time this check on 1 MB answers made of unsupported claims, best of ``repeat``.

    First one claim repeated (the target's answers, and the same for numbers
    in words, quotations and echoes), then numbers and quotations that do not
    repeat, drawn afresh for every run: no reuse of a repeated block helps
    there, only the limit of 1,000 failing spans a check reports.
    """
    chunks = context_of(texts, 10_000)
    print()
    print("1 MB answers of unsupported claims (this check, best of 3; target < 1 s):")
    answers: dict[str, Callable[[int], str]] = {
        label: functools.partial(_repeated, piece) for label, piece in DENSE_UNSUPPORTED.items()
    }
    answers['"48213 907 ..." (fresh)'] = lambda run: distinct_numbers(
        random.Random(time.perf_counter_ns() + run), 1_000_000
    )
    answers["distinct quotations (fresh)"] = lambda run: distinct_quotations(
        random.Random(time.perf_counter_ns() + run), 1_000_000
    )
    for label, answer_for in answers.items():
        best = _best_seconds(repeat, functools.partial(_with_chunks, chunks, answer_for))
        print(f"  {label:<28} {1000 * best:10.1f} ms  {_verdict(best < 1.0)}")


def long_answers_that_pass(repeat: int = 2) -> None:
    """
    Time 1 MB answers of distinct claims that pass: every one is read, so the time is linear.

    No target: an answer that copies a megabyte of number-dense chunks, or
    cites a hundred thousand passages by number, holds no failing span to
    stop at and no block that repeats.
    """
    print()
    print(f"1 MB answers of distinct claims that pass (best of {repeat}; no target):")
    cases: dict[str, Callable[[int], tuple[list[str], str]]] = {
        "copies 1 MB of number-dense chunks (fresh)": lambda run: _copied(
            dense_chunks(1_000_000, time.perf_counter_ns() % 1_000_000 + run)
        ),
        '"(passage 1) (passage 2) ..."': lambda _: (
            ["Nothing here."],
            " ".join(f"(passage {n})" for n in range(100_000))[:1_000_000],
        ),
    }
    for label, case_for in cases.items():
        print(f"  {label:<44} {1000 * _best_seconds(repeat, case_for):10.1f} ms")


def _copied(chunks: list[str]) -> tuple[list[str], str]:
    """Return the chunks and an answer that copies their first megabyte."""
    return chunks, " ".join(chunks)[:1_000_000]


def _verdict(met: bool) -> str:
    """Say whether a target is met."""
    return "met" if met else "MISSED"


def hostile_cases(texts: list[str]) -> dict[str, tuple[str, list[str], str]]:
    """The hostile inputs: (query, chunks, answer) by name."""
    ten_kb = context_of(texts, 10_000)
    answer = answer_of(texts)
    long_answer = (answer + "\n") * (1_000_000 // (len(answer) + 1) + 1)
    many_chunks = [f"Chunk {n}: {texts[n % len(texts)][:80]}" for n in range(10_000)]
    digits = "9" * 5_000
    return {
        "1 MB answer": ("q", ten_kb, long_answer[:1_000_000]),
        "10,000 chunks": ("q", many_chunks, answer),
        "5,000-digit number": ("q", [*ten_kb, f"The key is {digits}."], f"The key is {digits}."),
        "200 KB unclosed quote": ("q", ten_kb, 'He said "' + ("the plan was approved " * 9_600)),
    }


def _run_peer(name: str, case: tuple[str, list[str], str], queue: Any) -> None:
    """Subprocess body: time one check on one hostile case."""
    check = CHECKS[name]()
    started = time.perf_counter()
    check(*case)
    queue.put(time.perf_counter() - started)


def hostile(texts: list[str]) -> None:
    """Time every check once on each hostile input; peers get PEER_LIMIT seconds."""
    print()
    print(f"hostile inputs (one run each; peers stopped after {PEER_LIMIT:.0f} s):")
    print(f"{'input':<24}" + "".join(f"{name:>20}" for name in CHECKS))
    context = multiprocessing.get_context("fork")
    for label, case in hostile_cases(texts).items():
        cells: list[str] = []
        for name in CHECKS:
            queue = context.Queue()
            process = context.Process(target=_run_peer, args=(name, case, queue))
            process.start()
            process.join(PEER_LIMIT)
            if process.is_alive():
                process.terminate()
                process.join()
                cells.append(f"> {PEER_LIMIT:.0f} s")
            else:
                cells.append(f"{1000 * queue.get():.1f} ms")
        print(f"{label:<24}" + "".join(f"{cell:>20}" for cell in cells))


def main(argv: Sequence[str] | None = None) -> int:
    """Run the speed table and the hostile inputs."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=40, help="runs of this check and the floor")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="RAGTruth sample JSONL")
    parser.add_argument("--no-hostile", action="store_true", help="skip the hostile inputs")
    parser.add_argument(
        "--only-dense", action="store_true", help="run only the number-dense sections"
    )
    args = parser.parse_args(argv)
    if args.only_dense:
        dense_speed(args.repeats)
        dense_bounds(max(3, args.repeats // 2))
        dense_unsupported(passages(args.data))
        long_answers_that_pass()
        return 0
    texts = passages(args.data)
    speed(texts, args.repeats)
    dense_speed(args.repeats)
    dense_bounds(max(3, args.repeats // 2))
    dense_unsupported(texts)
    long_answers_that_pass()
    if not args.no_hostile:
        hostile(texts)
    return 0


if __name__ == "__main__":
    sys.exit(main())
