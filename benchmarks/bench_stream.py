"""
What ``release="sentence"`` costs a streaming caller: time to the first released piece.

Run: ``python benchmarks/bench_stream.py [--token-ms 30] [--answers 8]`` and,
with the local OpenAI-compatible server and the ``openai`` SDK,
``python benchmarks/bench_stream.py --server [--limit N]``; the shapes alone:
``python benchmarks/bench_stream.py --shapes-only [--shape-sentences 100 1000]``.

**Shapes** (always; issue 38): long grounded answers of 100 and 1,000
sentences in three shapes, streamed unpaced (so the check is all the time
there is) through ``release="sentence"``: English prose word by word, Chinese
two characters a piece (sentences end at ``。`` with no space after them) and
a markdown list (``- ``, ``* ``, ``1. `` lines) word by word. Per shape and
length: the time to the first released piece, to the end of the stream, and
the stream's time per sentence; then an answer copying a context of 5, 10
and 20 KB, fed to the incremental check 8 characters a piece. The script
uses the public API only, so the same file measures an older tree
(``PYTHONPATH=<tree>/src``).

**Scripted streams** (always): grounded answers made of the first sentences of
each dev question's first passage (``relapse/data/dev.jsonl``), so the default
check passes them, streamed word by word by a generator that sleeps
``--token-ms`` before each word, as a provider paces its tokens. Each answer is
read three ways in one run, in rotating order:

* ``unchecked``: the bare generator; the baseline's first sentence is complete
  when the word that ends it arrives (``relapse.grounding.sentence_spans``);
* ``release="answer"``: ``@relapse.grounded`` as before, the first piece after
  the whole answer was checked;
* ``release="sentence"``: the first piece once its sentence passed.

It prints, per mode, the median time to the first piece and to the end of the
stream, and the two ratios the issue sets targets for: sentence-release
first piece / unchecked first sentence (target at most 1.2) and
sentence-release whole stream / unchecked whole stream (target at most 1.05).

**The local server** (``--server``): llama-cpp-python's OpenAI-compatible
server on loopback with the bundled Gemma 3 270M; the dev questions are run
through :func:`relapse.evaluation.evaluate_loop` (what ``relapse eval --loop
--release sentence`` runs) with a model over the real ``openai`` SDK
(``completions.create`` with the prompt of
:meth:`relapse.llms.local.LocalModel.build_prompt`, greedy, at most 80
tokens, stop at a line break, as ``benchmarks/retry_cost.py``), once with
``release="answer"`` (each call answered whole) and once with
``release="sentence"`` (each call streamed, ``stream=True,
stream_options={"include_usage": True}``), and each question's first prompt
is also streamed unchecked, the baseline of the first sentence's time; the
three take turns by blocks of ``--block`` questions. It prints first answers failing,
recovered, median time to the first released piece (with
``release="answer"``, the whole run), output tokens the provider reported
(n/a when a call reported none: llama-cpp-python's server ignores
``stream_options`` and a stream relapse closed early reports none), and
relapse's estimate of the output tokens retries did not generate again
because they continued after the released prefix
(:func:`relapse.evaluation.saved_output_tokens_estimate`, the figure of
``relapse.stream.saved_output_tokens_estimate`` on the iteration spans).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import relapse
from relapse import evaluation
from relapse.demo import load_items
from relapse.grounding import sentence_spans

sys.path.insert(0, str(Path(__file__).resolve().parent))
from retry_cost import Completions, openai_server

#: The bundled dev questions (what ``relapse eval --loop`` reads by default).
DEV = Path(relapse.__file__).resolve().parent / "data" / "dev.jsonl"


def grounded_answers(count: int, sentences: int) -> list[tuple[str, list[str]]]:
    """``(answer, passages)``: the first ``sentences`` sentences of passage 1, verbatim."""
    answers: list[tuple[str, list[str]]] = []
    for item in load_items("dev"):
        passage = item.passages[0]
        spans = sentence_spans(passage)
        if len(spans) < sentences:
            continue
        answer = passage[: spans[sentences - 1][1]]
        if relapse.default_grounding_check(item.question, list(item.passages), answer).ok:
            answers.append((answer, list(item.passages)))
        if len(answers) == count:
            break
    return answers


def words(text: str) -> list[str]:
    """The pieces of a word-by-word stream: each word with the space after it."""
    pieces: list[str] = []
    start = 0
    for index, char in enumerate(text):
        if char == " " and index + 1 < len(text) and text[index + 1] != " ":
            pieces.append(text[start : index + 1])
            start = index + 1
    pieces.append(text[start:])
    return pieces


def paced(pieces: list[str], delay_s: float) -> Iterator[str]:
    """A provider-like stream: ``delay_s`` before each piece."""
    for piece in pieces:
        time.sleep(delay_s)
        yield piece


def first_sentence_piece(pieces: list[str]) -> int:
    """The index of the piece that completes the answer's first sentence."""
    text = "".join(pieces)
    end = sentence_spans(text)[0][1]
    read = 0
    for index, piece in enumerate(pieces):
        read += len(piece)
        if read >= end:
            return index
    return len(pieces) - 1


