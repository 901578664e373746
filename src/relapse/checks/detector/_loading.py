"""
Finding a detector model's files: a local directory, the Hugging Face cache, or a hub id.

A model directory is what ``save_pretrained`` writes (``config.json``, the
weights, ``tokenizer.json``) plus, for the ONNX backend, the exported graph
(``relapse export-detector``): ``model.onnx`` and ``model_int8.onnx``, in
the directory or its ``onnx/`` folder (where the hub's ONNX exports keep them,
with the int8 file sometimes named ``model_quantized.onnx``).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from huggingface_hub import snapshot_download
from huggingface_hub.errors import HfHubHTTPError, LocalEntryNotFoundError

from relapse.checks.detector._errors import DetectorModelError

__all__ = ["Backend", "ModelFiles", "Precision", "model_files", "resolve_directory"]

#: Which runtime runs the model.
Backend = Literal["onnx", "transformers"]
#: Which ONNX graph: the int8 one where exported (``"auto"``), or exactly one of the two.
Precision = Literal["auto", "int8", "fp32"]

#: ONNX file names per precision, in the order they are looked for.
_ONNX_NAMES: dict[str, tuple[str, ...]] = {
    "int8": (
        "model_int8.onnx",
        "onnx/model_int8.onnx",
        "model_quantized.onnx",
        "onnx/model_quantized.onnx",
    ),
    "fp32": ("model.onnx", "onnx/model.onnx"),
}
#: The weights ``transformers`` loads, any one of them.
_WEIGHTS = (
    "model.safetensors",
    "model.safetensors.index.json",
    "pytorch_model.bin",
    "pytorch_model.bin.index.json",
)
#: A hub id: ``owner/name`` (or a bare name), as the hub spells them.
_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*(/[A-Za-z0-9][\w.-]*)?$")
#: What the hub download fetches per backend (the weights only for transformers).
_PATTERNS: dict[str, list[str]] = {
    "onnx": ["config.json", "tokenizer.json", "tokenizer_config.json", "*.onnx", "onnx/*.onnx"],
    "transformers": [
        "config.json",
        "tokenizer.json",
        "tokenizer_config.json",
        "special_tokens_map.json",
        "*.safetensors",
        "*.bin",
        "*.index.json",
    ],
}


def resolve_directory(
    source: str | os.PathLike[str],
    backend: Backend,
    *,
    local_files_only: bool,
    revision: str | None,
) -> Path:
    """
    The local directory of the model ``source`` names.

    Args:
        source: A directory, or a hub id (``"KRLabsOrg/tinylettuce-ettin-17m-en"``)
            found in the Hugging Face cache or, unless ``local_files_only``,
            downloaded into it (``huggingface_hub.snapshot_download``; the
            cache is where ``HF_HUB_CACHE``/``HF_HOME`` put it, and
            ``HF_HUB_OFFLINE=1`` forbids downloads as well).
        backend: The backend, which decides the files fetched from the hub.
        local_files_only: Never download; use the cache only.
        revision: The hub revision (a branch, tag or commit), None for the default branch.

    Returns:
        The directory.

    Raises:
        DetectorModelError: ``source`` is a file, a directory that does not
            exist, or a hub id that is neither cached nor downloadable.
    """
    path = Path(source).expanduser()
    if path.is_dir():
        return path
    if path.exists():
        raise DetectorModelError(
            f"model {str(source)!r} is a file; expected a model directory or a hub id", source
        )
    text = os.fspath(source)
    if isinstance(source, Path) or not _HUB_ID.match(text) or text.startswith((".", "~")):
        raise DetectorModelError(
            f"model directory {text!r} does not exist (nor is it a hub id such as 'owner/name')",
            source,
        )
    try:
        found = snapshot_download(
            text,
            revision=revision,
            local_files_only=local_files_only,
            allow_patterns=_PATTERNS[backend],
        )
    except LocalEntryNotFoundError as error:
        where = (
            "the Hugging Face cache"
            if local_files_only
            else "the cache, and the hub is out of reach"
        )
        raise DetectorModelError(
            f"model {text!r} is not a directory and not in {where} ({error});"
            " pass a directory, or allow downloads (local_files_only=False) where there is network",
            source,
        ) from error
    except (HfHubHTTPError, OSError, ValueError) as error:
        raise DetectorModelError(
            f"model {text!r} is not a directory and the hub did not give it: {error}", source
        ) from error
    return Path(found)


@dataclass(frozen=True)
class ModelFiles:
    """
    The files of one model directory that a backend reads.

    Attributes:
        directory: The model directory.
        tokenizer: Its ``tokenizer.json``.
        config: Its ``config.json`` as a mapping (empty when absent and not needed).
        onnx: The ONNX graph the ONNX backend runs, None for transformers.
    """

    directory: Path
    tokenizer: Path
    config: dict[str, object]
    onnx: Path | None


def _first(directory: Path, names: tuple[str, ...]) -> Path | None:
    for name in names:
        if (directory / name).is_file():
            return directory / name
    return None


def model_files(directory: Path, backend: Backend, precision: Precision) -> ModelFiles:
    """
    Check that ``directory`` holds what ``backend`` needs, and name the files.

    Args:
        directory: A model directory.
        backend: ``"onnx"`` needs ``tokenizer.json`` and an ONNX graph;
            ``"transformers"`` needs ``tokenizer.json``, ``config.json`` and weights.
        precision: For ONNX: ``"auto"`` takes the int8 graph when there is
            one, else the fp32 one; ``"int8"`` or ``"fp32"`` only that one.

    Returns:
        The files.

    Raises:
        DetectorModelError: a file is missing (the message names the
            directory, the missing file and how to make it) or ``config.json``
            is not a JSON object.
    """
    tokenizer = directory / "tokenizer.json"
    if not tokenizer.is_file():
        raise DetectorModelError(
            f"model directory {str(directory)!r} has no tokenizer.json: the detector reads the"
            " fast tokenizer's file (save it with tokenizer.save_pretrained(directory) from a"
            " fast tokenizer)",
            directory,
            ("tokenizer.json",),
        )
    config_path = directory / "config.json"
    config: dict[str, object] = {}
    if config_path.is_file():
        loaded = json.loads(config_path.read_text(encoding="utf-8"))
        if not isinstance(loaded, dict):
            raise DetectorModelError(
                f"{config_path} holds {type(loaded).__name__}; expected a JSON object", directory
            )
        config = loaded
    if backend == "transformers":
        if not config_path.is_file():
            raise DetectorModelError(
                f"model directory {str(directory)!r} has no config.json, which transformers needs",
                directory,
                ("config.json",),
            )
        if _first(directory, _WEIGHTS) is None:
            raise DetectorModelError(
                f"model directory {str(directory)!r} has no weights: expected one of"
                f" {', '.join(_WEIGHTS)}",
                directory,
                (_WEIGHTS[0],),
            )
        return ModelFiles(directory, tokenizer, config, None)
    names = (
        _ONNX_NAMES["int8"] + _ONNX_NAMES["fp32"] if precision == "auto" else _ONNX_NAMES[precision]
    )
    graph = _first(directory, names)
    if graph is None:
        raise DetectorModelError(
            f"model directory {str(directory)!r} has no ONNX graph for precision"
            f" {precision!r}: looked for {', '.join(names)}. Export one with"
            f" `relapse export-detector {directory}` (needs torch), or pass backend='transformers'",
            directory,
            (names[0],),
        )
    return ModelFiles(directory, tokenizer, config, graph)


def window_of(config: dict[str, object]) -> int | None:
    """The model's window in tokens, from ``config.json``'s ``max_position_embeddings``."""
    value = config.get("max_position_embeddings")
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    return None
