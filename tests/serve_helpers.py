"""
The gateway tests' helpers: the scripted upstream and ``relapse serve`` as processes, scripts.

Each is a child process on a free loopback port, started here and stopped by
its process id (SIGTERM, then SIGKILL if it lingers) when its context ends.
A process that does not come up fails the test with its output.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from llama_server import free_port

HERE = Path(__file__).parent
#: examples/serve: the Node and Python clients of the gateway.
EXAMPLE = HERE.parent / "examples" / "serve"
STARTUP_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class Server:
    """A running child server: its root URL (no ``/v1``), its process and its log."""

    url: str
    process: subprocess.Popen[bytes]
    log: Path

    @property
    def v1(self) -> str:
        return self.url + "/v1"

    def output(self) -> str:
        return self.log.read_text(errors="replace")[-6000:]

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(self.url + path, timeout=10) as response:
            return json.loads(response.read())

    def rss_kib(self) -> int:
        """The resident memory of the process, in KiB (``/proc/PID/status``)."""
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise AssertionError("no VmRSS line")


def stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM by process id, then SIGKILL if it lingers; always reaped."""
    if process.poll() is not None:
        return
    os.kill(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=STOP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=STOP_TIMEOUT_S)


def _up(url: str, path: str) -> bool:
    try:
        with urllib.request.urlopen(url + path, timeout=2) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False


@contextmanager
def child(
    command: list[str], port: int, ready_path: str, env: dict[str, str] | None = None
) -> Iterator[Server]:
    """Run ``command`` (listening on ``port``) until the context ends."""
    workdir = Path(tempfile.mkdtemp(prefix="relapse-serve-test-"))
    log = workdir / "server.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(
            command, stdout=sink, stderr=subprocess.STDOUT, cwd=workdir,
            env={**os.environ, **(env or {})},
        )  # fmt: skip
    server = Server(f"http://127.0.0.1:{port}", process, log)
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while not _up(server.url, ready_path):
            if process.poll() is not None:
                pytest.fail(f"{command[:4]} exited with {process.returncode}:\n{server.output()}")
            if time.monotonic() > deadline:
                pytest.fail(
                    f"{command[:4]} not up in {STARTUP_TIMEOUT_S:.0f} s:\n{server.output()}"
                )
            time.sleep(0.1)
        yield server
    finally:
        stop(process)


@contextmanager
def scripted_upstream() -> Iterator[Server]:
    """The scripted upstream (:mod:`scripted_upstream`) on a free loopback port."""
    port = free_port()
    command = [
        sys.executable, "-m", "uvicorn", "scripted_upstream:app", "--app-dir", str(HERE),
        "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning",
    ]  # fmt: skip
    with child(command, port, "/v1/models") as server:
        yield server


@contextmanager
def gateway(upstream: str, *options: str, env: dict[str, str] | None = None) -> Iterator[Server]:
    """``relapse serve --upstream UPSTREAM OPTIONS`` on a free loopback port."""
    port = free_port()
    command = [
        sys.executable, "-m", "relapse.cli", "serve", "--upstream", upstream,
        "--host", "127.0.0.1", "--port", str(port), *options,
    ]  # fmt: skip
    with child(command, port, "/health", env) as server:
        yield server


#: The question, chunks and answers most tests use.
QUESTION = "When did the bridge open?"
CHUNKS = ["The Golden Gate Bridge opened in 1937. It is painted international orange."]
GOOD = "It opened in 1937."
BAD = "It opened in 1936."


def script(*answers: str, **options: Any) -> dict[str, Any]:
    """A fresh ``x_script`` for the scripted upstream."""
    return {"id": uuid.uuid4().hex, "answers": list(answers), **options}


def ask(chunks: list[Any] | None, scripted: dict[str, Any], **relapse: Any) -> dict[str, Any]:
    """The ``extra_body`` of a request: the ``relapse`` object (when chunks) and the script."""
    body: dict[str, Any] = {"x_script": scripted}
    if chunks is not None:
        body["relapse"] = {"chunks": chunks, **relapse}
    return body


#: The source tree a client example's Python process imports relapse from.
SRC = Path(__file__).resolve().parents[1] / "src"


def run_node(where: Path, gw: Server, model: str) -> str:
    done = subprocess.run(
        ["node", "client.mjs"],
        cwd=where, capture_output=True, text=True, timeout=600, check=False,
        env={**os.environ, "RELAPSE_GATEWAY_URL": gw.v1, "RELAPSE_MODEL": model},
    )  # fmt: skip
    assert 0 == done.returncode, done.stderr
    return done.stdout


def run_python(gw: Server, model: str) -> str:
    environment = {**os.environ, "RELAPSE_GATEWAY_URL": gw.v1, "RELAPSE_MODEL": model}
    environment["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(SRC), environment.get("PYTHONPATH", "")) if p
    )
    done = subprocess.run(
        [sys.executable, str(EXAMPLE / "client.py")],
        env=environment, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert 0 == done.returncode, done.stderr
    return done.stdout


def parsed(output: str) -> tuple[str, list[str], dict[str, Any]]:
    """The printed answer, the lines about it, and the relapse object of the last line.

    The examples print the answer as streamed, then a line break, then the
    ``outcome: ...`` line: the answer is everything before that line, line
    breaks of its own included (a model's answer may hold some).
    """
    answer, marker, rest = output.rpartition("\noutcome: ")
    assert marker, output
    lines = ("outcome: " + rest).splitlines()
    assert lines[-1].startswith("relapse: "), output
    return answer, lines[:-1], json.loads(lines[-1].removeprefix("relapse: "))
