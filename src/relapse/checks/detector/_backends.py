"""
The two runtimes: ONNX Runtime on CPU (the default) and ``transformers`` (optional).

Both take a padded batch of token ids with its attention mask and return the
probability of the "hallucinated" label (index 1, as LettuceDetect trains it)
for every token. The model sees ``input_ids`` and ``attention_mask`` only, no
token type ids: LettuceDetect passes only those two, in training and in
inference, so a BERT model was trained with type ids of zero.

Each backend is safe to call from several threads at once: an ONNX Runtime
session's ``run`` is, and the ``transformers`` model runs under
``torch.inference_mode`` without touching shared state.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt
import onnxruntime as ort

__all__ = ["OnnxBackend", "Runtime", "TransformersBackend", "probabilities_from_logits"]


class Runtime(Protocol):
    """Runs the token classifier: ids and mask of shape ``(batch, tokens)`` to probabilities."""

    def __call__(
        self, ids: npt.NDArray[np.int64], mask: npt.NDArray[np.int64]
    ) -> npt.NDArray[np.float32]:
        """The hallucination probability of every token, shape ``(batch, tokens)``."""


def probabilities_from_logits(logits: npt.NDArray[Any]) -> npt.NDArray[np.float32]:
    """
    The softmax probability of label 1, in float32, from logits of shape ``(batch, tokens, 2)``.

    Raises:
        ValueError: the model does not have exactly two labels.
    """
    if logits.ndim != 3 or logits.shape[-1] != 2:
        raise ValueError(
            f"the detector model returned logits of shape {logits.shape}; expected"
            " (batch, tokens, 2): a token classifier with two labels (supported, hallucinated)"
        )
    values = logits.astype(np.float32, copy=False)
    shifted = values - values.max(axis=-1, keepdims=True)
    exp = np.exp(shifted)
    probabilities: npt.NDArray[np.float32] = (exp[..., 1] / exp.sum(axis=-1)).astype(
        np.float32, copy=False
    )
    return probabilities


class OnnxBackend:
    """
    An ONNX Runtime session on the CPU.

    Args:
        graph: The ``.onnx`` file.
        threads: Threads per run (``intra_op_num_threads``); None for ONNX Runtime's default.

    Raises:
        ValueError: the graph has no ``input_ids`` input.
    """

    def __init__(self, graph: Path, threads: int | None) -> None:
        options = ort.SessionOptions()
        if threads is not None:
            options.intra_op_num_threads = threads
            options.inter_op_num_threads = 1
        self._session = ort.InferenceSession(
            str(graph), sess_options=options, providers=["CPUExecutionProvider"]
        )
        self._inputs = {i.name for i in self._session.get_inputs()}
        if "input_ids" not in self._inputs:
            raise ValueError(
                f"{graph} takes {sorted(self._inputs)}; expected an input named input_ids"
            )

    def __call__(
        self, ids: npt.NDArray[np.int64], mask: npt.NDArray[np.int64]
    ) -> npt.NDArray[np.float32]:
        feed = {"input_ids": ids}
        if "attention_mask" in self._inputs:
            feed["attention_mask"] = mask
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        logits = self._session.run(None, feed)[0]
        return probabilities_from_logits(np.asarray(logits))


class TransformersBackend:
    """
    ``AutoModelForTokenClassification`` in ``transformers``, on the CPU.

    Args:
        directory: The model directory.

    Raises:
        ImportError: torch or transformers is not installed.
    """

    def __init__(self, directory: Path) -> None:
        try:
            import torch
            from transformers import (
                AutoModelForTokenClassification,
            )
        except ImportError as error:
            raise ImportError(
                "backend='transformers' needs torch and transformers:"
                " pip install torch transformers (or use the default backend='onnx')"
            ) from error
        self._torch = torch
        self._model = AutoModelForTokenClassification.from_pretrained(str(directory))
        self._model.eval()

    def __call__(
        self, ids: npt.NDArray[np.int64], mask: npt.NDArray[np.int64]
    ) -> npt.NDArray[np.float32]:
        torch = self._torch
        with torch.inference_mode():
            logits = self._model(
                input_ids=torch.from_numpy(ids), attention_mask=torch.from_numpy(mask)
            ).logits
        return probabilities_from_logits(logits.float().numpy())
