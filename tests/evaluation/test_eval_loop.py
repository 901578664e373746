"""relapse.evaluation.evaluate_loop: outcomes, refusals apart, calls, tokens, prompt growth."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import relapse
from helpers import INVENTED, LoopFake, refuse_to_load
from relapse.evaluation import evaluate_loop, format_loop_report, load_questions
from relapse.testing import capture_spans
from sdk_shapes import ChatCompletion, chat_completion


def question(key: str, **extra: object) -> dict[str, object]:
    """A question record whose first passage is the fake model's key."""
    return {"id": key, "question": f"What about {key}?", "passages": [key, "more"], **extra}


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    """Four questions (one of each fate), a repeat of the first, and a Summary record."""
    lines = [
        question("first"),
        question("recovers"),
        question("first"),  # a second response to the same question in RAGTruth
        question("refuses"),
        {"id": "s1", "task_type": "Summary", "question": None, "passages": ["an article"]},
        question("stubborn"),
    ]
    path = tmp_path / "questions.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


class TestEvaluateLoop:
    def test_outcomes_and_rates(self, dataset: Path) -> None:
        """1 first try, 1 recovered, 1 recovered as a refusal, 1 exhausted at 2 calls."""
        report = evaluate_loop(load_questions(dataset), LoopFake, max_iterations=2)
        assert ["first", "recovers", "refuses", "stubborn"] == [run.id for run in report.runs]
        assert [
            "grounded_first_try",
            "recovered",
            "recovered_refusal",
            "exhausted",
        ] == [run.outcome for run in report.runs]
        assert (0.25, 0.75) == (report.first_try_rate, report.final_rate)
        assert {
            "grounded_first_try": 1,
            "recovered": 1,
            "recovered_refusal": 1,
            "echoed": 0,
            "exhausted": 1,
            "stalled": 0,
            "timeout": 0,
        } == report.outcomes

    def test_calls_tokens_and_prompt_growth(self, dataset: Path) -> None:
        """Calls 1+2+2+2 = 7 (mean 1.75); 12 tokens a call (21.0); retries 150/100 chars."""
        report = evaluate_loop(load_questions(dataset), LoopFake, max_iterations=2)
        assert [1, 2, 2, 2] == [run.calls for run in report.runs]
        assert (1.75, 21.0, 1.5) == (
            report.mean_calls,
            report.mean_tokens,
            report.retry_prompt_ratio,
        )
        assert (100, 150) == report.runs[1].prompt_chars

    def test_repeats_and_questionless_records_are_reported(self, dataset: Path) -> None:
        """The repeated question runs once; the Summary record is listed as not run."""
        report = evaluate_loop(load_questions(dataset), LoopFake, max_iterations=2)
        assert 1 == report.duplicates
        assert [(5, "s1", "no question (task type Summary)")] == report.not_run
        text = format_loop_report(report)
        assert "not run: line 5 (id s1): no question (task type Summary)" in text
        assert "1 record(s) repeat an earlier question: run once" in text

    def test_summary_line(self, dataset: Path) -> None:
        """The printed summary carries the hand-computed figures."""
        text = format_loop_report(
            evaluate_loop(load_questions(dataset), LoopFake, max_iterations=2)
        )
        assert text.startswith(
            "summary: 4 questions, first-try grounded 0.25 (1/4), final grounded 0.75 (3/4),"
            " recovered 2 (1 as a refusal), echoed 0, mean calls 1.75, mean tokens 21,"
            " retry prompt / first prompt 1.50, "
        )

    def test_an_echo_is_counted_apart(self, tmp_path: Path) -> None:
        """A retry echoing the retry instructions: rejected to the end, echoed, not recovered."""
        path = tmp_path / "echo.jsonl"
        path.write_text(
            "".join(json.dumps(question(key)) + "\n" for key in ("recovers", "echoes")),
            encoding="utf-8",
        )
        report = evaluate_loop(load_questions(path), LoopFake, max_iterations=2)
        assert ["recovered", "echoed"] == [run.outcome for run in report.runs]
        assert format_loop_report(report).startswith(
            "summary: 2 questions, first-try grounded 0.00 (0/2), final grounded 0.50 (1/2),"
            " recovered 1 (0 as a refusal), echoed 1, "
        )

    def test_recovery_rate_per_finding_code(self, tmp_path: Path) -> None:
        """The invented 987654 (FG001): resolved by recovers, refuses, echoes; kept by stubborn."""
        path = tmp_path / "lineage.jsonl"
        keys = ("first", "recovers", "refuses", "stubborn", "echoes")
        path.write_text("".join(json.dumps(question(key)) + "\n" for key in keys), encoding="utf-8")
        report = evaluate_loop(load_questions(path), LoopFake, max_iterations=2)
        # The echo's retry resolved the number and introduced one FG004 span.
        assert {"FG001": (3, 1, 0), "FG004": (0, 0, 1)} == report.lineage_totals()
        assert {"FG001": 3 / 4} == report.recovery_rates
        assert {"FG004": 1} == report.runs[4].introduced
        text = format_loop_report(report)
        assert (
            "recovery by finding code (failing spans a retry resolved):\n"
            "  FG001     0.75 (3/4 resolved, 0 introduced)\n"
            "  FG004      n/a (0/0 resolved, 1 introduced)"
        ) in text
        assert {"FG001": 0.75} == report.to_dict()["recovery_rates"]

    def test_limit(self, dataset: Path) -> None:
        """--limit counts distinct questions."""
        report = evaluate_loop(load_questions(dataset), LoopFake, max_iterations=2, limit=2)
        assert ["first", "recovers"] == [run.id for run in report.runs]

    def test_a_model_without_counters_has_no_token_figure(self, dataset: Path) -> None:
        """Tokens are n/a, never 0, when the model does not count them."""

        class Uncounted(LoopFake):
            def __init__(self) -> None:
                pass

            def __call__(self, prompt: str) -> str:
                return "Fine."

        report = evaluate_loop(load_questions(dataset), Uncounted, max_iterations=2)
        assert None is report.mean_tokens
        assert ", mean tokens n/a," in format_loop_report(report)

    def test_two_worker_processes_give_the_same_runs(self, dataset: Path) -> None:
        """A spawned pool of two: same outcomes in dataset order as in-process."""
        report = evaluate_loop(
            load_questions(dataset), functools.partial(LoopFake), max_iterations=2, workers=2
        )
        assert 2 == report.workers
        assert [
            ("first", "grounded_first_try", 1),
            ("recovers", "recovered", 2),
            ("refuses", "recovered_refusal", 2),
            ("stubborn", "exhausted", 2),
        ] == [(run.id, run.outcome, run.calls) for run in report.runs]

    @pytest.mark.parametrize(
        ("option", "message"),
        [
            ({"max_iterations": 0}, "max_iterations must be >= 1"),
            ({"workers": 0}, "workers must be >= 1"),
            ({"limit": -1}, "limit must be >= 0"),
        ],
    )
    def test_bad_options(self, dataset: Path, option: dict[str, int], message: str) -> None:
        """Refused before any model is made."""
        with pytest.raises(ValueError, match=message):
            evaluate_loop(load_questions(dataset), LoopFake, **option)  # type: ignore[arg-type]


