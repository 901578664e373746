"""
What a cascade's machinery costs, without a model: per answer and per sentence.

Over the RAGTruth development half (the sample, 445
answers), each answer is judged by:

* ``default``: the default check alone (``release="answer"``);
* ``cascade``: ``cascade(default, judge)`` with an instant judge (a function
  that answers ``SUPPORTED`` at once), so what is timed is relapse's own work:
  the stage accounting, and the judge's prompt built for each answer the
  default check passed;
* streamed word by word (``release="sentence"``): the default check's
  :class:`relapse.checks.IncrementalCheck` alone, and the cascade's
  :class:`~relapse.checks._cascade_stream.CascadeStream` with the instant
  judge as a ``"sentence"`` stage: one judge call per sentence the default
  check released.

It prints the median milliseconds per answer of each, the ratios cascade /
default, and for the stream the judge calls per answer and the machinery's
milliseconds per sentence judged. A real judge adds its own latency per
call: ``benchmarks/judge_ragtruth.py --sentences N`` measures it with the
local model. The four take turns answer by answer, so the machine's load
drifts over all of them alike.

Usage::

    python benchmarks/bench_cascade.py [--data PATH] [--repeats N]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from relapse import default_grounding_check
from relapse.checks import LLMJudge, cascade, incremental
from relapse.checks._cascade_stream import CascadeStream
from relapse.evaluation import AnnotatedRecord, load_annotated

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = ROOT / ".." / "shared" / "data" / "ragtruth-sample" / "ragtruth_sample.jsonl"


def instant(prompt: str) -> str:
    """A judge that costs nothing: every answer supported."""
    return "SUPPORTED"


CASCADE = cascade(default_grounding_check, LLMJudge(instant))


def pieces(text: str) -> list[str]:
    """``text`` as a stream carries it: one piece per word, its space attached."""
    parts = text.split(" ")
    return [part + " " for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def whole(check: Callable[..., object], record: AnnotatedRecord) -> float:
    """Seconds of one whole-answer check."""
    began = time.perf_counter()
    check(record.question or "", record.passages, record.response)
    return time.perf_counter() - began


def streamed_default(record: AnnotatedRecord) -> float:
    """Seconds the default check's incremental form takes over the stream."""
    began = time.perf_counter()
    inc = incremental(default_grounding_check, record.question or "", record.passages)
    assert inc is not None
    for piece in pieces(record.response):
        if inc.feed(piece).failed is not None:
            break
    else:
        inc.finish()
    return time.perf_counter() - began


def streamed_cascade(record: AnnotatedRecord) -> tuple[float, int]:
    """Seconds the cascade's stream takes, and the judge calls it made."""
    began = time.perf_counter()
    stream = CascadeStream(CASCADE.stages, record.question or "", record.passages)
    for piece in pieces(record.response):
        if stream.feed(piece).failed is not None:
            break
    else:
        stream.finish()
    return time.perf_counter() - began, stream.sentence_checks


def main() -> None:
    """Time the four ways over every answer, in turn, and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    records = load_annotated(args.data)
    times: dict[str, list[float]] = {
        "default": [],
        "cascade": [],
        "stream default": [],
        "stream cascade": [],
    }
    calls: list[int] = []
    for _ in range(args.repeats):
        for index, record in enumerate(records):
            jobs: list[tuple[str, Callable[[], float]]] = [
                ("default", lambda r=record: whole(default_grounding_check, r)),
                ("cascade", lambda r=record: whole(CASCADE, r)),
                ("stream default", lambda r=record: streamed_default(r)),
            ]
            shift = index % 4
            order = [*jobs, ("stream cascade", lambda: 0.0)]
            order = order[shift:] + order[:shift]
            for name, job in order:
                if name == "stream cascade":
                    seconds, made = streamed_cascade(record)
                    calls.append(made)
                    times[name].append(seconds)
                else:
                    times[name].append(job())
    print(f"{len(records)} answers x {args.repeats}; median ms per answer:")
    medians = {name: 1000 * statistics.median(values) for name, values in times.items()}
    for name, value in medians.items():
        print(f"  {name:<15} {value:8.3f}")
    print(f"  cascade / default (whole answer):   {medians['cascade'] / medians['default']:.2f}")
    print(
        "  cascade / default (stream):         "
        f"{medians['stream cascade'] / medians['stream default']:.2f}"
    )
    total_calls = sum(calls)
    extra = sum(times["stream cascade"]) - sum(times["stream default"])
    print(
        f"  judge calls per streamed answer:    {total_calls / len(calls):.2f}"
        f" (sentences the default check released)"
    )
    if total_calls:
        print(f"  machinery ms per sentence judged:   {1000 * extra / total_calls:.3f}")


if __name__ == "__main__":
    main()
