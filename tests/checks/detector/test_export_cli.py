"""``relapse export-detector`` without torch: a clear error, exit status 2."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from click.testing import CliRunner

from relapse.cli import main


@pytest.mark.skipif(
    importlib.util.find_spec("torch") is not None, reason="torch is installed: see test_export.py"
)
def test_export_without_torch_names_what_to_install(wordpiece_dir: Path) -> None:
    result = CliRunner().invoke(main, ["export-detector", str(wordpiece_dir)])
    assert 2 == result.exit_code
    assert "pip install torch transformers onnx" in result.output


def test_export_of_a_missing_directory_is_a_usage_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["export-detector", str(tmp_path / "nowhere")])
    assert 2 == result.exit_code
    assert "does not exist" in result.output
