#!/usr/bin/env bash
# Set up everything the tests need from the project's own files, then lint,
# type-check and run the whole test suite. Safe to run again: it reuses the
# virtual environments it made.
set -euo pipefail
cd "$(dirname "$0")/.."

# `bash scripts/test.sh --fast`: the quick loop while you work (CONTRIBUTING.md),
# about five CPU-minutes, spread over the cores. ruff, mypy and the import guard
# in .venv (mypy reads the extras' types, so .venv is the one the full run
# sets up), then the tests that need no extra, no oracle and no slow, torch or
# load marker, in .venv-core: relapse with the dev group and no extra, where
# every test that needs an extra skips (pytest.importorskip), spread over the
# CPUs by pytest-xdist. Nothing else (the Phoenix venv, Node, the docs site,
# the release step) is touched.
if [ $# -gt 0 ]; then
  if [ "$1" != --fast ] || [ $# -gt 1 ]; then
    echo "usage: bash scripts/test.sh [--fast]" >&2
    exit 2
  fi
  if [ ! -x .venv/bin/mypy ] || [ ! -x .venv/bin/ruff ]; then
    echo "--fast needs .venv with the dev group and the extras: run bash scripts/test.sh once" >&2
    exit 1
  fi
  # Made once, and again whenever the lock or the project's dependencies change.
  if [ ! -x .venv-core/bin/pytest ] || ! cmp -s constraints.txt .venv-core/constraints.txt ||
    ! cmp -s pyproject.toml .venv-core/pyproject.toml; then
    rm -rf .venv-core
    python3 -m venv .venv-core
    .venv-core/bin/python -m pip install --quiet --constraint constraints.txt --upgrade "pip>=25.1"
    .venv-core/bin/python -m pip install --quiet --constraint constraints.txt -e . --group dev
    cp constraints.txt pyproject.toml .venv-core/
  fi
  .venv/bin/ruff check src tests benchmarks examples fuzz
  .venv/bin/ruff format --check src tests benchmarks examples fuzz
  .venv/bin/mypy
  .venv/bin/mypy --strict tests/typing
  .venv/bin/python scripts/inner_imports.py
  exec .venv-core/bin/pytest -q -n auto -m "not slow and not oracle and not torch and not load"
fi

# The local extra's llama-cpp-python is compiled the first time (about 6
# minutes on 2 cores) for a CPU baseline every machine of ours has; see setup.sh.
# The docs group too: tests/project/test_docs_build.py runs `mkdocs build --strict`.
# Every install is held to constraints.txt, the versions last tested
# (`bash scripts/lock.sh` refreshes it); only the release step below takes
# the newest releases of relapse's runtime dependencies.
# The detector extra (onnxruntime, tokenizers) runs tests/checks/detector on ONNX
# graphs the tests build; its torch-marked tests run in .venv-torch below.
RELAPSE_EXTRAS="otel,local,cli,server,serve,openai,langchain,llamaindex,mcp,pydantic-ai,haystack,detector,ray" bash scripts/setup.sh \
  --group dev --group docs --group release

# Arize Phoenix is the real tracing backend of the end-to-end test. It pins
# its own OpenTelemetry and web stack, so it lives in a venv of its own and the
# test only starts its server as a subprocess. Its versions are locked in
# constraints-phoenix.txt; the venv is brought to them whenever that file changes.
if [ ! -x .venv-phoenix/bin/phoenix ] || ! cmp -s constraints-phoenix.txt .venv-phoenix/constraints.txt; then
  python3 -m venv .venv-phoenix
  .venv-phoenix/bin/python -m pip install --quiet --constraint constraints-phoenix.txt --upgrade "pip>=25.1"
  .venv-phoenix/bin/python -m pip install --quiet --constraint constraints-phoenix.txt --group phoenix
  cp constraints-phoenix.txt .venv-phoenix/constraints.txt
fi
export RELAPSE_PHOENIX_BIN="$PWD/.venv-phoenix/bin/phoenix"

# The gateway's Node client (tests/serve/test_clients.py, examples/serve/client.mjs)
# runs on Node and npm from Debian's packages; the test installs the npm
# package itself from examples/serve/package-lock.json.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  if [ "$(id -u)" != 0 ]; then
    echo "the gateway's Node client tests need node and npm: sudo apt-get install nodejs npm" >&2
    exit 1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null
fi

.venv/bin/ruff check src tests benchmarks examples fuzz
.venv/bin/ruff format --check src tests benchmarks examples fuzz
.venv/bin/mypy
# The decorator's public types, pinned by a sample file (not part of the package).
.venv/bin/mypy --strict tests/typing
# No relapse module imports another inside a function to dodge a cycle: only
# the CLI and optional extras may (the allow-lists are in the script).
.venv/bin/python scripts/inner_imports.py
# Coverage of src/relapse (lines and branches; the settings are in
# pyproject.toml's [tool.coverage.*]), reported after the tests.
.venv/bin/pytest --cov=relapse --cov-report=term
# The tests that need torch (detector models built and exported, the fidelity
# test against lettucedetect) in their own venv: torch stays out of .venv.
bash scripts/test_torch.sh

# --- Documentation site: every page, link and API reference must resolve
# (mkdocs.yml sets strict; the flag repeats it so nobody loses it by accident).
# Not --quiet: that hides the warnings, and --strict fails only on warnings it
# sees. NO_MKDOCS_2_WARNING silences mkdocs-material's MkDocs 2.0 banner only.
# tests/project/test_docs_build.py proves a broken docstring fails this very command.
.venv/bin/ruff check docs/_ext
.venv/bin/ruff format --check docs/_ext
docs_site=$(mktemp -d)
NO_MKDOCS_2_WARNING=1 .venv/bin/mkdocs build --strict --site-dir "$docs_site"
rm -rf "$docs_site"

# --- Release: build the sdist and the wheel, check their metadata, then
# install the wheel alone into a fresh virtual environment and use it there.
release_dir=$(mktemp -d)
.venv/bin/python -m build --outdir "$release_dir/dist" .
.venv/bin/twine check --strict "$release_dir"/dist/*
sdist_files=$(tar -tzf "$release_dir"/dist/relapse-*.tar.gz)
for required in LICENSE tests/engine/test_run.py tests/conftest.py src/relapse/py.typed; do
  if ! grep -q "^relapse-[^/]*/$required\$" <<<"$sdist_files"; then
    echo "the sdist lacks $required" >&2
    exit 1
  fi
done
# No constraints here: a user installing today gets the newest releases of
# relapse's runtime dependencies, so this venv does too.
python3 -m venv "$release_dir/venv"
wheel=$(ls "$release_dir"/dist/relapse-*.whl)
"$release_dir/venv/bin/python" -m pip install --quiet "$wheel[cli]"
"$release_dir/venv/bin/python" -m pip install --quiet --upgrade opentelemetry-api wrapt
"$release_dir/venv/bin/relapse" check --help >/dev/null
(cd "$release_dir" && "$release_dir/venv/bin/python" - <<'PY'
import relapse

@relapse.grounded(chunks_arg="docs", max_iterations=2)
def answer(query: str, docs: list[str]) -> str:
    return "The bridge opened in 1937."

result = answer.run("When did the bridge open?", ["The Golden Gate Bridge opened in 1937."])
assert (result.grounded, result.iterations) == (True, 1), result
assert "site-packages" in relapse.__file__, relapse.__file__
print(f"installed wheel relapse {relapse.__version__}: a decorated call returned {result.answer!r}")
PY
)
# The core tests from the sdist (loop, decorator, run, checks, spans, metrics:
# those that need no extra and no model) against the installed wheel and those
# newest opentelemetry-api and wrapt. The test tools are the locked ones; the
# OpenTelemetry SDK is the newest too, since it must match the API's version.
grep -vE '^(opentelemetry-|wrapt==)' constraints.txt >"$release_dir/tools-constraints.txt"
"$release_dir/venv/bin/python" -m pip install --quiet --constraint "$release_dir/tools-constraints.txt" \
  pytest pytest-asyncio hypothesis opentelemetry-sdk
tar -xzf "$release_dir"/dist/relapse-*.tar.gz -C "$release_dir"
sdist_tree=$(ls -d "$release_dir"/relapse-*/)
cat >"$sdist_tree/tests/test_installed_wheel.py" <<'PY'
import relapse


def test_relapse_is_the_installed_wheel() -> None:
    assert "site-packages" in relapse.__file__, relapse.__file__
PY
"$release_dir/venv/bin/python" - <<'PY'
from importlib.metadata import version

tested = ", ".join(f"{name} {version(name)}" for name in ("opentelemetry-api", "opentelemetry-sdk", "wrapt"))
print(f"the installed wheel's core tests run against the newest {tested}")
PY
(cd "$sdist_tree" && env -u PYTHONPATH "$release_dir/venv/bin/python" -m pytest -p no:cacheprovider \
  --import-mode=importlib --rootdir . -q tests/test_installed_wheel.py \
  tests/decorator/test_{decorator,any_function,odd_input,pickling,async_detection}.py \
  tests/engine/test_{run,attempt,controls,cancellation,concurrency,user_exceptions,retry_excerpt}.py \
  tests/read/test_{answer_of,chunk_shapes,replies,streams,usage}.py \
  tests/checks/test_{checks,llm_judge}.py tests/evaluation/test_outcomes.py \
  tests/telemetry/test_{spans,check_span,content,events,metrics,usage,privacy}.py)
rm -rf "$release_dir"
