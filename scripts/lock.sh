#!/usr/bin/env bash
# Refresh the constraints files every install of scripts/setup.sh and
# scripts/test.sh is held to, so a fresh machine installs what was tested:
#
#   bash scripts/lock.sh            # constraints.txt and constraints-phoenix.txt
#   bash scripts/lock.sh main       # constraints.txt only
#   bash scripts/lock.sh phoenix    # constraints-phoenix.txt only
#
# Each is resolved from scratch, without constraints, in a throw-away virtual
# environment: constraints.txt from relapse with every extra and the dev, docs
# and release groups (the fuzz group, atheris, is installed by hand and not
# locked); constraints-phoenix.txt from the phoenix group, which pins its own
# OpenTelemetry and web stack in a venv of its own. Then `pip freeze --all
# --exclude-editable` (pip itself included, relapse left out). llama-cpp-python
# comes from our wheelhouse at the version scripts/wheelhouse.sh names
# (compiled first if it is missing). The ranges in pyproject.toml stay ranges:
# the lock binds CI and developers, not relapse's users.
#
# Then run `bash scripts/test.sh` (it installs the new versions) and commit the
# files it passed with. The files are resolved on, and for, CI's machine kind
# (CPython 3.11 on Linux x86-64).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/wheelhouse.sh

what=${1:-all}
case "$what" in
  all | main | phoenix) ;;
  *)
    echo "usage: bash scripts/lock.sh [all|main|phoenix]" >&2
    exit 2
    ;;
esac

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# freeze VENV FILE COMMAND: write VENV's frozen versions to FILE under a header.
freeze() {
  local venv=$1 file=$2 command=$3
  "$venv/bin/python" -m pip check
  {
    echo "# The versions last tested, which every pip install into $command"
    echo "# is held to (--constraint). Refresh: \`bash scripts/lock.sh\` (a from-scratch"
    echo "# resolution, $("$venv/bin/python" -V) on $(uname -sm)); do not edit by hand."
    "$venv/bin/python" -m pip freeze --all --exclude-editable
  } >"$work/$(basename "$file")"
  mv "$work/$(basename "$file")" "$file"
  echo "wrote $file: $(grep -c '==' "$file") pins"
}

if [ "$what" != phoenix ]; then
  extras=$(python3 -c 'import tomllib; print(",".join(tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]))')
  python3 -m venv "$work/main"
  "$work/main/bin/python" -m pip install --quiet --upgrade pip
  ensure_llama_wheel "$work/main/bin/python"
  echo "resolving relapse[$extras] with the dev, docs and release groups"
  "$work/main/bin/python" -m pip install --quiet --find-links "$WHEELHOUSE" \
    "llama-cpp-python==$LLAMA_CPP_VERSION" -e ".[$extras]" --group dev --group docs --group release
  freeze "$work/main" constraints.txt ".venv (scripts/setup.sh and test.sh)"
fi

if [ "$what" != main ]; then
  python3 -m venv "$work/phoenix"
  "$work/phoenix/bin/python" -m pip install --quiet --upgrade pip
  echo "resolving the phoenix group"
  "$work/phoenix/bin/python" -m pip install --quiet --group phoenix
  freeze "$work/phoenix" constraints-phoenix.txt ".venv-phoenix (scripts/test.sh)"
fi
