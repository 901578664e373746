"""
The examples under examples/serve/, run as a user would: Node's ``openai`` package and Python's.

The Node client's packages are installed by the test set-up from the pinned
lock file (examples/serve/package-lock.json) with ``npm ci`` into a
temporary directory; Node and npm come from Debian's packages
(``apt-get install nodejs npm``). Against the scripted upstream's model that
needs no script (``scripted-retry``) the printed values are exact.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from scripted_upstream import RETRY_ANSWERS, RETRYING
from serve_helpers import EXAMPLE, Server

SRC = Path(__file__).resolve().parents[2] / "src"
#: The first attempt's verified sentence, then the retry's.
EXPECTED_TEXT = f"{RETRY_ANSWERS[0].split('. ')[0]}. {RETRY_ANSWERS[1]}"


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
    """The printed answer, the lines about it, and the relapse object of the last line."""
    lines = output.splitlines()
    assert lines[-1].startswith("relapse: "), output
    return lines[0], lines[1:-1], json.loads(lines[-1].removeprefix("relapse: "))


def check_exact(output: str) -> None:
    text, lines, report = parsed(output)
    assert EXPECTED_TEXT == text
    at = EXPECTED_TEXT.index("1937")
    assert [
        "outcome: recovered, grounded: true, iterations: 2",
        "attempt 1: FG002 1 date(s) not in the retrieved chunks: '1936'",
        'cited: "1937" from golden-gate',
    ] == lines
    assert [[at, at + 4]] == [c["answer_offsets"] for c in report["citations"]]
    # Only the retry's usage chunk was read: the first stream was closed at its failing sentence.
    assert (10, 4, 14, 1) == (
        report["usage"]["prompt_tokens"],
        report["usage"]["completion_tokens"],
        report["usage"]["total_tokens"],
        report["usage"]["attempts_unreported"],
    )


def test_node_client_gets_a_grounded_stream_with_findings_and_citations(
    node_example: Path, gw: Server
) -> None:
    check_exact(run_node(node_example, gw, RETRYING))


def test_python_client_gets_a_grounded_stream_with_findings_and_citations(gw: Server) -> None:
    check_exact(run_python(gw, RETRYING))
