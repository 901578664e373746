"""The span detector as a grounding check: :class:`SpanDetector`."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from relapse._results import GroundingFinding, GroundingResult
from relapse.checks._contract import CheckOperators
from relapse.checks.detector._loading import (
    Backend,
    Precision,
    model_files,
    resolve_directory,
)
from relapse.checks.detector._model import LoadedModel, Request, load_model
from relapse.checks.detector._prompt import LANGUAGES
from relapse.checks.detector._spans import DetectedSpan, merge_spans
from relapse.prompts import inline

__all__ = ["DETECTOR_CODE", "SpanDetector"]

#: Finding code of a span the detector flags (an error or, in the band, a warning).
DETECTOR_CODE = "SD001"

#: How the windows of a long context vote on a token.
WindowVote = Literal["any_supports", "all_support"]


def _trimmed(span: DetectedSpan) -> tuple[int, int]:
    """The span without the whitespace at its ends (a BPE token's leading space)."""
    text = span.text
    start = span.start + (len(text) - len(text.lstrip()))
    end = span.end - (len(text) - len(text.rstrip()))
    return start, max(start, end)


def _positive_int(value: object, name: str, *, optional: bool) -> None:
    if optional and value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        expected = "a positive int or None" if optional else "a positive int"
        raise ValueError(f"{name} must be {expected}, got {value!r}")


def _rebuild(kwargs: dict[str, Any]) -> SpanDetector:
    """Unpickle a :class:`SpanDetector`: load (or reuse) its model in this process."""
    model = kwargs.pop("model")
    return SpanDetector(model, **kwargs)


class SpanDetector(CheckOperators):
    """
    A learned span detector as a grounding check: a token classifier flags the unsupported spans.

    It runs a Hugging Face token-classification model trained the way
    LettuceDetect trains its models (LettuceDetect, TinyLettuce) over the
    question, the chunks and the answer, in LettuceDetect's input format: the
    prompt (the question and the chunks as numbered passages) and the answer
    as a pair, the answer's tokens classified. Each run of consecutive tokens
    whose hallucination probability is at least ``threshold`` becomes an
    ``SD001`` error finding, located by character offsets in the answer, its
    ``score`` the highest probability among its tokens; with ``warn_from``,
    runs of tokens in ``[warn_from, threshold)`` become ``SD001`` warnings
    (reported, never rejecting). A context longer than the window is split
    into windows of whole passages (LettuceDetect's grouping); by default a
    token is flagged only when no window supports it.

    One instance is safe to share across threads; instances built on the
    same model directory and settings share one loaded model. It pickles by
    its arguments (a process pool's worker loads the model once).

    Args:
        model: A model directory, or a hub id found in the Hugging Face cache
            or downloaded where there is network (see ``local_files_only``).
        backend: ``"onnx"`` (ONNX Runtime on the CPU, the default; needs
            ``model.onnx`` or ``model_int8.onnx``, made by
            ``relapse export-detector``) or ``"transformers"`` (needs torch
            and transformers).
        precision: ONNX only: ``"auto"`` runs the int8 graph where there is
            one, else fp32; ``"int8"`` or ``"fp32"`` insist on one.
        threshold: A token at or above this probability is an error token, in ``(0, 1]``.
        warn_from: The bottom of the warning band, in ``(0, threshold)``; None for no warnings.
        max_length: The window in tokens, special tokens included; None for
            4096 or the model's ``max_position_embeddings`` if smaller.
        lang: The prompt's language: ``"en"``, ``"de"``, ``"fr"``, ``"es"``,
            ``"it"``, ``"pl"``, ``"cn"`` or ``"hu"`` (LettuceDetect's).
        window_vote: ``"any_supports"`` (a token is supported when one
            window supports it) or ``"all_support"`` (LettuceDetect's
            ``max``: only when every window does).
        batch_size: Windows per model run in :meth:`check_many` and :meth:`detect_many`.
        threads: ONNX Runtime threads per run; None for its default.
        local_files_only: Never download a hub id; use the cache only.
        revision: The hub revision of a hub id.
        code: The findings' code.
        name: The check's name in telemetry; default ``"span-detector"``.

    Raises:
        ValueError: an argument is out of range (the message names it).
        TypeError: ``threshold`` is not a number.
        DetectorModelError: the model directory, a file in it, or the hub id
            is missing (the message names the path and the file).
        ImportError: ``backend="transformers"`` without torch and transformers.

    .. versionadded:: 0.2.0
    """

    #: The detector needs the whole answer: with ``release="sentence"`` it is
    #: judged when the stream ends.
    incremental = False

    def __init__(
        self,
        model: str | os.PathLike[str],
        *,
        backend: Backend = "onnx",
        precision: Precision = "auto",
        threshold: float = 0.5,
        warn_from: float | None = None,
        max_length: int | None = None,
        lang: str = "en",
        window_vote: WindowVote = "any_supports",
        batch_size: int = 8,
        threads: int | None = None,
        local_files_only: bool = False,
        revision: str | None = None,
        code: str = DETECTOR_CODE,
        name: str = "span-detector",
    ) -> None:
        if backend not in ("onnx", "transformers"):
            raise ValueError(f"backend must be 'onnx' or 'transformers', got {backend!r}")
        if precision not in ("auto", "int8", "fp32"):
            raise ValueError(f"precision must be 'auto', 'int8' or 'fp32', got {precision!r}")
        if isinstance(threshold, bool) or not isinstance(threshold, int | float):
            raise TypeError(f"threshold must be a number in (0, 1], got {threshold!r}")
        if not 0.0 < threshold <= 1.0:
            raise ValueError(f"threshold must be in (0, 1], got {threshold!r}")
        if warn_from is not None and (
            isinstance(warn_from, bool)
            or not isinstance(warn_from, int | float)
            or not 0.0 < warn_from < threshold
        ):
            raise ValueError(
                f"warn_from must be None or a number in (0, threshold={threshold}),"
                f" got {warn_from!r}"
            )
        if lang not in LANGUAGES:
            raise ValueError(f"lang must be one of {', '.join(sorted(LANGUAGES))}, got {lang!r}")
        if window_vote not in ("any_supports", "all_support"):
            raise ValueError(
                f"window_vote must be 'any_supports' or 'all_support', got {window_vote!r}"
            )
        _positive_int(batch_size, "batch_size", optional=False)
        _positive_int(threads, "threads", optional=True)
        _positive_int(max_length, "max_length", optional=True)
        if not isinstance(code, str) or not code:
            raise ValueError(f"code must be a non-empty str, got {code!r}")
        self._kwargs: dict[str, Any] = {
            "model": model,
            "backend": backend,
            "precision": precision,
            "threshold": threshold,
            "warn_from": warn_from,
            "max_length": max_length,
            "lang": lang,
            "window_vote": window_vote,
            "batch_size": batch_size,
            "threads": threads,
            "local_files_only": local_files_only,
            "revision": revision,
            "code": code,
            "name": name,
        }
        directory = resolve_directory(
            model, backend, local_files_only=local_files_only, revision=revision
        )
        files = model_files(directory, backend, precision)
        self._model: LoadedModel = load_model(files, backend, threads, max_length)
        self.name = name
        self.threshold = float(threshold)
        self.warn_from = None if warn_from is None else float(warn_from)
        self.lang = lang
        self.window_vote: WindowVote = window_vote
        self.batch_size = batch_size
        self.code = code

    def __reduce__(self) -> tuple[Any, tuple[dict[str, Any]]]:
        return (_rebuild, (dict(self._kwargs),))

    def __repr__(self) -> str:
        return f"SpanDetector({str(self._kwargs['model'])!r}, backend={self.backend!r})"

    @property
    def backend(self) -> Backend:
        """The runtime: ``"onnx"`` or ``"transformers"``."""
        backend: Backend = self._kwargs["backend"]
        return backend

    @property
    def directory(self) -> Path:
        """The model directory the check loaded."""
        return self._model.files.directory

    @property
    def graph(self) -> Path | None:
        """The ONNX file it runs (int8 where ``precision="auto"`` found one); None otherwise."""
        return self._model.files.onnx

    @property
    def max_length(self) -> int:
        """The window in tokens, special tokens included."""
        return self._model.encoder.max_length

    def detect_many(
        self, items: Sequence[tuple[str, Sequence[str], str]]
    ) -> list[list[DetectedSpan]]:
        """
        The flagged spans of many answers, their windows batched together.

        Args:
            items: ``(query, chunk texts, answer)`` triples; an empty or
                blank query uses LettuceDetect's summary prompt (no question).

        Returns:
            Per item, its spans (errors and, with ``warn_from``, warnings) in
            answer order, at the tokens' exact offsets (a byte-level BPE
            token's span includes its leading space, as in LettuceDetect).

        Raises:
            DetectorInputError: an answer does not fit in the window on its own.
        """
        requests: list[Request] = [
            (query if query.strip() else None, list(chunks), answer)
            for query, chunks, answer in items
        ]
        scored = self._model.token_probabilities(
            requests, lang=self.lang, vote=self.window_vote, batch_size=self.batch_size
        )
        return [
            merge_spans(answer, offsets, probabilities, self.threshold, self.warn_from)
            for (_, _, answer), (offsets, probabilities) in zip(requests, scored, strict=True)
        ]

    def detect(self, query: str, chunks: Sequence[str], answer: str) -> list[DetectedSpan]:
        """The flagged spans of one answer; see :meth:`detect_many`."""
        return self.detect_many([(query, chunks, answer)])[0]

    def _result(self, answer: str, spans: list[DetectedSpan]) -> GroundingResult:
        findings = []
        for span in spans:
            start, end = _trimmed(span)
            if start == end:
                continue
            text = answer[start:end]
            score = min(1.0, max(0.0, span.score))
            if span.level == "error":
                message = f"{self.name} found {inline(text, 200)} unsupported (p={score:.2f})"
            else:
                message = (
                    f"{self.name} found {inline(text, 200)} possibly unsupported"
                    f" (p={score:.2f}, below the threshold {self.threshold:g})"
                )
            findings.append(
                GroundingFinding(self.code, message, (text,), ((start, end),), span.level, score)
            )
        ok = not any(f.severity == "error" for f in findings)
        return GroundingResult(ok, tuple(findings))

    def check_many(self, items: Sequence[tuple[str, Sequence[str], str]]) -> list[GroundingResult]:
        """
        Judge many answers at once (``relapse eval``), their windows batched together.

        Args:
            items: ``(query, chunk texts, answer)`` triples.

        Returns:
            One :class:`relapse.GroundingResult` per item, as :meth:`__call__` gives it.

        Raises:
            DetectorInputError: an answer does not fit in the window on its own.
        """
        spans = self.detect_many(items)
        return [self._result(answer, s) for (_, _, answer), s in zip(items, spans, strict=True)]

    def __call__(self, query: str, chunks: Sequence[str], answer: str) -> GroundingResult:
        """
        Judge ``answer`` to ``query`` against ``chunks``.

        Returns:
            Rejects (``ok`` False) when an error span is found. One ``SD001``
            finding per span, its ``spans`` and ``offsets`` the span without
            the whitespace at its ends, its ``score`` the span's probability.

        Raises:
            DetectorInputError: the answer does not fit in the window on its own.
        """
        return self.check_many([(query, chunks, answer)])[0]
