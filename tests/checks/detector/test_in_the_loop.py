"""
A LettuceDetect-format model directory as a cascade stage, in every place the loop runs.

The model is conftest's WordPiece detector (tests/detector_models.py): an
answer token is unsupported, ``p = sigmoid(4) = 0.982``, when its id is
not in the prompt (the question and the passages in LettuceDetect's
template). "Lyon" is "ly" "##on", in no passage: the rules (no number, date
or quotation) pass it, the detector flags it. "perhaps" carries a bias of
-4: ``p = sigmoid(0) = 0.5``, at the default threshold, an error.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import relapse
from detector_models import K, sigmoid
from helpers import record, write
from relapse._telemetry import attributes as attr
from relapse.checks import LLMJudge, cascade, stage
from relapse.checks.detector import DETECTOR_CODE, SpanDetector
from relapse.cli import main
from relapse.testing import CapturedSpans, ScriptedLLM

QUESTION = "What is the capital of France?"
CHUNKS = ["The capital of France is Paris and its river is the Seine."]
#: Passes the rules (nothing they read), flagged by the detector at "Lyon" (25-29).
LYON = "The capital of France is Lyon."
PARIS = "The capital of France is Paris."
P_UNSUPPORTED = sigmoid(K)


@pytest.fixture
def staged(wordpiece_dir: Path) -> Any:
    """The default check, then the detector on what the rules passed."""
    return cascade(relapse.default_grounding_check, SpanDetector(wordpiece_dir))


def _the_detectors_finding(findings: Any) -> None:
    (finding,) = findings
    assert (DETECTOR_CODE, ("Lyon",), ((25, 29),), "error") == (
        finding.code,
        finding.spans,
        finding.offsets,
        finding.severity,
    )
    assert math.isclose(P_UNSUPPORTED, finding.score, rel_tol=1e-6)


class TestOrder:
    def test_the_detector_runs_after_the_rules_and_before_a_judge_whatever_the_order(
        self, wordpiece_dir: Path
    ) -> None:
        """Its declared cost, 100 ms, sits between code (1) and a model (1000)."""
        detector = SpanDetector(wordpiece_dir)
        judge = LLMJudge(lambda prompt: "SUPPORTED")
        check = cascade(judge, detector, relapse.default_grounding_check)
        assert ["relapse.default", "span-detector", "relapse.llm_judge"] == [
            s.name for s in check.stages
        ]
        assert [1.0, 100.0, 1000.0] == [s.cost for s in check.stages]
        # stage(cost=...) still decides.
        first = cascade(relapse.default_grounding_check, stage(detector, cost=0.5))
        assert ["span-detector", "relapse.default"] == [s.name for s in first.stages]


class TestRun:
    def test_the_detectors_span_is_retried_named_and_traced(
        self, staged: Any, spans: CapturedSpans
    ) -> None:
        """Iteration 1: the rules pass LYON, the detector flags "Lyon"; iteration 2 passes."""
        llm = ScriptedLLM([LYON, PARIS])
        result = relapse.run(
            QUESTION,
            CHUNKS,
            call_llm=llm,
            grounding_check=staged,
            tracer_provider=spans.provider,
            capture_content=True,
        )
        assert (True, 2, PARIS) == (result.grounded, result.iterations, result.answer)
        first, second = result.transcript
        _the_detectors_finding(first.findings)
        # The record has both stages' runs: the rules passed, the detector rejected.
        assert [("relapse.default", True, True), ("span-detector", True, False)] == [
            (run.name, run.ran, run.ok) for run in first.stages
        ]
        _the_detectors_finding(first.stages[1].findings)
        assert [True, True] == [run.ok for run in second.stages]
        # The retry note (the second prompt) quotes the span and the detector's message.
        retry = llm.prompts[1]
        assert (
            f'Your previous answer was rejected: "{LYON}" states things the context does not'
            ' support: SD001: span-detector found Lyon unsupported (p=0.98) ["Lyon"]. Answer'
        ) in retry
        # The trace: the first iteration span carries the code, the score and the span.
        iteration = spans.named(attr.ITERATION_SPAN_NAME)[0]
        assert iteration.attributes is not None
        assert ("SD001",) == iteration.attributes[attr.RELAPSE_FINDINGS_CODES]
        assert math.isclose(
            P_UNSUPPORTED,
            iteration.attributes[attr.RELAPSE_FINDINGS_SCORE_MAX],  # type: ignore[arg-type]
            rel_tol=1e-6,
        )
        assert ("Lyon",) == iteration.attributes[attr.RELAPSE_FINDINGS_SPANS]
        check = spans.named(attr.CHECK_SPAN_NAME)[0]
        assert check.attributes is not None
        assert ("relapse.default", "span-detector") == check.attributes[attr.RELAPSE_CHECK_STAGES]
        assert ("pass", "fail") == check.attributes[attr.RELAPSE_CHECK_STAGES_VERDICT]

    def test_the_stages_band_makes_a_weak_span_a_warning_not_a_re_ask(
        self, wordpiece_dir: Path
    ) -> None:
        """threshold 0.7, band from 0.5: "perhaps" at p=0.5 is a warning; one iteration."""
        graded = stage(SpanDetector(wordpiece_dir), threshold=0.7, warn_from=0.5)
        llm = ScriptedLLM(["Paris is perhaps the capital.", PARIS])
        result = relapse.run(
            QUESTION,
            CHUNKS,
            call_llm=llm,
            grounding_check=cascade(relapse.default_grounding_check, graded),
        )
        assert (True, 1, 1) == (result.grounded, result.iterations, llm.calls)
        (finding,) = result.transcript[0].findings
        assert (DETECTOR_CODE, ("perhaps",), ((9, 16),), "warning", 0.5) == (
            finding.code,
            finding.spans,
            finding.offsets,
            finding.severity,
            finding.score,
        )

    def test_a_rule_rejection_never_runs_the_detector(self, staged: Any) -> None:
        """An invented year fails the rules: the detector's stage did not run."""
        result = relapse.run(
            QUESTION,
            CHUNKS,
            call_llm=ScriptedLLM(["The bridge opened in 1937.", PARIS]),
            grounding_check=staged,
        )
        assert (True, 2) == (result.grounded, result.iterations)
        assert [(True, False), (False, None)] == [
            (run.ran, run.ok) for run in result.transcript[0].stages
        ]
        assert DETECTOR_CODE not in {f.code for f in result.transcript[0].findings}


