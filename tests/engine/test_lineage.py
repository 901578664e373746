"""What each retry fixed: IterationRecord.resolved, .persisted, .introduced; the stall rule."""

from __future__ import annotations

import relapse
from relapse import GroundingFinding
from relapse._lineage import count_by_code, lineage, normalised_span
from relapse.checks import LLMJudge
from relapse.testing import ScriptedLLM

DOCS = ["The depot stores 40 buses and opened on 3 March 1998."]
FIRST = "It stores 45 buses and opened on 3 March 1997."
# Fixes the number, keeps the date, and adds an amount the chunks lack.
SECOND = "It stores 40 buses and opened on 3 March 1997, costing $12 million."
GROUNDED = "It stores 40 buses and opened on 3 March 1998."


def _run(answers: list[str], **options: object) -> relapse.RelapseResult:
    return relapse.run("How many buses?", DOCS, call_llm=ScriptedLLM(answers), **options)  # type: ignore[arg-type]


class TestRecords:
    def test_first_iteration_has_no_lineage(self) -> None:
        """Iteration 1 has nothing before it: all three tuples are empty."""
        record = _run([FIRST], max_iterations=1).transcript[0]
        assert ((), (), ()) == (record.resolved, record.persisted, record.introduced)

    def test_a_retry_that_fixes_one_keeps_one_and_introduces_one(self) -> None:
        """The number is resolved, the date persists (not matched by offset), $12 million is new."""
        second = _run([FIRST, SECOND, GROUNDED], max_iterations=2).transcript[1]
        number_at = len("It stores ")  # 10, in FIRST
        date_at = len("It stores 40 buses and opened on ")  # 33, in SECOND
        amount_at = date_at + len("3 March 1997, costing ")  # 55, in SECOND
        assert (("FG001", ("45",), ((number_at, number_at + 2),)),) == tuple(
            (f.code, f.spans, f.offsets) for f in second.resolved
        )
        assert (("FG002", ("3 March 1997",), ((date_at, date_at + 12),)),) == tuple(
            (f.code, f.spans, f.offsets) for f in second.persisted
        )
        assert (("FG001", ("$12 million",), ((amount_at, amount_at + 11),)),) == tuple(
            (f.code, f.spans, f.offsets) for f in second.introduced
        )

    def test_the_grounded_retry_resolved_everything(self) -> None:
        """A retry that passes resolved every error of the answer before it and kept none."""
        result = _run([FIRST, SECOND, GROUNDED])
        third = result.transcript[2]
        assert "recovered" == result.outcome
        assert [("FG001", ("$12 million",)), ("FG002", ("3 March 1997",))] == [
            (f.code, f.spans) for f in third.resolved
        ]
        assert ((), ()) == (third.persisted, third.introduced)

    def test_a_moved_span_persists(self) -> None:
        """The same failing number at another offset, in other case and spacing, persists."""
        moved = "Buses: 45. It stores 45  buses."
        second = _run(["It stores 45 buses.", moved], max_iterations=2).transcript[1]
        # One "45" before, two now: one persisted, one introduced (a multiset).
        assert ((), ("45",), ("45",)) == (
            tuple(s for f in second.resolved for s in f.spans),
            tuple(s for f in second.persisted for s in f.spans),
            tuple(s for f in second.introduced for s in f.spans),
        )
        assert ((7, 9),) == second.persisted[0].offsets  # "Buses: " is 7 characters
        assert ((21, 23),) == second.introduced[0].offsets  # "Buses: 45. It stores " is 21


class TestMatching:
    def test_normalised_span(self) -> None:
        """NFKC, case folded, whitespace collapsed: a full-width digit is its ASCII digit."""
        assert "42 million" == normalised_span("  42\u00a0 MILLION ")
        assert "42" == normalised_span("\uff14\uff12")

    def test_warnings_are_not_matched(self) -> None:
        """A warning neither resolves nor persists: retries are not asked to fix it."""
        warning = GroundingFinding("W001", "style", ("x",), severity="warning")
        assert ((), (), ()) == tuple(vars(lineage((warning,), "x", (), "y")).values())

    def test_a_finding_without_spans_stands_for_its_answer(self) -> None:
        """A span-less finding persists on the same answer; on another it is resolved and new."""
        judged = GroundingFinding("LJ001", "unsupported")
        same = lineage((judged,), "Paris.", (judged,), " paris. ")
        other = lineage((judged,), "Paris.", (judged,), "Lyon.")
        assert ((), (judged,), ()) == (same.resolved, same.persisted, same.introduced)
        assert ((judged,), (), (judged,)) == (other.resolved, other.persisted, other.introduced)

    def test_count_by_code(self) -> None:
        """Spans per code, sorted; a span-less finding counts one."""
        findings = (
            GroundingFinding("FG002", "m", ("a", "b")),
            GroundingFinding("FG001", "m", ("c",)),
            GroundingFinding("LJ001", "m"),
        )
        assert {"FG001": 1, "FG002": 2, "LJ001": 1} == count_by_code(findings)


class TestStall:
    def test_resolved_nothing_introduced_nothing_is_a_stall(self) -> None:
        """Same failures, reworded around them: stalled after the second call."""
        llm = ScriptedLLM([FIRST, "Stores 45 buses; opened 3 March 1997."])
        result = relapse.run(
            "How many buses?", DOCS, call_llm=llm, stop_on_repeat=True, max_iterations=5
        )
        assert (2, "stalled") == (llm.calls, result.outcome)

    def test_a_retry_that_introduces_is_no_stall(self) -> None:
        """Every old failure kept, but a new one added: the loop goes on."""
        worse = FIRST + " It cost $12 million."
        llm = ScriptedLLM([FIRST, worse, GROUNDED])
        result = relapse.run(
            "How many buses?", DOCS, call_llm=llm, stop_on_repeat=True, max_iterations=5
        )
        assert (3, "recovered") == (llm.calls, result.outcome)
        assert ((), 2) == (result.transcript[1].resolved, len(result.transcript[1].persisted))

    def test_a_retry_that_resolves_one_is_no_stall(self) -> None:
        """One failure fixed, the other kept: progress, not a stall."""
        llm = ScriptedLLM([FIRST, "It stores 40 buses and opened on 3 March 1997.", GROUNDED])
        result = relapse.run(
            "How many buses?", DOCS, call_llm=llm, stop_on_repeat=True, max_iterations=5
        )
        assert (3, "recovered") == (llm.calls, result.outcome)

    def test_judge_findings_stall_only_on_the_same_answer(self) -> None:
        """LLMJudge findings have no spans: a different failing answer is no stall."""
        judge = LLMJudge(lambda prompt: "UNSUPPORTED")
        llm = ScriptedLLM(["Paris.", "Lyon.", "Lyon."])
        result = relapse.run(
            "Capital?",
            DOCS,
            call_llm=llm,
            grounding_check=judge,
            stop_on_repeat=True,
            max_iterations=5,
        )
        assert (3, "stalled") == (llm.calls, result.outcome)
