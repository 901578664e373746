"""
Exporting a detector model to ONNX (fp32 and int8), the one step that needs torch.

``relapse export-detector DIRECTORY`` (or :func:`export_onnx`) writes
``model.onnx`` next to the model's ``config.json`` with ``torch.onnx.export``,
inputs ``input_ids`` and ``attention_mask`` (what LettuceDetect feeds), output
``logits``, batch and length dynamic; then ``model_int8.onnx`` with ONNX
Runtime's dynamic quantization (int8 weights, activations quantized per run),
which is what :class:`~relapse.checks.detector.SpanDetector` runs by default.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tokenizers import Tokenizer

from relapse.checks.detector._loading import model_files

__all__ = ["export_onnx"]

#: The ONNX operator set the export targets (ONNX Runtime 1.17+ runs it).
OPSET = 17


def export_onnx(directory: Path, *, int8: bool = True, opset: int = OPSET) -> list[Path]:
    """
    Export the token classifier in ``directory`` to ONNX, beside its weights.

    Args:
        directory: A model directory ``save_pretrained`` wrote (``config.json``,
            weights, ``tokenizer.json``).
        int8: Also write the int8 graph (``model_int8.onnx``).
        opset: The ONNX operator set.

    Returns:
        The files written: ``model.onnx``, then ``model_int8.onnx`` when ``int8``.

    Raises:
        DetectorModelError: the directory lacks ``config.json``, weights or ``tokenizer.json``.
        ImportError: torch, transformers or onnx is not installed (``pip install torch
            transformers onnx``).
    """
    try:
        # Optional: exporting needs torch (and transformers, onnx); running does not.
        import torch
        from onnxruntime.quantization import QuantType, quantize_dynamic
        from transformers import AutoModelForTokenClassification
    except ImportError as error:
        raise ImportError(
            "exporting a detector needs torch, transformers and onnx:"
            " pip install torch transformers onnx"
        ) from error
    files = model_files(directory, "transformers", "auto")
    model = AutoModelForTokenClassification.from_pretrained(str(directory)).eval()

    class Logits(torch.nn.Module):  # type: ignore[misc]
        """The model with the two inputs LettuceDetect feeds, returning the logits alone."""

        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids: Any, attention_mask: Any) -> Any:
            return self.inner(input_ids=input_ids, attention_mask=attention_mask).logits

    tokenizer = Tokenizer.from_file(str(files.tokenizer))
    example = tokenizer.encode("A context to trace the graph with.", "An answer.")
    ids = torch.tensor([example.ids, example.ids], dtype=torch.long)
    mask = torch.ones_like(ids)
    fp32 = directory / "model.onnx"
    with torch.inference_mode():
        torch.onnx.export(
            Logits(model),
            (ids, mask),
            str(fp32),
            input_names=["input_ids", "attention_mask"],
            output_names=["logits"],
            dynamic_axes={
                "input_ids": {0: "batch", 1: "tokens"},
                "attention_mask": {0: "batch", 1: "tokens"},
                "logits": {0: "batch", 1: "tokens"},
            },
            opset_version=opset,
            dynamo=False,
        )
    written = [fp32]
    if int8:
        quantized = directory / "model_int8.onnx"
        quantize_dynamic(str(fp32), str(quantized), weight_type=QuantType.QInt8)
        written.append(quantized)
    return written
