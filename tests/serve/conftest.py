"""
The gateway tests' shared servers: one scripted upstream and one gateway in front of it.

Both are child processes on loopback, shared by the session and stopped by
process id when it ends. Tests that need other settings start their own
(:func:`serve_helpers.gateway`). Every request names a fresh script id
(:func:`script`), so tests sharing the servers never read each other's records.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

# The gateway runs on the serve extra; without it every test here skips.
pytest.importorskip("starlette", reason="the serve extra: pip install 'relapse[serve]'")
pytest.importorskip("uvicorn", reason="the serve extra: pip install 'relapse[serve]'")
pytest.importorskip("httpx", reason="the serve extra: pip install 'relapse[serve]'")

from serve_helpers import EXAMPLE, Server, gateway, scripted_upstream


@pytest.fixture(scope="session")
def upstream() -> Iterator[Server]:
    """The scripted upstream, shared by the session."""
    with scripted_upstream() as server:
        yield server


@pytest.fixture(scope="session")
def gw(upstream: Server) -> Iterator[Server]:
    """``relapse serve`` in front of the scripted upstream, default settings."""
    with gateway(upstream.v1) as server:
        yield server


@pytest.fixture(scope="session")
def node_example(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """examples/serve's Node client with its pinned packages installed (``npm ci``)."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.fail("the Node client tests need node and npm: apt-get install nodejs npm")
    where = tmp_path_factory.mktemp("node-example")
    for name in ("package.json", "package-lock.json", "client.mjs"):
        shutil.copy(EXAMPLE / name, where / name)
    done = subprocess.run(
        [npm, "ci", "--no-audit", "--no-fund", "--loglevel", "error"],
        cwd=where, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert 0 == done.returncode, done.stderr
    return where
