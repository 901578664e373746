"""
The gateway's figures: requests per second, first-sentence latency, overhead per request.

Run: ``python benchmarks/bench_serve.py [--requests N] [--concurrency C] [--pace S]
[--llama]``.

Everything runs on loopback, as child processes started and stopped here:
the scripted upstream of the tests (``tests/scripted_upstream.py``, which
streams one word every ``--pace`` seconds, like a model emitting tokens) and
``relapse serve`` in front of it, one worker. Each figure compares the same
request sent straight to the upstream ("direct") with it sent through the
gateway with chunks (checked, grounded on the first try) and without
(passed through unchecked):

* overhead per request: the median latency of ``--requests`` sequential
  non-streaming requests, gateway minus direct, in milliseconds; and the
  CPU time the gateway process spent on each (``/proc/PID/stat``), which a
  busy machine disturbs far less than wall-clock time;
* first-sentence latency: the median time from sending a streaming request
  to holding the answer's whole first sentence, in milliseconds (the check
  releases a sentence once the next token shows that it ended);
* requests per second: ``--requests`` non-streaming (and streaming) requests
  over ``--concurrency`` concurrent clients, completed per second.

``--llama`` also measures first-sentence latency against llama-cpp-python's
server with the bundled model (needs the ``server`` extra), direct and
through the gateway, greedy, over ``--llama-runs`` runs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
CHUNKS = ["The Golden Gate Bridge opened in 1937. It is painted international orange."]
ANSWER = "The Golden Gate Bridge opened in 1937. It is painted international orange."
FIRST_SENTENCE = "The Golden Gate Bridge opened in 1937."
QUESTION = "When did the bridge open?"
#: A sentence has ended once its stop is followed by white space.
_SENTENCE_END = re.compile(r"[.!?]\s")


def _port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def _process(command: list[str], port: int, ready: str) -> Iterator[tuple[str, int]]:
    log = Path(tempfile.mkdtemp(prefix="relapse-bench-serve-")) / "log"
    with log.open("wb") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 300
        while True:
            try:
                with urllib.request.urlopen(url + ready, timeout=2):
                    break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"{command[:4]} did not start:\n{log.read_text()}") from None
                time.sleep(0.2)
        yield url, process.pid
    finally:
        os.kill(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.kill(process.pid, signal.SIGKILL)
            process.wait()


def _upstream() -> Any:
    port = _port()
    return _process(
        [sys.executable, "-m", "uvicorn", "scripted_upstream:app", "--app-dir",
         str(ROOT / "tests"), "--port", str(port), "--log-level", "warning"],
        port, "/v1/models",
    )  # fmt: skip


def _gateway(upstream: str) -> Any:
    port = _port()
    return _process(
        [sys.executable, "-m", "relapse.cli", "serve", "--upstream", upstream, "--port",
         str(port), "--log-level", "warning", "--max-concurrent", "256",
         "--upstream-timeout", "600"],
        port, "/health",
    )  # fmt: skip


def _body(model: str, pace: float, checked: bool, stream: bool, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": model,
        "messages": [{"role": "user", "content": QUESTION}],
        "x_script": {"id": "bench", "answers": [ANSWER], "pace": pace},
        "stream": stream,
        **extra,
    }
    if checked:
        body["relapse"] = {"chunks": CHUNKS}
    return body


def _cpu_s(pid: int) -> float:
    """User plus system CPU seconds the process ``pid`` has used (``/proc/PID/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _median_ms(values: list[float]) -> float:
    return statistics.median(values) * 1000


async def _latencies(url: str, body: dict[str, Any], runs: int) -> list[float]:
    async with httpx.AsyncClient(base_url=url, timeout=600) as client:
        took = []
        for _ in range(runs):
            began = time.perf_counter()
            response = await client.post("/v1/chat/completions", json=body)
            response.raise_for_status()
            took.append(time.perf_counter() - began)
    return took


async def _first_sentence(url: str, body: dict[str, Any], runs: int, sentence: str) -> list[float]:
    """
    Seconds until the streamed text holds ``sentence``.

    With ``sentence`` empty: until a first sentence has ended (its stop
    followed by white space), or the stream ended.
    """
    took = []
    async with httpx.AsyncClient(base_url=url, timeout=600) as client:
        for _ in range(runs):
            began = time.perf_counter()
            text, seen = "", None
            async with client.stream("POST", "/v1/chat/completions", json=body) as response:
                async for line in response.aiter_lines():
                    if not line.startswith("data: {"):
                        continue
                    chunk = json.loads(line[6:])
                    for choice in chunk.get("choices") or []:
                        text += (choice.get("delta") or {}).get("content") or ""
                    ended = sentence in text if sentence else bool(_SENTENCE_END.search(text))
                    if seen is None and ended and text.strip():
                        seen = time.perf_counter() - began
            took.append(seen if seen is not None else time.perf_counter() - began)
    return took


async def _throughput(url: str, body: dict[str, Any], requests: int, concurrency: int) -> float:
    queue = list(range(requests))
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=url, timeout=600, limits=limits) as client:

        async def worker() -> None:
            while queue:
                queue.pop()
                response = await client.post("/v1/chat/completions", json=body)
                response.raise_for_status()
                if body.get("stream"):
                    assert "[DONE]" in response.text

        began = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return requests / (time.perf_counter() - began)


