"""relapse.demo: bundled items, the summary line, and the printed transcript and span tree."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator, Sequence
from importlib import resources

import pytest

import relapse
from relapse.demo import DemoSummary, load_items, run_demo

# 987654 is in none of the bundled passages (asserted below), so the first
# scripted answer fails FG001; the second has no number, date or quote.
INVENTED = "It takes 987654 minutes."
PLAIN = "Follow the steps in the passages."


class Scripted:
    """A demo model: invents a number first, then answers plainly once told."""

    def __call__(self, prompt: str) -> str:
        # Iteration 1 gets the first answer, retries (which quote it) the second.
        return INVENTED if "987654" not in prompt else PLAIN

    @staticmethod
    def build_prompt(question: str, chunk_texts: Sequence[str]) -> str:
        return f"{len(chunk_texts)} chunks | {question}"


#: A first answer whose first sentence passes and whose second invents a number.
STREAMED_FIRST = "Mice come in through gaps. " + INVENTED


class StreamingScripted(Scripted):
    """Scripted, streamed word by word; the retry prompt quotes the invented number."""

    def __call__(self, prompt: str) -> str:
        raise AssertionError("run_demo(stream=True) must stream")

    def stream(self, prompt: str) -> Iterator[str]:
        text = STREAMED_FIRST if "987654" not in prompt else PLAIN
        for word in text.split(" "):
            yield word + " "


class TestItems:
    def test_dev_set_is_the_76_distinct_questions(self) -> None:
        """dev.jsonl: 76 items, distinct ids and questions, three passages each."""
        items = load_items("dev")
        assert 76 == len(items)
        assert 76 == len({i.id for i in items}) == len({i.question for i in items})
        assert {3} == {len(i.passages) for i in items}

    def test_demo_set_is_12_distinct_dev_items(self) -> None:
        """demo.jsonl: 12 distinct questions, each verbatim from the dev set."""
        demo = load_items("demo")
        dev = {i.id: i for i in load_items("dev")}
        assert 12 == len(demo) == len({i.question for i in demo})
        assert all(dev[i.id] == i for i in demo)

    def test_license_and_readme_ship_with_the_data(self) -> None:
        """The data's source and MIT license travel with the package."""
        data = resources.files("relapse.data")
        readme = data.joinpath("README.md").read_text("utf-8")
        assert "MIT" in readme
        assert "ParticleMedia/RAGTruth" in readme
        assert "Permission is hereby granted" in data.joinpath("LICENSE-RAGTruth.txt").read_text(
            "utf-8"
        )

    def test_unknown_set_is_rejected(self) -> None:
        """Only 'demo' and 'dev' exist."""
        with pytest.raises(ValueError, match="'demo' or 'dev'"):
            load_items("test")  # type: ignore[arg-type]

    def test_invented_number_is_in_no_passage(self) -> None:
        """The scripted hallucination below really is one."""
        for item in load_items("demo"):
            assert "987654" not in json.dumps(item.passages)


class TestSummary:
    def test_line_format_and_rates(self) -> None:
        """10 of 12 first try, 11 final, 15 calls: rates and mean computed by hand."""
        summary = DemoSummary(12, 10, 11, 15, 21.43)
        assert (
            "summary: 12 questions, first-try grounded 0.83 (10/12),"
            " final grounded 0.92 (11/12), recovered 1 (0 as a refusal), echoed 0,"
            " mean iterations 1.25, wall time 21.4 s"
        ) == summary.line()

    def test_refusals_among_recoveries_are_counted_apart(self) -> None:
        """5 first try, 9 final: 4 recovered, of which the 3 refusals are named."""
        summary = DemoSummary(12, 5, 9, 20, 30.0, recovered_refusals=3)
        assert 4 == summary.recovered
        assert ", recovered 4 (3 as a refusal), " in summary.line()

    def test_empty_run_has_zero_rates(self) -> None:
        """--limit 0 must not divide by zero."""
        assert (0.0, 0.0, 0.0) == (
            DemoSummary(0, 0, 0, 0, 0.0).first_try_rate,
            DemoSummary(0, 0, 0, 0, 0.0).final_rate,
            DemoSummary(0, 0, 0, 0, 0.0).mean_iterations,
        )


