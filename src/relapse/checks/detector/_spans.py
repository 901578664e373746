"""
From per-token probabilities to character spans of the answer.

LettuceDetect's rule (``TransformerDetector._predict_single``): the answer's
tokens are read in order; consecutive flagged tokens form one span, from the
first token's start to the last token's end, whose confidence is the highest
probability among them; an unflagged token closes the span. This module adds
one level: tokens at or above ``threshold`` make error spans, tokens in the
band ``[warn_from, threshold)`` make warning spans, each level merged on its
own, so the error spans are LettuceDetect's spans at that threshold.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

__all__ = ["DetectedSpan", "combine_windows", "merge_spans"]

#: How a span's level is named: it rejects, or it is reported only.
Level = Literal["error", "warning"]


@dataclass(frozen=True)
class DetectedSpan:
    """
    One span of the answer the detector flags.

    Attributes:
        start: Character offset of the span's first character in the answer.
        end: Character offset just after its last character (end exclusive).
        text: ``answer[start:end]``.
        score: The highest hallucination probability among its tokens, in ``[0, 1]``.
        level: ``"error"`` (at or above the detector's threshold) or
            ``"warning"`` (in the band below it).
    """

    start: int
    end: int
    text: str
    score: float
    level: Level


def combine_windows(
    probabilities: Sequence[npt.NDArray[np.float32]], vote: Literal["any_supports", "all_support"]
) -> npt.NDArray[np.float32]:
    """
    One probability per answer token from the windows' probabilities.

    Args:
        probabilities: Per window, the answer tokens' probabilities, each
            of shape ``(answer_tokens,)``.
        vote: ``"any_supports"``: the lowest probability over the windows (a
            token counts as supported when one window supports it: a long
            context split in windows spreads the support over them);
            ``"all_support"``: the highest (LettuceDetect's ``max``: supported
            only when every window supports it).

    Returns:
        Shape ``(answer_tokens,)``.
    """
    stacked = np.stack(probabilities)
    combined = stacked.min(axis=0) if vote == "any_supports" else stacked.max(axis=0)
    result: npt.NDArray[np.float32] = combined.astype(np.float32, copy=False)
    return result


def merge_spans(
    answer: str,
    offsets: Sequence[tuple[int, int]],
    probabilities: npt.NDArray[np.float32],
    threshold: float,
    warn_from: float | None,
) -> list[DetectedSpan]:
    """
    The spans of consecutive flagged answer tokens, in answer order.

    Args:
        answer: The answer text.
        offsets: Each answer token's ``(start, end)`` in ``answer``.
        probabilities: Each token's hallucination probability, parallel to ``offsets``.
        threshold: A token at or above it is an error token.
        warn_from: A token in ``[warn_from, threshold)`` is a warning token;
            None for no warnings.

    Returns:
        Error and warning spans, each level merged on its own, sorted by start.
    """
    spans: list[DetectedSpan] = []
    current: Level | None = None
    start = end = 0
    score = 0.0
    for (token_start, token_end), probability in zip(offsets, probabilities.tolist(), strict=True):
        level: Level | None = None
        if probability >= threshold:
            level = "error"
        elif warn_from is not None and probability >= warn_from:
            level = "warning"
        if level is not None and level == current:
            end = token_end
            score = max(score, probability)
            continue
        if current is not None:
            spans.append(DetectedSpan(start, end, answer[start:end], score, current))
        current = level
        start, end, score = token_start, token_end, probability
    if current is not None:
        spans.append(DetectedSpan(start, end, answer[start:end], score, current))
    return spans
