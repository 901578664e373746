"""
What the incremental check costs per sentence of a long streamed answer: by windows, and whole.

Run: ``python benchmarks/bench_incremental.py [--sentences 10 100 1000] [--repeat 3]
[--context-kb 0]``.

``release="sentence"`` judges a stream sentence by sentence
(:class:`relapse.checks.IncrementalCheck`). Judging the whole text fed so far
at every sentence (the code path before the window,
``IncrementalCheck(..., window=False)``) costs time quadratic in the number of
sentences; judging a window of it (the default check's reader gives one,
:mod:`relapse.grounding._stream`) costs each sentence the text since the
window's start. Each answer (grounded sentences about one set of chunks,
numbers, a date and a quotation among them, none a copy of a chunk) is fed
word by word, as a stream would deliver it, to both paths in one run; the
table gives the check time per sentence of each (the best of ``--repeat``
runs), their ratio, and the whole-answer check once on the full answer, for
scale. Both paths give the same progress at every word (checked here too, and
by ``tests/checks/test_incremental_properties.py``).

``--context-kb N`` adds about ``N`` KB of other chunks (maintenance notes no
sentence cites) to the two the answers use: what a fixed cost per stream
that grows with the chunks (folding them all) adds to a short answer shows
there.
"""

from __future__ import annotations

import argparse
import re
import time

import relapse
from relapse.checks import IncrementalCheck, StreamProgress, reader_of
from relapse.checks._contract import prepare

CHUNKS = [
    "The Golden Gate Bridge opened to traffic in May 1937. Its main span is 1280 metres long.",
    "The bridge was painted international orange. About 10 million people visit it each year.",
]
QUERY = "Tell me about the Golden Gate Bridge."
#: Grounded sentences, cycled: none copies a chunk whole.
SENTENCES = [
    "The bridge is a famous landmark of the city.",
    "It opened to traffic in May 1937.",
    "Its main span is 1280 metres long.",
    "Many visitors walk across it on sunny days.",
    "About 10 million people visit it each year.",
    "The colour is called international orange.",
    "Fog often hides the towers in the morning.",
    "Photographers like the view from the northern hills.",
    'One guide described it as "painted international orange" on a tour.',
    "Cyclists share the path with walkers.",
]


def answer(sentences: int) -> str:
    """An answer of ``sentences`` grounded sentences."""
    return " ".join(SENTENCES[index % len(SENTENCES)] for index in range(sentences))


def filler_chunks(kilobytes: int) -> list[str]:
    """Chunks of about ``kilobytes`` KB in all (about 900 characters each) that no answer cites."""
    note = "Crews inspect the cables and repaint the towers at night in section {}. "
    return [note.format(index) * 12 for index in range(kilobytes * 1000 // 900)]


def feed(
    text: str, window: bool, chunks: list[str]
) -> tuple[float, list[StreamProgress], IncrementalCheck]:
    """
    Feed ``text`` word by word to a check made for ``chunks``.

    Returns:
        The seconds spent making and feeding the check (its preparation
        aside), every progress, the check.
    """
    check = relapse.default_grounding_check
    bound = prepare(check, QUERY, chunks)
    pieces = re.split(r"(?<= )", text)
    began = time.perf_counter()
    made = IncrementalCheck(bound, reader_of(check), window=window)
    progress = [made.feed(piece) for piece in pieces]
    progress.append(made.finish())
    return time.perf_counter() - began, progress, made


def main(argv: list[str] | None = None) -> None:
    """Parse the arguments and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sentences", type=int, nargs="+", default=[10, 100, 1000])
    parser.add_argument("--repeat", type=int, default=3, help="runs per path; the best counts")
    parser.add_argument(
        "--context-kb", type=int, default=0, help="KB of uncited chunks added to the two cited"
    )
    args = parser.parse_args(argv)
    if args.context_kb < 0:
        parser.error(f"--context-kb must be 0 or more, not {args.context_kb}")
    chunks = [*CHUNKS, *filler_chunks(args.context_kb)]
    print(
        f"{'sentences':>9}{'chars':>8}{'whole path ms/sent.':>21}{'window ms/sent.':>17}"
        f"{'ratio':>8}{'window checks':>15}{'one whole check ms':>20}"
    )
    for count in args.sentences:
        text = answer(count)
        timings: dict[bool, float] = {}
        runs: dict[bool, list[StreamProgress]] = {}
        made: dict[bool, IncrementalCheck] = {}
        for _ in range(args.repeat):
            for window in (False, True):
                spent, progress, check = feed(text, window, chunks)
                timings[window] = min(timings.get(window, spent), spent)
                runs[window], made[window] = progress, check
        if runs[True] != runs[False]:
            raise RuntimeError("the window path gave another progress than the whole path")
        if runs[True][-1].failed is not None:
            raise RuntimeError("the benchmark answer did not pass the check")
        bound = prepare(relapse.default_grounding_check, QUERY, chunks)
        began = time.perf_counter()
        bound(text)
        whole_ms = (time.perf_counter() - began) * 1000
        old, new = timings[False] * 1000 / count, timings[True] * 1000 / count
        checks = f"{made[True].window_checks}/{made[True].window_checks + made[True].whole_checks}"
        print(
            f"{count:>9}{len(text):>8}{old:>21.3f}{new:>17.3f}{old / new:>7.1f}x"
            f"{checks:>15}{whole_ms:>20.2f}"
        )


if __name__ == "__main__":
    main()
