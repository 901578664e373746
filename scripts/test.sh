#!/usr/bin/env bash
# Set up everything the tests need from the project's own files, then lint,
# type-check and run the whole test suite. Safe to run again: it reuses the
# virtual environments it made.
set -euo pipefail
cd "$(dirname "$0")/.."

# The local extra's llama-cpp-python is compiled the first time (about 6
# minutes on 2 cores) for a CPU baseline every machine of ours has; see setup.sh.
RELAPSE_EXTRAS="otel,local,cli,server,openai,langchain,llamaindex" bash scripts/setup.sh --group dev

# Arize Phoenix is the real tracing backend of the end-to-end test. It pins
# its own OpenTelemetry and web stack, so it lives in a venv of its own and the
# test only starts its server as a subprocess.
if [ ! -x .venv-phoenix/bin/phoenix ]; then
  python3 -m venv .venv-phoenix
  .venv-phoenix/bin/python -m pip install --quiet --upgrade "pip>=25.1"
  .venv-phoenix/bin/python -m pip install --quiet --group phoenix
fi
export RELAPSE_PHOENIX_BIN="$PWD/.venv-phoenix/bin/phoenix"

.venv/bin/ruff check src tests benchmarks examples fuzz
.venv/bin/ruff format --check src tests benchmarks examples fuzz
.venv/bin/mypy
# The decorator's public types, pinned by a sample file (not part of the package).
.venv/bin/mypy --strict tests/typing
.venv/bin/pytest
