"""Loading a detector: a directory, the Hugging Face cache, and what is missing."""

from __future__ import annotations

import shutil
from pathlib import Path

import huggingface_hub.constants
import pytest

from relapse.checks.detector import DetectorModelError, SpanDetector


def _copy(source: Path, target: Path, *, without: str | None = None) -> Path:
    shutil.copytree(source, target)
    if without is not None:
        (target / without).unlink()
    return target


class TestDirectory:
    def test_missing_tokenizer_names_the_path_and_the_file(
        self, wordpiece_dir: Path, tmp_path: Path
    ) -> None:
        directory = _copy(wordpiece_dir, tmp_path / "m", without="tokenizer.json")
        with pytest.raises(DetectorModelError, match=r"has no tokenizer\.json") as caught:
            SpanDetector(directory)
        assert (directory, ("tokenizer.json",)) == (caught.value.path, caught.value.missing)
        assert str(directory) in str(caught.value)

    def test_missing_onnx_graph_names_the_files_and_the_export_command(
        self, wordpiece_dir: Path, tmp_path: Path
    ) -> None:
        directory = _copy(wordpiece_dir, tmp_path / "m", without="model.onnx")
        with pytest.raises(DetectorModelError, match="relapse export-detector") as caught:
            SpanDetector(directory)
        assert ("model_int8.onnx",) == caught.value.missing
        assert "model.onnx" in str(caught.value)

    def test_fp32_only_when_asked_for_int8_is_missing(self, wordpiece_dir: Path) -> None:
        with pytest.raises(DetectorModelError, match="precision 'int8'"):
            SpanDetector(wordpiece_dir, precision="int8")

    def test_transformers_backend_needs_weights(self, wordpiece_dir: Path) -> None:
        with pytest.raises(DetectorModelError, match="has no weights") as caught:
            SpanDetector(wordpiece_dir, backend="transformers")
        assert ("model.safetensors",) == caught.value.missing

    def test_transformers_backend_needs_config(self, wordpiece_dir: Path, tmp_path: Path) -> None:
        directory = _copy(wordpiece_dir, tmp_path / "m", without="config.json")
        with pytest.raises(DetectorModelError, match=r"no config\.json"):
            SpanDetector(directory, backend="transformers")

    def test_directory_that_does_not_exist(self, tmp_path: Path) -> None:
        missing = tmp_path / "nowhere"
        with pytest.raises(DetectorModelError, match="does not exist") as caught:
            SpanDetector(missing)
        assert missing == caught.value.path

    def test_a_file_is_not_a_model(self, wordpiece_dir: Path) -> None:
        with pytest.raises(DetectorModelError, match="is a file"):
            SpanDetector(wordpiece_dir / "config.json")

    def test_auto_precision_prefers_the_int8_graph(
        self, wordpiece_dir: Path, tmp_path: Path
    ) -> None:
        directory = _copy(wordpiece_dir, tmp_path / "m")
        (directory / "onnx").mkdir()
        shutil.copy(directory / "model.onnx", directory / "onnx" / "model_quantized.onnx")
        assert directory / "onnx" / "model_quantized.onnx" == SpanDetector(directory).graph
        assert directory / "model.onnx" == SpanDetector(directory, precision="fp32").graph

    def test_window_defaults_to_the_models_positions(self, wordpiece_dir: Path) -> None:
        """config.json says 512 positions: the window is 512, below LettuceDetect's 4096."""
        assert 512 == SpanDetector(wordpiece_dir).max_length
        assert 100 == SpanDetector(wordpiece_dir, max_length=100).max_length


class TestHubCache:
    def test_hub_id_found_in_the_cache_without_network(
        self, wordpiece_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """The cache's layout: models--owner--name/refs/main names a snapshot directory."""
        cache = tmp_path / "hub"
        repo = cache / "models--acme--tiny-detector"
        commit = "0" * 40
        _copy(wordpiece_dir, repo / "snapshots" / commit)
        (repo / "refs").mkdir(parents=True)
        (repo / "refs" / "main").write_text(commit, encoding="utf-8")
        monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(cache))
        detector = SpanDetector("acme/tiny-detector", local_files_only=True)
        assert repo / "snapshots" / commit == detector.directory
        assert [] == detector.detect("Who?", ["Paris."], "Paris.")

    def test_hub_id_not_in_the_cache(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path))
        with pytest.raises(DetectorModelError, match="not in the Hugging Face cache"):
            SpanDetector("acme/absent", local_files_only=True)


class TestArguments:
    def test_threshold_must_be_a_number(self, wordpiece_dir: Path) -> None:
        with pytest.raises(TypeError, match="threshold must be a number"):
            SpanDetector(wordpiece_dir, threshold=True)

    @pytest.mark.parametrize(
        ("kwargs", "message"),
        [
            ({"threshold": 0}, "threshold must be in"),
            ({"threshold": 1.5}, "threshold must be in"),
            ({"warn_from": 0.5}, "warn_from must be None or a number in"),
            ({"warn_from": 0}, "warn_from must be None or a number in"),
            ({"lang": "xx"}, "lang must be one of"),
            ({"backend": "cuda"}, "backend must be"),
            ({"precision": "fp16"}, "precision must be"),
            ({"window_vote": "max"}, "window_vote must be"),
            ({"batch_size": 0}, "batch_size must be a positive int"),
            ({"threads": 0}, "threads must be a positive int or None"),
            ({"max_length": -1}, "max_length must be a positive int or None"),
            ({"max_length": 3}, "max_length must be more than the 3 special tokens"),
            ({"code": ""}, "code must be a non-empty str"),
        ],
    )
    def test_bad_argument_is_named(
        self, wordpiece_dir: Path, kwargs: dict[str, object], message: str
    ) -> None:
        with pytest.raises(ValueError, match=message):
            SpanDetector(wordpiece_dir, **kwargs)  # type: ignore[arg-type]
