#!/usr/bin/env bash
# Make .venv with relapse and the local model runtime, from the project's own
# files. Safe to run again: it reuses what it already built.
#
#   bash scripts/setup.sh                      # what the demo needs
#   RELAPSE_EXTRAS=otel,local,cli bash scripts/setup.sh --group dev
#
# RELAPSE_EXTRAS picks relapse's extras (default: local); further arguments go
# to the final pip install. Every install is held to constraints.txt, the
# versions last tested (refresh it with `bash scripts/lock.sh`).
#
# llama-cpp-python is compiled once for the x86-64 AVX2 baseline into a
# wheelhouse of our own (scripts/wheelhouse.sh says why); a second set-up run
# meanwhile waits for that build instead of starting its own.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/wheelhouse.sh

python3 -m venv .venv
.venv/bin/python -m pip install --quiet --constraint constraints.txt --upgrade "pip>=25.1"

ensure_llama_wheel .venv/bin/python

# --find-links offers our wheel; pip prefers a wheel to the sdist of the same
# version, so it never compiles a native build here.
.venv/bin/python -m pip install --quiet --constraint constraints.txt --find-links "$WHEELHOUSE" \
  "llama-cpp-python==$LLAMA_CPP_VERSION" -e ".[${RELAPSE_EXTRAS:-local}]" "$@"
