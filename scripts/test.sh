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
# Coverage of src/relapse (lines and branches; the settings are in
# pyproject.toml's [tool.coverage.*]), reported after the tests.
.venv/bin/pytest --cov=relapse --cov-report=term

# --- Documentation site: every page, link and API reference must resolve
# (mkdocs.yml sets strict; the flag repeats it so nobody loses it by accident).
.venv/bin/python -m pip install --quiet --group docs
.venv/bin/ruff check docs/_ext
.venv/bin/ruff format --check docs/_ext
docs_site=$(mktemp -d)
NO_MKDOCS_2_WARNING=1 .venv/bin/mkdocs build --strict --quiet --site-dir "$docs_site"
rm -rf "$docs_site"

# --- Release: build the sdist and the wheel, check their metadata, then
# install the wheel alone into a fresh virtual environment and use it there.
.venv/bin/python -m pip install --quiet --group release
release_dir=$(mktemp -d)
.venv/bin/python -m build --outdir "$release_dir/dist" .
.venv/bin/twine check --strict "$release_dir"/dist/*
sdist_files=$(tar -tzf "$release_dir"/dist/relapse-*.tar.gz)
for required in LICENSE tests/test_run.py tests/conftest.py src/relapse/py.typed; do
  if ! grep -q "^relapse-[^/]*/$required\$" <<<"$sdist_files"; then
    echo "the sdist lacks $required" >&2
    exit 1
  fi
done
python3 -m venv "$release_dir/venv"
wheel=$(ls "$release_dir"/dist/relapse-*.whl)
"$release_dir/venv/bin/python" -m pip install --quiet "$wheel[cli]"
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
rm -rf "$release_dir"
