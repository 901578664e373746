"""
Fidelity: SpanDetector's spans equal the lettucedetect package's own on the same model directory.

Marked ``torch``: runs in the environment of scripts/test_torch.sh (torch,
transformers, lettucedetect). The models are random BERT (WordPiece) and
ModernBERT (byte-level BPE) token classifiers the tests build and export
(tests/detector_torch_models.py); the answers are fixed, over the bundled
RAGTruth questions and passages.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.torch

lettucedetect = pytest.importorskip("lettucedetect.models.inference")
pytest.importorskip("torch")

from detector_torch_models import bert_detector, dev_records, modernbert_detector  # noqa: E402
from relapse.checks.detector import SpanDetector  # noqa: E402
from relapse.checks.detector._export import export_onnx  # noqa: E402

#: Sentences that no passage holds: names, numbers, accents, an emoji, a quotation.
INVENTED = [
    "It was founded in 1932 by Dr. Émile Zoë in Zürich.",
    'The report says "nearly 45.5% of them" were sold for $1,234,567.',
    "Experts 🙂 disagree; see pages 12–14.",
    "",
]


def _answers() -> list[tuple[str, list[str], str]]:
    """A fixed set: 24 records, each answered with its first passage's opening and an invention."""
    items = []
    for index, record in enumerate(dev_records()[:24]):
        passages = list(record["passages"])  # type: ignore[call-overload]
        opening = passages[0].split(". ")[0].strip() + "."
        answer = f"{opening} {INVENTED[index % len(INVENTED)]}".strip()
        items.append((str(record["question"]), passages, answer))
    return items


ANSWERS = _answers()


@pytest.fixture(scope="module", params=["bert", "modernbert"])
def model_dir(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp(request.param)
    build = bert_detector if request.param == "bert" else modernbert_detector
    build(directory)
    export_onnx(directory)
    return directory


_LETTUCE: dict[tuple[Path, int], list[list[tuple[int, int, str, float]]]] = {}


def _lettuce(directory: Path, max_length: int) -> list[list[tuple[int, int, str, float]]]:
    """lettucedetect's spans for ANSWERS, computed once per model and window."""
    if (directory, max_length) not in _LETTUCE:
        _LETTUCE[directory, max_length] = _lettuce_spans(directory, max_length)
    return _LETTUCE[directory, max_length]


def _lettuce_spans(directory: Path, max_length: int) -> list[list[tuple[int, int, str, float]]]:
    detector = lettucedetect.HallucinationDetector(
        method="transformer", model_path=str(directory), max_length=max_length, device="cpu"
    )
    return [
        [
            (s["start"], s["end"], s["text"], s["confidence"])
            for s in detector.predict(
                context=passages, answer=answer, question=question, output_format="spans"
            )
        ]
        for question, passages, answer in ANSWERS
    ]


def _ours(detector: SpanDetector) -> list[list[tuple[int, int, str, float]]]:
    found = detector.detect_many(ANSWERS)
    return [[(s.start, s.end, s.text, s.score) for s in spans] for spans in found]


def _assert_same(
    expected: list[list[tuple[int, int, str, float]]],
    actual: list[list[tuple[int, int, str, float]]],
    tolerance: float,
) -> None:
    assert [[s[:3] for s in spans] for spans in expected] == [
        [s[:3] for s in spans] for spans in actual
    ]
    for want, got in zip(expected, actual, strict=True):
        assert [s[3] for s in want] == pytest.approx([s[3] for s in got], abs=tolerance)


@pytest.mark.parametrize("max_length", [512, 160])
@pytest.mark.parametrize(
    ("backend", "precision", "tolerance"),
    [("transformers", "auto", 1e-5), ("onnx", "fp32", 1e-4)],
)
def test_spans_equal_lettucedetects(
    model_dir: Path, max_length: int, backend: str, precision: str, tolerance: float
) -> None:
    """Same spans, same confidences; 160 tokens splits most contexts into windows (max vote)."""
    expected = _lettuce(model_dir, max_length)
    assert sum(map(len, expected)) > len(ANSWERS)  # the random model flags plenty
    detector = SpanDetector(
        model_dir,
        backend=backend,  # type: ignore[arg-type]
        precision=precision,  # type: ignore[arg-type]
        max_length=max_length,
        window_vote="all_support",
        batch_size=4,
    )
    _assert_same(expected, _ours(detector), tolerance)


def test_some_contexts_need_windows(model_dir: Path) -> None:
    """The 160-token case does test windows: a third of the records or more need several."""
    detector = SpanDetector(model_dir, max_length=160, precision="fp32")
    encoder = detector._model.encoder
    windows = [len(encoder.prompts(p, q, encoder.count(a), "en")) for q, p, a in ANSWERS]
    assert sum(w > 1 for w in windows) >= len(ANSWERS) // 3
