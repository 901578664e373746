"""
scripts/wheelhouse.sh: one llama-cpp-python build at a time, and a build seen moving.

A fake ``python`` stands in for ``python -m pip wheel``: it prints compiler
progress lines, waits for the test's go-ahead and writes a wheel file, so the
lock and the heartbeat are tested without compiling anything.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "wheelhouse.sh"
if not SCRIPT.is_file():
    pytest.skip("needs the repository's scripts/", allow_module_level=True)

FAKE_PIP = """#!/usr/bin/env bash
# python -m pip wheel ... --wheel-dir DIR llama-cpp-python==VERSION
set -euo pipefail
echo "build" >>"$FAKE_BUILDS"
echo "CMAKE_ARGS=$CMAKE_ARGS"
touch "$FAKE_STARTED"
while [ "$#" -gt 0 ] && [ "$1" != --wheel-dir ]; do shift; done
echo "  [ 40%] Building CXX object vendor/llama.cpp/ggml.c.o"
until [ -e "$FAKE_GO" ]; do sleep 0.1; done
if [ -n "${FAKE_FAIL:-}" ]; then echo "error: the compiler failed"; exit 3; fi
echo "  [100%] Linking CXX shared library libllama.so"
touch "$2/llama_cpp_python-0.3.36-py3-none-linux_x86_64.whl"
"""


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    fake = tmp_path / "python"
    fake.write_text(FAKE_PIP, encoding="utf-8")
    fake.chmod(0o755)
    return {
        **os.environ,
        "RELAPSE_WHEELHOUSE": str(tmp_path / "wheels" / "llama"),
        "RELAPSE_HEARTBEAT_SECONDS": "1",
        "FAKE_BUILDS": str(tmp_path / "builds"),
        "FAKE_STARTED": str(tmp_path / "started"),
        "FAKE_GO": str(tmp_path / "go"),
        "FAKE_PYTHON": str(fake),
    }


def setup(env: dict[str, str]) -> subprocess.Popen[str]:
    """What scripts/setup.sh does about the wheel, with the fake python."""
    return subprocess.Popen(
        [
            "bash",
            "-c",
            f'set -euo pipefail; source "{SCRIPT}"; ensure_llama_wheel "$FAKE_PYTHON";'
            ' ls "$WHEELHOUSE"',
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def wait_for(path: Path) -> None:
    deadline = time.monotonic() + 30
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.05)


def test_a_second_setup_waits_for_the_first_build_and_takes_its_wheel(
    env: dict[str, str], tmp_path: Path
) -> None:
    first = setup(env)
    wait_for(tmp_path / "started")
    second = setup(env)
    time.sleep(2.5)  # the first one's heartbeat ticks; the second one waits
    (tmp_path / "go").touch()
    first_out, _ = first.communicate(timeout=60)
    second_out, _ = second.communicate(timeout=60)

    assert (0, 0) == (first.returncode, second.returncode), first_out + second_out
    assert ["build"] == (tmp_path / "builds").read_text().split()
    wheel = "llama_cpp_python-0.3.36-py3-none-linux_x86_64.whl"
    assert first_out.endswith(f"{wheel}\n")
    assert second_out.endswith(f"{wheel}\n")
    assert "waiting for another build of llama-cpp-python 0.3.36" in second_out
    # The waiter names the build's log and says every heartbeat (1 s here) that it waits.
    log = re.escape(env["RELAPSE_WHEELHOUSE"]) + r"\.build\.\w+/build\.log"
    assert re.search(rf"waiting for another build .*; its log: {log}\)$", second_out, re.M)
    assert re.search(
        rf"^  waiting for the other build: 0m0\ds \(its log: {log}\)$", second_out, re.M
    )
    assert "building llama-cpp-python 0.3.36" not in second_out
    assert re.search(
        r"^  building llama-cpp-python: 0m0\ds, \[ 40%\] Building CXX", first_out, re.M
    )
    assert "  building llama-cpp-python: done in 0m" in first_out
    # Only the wheel, moved in whole from a build folder beside the wheelhouse.
    assert [wheel] == os.listdir(env["RELAPSE_WHEELHOUSE"])
    # The log's name went with the build.
    assert ["llama", "llama.lock"] == sorted(os.listdir(tmp_path / "wheels"))


def test_a_failed_build_prints_its_log_and_releases_the_lock(
    env: dict[str, str], tmp_path: Path
) -> None:
    (tmp_path / "go").touch()
    failed = setup({**env, "FAKE_FAIL": "1"})
    out, _ = failed.communicate(timeout=60)
    assert 0 != failed.returncode
    assert "building llama-cpp-python failed (exit 3)" in out
    assert "error: the compiler failed" in out
    assert "-DGGML_NATIVE=OFF" in out  # CMAKE_ARGS reached pip
    assert [] == os.listdir(env["RELAPSE_WHEELHOUSE"])
    # The lock is free: the next set-up builds at once, without waiting.
    again = setup(env)
    out, _ = again.communicate(timeout=60)
    assert 0 == again.returncode, out
    assert "waiting" not in out