@dataclass
class Timings:
    """Seconds from the call to the first piece and to the end, per answer."""

    first: list[float] = field(default_factory=list)
    whole: list[float] = field(default_factory=list)


def read_unchecked(pieces: list[str], delay_s: float, into: Timings) -> None:
    """The baseline: the bare stream; its first sentence is done at its last word."""
    target = first_sentence_piece(pieces)
    began = time.perf_counter()
    for index, _ in enumerate(paced(pieces, delay_s)):
        if index == target:
            into.first.append(time.perf_counter() - began)
    into.whole.append(time.perf_counter() - began)


def read_grounded(
    answer: Callable[..., Any], passages: list[str], expected: str, into: Timings
) -> None:
    """Call a grounded streaming function and time its first piece and its end."""
    began = time.perf_counter()
    got: list[str] = []
    with answer("q", passages) as stream:
        for piece in stream:
            if not got:
                into.first.append(time.perf_counter() - began)
            got.append(piece)
    into.whole.append(time.perf_counter() - began)
    if "".join(got) != expected:
        raise RuntimeError("the grounded stream did not release the whole grounded answer")


def scripted(token_ms: float, count: int, sentences: int) -> None:
    """Scripted streams at ``token_ms`` a word: the three modes side by side."""
    delay_s = token_ms / 1000
    answers = grounded_answers(count, sentences)
    modes: dict[str, Timings] = {
        "unchecked": Timings(),
        "answer": Timings(),
        "sentence": Timings(),
    }
    current: list[list[str]] = [[]]

    def source(query: str, docs: list[str]) -> Iterator[str]:
        yield from paced(current[0], delay_s)

    by_answer = relapse.grounded(chunks_arg="docs", release="answer")(source)
    by_sentence = relapse.grounded(chunks_arg="docs", release="sentence")(source)
    order = ["unchecked", "answer", "sentence"]
    total_words = 0
    for turn, (text, passages) in enumerate(answers):
        pieces = words(text)
        total_words += len(pieces)
        current[0] = pieces
        for mode in order[turn % 3 :] + order[: turn % 3]:
            if mode == "unchecked":
                read_unchecked(pieces, delay_s, modes[mode])
            else:
                function = by_answer if mode == "answer" else by_sentence
                read_grounded(function, passages, text, modes[mode])
    print(
        f"scripted streams: {len(answers)} grounded answers of {sentences} sentences"
        f" ({total_words} words), {token_ms:g} ms a word; medians over the answers\n"
    )
    print(f"{'mode':<22}{'first piece (s)':>16}{'whole stream (s)':>18}")
    for mode, timings in modes.items():
        label = mode if mode == "unchecked" else f'release="{mode}"'
        first, whole = statistics.median(timings.first), statistics.median(timings.whole)
        print(f"{label:<22}{first:>16.3f}{whole:>18.3f}")
    base, sentence = modes["unchecked"], modes["sentence"]
    first_ratio = statistics.median(s / u for s, u in zip(sentence.first, base.first, strict=True))
    whole_ratio = statistics.median(s / u for s, u in zip(sentence.whole, base.whole, strict=True))
    print(
        f'\nrelease="sentence" first piece / unchecked first sentence: {first_ratio:.3f}x'
        " (target <= 1.2)"
    )
    print(
        f'release="sentence" whole stream / unchecked whole stream: {whole_ratio:.3f}x'
        " (target <= 1.05)"
    )


