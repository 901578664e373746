"""SpanDetector on ONNX graphs whose verdicts are known by hand (tests/detector_models.py)."""

from __future__ import annotations

import math
import pickle
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import relapse
from detector_models import K, sigmoid
from relapse.checks.detector import (
    DetectedSpan,
    DetectorInputError,
    SpanDetector,
)
from relapse.checks.detector._prompt import format_context

QUESTION = "What is the capital of France?"
CHUNKS = ["The capital of France is Paris."]
P_UNSUPPORTED = sigmoid(K)


class TestPrompt:
    def test_question_answering_prompt_is_lettucedetects(self) -> None:
        """The template of lettucedetect/prompts/qa_prompt_en.txt, passages numbered from 1."""
        expected = (
            "Briefly answer the following question:\nWho?\nBear in mind that your response"
            " should be strictly based on the following 2 passages:\npassage 1: A.\n"
            "passage 2: B.\nIn case the passages do not contain the necessary information to"
            ' answer the question, please reply with: "Unable to answer based on given'
            ' passages."\noutput:'
        )
        assert expected == format_context(["A.", "B."], "Who?", "en")

    def test_no_question_is_the_summary_prompt(self) -> None:
        expected = "Summarize the following text:\npassage 1: A.\noutput:"
        assert expected == format_context(["A."], None, "en")


class TestSpans:
    def test_unsupported_word_of_two_wordpieces_is_one_span(self, wordpiece_dir: Path) -> None:
        """'Lyon' is 'ly' '##on', both absent from the prompt: one span over both."""
        detector = SpanDetector(wordpiece_dir)
        answer = "The capital of France is Lyon."
        [span] = detector.detect(QUESTION, CHUNKS, answer)
        assert (25, 29, "Lyon", "error") == (span.start, span.end, span.text, span.level)
        assert math.isclose(P_UNSUPPORTED, span.score, rel_tol=1e-6)

    def test_supported_answer_passes(self, wordpiece_dir: Path) -> None:
        result = SpanDetector(wordpiece_dir)(QUESTION, CHUNKS, "The capital of France is Paris.")
        assert (True, ()) == (result.ok, result.findings)

    def test_finding_carries_span_offsets_and_score(self, wordpiece_dir: Path) -> None:
        result = SpanDetector(wordpiece_dir)(QUESTION, CHUNKS, "The capital of France is Lyon.")
        [finding] = result.findings
        assert (False, "SD001", ("Lyon",), ((25, 29),), "error") == (
            result.ok,
            finding.code,
            finding.spans,
            finding.offsets,
            finding.severity,
        )
        assert finding.score is not None
        assert math.isclose(P_UNSUPPORTED, finding.score, rel_tol=1e-6)

    def test_leading_whitespace_keeps_true_offsets(self, wordpiece_dir: Path) -> None:
        """Offsets into the answer as given (LettuceDetect subtracts the first token's start)."""
        [span] = SpanDetector(wordpiece_dir).detect(QUESTION, CHUNKS, "  Lyon.")
        assert (2, 6, "Lyon") == (span.start, span.end, span.text)

    def test_byte_level_bpe_span_has_its_leading_space_the_finding_not(self, bpe_dir: Path) -> None:
        """A BPE token holds the space before it: the raw span does, the finding is trimmed."""
        detector = SpanDetector(bpe_dir)
        answer = "The capital of France is Lyon."
        spans = detector.detect(QUESTION, CHUNKS, answer)
        assert [(24, 29, " Lyon")] == [(s.start, s.end, s.text) for s in spans]
        [finding] = detector(QUESTION, CHUNKS, answer).findings
        assert (("Lyon",), ((25, 29),)) == (finding.spans, finding.offsets)


class TestThresholds:
    ANSWER = "Perhaps Paris, maybe Lyon."

    def test_threshold_makes_errors_and_the_band_warnings(self, wordpiece_dir: Path) -> None:
        """perhaps: p = sigmoid(K - 4) = 0.5, at the threshold: error; maybe: sigmoid(-1): band."""
        detector = SpanDetector(wordpiece_dir, threshold=0.5, warn_from=0.2)
        spans = detector.detect(QUESTION, CHUNKS, self.ANSWER)
        assert [
            (0, 7, "error"),
            (15, 20, "warning"),
            (21, 25, "error"),
        ] == [(s.start, s.end, s.level) for s in spans]
        assert [0.5, sigmoid(-1.0), P_UNSUPPORTED] == pytest.approx([s.score for s in spans])

    def test_warnings_alone_do_not_reject(self, wordpiece_dir: Path) -> None:
        detector = SpanDetector(wordpiece_dir, threshold=0.99, warn_from=0.2)
        result = detector(QUESTION, CHUNKS, self.ANSWER)
        assert result.ok
        # maybe and Lyon are now both in the band and next to each other: one span.
        assert ["warning"] * 2 == [f.severity for f in result.findings]
        assert ["Perhaps", "maybe Lyon"] == [f.spans[0] for f in result.findings]

    def test_without_band_low_tokens_are_not_reported(self, wordpiece_dir: Path) -> None:
        detector = SpanDetector(wordpiece_dir, threshold=0.6)
        assert [(21, 25)] == [
            (s.start, s.end) for s in detector.detect(QUESTION, CHUNKS, self.ANSWER)
        ]