class TestDecorator:
    def test_the_decorator_recovers_with_the_detector_in_the_cascade(self, staged: Any) -> None:
        """@grounded: the detector's rejection re-asks; the note names "Lyon"."""
        llm = ScriptedLLM([LYON, PARIS])

        @relapse.grounded(chunks_arg="docs", grounding_check=staged)
        def answer(query: str, docs: list[str]) -> str:
            return llm(query)

        result = answer(QUESTION, CHUNKS)
        assert PARIS == result
        assert 2 == llm.calls
        assert 'SD001: span-detector found Lyon unsupported (p=0.98) ["Lyon"]' in llm.prompts[1]


def _streamed(text: str, check: Any) -> Any:
    @relapse.grounded(
        chunks_arg="docs", release="sentence", grounding_check=check, max_iterations=1
    )
    def answer(query: str, docs: list[str]) -> Iterator[str]:
        for word in text.split(" "):
            yield word + " "

    return answer


class TestStream:
    def test_the_flagged_sentence_is_never_released_the_clean_one_is(self, staged: Any) -> None:
        """PARIS is released; "Its river is the Lyon." is flagged alone and held back."""
        text = "The capital of France is Paris. Its river is the Lyon."
        with _streamed(text, staged)(QUESTION, CHUNKS) as stream:
            released = "".join(stream)
        assert "The capital of France is Paris. " == released
        (attempt,) = stream.result.transcript
        (finding,) = attempt.findings
        # Judged as a sentence alone, offsets moved into the answer: 32 + 17.
        assert (DETECTOR_CODE, ("Lyon",), ((49, 53),)) == (
            finding.code,
            finding.spans,
            finding.offsets,
        )
        assert "Lyon" == attempt.answer[49:53]
        assert [True, False] == [run.ok for run in attempt.stages]
        assert stream.result.grounded is False


#: Records over CHUNKS, judged by hand (default, then the detector on what it passed):
#: d1 clean, both pass                               -> TN
#: d2 "Lyon" invented: the rules pass, detector flags -> TP at the detector
#: d3 "1937" invented: the rules flag (year), detector skipped -> TP at the rules
#: d4 clean, both pass                               -> TN
#: d5 clean, "perhaps" at p=0.5 flagged by the detector -> false alarm at the detector
RECORDS = [
    record(PARIS, [], id="d1", question=QUESTION, passages=CHUNKS),
    record(LYON, ["Lyon"], id="d2", question=QUESTION, passages=CHUNKS),
    record("The bridge opened in 1937.", ["1937"], id="d3", question=QUESTION, passages=CHUNKS),
    record("Its river is the Seine.", [], id="d4", question=QUESTION, passages=CHUNKS),
    record("Paris is perhaps the capital.", [], id="d5", question=QUESTION, passages=CHUNKS),
]


class TestEval:
    def test_eval_check_gives_each_stages_share_catches_and_false_alarms(
        self, wordpiece_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """'default > module:DETECTOR': the rules judge 5, catch d3; the detector judges 4."""
        module = tmp_path / "stage_detector_module.py"
        module.write_text(
            "from relapse.checks.detector import SpanDetector\n"
            f"DETECTOR = SpanDetector({str(wordpiece_dir)!r})\n",
            encoding="utf-8",
        )
        monkeypatch.syspath_prepend(str(tmp_path))
        data = write(tmp_path, RECORDS)
        try:
            result = CliRunner().invoke(
                main, ["eval", str(data), "--check", "default > stage_detector_module:DETECTOR"]
            )
        finally:
            # The module names this test's model directory: no later test may import it.
            sys.modules.pop("stage_detector_module", None)
        assert 0 == result.exit_code, result.output
        rows = {line.split()[0]: line.split()[1:] for line in result.stdout.splitlines() if line}
        # judged, share of answers, caught, false alarms.
        assert ["5", "1.000", "1", "0"] == rows["relapse.default"][:4]
        assert ["4", "0.800", "1", "1"] == rows["span-detector"][:4]
        # Flagged d2 d3 d5: precision 2/3, recall 2/2.
        assert "precision 0.667, recall 1.000" in result.stdout