class TestRunDemo:
    def test_prints_attempts_findings_outcomes_and_summary(self) -> None:
        """Each question: invented number rejected (FG001), plain answer accepted."""
        out = io.StringIO()
        summary = run_demo(limit=2, out=out, model=Scripted())
        text = out.getvalue()
        assert (2, 0, 2, 4) == (
            summary.questions,
            summary.grounded_first_try,
            summary.grounded_final,
            summary.llm_calls,
        )
        questions = [i.question for i in load_items("demo")[:2]]
        assert f"[1/2] {questions[0]}\n" in text
        assert f"[2/2] {questions[1]}\n" in text
        assert 2 == text.count(f"  attempt 1 (NOT grounded): {INVENTED}\n    FG001 '987654'\n")
        assert 2 == text.count(
            f"  attempt 2 (grounded): {PLAIN}\n    resolved FG001 '987654'\n  outcome: recovered\n"
        )
        last = text.splitlines()[-1]
        assert last.startswith(
            "summary: 2 questions, first-try grounded 0.00 (0/2),"
            " final grounded 1.00 (2/2), recovered 2 (0 as a refusal), echoed 0,"
            " mean iterations 2.00, wall time "
        )

    def test_a_grounded_answer_is_printed_with_its_citation_markers(self) -> None:
        """The default check cites 58 in the Sausalito passages: ``58[1]``."""

        class Cites(Scripted):
            def __call__(self, prompt: str) -> str:
                return "It averages 58 degrees." if "sausalito" in prompt else PLAIN

        out = io.StringIO()
        run_demo(limit=2, out=out, model=Cites())
        assert (
            "  attempt 1 (grounded): It averages 58 degrees.\n"
            "    cited: It averages 58[1] degrees.\n"
            "  outcome: grounded_first_try\n"
        ) in out.getvalue()
        assert 1 == out.getvalue().count("cited:")  # the plain answer cites nothing

    def test_a_recovery_that_is_a_refusal_is_reported_as_one(self) -> None:
        """The retry answered with the sanctioned refusal: outcome and summary say so."""

        class Refuses(Scripted):
            def __call__(self, prompt: str) -> str:
                return INVENTED if "987654" not in prompt else "The context does not say."

        out = io.StringIO()
        summary = run_demo(limit=2, out=out, model=Refuses())
        assert (2, 2) == (summary.recovered, summary.recovered_refusals)
        assert 2 == out.getvalue().count("  outcome: recovered_refusal\n")
        assert ", recovered 2 (2 as a refusal), " in out.getvalue().splitlines()[-1]

    def test_an_echo_of_the_passage_is_counted_apart(self) -> None:
        """The retry copies the first passage back: rejected (FG004), echoed, not recovered."""

        class Copies(Scripted):
            passage = ""

            def build_prompt(self, question: str, chunk_texts: Sequence[str]) -> str:
                self.passage = chunk_texts[0]
                return f"{len(chunk_texts)} chunks | {question}"

            def __call__(self, prompt: str) -> str:
                return INVENTED if "987654" not in prompt else self.passage

        out = io.StringIO()
        summary = run_demo(limit=2, max_iterations=2, out=out, model=Copies())
        assert (0, 2, 0) == (summary.recovered, summary.echoed, summary.grounded_final)
        assert 2 == out.getvalue().count("  outcome: echoed\n")
        assert ", recovered 0 (0 as a refusal), echoed 2, " in out.getvalue().splitlines()[-1]

    def test_an_echo_a_check_passed_is_not_a_recovery(self) -> None:
        """5 first try, 9 final of which 2 are echoes: 2 recovered, echoed 2."""
        summary = DemoSummary(12, 5, 9, 20, 30.0, echoed=2, echoed_grounded=2)
        assert 2 == summary.recovered
        assert ", recovered 2 (0 as a refusal), echoed 2, " in summary.line()

    def test_max_iterations_1_means_no_retry(self) -> None:
        """With one call allowed the invented answer is returned, exhausted."""
        out = io.StringIO()
        summary = run_demo(limit=1, max_iterations=1, out=out, model=Scripted())
        assert (0, 1) == (summary.grounded_final, summary.llm_calls)
        assert "  outcome: exhausted\n" in out.getvalue()

    def test_trace_prints_the_span_tree(self) -> None:
        """--trace: call span, one indented iteration span per attempt, its check span under it."""
        out = io.StringIO()
        run_demo(limit=1, trace=True, out=out, model=Scripted())
        tree = re.findall(
            r"^  ([├└─│ ]*)(\S+(?: \S+)?)  \d+\.\d ms  (.*)$", out.getvalue(), re.MULTILINE
        )
        assert [
            (
                "",
                "relapse run",
                "relapse.outcome=recovered relapse.iterations=2 relapse.grounded=true",
            ),
            (
                "├── ",
                "relapse.iteration",
                "relapse.iteration=1 relapse.grounded=false relapse.findings.codes=[FG001]",
            ),
            ("│   └── ", "relapse.check", "relapse.grounded=false relapse.findings.codes=[FG001]"),
            (
                "└── ",
                "relapse.iteration",
                "relapse.iteration=2 relapse.grounded=true relapse.findings.codes=[]",
            ),
            ("    └── ", "relapse.check", "relapse.grounded=true relapse.findings.codes=[]"),
        ] == tree

    def test_global_tracer_provider_is_untouched(self) -> None:
        """The trace uses a private provider; the global one stays the default proxy."""
        from opentelemetry import trace

        before = trace.get_tracer_provider()
        run_demo(limit=1, trace=True, out=io.StringIO(), model=Scripted())
        assert before is trace.get_tracer_provider()

    @pytest.mark.parametrize(
        ("kwargs", "message"), [({"limit": -1}, "limit"), ({"max_iterations": 0}, "max_iterations")]
    )
    def test_bad_arguments(self, kwargs: dict[str, int], message: str) -> None:
        """Negative limits and fewer than one iteration are ValueErrors."""
        with pytest.raises(ValueError, match=message):
            run_demo(out=io.StringIO(), model=Scripted(), **kwargs)  # type: ignore[arg-type]


