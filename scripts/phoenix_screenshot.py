"""
Render docs/phoenix-trace.png: a recovered call as Phoenix shows it, in a real browser.

Starts ``phoenix serve`` on free loopback ports in a temporary folder, runs
``examples/otel-collector/app.py`` against it with content capture on, finds
the trace and its spans over Phoenix's REST API, and has headless Chromium
(Debian's ``chromium`` package) screenshot the trace view with the first
check span selected: the tree shows the call recovering (a GUARDRAIL check
span under each iteration), the pane the rejected answer and why. Phoenix and
Chromium are stopped by their process ids.

    apt-get install chromium
    RELAPSE_PHOENIX_BIN=.venv-phoenix/bin/phoenix .venv/bin/python scripts/phoenix_screenshot.py
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "examples" / "otel-collector" / "app.py"
OUTPUT = ROOT / "docs" / "phoenix-trace.png"
PROJECT = "relapse-demo"


def free_port() -> int:
    """Return a TCP port free on the loopback interface."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def get(url: str) -> Any:
    """GET ``url``: the decoded JSON, or the text when the body is not JSON."""
    with urllib.request.urlopen(url, timeout=10) as response:
        body = response.read()
    return json.loads(body) if body[:1] in (b"{", b"[") else body.decode()


def wait_for(condition: Any, what: str, timeout_s: float = 180.0) -> Any:
    """Poll ``condition()`` every 0.5 s until truthy; exit naming ``what`` after ``timeout_s`` s."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            found = condition()
        except (urllib.error.URLError, OSError):
            found = None
        if found:
            return found
        time.sleep(0.5)
    sys.exit(f"timed out waiting for {what}")


def main() -> None:
    """Start Phoenix, send it a recovered call's trace, and screenshot the trace view."""
    phoenix = os.environ.get("RELAPSE_PHOENIX_BIN") or shutil.which("phoenix")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if phoenix is None or chromium is None:
        sys.exit("needs RELAPSE_PHOENIX_BIN (or phoenix on PATH) and chromium on PATH")
    workdir = Path(tempfile.mkdtemp(prefix="relapse-phoenix-"))
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PHOENIX_", "OTEL_"))}
    env.update(
        PHOENIX_HOST="127.0.0.1",
        PHOENIX_PORT=str(port),
        PHOENIX_GRPC_PORT=str(free_port()),
        PHOENIX_WORKING_DIR=str(workdir / "phoenix"),
        PHOENIX_TELEMETRY_ENABLED="false",
    )
    with (workdir / "phoenix.log").open("wb") as log:
        server = subprocess.Popen(
            [phoenix, "serve"], env=env, stdout=log, stderr=subprocess.STDOUT, cwd=workdir
        )
    try:
        wait_for(lambda: get(base + "/healthz") == "OK", "phoenix")
        app_env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
        app_env.update(
            OTEL_EXPORTER_OTLP_ENDPOINT=base,
            OTEL_EXPORTER_OTLP_HEADERS=f"x-project-name={PROJECT}",
            OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT="true",
        )
        done = subprocess.run(
            [sys.executable, str(APP)], env=app_env, capture_output=True, text=True,
            timeout=120, check=True,
        )  # fmt: skip
        match = re.search(r"trace id: ([0-9a-f]{32})", done.stdout)
        if match is None:
            sys.exit(f"app.py printed no trace id:\n{done.stdout}")
        trace_id = match.group(1)
        spans_url = f"{base}/v1/projects/{PROJECT}/spans?trace_id={trace_id}&limit=100"
        # root, call, 2 iterations, their 2 chats and 2 checks
        spans = wait_for(
            lambda: len(data := get(spans_url)["data"]) >= 8 and data, "the trace in phoenix"
        )
        rejected = min(
            (s for s in spans if s["name"] == "relapse.check"), key=lambda s: s["start_time"]
        )
        (project,) = [p for p in get(base + "/v1/projects")["data"] if p["name"] == PROJECT]
        url = (
            f"{base}/projects/{project['id']}/traces/{trace_id}?selectedSpanNodeId={rejected['id']}"
        )
        subprocess.run(
            [chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             "--window-size=1400,900", "--virtual-time-budget=20000",
             f"--user-data-dir={workdir / 'chromium'}", f"--screenshot={OUTPUT}", url],
            capture_output=True, timeout=180, check=True,
        )  # fmt: skip
        print(f"wrote {OUTPUT} ({url})")
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=30)
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