class TestWindows:
    PASSAGES = [
        "The capital of France is Paris.",
        "Its river is the Seine.",
        "The bridge opened in 1937.",
    ]
    ANSWER = "Paris, the Seine."

    def _window(self, directory: Path) -> int:
        """A window in which each passage fits only alone."""
        probe = SpanDetector(directory)
        encoder = probe._model.encoder
        overhead = encoder.count(format_context([""], QUESTION, "en"))
        longest = max(encoder.count(f"passage 1: {p}") for p in self.PASSAGES)
        return overhead + encoder.count(self.ANSWER) + encoder.specials + longest + 1

    def test_context_is_split_into_one_window_per_passage(self, wordpiece_dir: Path) -> None:
        detector = SpanDetector(wordpiece_dir, max_length=self._window(wordpiece_dir))
        encoder = detector._model.encoder
        prompts = encoder.prompts(self.PASSAGES, QUESTION, encoder.count(self.ANSWER), "en")
        assert [format_context([p], QUESTION, "en") for p in self.PASSAGES] == prompts

    def test_a_token_supported_in_one_window_is_not_flagged(self, wordpiece_dir: Path) -> None:
        """Paris is in window 1 only, Seine in window 2 only: neither is reported."""
        detector = SpanDetector(wordpiece_dir, max_length=self._window(wordpiece_dir))
        assert [] == detector.detect(QUESTION, self.PASSAGES, self.ANSWER)

    def test_all_support_vote_flags_what_one_window_lacks(self, wordpiece_dir: Path) -> None:
        """LettuceDetect's max over windows: Paris and Seine each lack support in some window."""
        detector = SpanDetector(
            wordpiece_dir, max_length=self._window(wordpiece_dir), window_vote="all_support"
        )
        spans = detector.detect(QUESTION, self.PASSAGES, self.ANSWER)
        assert [(0, 5, "Paris"), (11, 16, "Seine")] == [(s.start, s.end, s.text) for s in spans]

    def test_one_window_when_everything_fits(self, wordpiece_dir: Path) -> None:
        detector = SpanDetector(wordpiece_dir)
        encoder = detector._model.encoder
        prompts = encoder.prompts(self.PASSAGES, QUESTION, encoder.count(self.ANSWER), "en")
        assert [format_context(self.PASSAGES, QUESTION, "en")] == prompts

    def test_answer_longer_than_the_window_is_an_input_error(self, wordpiece_dir: Path) -> None:
        detector = SpanDetector(wordpiece_dir, max_length=8)
        with pytest.raises(DetectorInputError, match="window of 8 tokens"):
            detector(QUESTION, CHUNKS, "The capital of France is Paris and its river is the Seine.")


class TestBatchingAndSharing:
    ANSWERS = [
        "The capital of France is Lyon.",
        "Paris.",
        "Perhaps Paris, maybe Lyon, and the Seine is its river.",
        "",
    ]

    def test_check_many_equals_one_by_one(self, wordpiece_dir: Path) -> None:
        """Padding a batch changes nothing: batch_size 1 and 3 give the same spans and scores."""
        one = SpanDetector(wordpiece_dir, batch_size=1, warn_from=0.1)
        many = SpanDetector(wordpiece_dir, batch_size=3, warn_from=0.1)
        items = [(QUESTION, CHUNKS, a) for a in self.ANSWERS]
        assert [one(*item) for item in items] == many.check_many(items)

    def test_one_model_for_every_instance_and_thread(self, wordpiece_dir: Path) -> None:
        first = SpanDetector(wordpiece_dir)
        second = SpanDetector(wordpiece_dir, threshold=0.7)
        assert first._model is second._model
        expected = [first.detect(QUESTION, CHUNKS, a) for a in self.ANSWERS]
        barrier = threading.Barrier(4)

        def run(_: int) -> list[list[list[DetectedSpan]]]:
            barrier.wait()
            return [[first.detect(QUESTION, CHUNKS, a) for a in self.ANSWERS] for _ in range(5)]

        with ThreadPoolExecutor(4) as pool:
            results = list(pool.map(run, range(4)))
        assert [[expected] * 5] * 4 == results

    def test_pickles_by_its_arguments(self, wordpiece_dir: Path) -> None:
        detector = SpanDetector(wordpiece_dir, threshold=0.6, warn_from=0.2)
        copy = pickle.loads(pickle.dumps(detector))
        assert copy._model is detector._model
        assert detector(QUESTION, CHUNKS, "Maybe Lyon.") == copy(QUESTION, CHUNKS, "Maybe Lyon.")


class TestInTheLoop:
    def test_rejected_span_is_named_in_the_retry_and_the_retry_passes(
        self, wordpiece_dir: Path
    ) -> None:
        answers = iter(["The capital of France is Lyon.", "The capital of France is Paris."])
        prompts: list[str] = []

        def call_llm(prompt: str) -> str:
            prompts.append(prompt)
            return next(answers)

        result = relapse.run(
            QUESTION, CHUNKS, call_llm=call_llm, grounding_check=SpanDetector(wordpiece_dir)
        )
        assert (True, 2) == (result.grounded, result.iterations)
        assert [("Lyon",)] == [f.spans for f in result.transcript[0].findings]
        assert "Lyon" in prompts[1]

    def test_composes_after_the_default_check(self, wordpiece_dir: Path) -> None:
        check = relapse.default_grounding_check & SpanDetector(wordpiece_dir)
        result = check(QUESTION, CHUNKS, "The capital of France is Lyon.")
        assert ["SD001"] == [f.code for f in result.findings]
