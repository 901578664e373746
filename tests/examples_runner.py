"""Run the project's examples as a user would: a subprocess, with this checkout's relapse."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "integrations"
SRC = Path(__file__).resolve().parents[1] / "src"


def run_example(name: str, **env: str) -> str:
    """Run ``examples/integrations/<name>`` with this checkout's relapse; its stdout."""
    environment = {**os.environ, **env}
    environment["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(SRC), environment.get("PYTHONPATH", "")) if p
    )
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / name)],
        env=environment, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert 0 == done.returncode, done.stderr
    return done.stdout