#: The chunks every shape's sentences are grounded in.
SHAPE_CHUNKS = [
    "Paris has 2.1 million residents and 40 museums. The tower was finished in 1889.",
    "北京有2154万人口。上海有2487万人口。长城长21196公里。",
    "1. Rinse the shoes. 2. Dry them in the shade. The wall is 6 feet high.",
]
#: Each shape: its sentences (cycled) and how its stream cuts the text.
SHAPES: dict[str, tuple[tuple[str, ...], str]] = {
    "english": (
        (
            "Paris has 2.1 million residents. ",
            "The tower was finished in 1889, and visitors still climb it every day. ",
            "It has 40 museums. ",
            "The river runs through the middle of the city from east to west. ",
        ),
        "words",
    ),
    "chinese": (
        (
            "北京有2154万人口。",
            "上海有2487万人口。",
            "长城长21196公里。",
            "这是一个很长的句子，说的是城市里的公园和河流。",
        ),
        "pairs",
    ),
    "list": (
        (
            "- Paris has 2.1 million residents.\n",
            "* It has 40 museums.\n",
            "1. Rinse the shoes.\n",
            "- The wall is 6 feet high.\n",
        ),
        "words",
    ),
}


def shape_pieces(shape: str, sentences: int) -> tuple[str, list[str]]:
    """The answer of ``sentences`` sentences of ``shape``, and its stream's pieces."""
    cycle, cut = SHAPES[shape]
    text = "".join(cycle[index % len(cycle)] for index in range(sentences)).rstrip()
    if cut == "pairs":
        return text, [text[at : at + 2] for at in range(0, len(text), 2)]
    return text, words(text)


def shapes(counts: list[int], repeat: int) -> None:
    """Each shape at each length through ``release="sentence"``, unpaced: best of ``repeat``."""
    current: list[list[str]] = [[]]

    def source(query: str, docs: list[str]) -> Iterator[str]:
        yield from current[0]

    by_sentence = relapse.grounded(chunks_arg="docs", release="sentence")(source)
    print(
        f'\nshapes, unpaced, release="sentence", best of {repeat}'
        f" (relapse {relapse.__version__} from {Path(relapse.__file__).parent})\n"
    )
    print(
        f"{'shape':<9}{'sentences':>10}{'chars':>8}{'first piece (s)':>17}"
        f"{'whole stream (s)':>18}{'per sentence (ms)':>19}"
    )
    for shape in SHAPES:
        for count in counts:
            text, pieces = shape_pieces(shape, count)
            current[0] = pieces
            best = Timings()
            for _ in range(repeat):
                timings = Timings()
                read_grounded(by_sentence, SHAPE_CHUNKS, text, timings)
                if not best.whole or timings.whole[0] < best.whole[0]:
                    best = timings
            first, whole = best.first[0], best.whole[0]
            print(
                f"{shape:<9}{count:>10}{len(text):>8}{first:>17.4f}{whole:>18.3f}"
                f"{1000 * whole / count:>19.3f}"
            )


