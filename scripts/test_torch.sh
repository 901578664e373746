#!/usr/bin/env bash
# The tests that need torch: building random BERT/ModernBERT detector models,
# exporting them to ONNX (`relapse export-detector`), and the fidelity test
# against the lettucedetect package (tests marked `torch`). torch stays out of
# .venv and out of the `detector` extra: it lives in .venv-torch, held to
# constraints-torch.txt. On our machines `pip install torch==2.13.0` takes the
# CPU build from local disk; elsewhere pip may fetch the CUDA build (several GB).
#
#   bash scripts/test_torch.sh            # the torch-marked tests
#   bash scripts/test_torch.sh -k bert    # further arguments go to pytest
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x .venv-torch/bin/pytest ] || ! cmp -s constraints-torch.txt .venv-torch/constraints.txt; then
  python3 -m venv .venv-torch
  .venv-torch/bin/python -m pip install --quiet --constraint constraints-torch.txt --upgrade "pip>=25.1"
  .venv-torch/bin/python -m pip install --quiet --constraint constraints-torch.txt \
    torch lettucedetect transformers onnx onnxscript pytest pytest-asyncio hypothesis \
    opentelemetry-sdk -e ".[detector]"
  cp constraints-torch.txt .venv-torch/constraints.txt
fi
.venv-torch/bin/pytest -p no:cacheprovider -m torch tests/checks/detector "$@"
