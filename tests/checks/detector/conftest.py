"""Detector models built per test session: a WordPiece one and a byte-level BPE one."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("onnxruntime", reason="the detector extra: pip install 'relapse[detector]'")
pytest.importorskip("onnx", reason="the tests build their ONNX graphs with the onnx package")

from detector_models import bpe_tokenizer, save_detector, wordpiece_tokenizer

#: The words the WordPiece test tokenizer knows; "lyon" is not one, so it is "ly" "##on".
WORDS = [
    "the", "capital", "of", "france", "is", "paris", "and", "its", "river", "seine",
    "who", "what", "bridge", "opened", "in", "perhaps", "ly", "maybe", "question",
    "passage", "1", "2", "3", "answer", "briefly", "following",
]  # fmt: skip
PIECES = ["##on"]

#: Text the BPE tokenizer is trained on.
CORPUS = [
    "The capital of France is Paris and its river is the Seine.",
    "Briefly answer the following question: what is the capital of France?",
    "The bridge opened in 1937. Perhaps Lyon, maybe Marseille.",
    "passage 1: passage 2: passage 3: output:",
] * 20


@pytest.fixture(scope="session")
def wordpiece_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A WordPiece detector; unsupported, "perhaps" (bias -4) has p=0.5, "maybe" (-5) less."""
    tokenizer = wordpiece_tokenizer(WORDS, PIECES)
    return save_detector(
        tmp_path_factory.mktemp("wordpiece"), tokenizer, bias={"perhaps": -4.0, "maybe": -5.0}
    )


@pytest.fixture(scope="session")
def bpe_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A byte-level BPE detector, no bias."""
    return save_detector(tmp_path_factory.mktemp("bpe"), bpe_tokenizer(CORPUS))
