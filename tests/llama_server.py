"""
A real OpenAI-compatible server for the tests: llama-cpp-python's own.

``python -m llama_cpp.server`` (the ``server`` extra of llama-cpp-python)
serves the bundled Gemma 3 270M on a free loopback port. The server is a
child process of the test; it is stopped by its process id when the test (or
the session, for the shared fixture) ends. A server that does not start fails
the test with its output: these tests never skip, because a skipped
end-to-end test hides exactly the breakage it exists to find.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

#: The name the server answers to (``--model_alias``).
MODEL = "gemma-3-270m"
STARTUP_TIMEOUT_S = 180.0
STOP_TIMEOUT_S = 20.0


@dataclass(frozen=True)
class LlamaServer:
    """A running server: its API root (``.../v1``) and its process."""

    base_url: str
    process: subprocess.Popen[bytes]
    log: Path

    def output(self) -> str:
        """The last 4,000 characters the server wrote (stdout and stderr)."""
        return self.log.read_text(errors="replace")[-4000:]

    def kill(self) -> None:
        """Kill the server at once (SIGKILL), as a crash would, and reap it."""
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=STOP_TIMEOUT_S)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def model_path() -> Path:
    """The bundled GGUF, as :mod:`relapse.llms.local` locates it."""
    from relapse.llms.local import default_model_path

    return default_model_path()


def _ready(base_url: str) -> bool:
    try:
        with urllib.request.urlopen(base_url + "/models", timeout=5) as response:
            listing = json.loads(response.read())
    except (urllib.error.URLError, OSError, ValueError):
        return False
    return any(model.get("id") == MODEL for model in listing.get("data", []))


def _stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM by process id, then SIGKILL if it lingers; always reaped."""
    if process.poll() is not None:
        return
    os.kill(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=STOP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=STOP_TIMEOUT_S)


@contextmanager
def llama_server(n_ctx: int = 4096, model: Path | None = None) -> Iterator[LlamaServer]:
    """
    Start ``python -m llama_cpp.server`` with ``model`` (the bundled one); stop it on exit.

    Fails the calling test (``pytest.fail``) with the server's output when the
    process exits before it is ready or is not ready within
    ``STARTUP_TIMEOUT_S`` seconds.
    """
    path = model_path() if model is None else model
    port = free_port()
    workdir = Path(tempfile.mkdtemp(prefix="relapse-llama-server-"))
    log = workdir / "server.log"
    command = [
        sys.executable, "-m", "llama_cpp.server",
        # The GGUF has no chat template: without this, chat requests would be
        # formatted as llama-2's [INST] turns (docs/integrations/openai-compatible.md).
        "--model", str(path), "--model_alias", MODEL, "--chat_format", "gemma",
        "--host", "127.0.0.1", "--port", str(port),
        "--n_ctx", str(n_ctx), "--n_threads", "2", "--n_threads_batch", "2",
    ]  # fmt: skip
    with log.open("wb") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, cwd=workdir)
    server = LlamaServer(f"http://127.0.0.1:{port}/v1", process, log)
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while not _ready(server.base_url):
            if process.poll() is not None:
                pytest.fail(
                    f"llama_cpp.server exited with {process.returncode} before it was ready:\n"
                    f"{server.output()}"
                )
            if time.monotonic() > deadline:
                pytest.fail(
                    f"llama_cpp.server not ready in {STARTUP_TIMEOUT_S:.0f} s:\n{server.output()}"
                )
            time.sleep(0.25)
        yield server
    finally:
        _stop(process)
