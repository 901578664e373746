#!/usr/bin/env bash
# Make .venv with relapse and the local model runtime, from the project's own
# files. Safe to run again: it reuses what it already built.
#
#   bash scripts/setup.sh                      # what the demo needs
#   RELAPSE_EXTRAS=otel,local,cli bash scripts/setup.sh --group dev
#
# RELAPSE_EXTRAS picks relapse's extras (default: local); further arguments go
# to the final pip install.
#
# llama-cpp-python ships no wheels on PyPI, so pip compiles llama.cpp from
# source. Left to itself the build targets the build machine's own CPU
# (GGML_NATIVE), and a virtual machine can hand the same install a CPU without
# the AVX-512 or AMX instructions it was compiled for ("Illegal instruction").
# So we compile for the x86-64 baseline every current server CPU has (AVX2,
# FMA, F16C), into a wheelhouse of our own keyed by version and flags: pip's
# wheel cache ignores build flags and could hand back a native build.
set -euo pipefail
cd "$(dirname "$0")/.."

LLAMA_CPP_VERSION="0.3.36"
CMAKE_FLAGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF -DGGML_AVX_VNNI=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF -DLLAMA_CURL=OFF"
flags_key=$(printf '%s %s' "$LLAMA_CPP_VERSION" "$CMAKE_FLAGS" | sha256sum | cut -c1-16)
WHEELHOUSE="${RELAPSE_WHEELHOUSE:-${XDG_CACHE_HOME:-$HOME/.cache}/relapse/wheels/llama-cpp-python-$flags_key}"

python3 -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade "pip>=25.1"

if ! ls "$WHEELHOUSE"/llama_cpp_python-"$LLAMA_CPP_VERSION"-*.whl >/dev/null 2>&1; then
  echo "building llama-cpp-python $LLAMA_CPP_VERSION for the x86-64 AVX2 baseline (about 6 minutes on 2 cores, once)"
  mkdir -p "$WHEELHOUSE"
  CMAKE_ARGS="$CMAKE_FLAGS" .venv/bin/python -m pip wheel --quiet --no-cache-dir --no-deps \
    --wheel-dir "$WHEELHOUSE" "llama-cpp-python==$LLAMA_CPP_VERSION"
fi

# --find-links offers our wheel; pip prefers a wheel to the sdist of the same
# version, so it never compiles a native build here.
.venv/bin/python -m pip install --quiet --find-links "$WHEELHOUSE" \
  "llama-cpp-python==$LLAMA_CPP_VERSION" -e ".[${RELAPSE_EXTRAS:-local}]" "$@"
