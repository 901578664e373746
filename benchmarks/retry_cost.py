"""
What the loop costs in tokens: first attempt vs retries, through an OpenAI-compatible server.

Starts llama-cpp-python's own OpenAI-compatible server on loopback with the
bundled Gemma 3 270M, then answers the 76 dev questions
(``relapse/data/dev.jsonl``) with :func:`relapse.evaluation.evaluate_loop`
driving a ``relapse.Loop(max_iterations=...)`` around a model that calls the
official ``openai`` SDK and returns its ``Completion`` object unchanged;
relapse reads the answer and the usage from that object. For every question
it sums the tokens of iteration 1 and of the retries
(:attr:`relapse.evaluation.QuestionRun.usage`, one ``relapse.Usage`` per call)
and prints:

* questions, those that needed a retry, and LLM calls;
* tokens of the first attempts (input, output, total) and of the retries;
* the overhead of the loop: retry tokens / first-attempt tokens, overall and
  among the questions that were retried;
* the mean tokens per question, first attempt vs whole loop.

Greedy decoding (temperature 0, fixed seed), the prompt of
:meth:`relapse.llms.local.LocalModel.build_prompt`, ``max_tokens=80`` and
stop at a line break, as the demo's adapter does. Needs the ``local`` extra
and ``openai`` plus ``llama-cpp-python[server]``.

Usage::

    .venv/bin/python benchmarks/retry_cost.py [--limit N] [--max-iterations N]
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import relapse
from relapse.demo import load_items
from relapse.evaluation import QuestionRecord, QuestionRun, evaluate_loop
from relapse.llms.local import LocalModel, default_model_path


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def openai_server(threads: int) -> Iterator[str]:
    """Run ``python -m llama_cpp.server`` on loopback; yield its ``/v1`` base URL."""
    port = _free_port()
    command = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(default_model_path()),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        "4096",
        "--n_threads",
        str(threads),
        "--n_threads_batch",
        str(threads),
        "--seed",
        "0",
    ]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(f"{base}/models", timeout=2):
                    break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("the llama_cpp server did not start") from None
                time.sleep(0.5)
        yield base
    finally:
        server.terminate()
        server.wait(timeout=30)


@dataclass
class Tally:
    """Token sums over the questions."""

    questions: int = 0
    retried: int = 0
    calls: int = 0
    first: relapse.Usage = field(default_factory=relapse.Usage)
    retries: relapse.Usage = field(default_factory=relapse.Usage)
    #: First-attempt tokens of the retried questions only.
    first_of_retried: relapse.Usage = field(default_factory=relapse.Usage)

    def add(self, run: QuestionRun) -> None:
        usages = run.usage
        if any(usage is None for usage in usages):
            raise RuntimeError("an attempt reported no usage; the server should always report it")
        first, *later = [usage for usage in usages if usage is not None]
        self.questions += 1
        self.calls += len(usages)
        self.first += first
        if later:
            self.retried += 1
            self.first_of_retried += first
            self.retries += sum(later, relapse.Usage())


class Completions:
    """
    The model: one ``completions.create`` per prompt, the ``Completion`` returned unchanged.

    Greedy (temperature 0, seed 0), at most 80 tokens, stopping at a line
    break, over :meth:`relapse.llms.local.LocalModel.build_prompt`'s prompt.
    """

    build_prompt = staticmethod(LocalModel.build_prompt)

    def __init__(self, client: Any) -> None:
        self.client = client

    def __call__(self, prompt: str, **extra: Any) -> Any:
        """One request; ``extra`` adds keyword arguments (``stream=True``) to it."""
        return self.client.completions.create(
            model="gemma-3-270m",
            prompt=prompt,
            max_tokens=80,
            temperature=0.0,
            seed=0,
            stop=["\n"],
            **extra,
        )


def _line(label: str, usage: relapse.Usage, per: int) -> str:
    mean = usage.total_tokens / per if per else 0.0
    return (
        f"{label:<34} input {usage.input_tokens:>7}  output {usage.output_tokens:>5}"
        f"  total {usage.total_tokens:>7}  ({mean:.0f} per question)"
    )


def main(argv: list[str] | None = None) -> None:
    """Measure and print the token cost of the loop on the dev questions."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=None, help="first N dev questions only")
    parser.add_argument("--max-iterations", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)

    import openai

    records = [
        QuestionRecord(line, item.id, item.question, item.passages, "QA", "dev")
        for line, item in enumerate(load_items("dev")[: args.limit], start=1)
    ]
    tally = Tally()
    began = time.perf_counter()
    with openai_server(args.threads) as base:
        model = Completions(openai.OpenAI(base_url=base, api_key="unused"))
        loop = relapse.Loop(max_iterations=args.max_iterations)
        for run in evaluate_loop(records, lambda: model, loop=loop).runs:
            tally.add(run)
    elapsed = time.perf_counter() - began
    whole = tally.first + tally.retries
    print(
        f"{tally.questions} dev questions, max_iterations={args.max_iterations}, temperature 0,"
        f" {tally.calls} LLM calls, {tally.retried} questions retried, {elapsed:.0f} s\n"
    )
    print(_line("first attempts", tally.first, tally.questions))
    print(_line("retries", tally.retries, tally.questions))
    print(_line("whole loop", whole, tally.questions))
    overall = tally.retries.total_tokens / max(1, tally.first.total_tokens)
    among = tally.retries.total_tokens / max(1, tally.first_of_retried.total_tokens)
    print(f"\nretry tokens / first-attempt tokens: {overall:.1%} over all questions,")
    print(f"  {among:.1%} over the {tally.retried} retried questions (their own first attempts)")


if __name__ == "__main__":
    main()
