"""``relapse export-detector``: a saved token classifier to model.onnx and model_int8.onnx."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

pytestmark = pytest.mark.torch

pytest.importorskip("torch")
pytest.importorskip("transformers")

from detector_torch_models import bert_detector  # noqa: E402
from relapse.checks.detector import SpanDetector  # noqa: E402
from relapse.cli import main  # noqa: E402


def test_export_writes_both_graphs_and_auto_runs_int8(tmp_path: Path) -> None:
    directory = bert_detector(tmp_path / "bert")
    result = CliRunner().invoke(main, ["export-detector", str(directory)])
    assert 0 == result.exit_code, result.output
    # The output mixes in the exporters' own warnings; the written files are named after "wrote".
    written = re.findall(r"wrote (\S+)", result.output)
    assert ["model.onnx", "model_int8.onnx"] == [Path(path).name for path in written]
    assert directory / "model_int8.onnx" == SpanDetector(directory).graph


def test_export_of_an_incomplete_directory_names_the_file(tmp_path: Path) -> None:
    directory = bert_detector(tmp_path / "bert")
    (directory / "model.safetensors").unlink()
    result = CliRunner().invoke(main, ["export-detector", str(directory)])
    assert 2 == result.exit_code
    assert "has no weights" in result.output