def scripted(args: argparse.Namespace) -> None:
    with _upstream() as (upstream, _), _gateway(upstream + "/v1") as (gateway, pid):
        rows = []
        for name, url, checked in (
            ("direct", upstream, False),
            ("gateway, unchecked", gateway, False),
            ("gateway, checked", gateway, True),
        ):
            # Warm up (connections, the gateway's loop cache).
            asyncio.run(_latencies(url, _body("scripted", 0, checked, False), 5))
            before = _cpu_s(pid)
            latency = asyncio.run(
                _latencies(url, _body("scripted", 0, checked, False), args.requests)
            )
            cpu_ms = (_cpu_s(pid) - before) / args.requests * 1000
            first = asyncio.run(
                _first_sentence(
                    url, _body("scripted", args.pace, checked, True), 30, FIRST_SENTENCE
                )
            )
            rps = asyncio.run(
                _throughput(
                    url, _body("scripted", 0, checked, False), args.requests, args.concurrency
                )
            )
            rps_stream = asyncio.run(
                _throughput(
                    url,
                    _body("scripted", args.pace, checked, True),
                    args.requests,
                    args.concurrency,
                )
            )
            rows.append((name, _median_ms(latency), cpu_ms, _median_ms(first), rps, rps_stream))
    direct = rows[0]
    print(
        f"scripted upstream, {args.requests} requests, {args.concurrency} concurrent,"
        f" streams at {args.pace * 1000:.0f} ms a word"
    )
    print(
        "| path | median latency, ms | overhead, ms | gateway CPU per request, ms |"
        " first sentence, ms | first sentence vs direct | rps | streams/s |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, latency, cpu_ms, first, rps, rps_stream in rows:
        cpu = "" if name == "direct" else f"{cpu_ms:.2f}"
        print(
            f"| {name} | {latency:.1f} | {latency - direct[1]:+.1f} | {cpu} | {first:.0f} |"
            f" {first / direct[3]:.2f}x | {rps:.0f} | {rps_stream:.1f} |"
        )


def llama(args: argparse.Namespace) -> None:
    sys.path.insert(0, str(ROOT / "tests"))
    from llama_server import MODEL, llama_server

    with llama_server() as server, _gateway(server.base_url) as (gateway, _):
        upstream = server.base_url.removesuffix("/v1")
        rows = []
        for name, url, checked in (
            ("direct", upstream, False),
            ("gateway, checked", gateway, True),
        ):
            body = {
                "model": MODEL,
                "messages": [
                    {"role": "system", "content": f"Answer from this context only:\n{CHUNKS[0]}"},
                    {"role": "user", "content": QUESTION},
                ],
                "max_tokens": 48,
                "temperature": 0,
                "stream": True,
            }
            if checked:
                body["relapse"] = {"chunks": CHUNKS, "max_iterations": 1}
            first = asyncio.run(_first_sentence(url, body, args.llama_runs, ""))
            rows.append((name, _median_ms(first)))
    print(f"llama-cpp-python server, bundled model, {args.llama_runs} runs")
    print("| path | first sentence, ms | vs direct |")
    print("| --- | ---: | ---: |")
    for name, first in rows:
        print(f"| {name} | {first:.0f} | {first / rows[0][1]:.2f}x |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=50)
    parser.add_argument("--pace", type=float, default=0.01, help="seconds between two words")
    parser.add_argument("--llama", action="store_true")
    parser.add_argument("--llama-runs", type=int, default=10)
    parser.add_argument("--no-scripted", action="store_true", help="only the --llama figures")
    args = parser.parse_args()
    if not args.no_scripted:
        scripted(args)
    if args.llama:
        llama(args)


if __name__ == "__main__":
    main()
