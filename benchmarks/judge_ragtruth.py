"""
The LLM judge with the local model on RAGTruth: alone, after the default check, per sentence.

Starts ``python -m llama_cpp.server`` with the bundled Gemma 3 270M on a free
loopback port (stopped by its process id at the end), then runs, with the
judge of ``benchmarks/judge_local.py``:

1. ``relapse eval DATA --check benchmarks.judge_local:default_and_judge_all``:
   the default check and the judge both on every answer (mode ``"all"``):
   the stage table's judge row is the judge alone (what it caught, its false
   alarms, tokens per answer), the summary is the escalate cascade's verdict
   (a rejection by either stage: the same verdicts as ``'default >
   benchmarks.judge_local:judge'``, which would ask the judge only about the
   answers the default check passed: the default row's passes are that
   share), one model call per answer instead of two runs;
2. with ``--sentences N``: the judge on the first N answers the default
   check passed, once on the whole answer and once per sentence (what a
   ``"sentence"`` stage pays under ``release="sentence"``): calls, tokens
   and milliseconds per answer and per sentence.

Usage::

    python benchmarks/judge_ragtruth.py [--data PATH] [--limit N] [--workers W]
        [--sentences N] [--skip-eval]

``--limit`` bounds both evals to the first N answers of the development
half (2 shared cores: the full 445 take a long while). Figures are in
docs/benchmarks.md ("The LLM judge and the cascade").
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = ROOT / ".." / "shared" / "data" / "ragtruth-sample" / "ragtruth_sample.jsonl"
MODEL = "gemma-3-270m"
STARTUP_S = 180.0


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def start_server(n_ctx: int, threads: int) -> tuple[subprocess.Popen[bytes], str, Path]:
    """``python -m llama_cpp.server`` on loopback with the bundled GGUF; waits until it answers."""
    from relapse.llms.local import default_model_path

    port = free_port()
    log = Path(tempfile.mkdtemp(prefix="relapse-judge-")) / "server.log"
    command = [
        sys.executable, "-m", "llama_cpp.server",
        "--model", str(default_model_path()), "--model_alias", MODEL, "--chat_format", "gemma",
        "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(n_ctx),
        "--n_threads", str(threads), "--n_threads_batch", str(threads),
    ]  # fmt: skip
    with log.open("wb") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT)
    base_url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + STARTUP_S
    while True:
        try:
            with urllib.request.urlopen(base_url + "/models", timeout=5):
                return process, base_url, log
        except (urllib.error.URLError, OSError):
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            stop(process)
            raise SystemExit(f"llama_cpp.server did not start:\n{log.read_text()[-3000:]}")
        time.sleep(0.5)


def stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM by process id, then SIGKILL if it lingers."""
    if process.poll() is None:
        os.kill(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.kill(process.pid, signal.SIGKILL)
            process.wait(timeout=20)


def run_eval(data: Path, check: str, limit: int | None, workers: int, out: Path) -> None:
    """One ``relapse eval`` run, printed, its JSON written to ``out``."""
    command = [
        sys.executable, "-m", "relapse.cli", "eval", str(data),
        "--check", check, "--json", str(out), "--workers", str(workers),
    ]  # fmt: skip
    if limit is not None:
        command += ["--limit", str(limit)]
    print("$", " ".join(command), flush=True)
    began = time.perf_counter()
    subprocess.run(command, check=True, cwd=ROOT)
    print(f"({time.perf_counter() - began:.0f} s)\n", flush=True)


def per_sentence(data: Path, count: int) -> None:
    """The judge on whole answers and per sentence, over ``count`` answers the rules passed."""
    sys.path.insert(0, str(ROOT))
    from benchmarks.judge_local import judge

    from relapse import default_grounding_check
    from relapse.checks import cascade, stage
    from relapse.checks._cascade_stream import CascadeStream
    from relapse.evaluation import load_annotated

    records = load_annotated(data)
    chosen = [
        r for r in records if default_grounding_check(r.question or "", r.passages, r.response).ok
    ][:count]
    whole_ms: list[float] = []
    whole_tokens: list[int] = []
    sentence_ms: list[float] = []
    sentence_tokens: list[int] = []
    sentences: list[int] = []
    flagged_whole = flagged_sentence = 0
    staged = cascade(default_grounding_check, stage(judge, sentence="sentence"))
    for record in chosen:
        began = time.perf_counter()
        verdict = judge(record.question or "", record.passages, record.response)
        whole_ms.append(1000 * (time.perf_counter() - began))
        assert not hasattr(verdict, "__await__")
        whole_tokens.append(0 if verdict.usage is None else verdict.usage.total_tokens)
        flagged_whole += not verdict.ok
        stream = CascadeStream(staged.stages, record.question or "", record.passages)
        began = time.perf_counter()
        progress = stream.feed(record.response)
        if progress.failed is None:
            progress = stream.finish()
        sentence_ms.append(1000 * (time.perf_counter() - began))
        result = progress.failed or progress.passed
        assert result is not None
        run = result.stages[1]
        sentence_tokens.append(0 if run.usage is None else run.usage.total_tokens)
        sentences.append(stream.sentence_checks)
        flagged_sentence += progress.failed is not None
    calls = sum(sentences)
    print(
        json.dumps(
            {
                "answers": len(chosen),
                "whole": {
                    "calls_per_answer": 1.0,
                    "ms_per_answer": statistics.mean(whole_ms),
                    "tokens_per_answer": statistics.mean(whole_tokens),
                    "flagged": flagged_whole,
                },
                "per_sentence": {
                    "calls_per_answer": calls / len(chosen),
                    "ms_per_answer": statistics.mean(sentence_ms),
                    "tokens_per_answer": statistics.mean(sentence_tokens),
                    "ms_per_sentence": sum(sentence_ms) / calls,
                    "tokens_per_sentence": sum(sentence_tokens) / calls,
                    "flagged": flagged_sentence,
                },
            },
            indent=2,
        ),
        flush=True,
    )


def main() -> None:
    """Start the server, run the evals and the per-sentence comparison, stop the server."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--sentences", type=int, default=0)
    parser.add_argument("--skip-eval", action="store_true")
    parser.add_argument("--n-ctx", type=int, default=8192)
    # One thread: on a machine whose cores other work shares, llama.cpp's
    # threads wait on each other (measured here: 1.9 s per token with 2).
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()))
    args = parser.parse_args()
    process, base_url, log = start_server(args.n_ctx, args.threads)
    os.environ["RELAPSE_JUDGE_BASE_URL"] = base_url
    os.environ["RELAPSE_JUDGE_MODEL"] = MODEL
    try:
        if not args.skip_eval:
            run_eval(
                args.data,
                "benchmarks.judge_local:default_and_judge_all",
                args.limit,
                args.workers,
                args.out / "judge-all.json",
            )
        if args.sentences:
            per_sentence(args.data, args.sentences)
    finally:
        stop(process)
        print(f"server log: {log}")


if __name__ == "__main__":
    main()
