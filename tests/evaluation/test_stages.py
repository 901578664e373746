"""relapse eval over a cascade: what each stage judged, caught and cost; batched workers, Ray."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from helpers import SIX, STAGED, write
from relapse import GroundingFinding, GroundingResult
from relapse.evaluation import evaluate, evaluate_batched, format_report, load_annotated


@pytest.fixture
def six(tmp_path: Path) -> Path:
    """helpers.SIX as a JSON Lines file."""
    return write(tmp_path, SIX)


def scored(query: str, chunks: Sequence[str], answer: str) -> GroundingResult:
    """FG001 scored 0.9 on "42", LJ001 scored 0.5 on "maybe" (for the mean-score column)."""
    findings = []
    if "42" in answer:
        findings.append(GroundingFinding("FG001", "42", ("42",), score=0.9))
    if "maybe" in answer:
        findings += [
            GroundingFinding("LJ001", "m", score=0.5),
            GroundingFinding("LJ001", "m", score=0.2),
        ]
    return GroundingResult(ok=not findings, findings=tuple(findings))


class TestStageTable:
    def test_each_stage_judged_caught_and_cost(self, six: Path) -> None:
        """
        flag_42_and_maybe judges all 6 and flags r1 r4 (caught) r3 (false alarm);
        the judge judges the 3 it passed (r2 r5 r6), catches r5, flags clean r2,
        at 104 tokens each: 312 tokens over 6 answers, 52 per answer.
        """
        report = evaluate(load_annotated(six), STAGED, name="staged")
        first, judge = report.stages["flag_42_and_maybe"], report.stages["judge"]
        assert (6, 2, 1, 0) == (
            first.judged,
            first.flagged_hallucinated,
            first.flagged_clean,
            first.usage_reported,
        )
        assert (3, 1, 1, 300, 12) == (
            judge.judged,
            judge.flagged_hallucinated,
            judge.flagged_clean,
            judge.input_tokens,
            judge.output_tokens,
        )
        assert 104.0 == judge.tokens_per_judged
        assert 52.0 == report.tokens_per_answer
        # Overall: flagged r1 r3 r4 (stage 1), r2 r5 (judge): P 3/5, R 3/4.
        assert (0.6, 0.75) == (report.overall.precision, report.overall.recall)

    def test_the_table_and_the_json(self, six: Path) -> None:
        """The report prints one row per stage with its share; the JSON holds the same."""
        report = evaluate(load_annotated(six), STAGED, name="staged")
        text = format_report(report)
        rows = {line.split()[0]: line.split()[1:] for line in text.splitlines() if line}
        # judged, share, caught, false alarms; ms/judged varies; tokens/judged n/a (none reported).
        first = rows["flag_42_and_maybe"]
        assert (["6", "1.000", "2", "1"], "n/a") == (first[:4], first[5])
        assert ["3", "0.500", "1", "1"] == rows["judge"][:4]
        assert "104.0" == rows["judge"][5]
        assert ", 52.0 check tokens per answer" in text
        data = report.to_dict()
        assert (3, 0.5, 104.0) == (
            data["stages"]["judge"]["judged"],
            data["stages"]["judge"]["share_judged"],
            data["stages"]["judge"]["tokens_per_judged"],
        )
        assert 52.0 == json.loads(json.dumps(data))["tokens_per_answer"]

    def test_mean_score_per_code(self, six: Path) -> None:
        """FG001 fires twice at 0.9; LJ001 twice in r4 at 0.5 and 0.2: means 0.9 and 0.35."""
        report = evaluate(load_annotated(six), scored)
        assert 0.9 == report.by_code["FG001"].mean_score
        assert 0.35 == pytest.approx(report.by_code["LJ001"].mean_score)
        assert "mean-score" in format_report(report)

    def test_no_stage_no_table_no_tokens(self, six: Path) -> None:
        """A plain check: no stage table, no tokens, no mean-score column."""
        report = evaluate(load_annotated(six), _plain)
        text = format_report(report)
        assert ({}, None) == (report.stages, report.tokens_per_answer)
        assert "judged" not in text
        assert "tokens per answer" not in text


def _plain(query: str, chunks: Sequence[str], answer: str) -> GroundingResult:
    return GroundingResult(ok="42" not in answer)


class TestBatched:
    def test_a_process_pool_gives_the_same_report(self, six: Path) -> None:
        """2 spawn workers, batches of 2: every count equal to the one-process run."""
        records = load_annotated(six)
        alone = evaluate(records, STAGED, name="helpers:STAGED").to_dict()
        pooled = evaluate_batched(records, "helpers:STAGED", workers=2, batch_size=2)
        batched = pooled.to_dict()
        for key in ("responses", "by_code", "stages", "input_tokens", "tokens_per_answer"):
            if key == "stages":
                for name in ("flag_42_and_maybe", "judge"):
                    for field in ("judged", "flagged_hallucinated", "flagged_clean"):
                        assert alone[key][name][field] == batched[key][name][field]
            else:
                assert alone[key] == batched[key]
        assert (2, "process") == (pooled.workers, pooled.engine)
        assert pooled.answers_per_s is not None

    @pytest.mark.parametrize(
        ("options", "message"),
        [
            ({"workers": 0}, "workers must be an int >= 1, got 0"),
            ({"batch_size": 0}, "batch_size must be an int >= 1, got 0"),
            ({"engine": "dask"}, "engine must be one of 'process', 'ray', got 'dask'"),
        ],
    )
    def test_bad_options_are_refused_before_any_process(
        self, six: Path, options: dict[str, object], message: str
    ) -> None:
        """Each bad option is named."""
        with pytest.raises(ValueError, match=message):
            evaluate_batched(load_annotated(six), "default", **options)  # type: ignore[arg-type]

    def test_a_bad_spec_fails_here(self, six: Path) -> None:
        """An unknown check fails before any worker starts, naming the part."""
        with pytest.raises(ValueError, match="'nope'"):
            evaluate_batched(load_annotated(six), "nope", workers=2)
