"""
A learned span detector as a grounding check (``pip install 'relapse[detector]'``).

:class:`SpanDetector` runs a Hugging Face token-classification hallucination
detector in LettuceDetect's format (LettuceDetect, TinyLettuce) on ONNX
Runtime (or ``transformers``) and reports each unsupported span of the
answer as an ``SD001`` finding with its probability as the finding's score.
See docs/detectors.md.
"""

from __future__ import annotations

from relapse.checks.detector._check import DETECTOR_CODE, SpanDetector
from relapse.checks.detector._errors import DetectorInputError, DetectorModelError
from relapse.checks.detector._spans import DetectedSpan

__all__ = [
    "DETECTOR_CODE",
    "DetectedSpan",
    "DetectorInputError",
    "DetectorModelError",
    "SpanDetector",
]