#: A sentence of a context an answer copies (``copies``).
COPIED = (
    "The committee met on the third floor of the old building and discussed the plans for"
    " the new library, which had been delayed for several years because of the cost. "
)


def copies(kbs: list[int], repeat: int) -> None:
    """
    An answer that copies a context of each size in ``kbs`` (KB), fed 8 characters a piece.

    Through :func:`relapse.checks.incremental` (public), the check's feeding
    and finish timed, best of ``repeat``: a copy releases nothing, and its
    verdict is the whole answer's.
    """
    print(f"\na context copied into the answer, 8 characters a piece, best of {repeat}\n")
    print(f"{'context (KB)':>13}{'chars':>8}{'stream checked (s)':>20}")
    for kb in kbs:
        context = (COPIED * (kb * 1024 // len(COPIED) + 1))[: kb * 1024]
        context = context[: context.rfind(". ") + 1]
        best = float("inf")
        for _ in range(repeat):
            made = relapse.checks.incremental(relapse.default_grounding_check, "q", [context])
            assert made is not None
            began = time.perf_counter()
            for at in range(0, len(context), 8):
                made.feed(context[at : at + 8])
            made.finish()
            best = min(best, time.perf_counter() - began)
        print(f"{kb:>13}{len(context):>8}{best:>20.3f}")


class SDKModel(Completions):
    """:class:`retry_cost.Completions`, with ``stream(prompt)``: the same request streamed."""

    def stream(self, prompt: str) -> Any:
        return self(prompt, stream=True, stream_options={"include_usage": True})


def unchecked_first_sentence(model: SDKModel, record: evaluation.QuestionRecord) -> float:
    """
    Seconds from the request to the piece that completes the first sentence, the stream unchecked.

    The first prompt of the loop (the question and its passages), streamed
    bare through the SDK and read to its end; its first sentence is the
    first span of :func:`relapse.grounding.sentence_spans` over the whole text.
    """
    began = time.perf_counter()
    arrivals: list[tuple[int, float]] = []  # (characters read, seconds)
    text = ""
    for chunk in model.stream(model.build_prompt(record.question or "", record.passages)):
        if chunk.choices:
            text += chunk.choices[0].text or ""
            arrivals.append((len(text), time.perf_counter() - began))
    if not text.strip():
        return arrivals[-1][1] if arrivals else time.perf_counter() - began
    end = sentence_spans(text)[0][1]
    return next(seconds for read, seconds in arrivals if read >= end)


def server(limit: int | None, threads: int, max_iterations: int, block: int) -> None:
    """
    The dev questions through the local server and the openai SDK, both release modes.

    A third turn streams each question's first prompt unchecked, the
    baseline of the time to the first sentence. The three take turns by
    blocks of ``block`` questions, the first one rotating from block to
    block, so that a machine whose load drifts over minutes weighs on all
    alike (run one after the other, the two modes of a 40-minute run saw
    loads of 2 and 6).
    """
    import openai

    records = evaluation.load_questions(DEV)[:limit]
    modes = ("answer", "sentence")
    reports = {release: evaluation.LoopReport(release=release) for release in modes}
    unchecked: list[float] = []
    with openai_server(threads) as base:
        client = openai.OpenAI(base_url=base, api_key="unused")
        turns = ("unchecked", *modes)
        for turn, start in enumerate(range(0, len(records), block)):
            for release in turns[turn % 3 :] + turns[: turn % 3]:
                if release == "unchecked":
                    model = SDKModel(client)
                    unchecked.extend(
                        unchecked_first_sentence(model, record)
                        for record in records[start : start + block]
                    )
                    continue
                report = evaluation.evaluate_loop(
                    records[start : start + block],
                    lambda: SDKModel(client),
                    loop=relapse.Loop(release=release, max_iterations=max_iterations),  # type: ignore[arg-type]
                )
                reports[release].runs.extend(report.runs)
                reports[release].not_run.extend(report.not_run)
    questions = len(reports["answer"].runs)
    print(
        f"\nlocal server, openai SDK completions, {questions} dev questions,"
        f" max_iterations={max_iterations}, temperature 0 (relapse.evaluation.evaluate_loop),"
        f" the modes taking turns by blocks of {block}\n"
    )
    print(
        f"{'release':<12}{'first failed':>13}{'recovered':>11}{'grounded':>10}"
        f"{'first piece (s)':>17}{'output tokens':>15}{'saved (estimate)':>18}"
    )
    for release, report in reports.items():
        outcomes = report.outcomes
        median = report.median_first_release_s
        tokens = report.output_tokens
        print(
            f"{release:<12}{sum(not run.first_grounded for run in report.runs):>13}"
            f"{outcomes['recovered'] + outcomes['recovered_refusal']:>11}"
            f"{sum(run.grounded for run in report.runs):>10}"
            f"{'n/a' if median is None else f'{median:.3f}':>17}"
            f"{'n/a' if tokens is None else tokens:>15}{report.saved_tokens_estimate:>18}"
        )
    paired = [
        sentence.first_release_s / answer.first_release_s
        for answer, sentence in zip(reports["answer"].runs, reports["sentence"].runs, strict=True)
        if answer.first_release_s and sentence.first_release_s is not None
    ]
    if paired:
        print(
            f"\nfirst piece, sentence over answer, median over the {len(paired)} questions"
            f" both released a piece for: {statistics.median(paired):.3f}x"
        )
    print(
        f"the first prompt streamed unchecked: its first sentence complete after"
        f" {statistics.median(unchecked):.3f} s (median)"
    )
    # The questions whose first answer passed: there the sentence mode's first
    # piece is that first sentence, checked (a failing first answer releases
    # nothing before its retry, which the unchecked stream does not make).
    passed = [
        run.first_release_s / seconds
        for run, seconds in zip(reports["sentence"].runs, unchecked, strict=True)
        if run.first_grounded and run.first_release_s is not None and seconds > 0
    ]
    if passed:
        print(
            f'first piece with release="sentence" over the unchecked stream\'s first sentence,'
            f" median over the {len(passed)} questions whose first answer passed:"
            f" {statistics.median(passed):.3f}x (target <= 1.2)"
        )
    for release, report in reports.items():
        for line, identifier, reason in report.not_run:
            print(f"not run ({release}): line {line} {identifier}: {reason}")


def main(argv: list[str] | None = None) -> None:
    """Parse the arguments and run the scripted benchmark, and the server one if asked."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--token-ms", type=float, default=30.0, help="scripted pace per word")
    parser.add_argument("--answers", type=int, default=8, help="scripted answers")
    parser.add_argument("--sentences", type=int, default=3, help="sentences per scripted answer")
    parser.add_argument("--server", action="store_true", help="also the local server run")
    parser.add_argument("--limit", type=int, default=None, help="first N dev questions (server)")
    parser.add_argument("--threads", type=int, default=2, help="server threads")
    parser.add_argument("--max-iterations", type=int, default=3)
    parser.add_argument("--block", type=int, default=4, help="questions per turn (server)")
    parser.add_argument(
        "--shape-sentences", type=int, nargs="+", default=[100, 1000], help="shape lengths"
    )
    parser.add_argument("--shape-repeat", type=int, default=3, help="best of N (shapes)")
    parser.add_argument("--shapes-only", action="store_true", help="only the shapes")
    parser.add_argument(
        "--copy-kb", type=int, nargs="*", default=[5, 10, 20], help="copied context sizes"
    )
    args = parser.parse_args(argv)
    if not args.shapes_only:
        scripted(args.token_ms, args.answers, args.sentences)
    shapes(args.shape_sentences, args.shape_repeat)
    copies(args.copy_kb, args.shape_repeat)
    if args.server:
        server(args.limit, args.threads, args.max_iterations, args.block)


if __name__ == "__main__":
    main()
