"""
A loaded detector model: its tokenizer, its runtime, and the window arithmetic.

One :class:`LoadedModel` per (directory, backend, graph, threads, window) in a
process: :func:`load_model` keeps them, so every check built on the same
model, in any thread, shares one session.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
import numpy.typing as npt

from relapse.checks.detector._backends import OnnxBackend, Runtime, TransformersBackend
from relapse.checks.detector._encode import Encoded, PairEncoder
from relapse.checks.detector._loading import Backend, ModelFiles, window_of
from relapse.checks.detector._prompt import format_context
from relapse.checks.detector._spans import combine_windows

__all__ = ["DEFAULT_MAX_LENGTH", "LoadedModel", "Request", "load_model"]

#: LettuceDetect's default window (``TransformerDetector(max_length=4096)``),
#: lowered to the model's own ``max_position_embeddings`` when that is smaller.
DEFAULT_MAX_LENGTH = 4096

#: One answer to judge: (question or None, chunk texts, answer).
Request = tuple[str | None, Sequence[str], str]


@dataclass(frozen=True)
class _Plan:
    """The windows of one request, and where their answer tokens are."""

    windows: tuple[Encoded, ...]
    offsets: tuple[tuple[int, int], ...]


class LoadedModel:
    """
    A tokenizer and a runtime, shared by every check that uses the same model.

    Thread-safe: nothing here changes after construction.

    Args:
        files: The model's files.
        backend: ``"onnx"`` or ``"transformers"``.
        threads: ONNX Runtime threads per run, None for its default.
        max_length: The window in tokens, None for the default.
    """

    def __init__(
        self, files: ModelFiles, backend: Backend, threads: int | None, max_length: int | None
    ) -> None:
        self.files = files
        own = window_of(files.config)
        if max_length is None:
            max_length = min(DEFAULT_MAX_LENGTH, own) if own else DEFAULT_MAX_LENGTH
        self.encoder = PairEncoder(files.tokenizer.read_text(encoding="utf-8"), max_length)
        self.runtime: Runtime
        if backend == "onnx":
            assert files.onnx is not None
            self.runtime = OnnxBackend(files.onnx, threads)
        else:
            self.runtime = TransformersBackend(files.directory)

    def _plan(self, request: Request, lang: str) -> _Plan:
        question, passages, answer = request
        whole = self.encoder.encode(format_context(passages, question, lang), answer)
        if whole.truncated:
            prompts = self.encoder.prompts(passages, question, self.encoder.count(answer), lang)
            windows = tuple(self.encoder.encode(prompt, answer) for prompt in prompts)
        else:
            # It all fits: LettuceDetect's one window (its count of the prompt
            # beside the answer is this encoding's length), tokenized once.
            windows = (whole,)
        # The answer is the pair's second sequence and is never truncated, so
        # every window holds the same answer tokens.
        return _Plan(windows, windows[0].answer_offsets)

    def _run(self, windows: Sequence[Encoded], batch_size: int) -> list[npt.NDArray[np.float32]]:
        """The answer tokens' probabilities of every window, batched by length."""
        results: list[npt.NDArray[np.float32]] = [np.empty(0, np.float32)] * len(windows)
        order = sorted(range(len(windows)), key=lambda i: len(windows[i].ids))
        for first in range(0, len(order), batch_size):
            batch = order[first : first + batch_size]
            width = max(len(windows[i].ids) for i in batch)
            ids = np.full((len(batch), width), self.encoder.pad_id, dtype=np.int64)
            mask = np.zeros((len(batch), width), dtype=np.int64)
            for row, index in enumerate(batch):
                tokens = windows[index].ids
                ids[row, : len(tokens)] = tokens
                mask[row, : len(tokens)] = 1
            probabilities = self.runtime(ids, mask)
            for row, index in enumerate(batch):
                results[index] = probabilities[row, windows[index].answer_positions]
        return results

    def token_probabilities(
        self,
        requests: Sequence[Request],
        *,
        lang: str,
        vote: Literal["any_supports", "all_support"],
        batch_size: int,
    ) -> list[tuple[tuple[tuple[int, int], ...], npt.NDArray[np.float32]]]:
        """
        Per request, its answer tokens' offsets and hallucination probabilities.

        The windows of all requests run together, ``batch_size`` at a time,
        shortest first (less padding); a token's probability over several
        windows is combined by ``vote``.

        Raises:
            DetectorInputError: an answer does not fit in the window on its own.
        """
        plans = [self._plan(request, lang) for request in requests]
        flat = [window for plan in plans for window in plan.windows]
        probabilities = iter(self._run(flat, batch_size))
        out = []
        for plan in plans:
            per_window = [next(probabilities) for _ in plan.windows]
            out.append((plan.offsets, combine_windows(per_window, vote)))
        return out


_LOADED: dict[tuple[str, str, str, int | None, int | None], LoadedModel] = {}
_LOCK = threading.Lock()


def load_model(
    files: ModelFiles, backend: Backend, threads: int | None, max_length: int | None
) -> LoadedModel:
    """
    The process's one :class:`LoadedModel` for these settings, loaded on first use.

    Raises:
        ValueError: ``max_length`` leaves no room for the special tokens, or
            the tokenizer or graph cannot be read.
        ImportError: ``backend="transformers"`` without torch and transformers.
    """
    graph = str(files.onnx) if files.onnx is not None else ""
    key = (str(Path(files.directory).resolve()), backend, graph, threads, max_length)
    with _LOCK:
        model = _LOADED.get(key)
        if model is None:
            model = LoadedModel(files, backend, threads, max_length)
            _LOADED[key] = model
        return model