compact = relapse.compact_retry


def repeat_the_question(attempt: relapse.Attempt) -> str:
    """A ``rewrite`` that asks the question again unchanged (module level: it pickles)."""
    return attempt.query


class Reporting:
    """A model without token counters whose every response reports 7 + 3 tokens."""

    def __call__(self, prompt: str) -> ChatCompletion:
        return chat_completion("Fine.", prompt=7, completion=3)


class TestEvaluateLoopWithALoop:
    @pytest.mark.parametrize(
        ("make_model", "workers"),
        [
            pytest.param(LoopFake, 1, id="in-process"),
            # Each worker rebuilds the Loop from its options, the rewrite included.
            pytest.param(functools.partial(LoopFake), 2, id="two-worker-processes"),
        ],
    )
    def test_the_loops_options_apply_to_every_question(
        self, dataset: Path, make_model: Callable[[], LoopFake], workers: int
    ) -> None:
        """stop_on_repeat: stubborn's retry repeats its one failing span: stalled at 2 calls."""
        report = evaluate_loop(
            load_questions(dataset),
            make_model,
            loop=relapse.Loop(max_iterations=3, stop_on_repeat=True, rewrite=compact),
            workers=workers,
        )
        assert [
            ("first", "grounded_first_try", 1),
            ("recovers", "recovered", 2),
            ("refuses", "recovered_refusal", 2),
            ("stubborn", "stalled", 2),
        ] == [(run.id, run.outcome, run.calls) for run in report.runs]

    def test_a_rewrite_in_the_loop_is_the_one_used(self, dataset: Path) -> None:
        """A rewrite that drops the note: no retry prompt quotes 987654, nothing recovers."""
        report = evaluate_loop(
            load_questions(dataset),
            LoopFake,
            loop=relapse.Loop(max_iterations=2, rewrite=repeat_the_question),
        )
        assert ["grounded_first_try", "exhausted", "exhausted", "exhausted"] == [
            run.outcome for run in report.runs
        ]
        # Every prompt is a first-kind prompt of 100 characters: 1 + 2 + 2 + 2 of them.
        assert [(100,), (100, 100), (100, 100), (100, 100)] == [
            run.prompt_chars for run in report.runs
        ]

    def test_every_answer_and_its_usage_are_kept(self, dataset: Path) -> None:
        """recovers: the invented answer, then "Fine."; a str response reports no usage."""
        report = evaluate_loop(
            load_questions(dataset), LoopFake, loop=relapse.Loop(max_iterations=2)
        )
        recovers = report.runs[1]
        assert ((INVENTED, "Fine."), (None, None)) == (recovers.answers, recovers.usage)

    def test_tokens_come_from_the_responses_without_counters(self, dataset: Path) -> None:
        """Each of the 4 questions: one call reporting 7 + 3 = 10 tokens."""
        report = evaluate_loop(load_questions(dataset), Reporting, loop=relapse.Loop())
        assert [(relapse.Usage(7, 3),)] * 4 == [run.usage for run in report.runs]
        assert ([10] * 4, 10.0) == ([run.tokens for run in report.runs], report.mean_tokens)
        assert {"input_tokens": 7, "output_tokens": 3} == report.to_dict()["runs"][0]["usage"][0]

    @pytest.mark.parametrize(
        ("shortcut", "named"),
        [
            ({"max_iterations": 2}, "loop= or max_iterations=, not both"),
            ({"grounding_check": relapse.default_grounding_check}, "loop= or grounding_check="),
            (
                {"max_iterations": 2, "grounding_check": relapse.default_grounding_check},
                "loop= or grounding_check=, max_iterations=, not both",
            ),
        ],
    )
    def test_a_loop_and_a_shortcut_are_refused(
        self, dataset: Path, shortcut: dict[str, Any], named: str
    ) -> None:
        """The message names every shortcut given and where it goes instead."""
        with pytest.raises(TypeError, match=named) as raised:
            evaluate_loop(load_questions(dataset), LoopFake, loop=relapse.Loop(), **shortcut)
        assert "loop.replace(" in str(raised.value)

    def test_a_loop_that_is_not_a_loop(self, dataset: Path) -> None:
        """A mapping of options is not a Loop: TypeError naming loop and the type."""
        with pytest.raises(TypeError, match=r"loop must be a relapse\.Loop, got dict"):
            evaluate_loop(
                load_questions(dataset),
                LoopFake,
                loop={"max_iterations": 2},  # type: ignore[arg-type]
            )

    def test_an_option_that_cannot_reach_a_worker_is_named(self, dataset: Path) -> None:
        """A lambda rewrite cannot be pickled: refused before any process starts."""
        loop = relapse.Loop(rewrite=lambda attempt: attempt.query)
        with pytest.raises(
            TypeError, match=r"workers=2\) sends the loop .* rewrite= \(a function\)"
        ):
            evaluate_loop(load_questions(dataset), LoopFake, loop=loop, workers=2)

    def test_a_telemetry_provider_cannot_reach_a_worker(self, dataset: Path) -> None:
        """A tracer provider is named, with the way out (workers=1)."""
        with capture_spans() as captured:
            loop = relapse.Loop(tracer_provider=captured.provider)
            with pytest.raises(TypeError, match=r"tracer_provider= .* trace with workers=1"):
                evaluate_loop(load_questions(dataset), LoopFake, loop=loop, workers=2)

    def test_a_traced_loop_in_process_makes_one_call_span_per_question(self, dataset: Path) -> None:
        """workers=1 keeps the providers: 4 questions, 4 ``relapse run`` spans."""
        with capture_spans() as captured:
            evaluate_loop(
                load_questions(dataset),
                LoopFake,
                loop=relapse.Loop(tracer_provider=captured.provider),
            )
            assert 4 == len(captured.named("relapse run"))


class TestWorkerErrors:
    def test_a_model_that_cannot_load_raises_its_own_error_from_the_pool(
        self, dataset: Path
    ) -> None:
        """The factory's ImportError reaches the caller, not a BrokenProcessPool."""
        with pytest.raises(ImportError, match="the model's package is not installed"):
            evaluate_loop(load_questions(dataset), refuse_to_load, workers=2)