class TestStreamedDemo:
    def test_shows_the_released_text_and_what_was_never_shown(self) -> None:
        """The passing first sentence is shown, the invented number never; the retry continues."""
        out = io.StringIO()
        summary = run_demo(limit=1, out=out, model=StreamingScripted(), stream=True)
        lines = out.getvalue().splitlines()
        shown = "Mice come in through gaps. "
        assert f"  answer: {shown}{PLAIN} " == lines[1]
        assert re.fullmatch(r"  \(first text after \d+\.\d\d s\)", lines[2])
        assert [
            f"  attempt 1 (NOT grounded): shown {shown!r}",
            f"    never shown: {INVENTED!r}",
            "    FG001 '987654'",
            f"  attempt 2 (grounded): shown {PLAIN + ' '!r}",
            "    resolved FG001 '987654'",
            "  outcome: recovered",
        ] == lines[3:9]
        assert (1, 0, 1, 2) == (
            summary.questions,
            summary.grounded_first_try,
            summary.grounded_final,
            summary.llm_calls,
        )

    def test_a_model_that_cannot_stream_is_refused(self) -> None:
        with pytest.raises(TypeError, match=r"stream=True\) needs a model with stream"):
            run_demo(limit=1, out=io.StringIO(), model=Scripted(), stream=True)


def test_scripted_model_satisfies_run() -> None:
    """Sanity: relapse.run accepts the scripted demo model's two callables."""
    model = Scripted()
    result = relapse.run("q", ["c"], call_llm=model, build_prompt=model.build_prompt)
    assert (True, 2) == (result.grounded, result.iterations)
