"""Loop controls: stall stop, severity, 'best' ranking, the kill switch, check composition."""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any

import pytest

import relapse
from helpers import decorated, forbid
from relapse import GroundingFinding, GroundingResult
from relapse.checks import BoundCheck, Check, LLMJudge, PreparableCheck, all_of
from relapse.grounding import default_grounding_check
from relapse.testing import ScriptedLLM, capture_spans

DOCS = ["The depot stores 40 buses."]


def warn_on(word: str) -> Any:
    """A check that only warns about ``word``."""

    def check(query: str, chunks: Sequence[str], answer: str) -> GroundingResult:
        if word not in answer:
            return GroundingResult(ok=True)
        finding = GroundingFinding("W001", f"style: {word}", (word,), severity="warning")
        return GroundingResult(ok=False, findings=(finding,))

    return check


class TestStopOnRepeat:
    def test_same_failing_spans_twice_stop_as_stalled(self) -> None:
        """The second identical failure ends the call: no third call is paid for."""
        llm = ScriptedLLM(["It has WRONG buses."])
        result = decorated(llm, stop_on_repeat=True, max_iterations=5).run("q", DOCS)
        assert (2, "stalled", False) == (llm.calls, result.outcome, result.grounded)

    def test_different_failing_spans_keep_going(self) -> None:
        """A new failure is not a stall."""
        llm = ScriptedLLM(["WRONG", "WRONG WRONG", "fine"])
        result = decorated(llm, grounding_check=_every_word("WRONG"), stop_on_repeat=True).run(
            "q", DOCS
        )
        assert (3, "recovered") == (llm.calls, result.outcome)

    def test_off_by_default_a_repeat_gets_its_last_try(self) -> None:
        """relapse 0.1.0's behaviour: without the option the whole budget is used."""
        llm = ScriptedLLM(["WRONG"])
        result = decorated(llm).run("q", DOCS)
        assert (3, "exhausted") == (llm.calls, result.outcome)

    def test_stalled_raises_with_on_exhausted_raise(self) -> None:
        """A stalled call is not grounded: 'raise' raises with outcome 'stalled'."""
        with pytest.raises(relapse.NotGroundedError) as caught:
            decorated(ScriptedLLM(["WRONG"]), stop_on_repeat=True, on_exhausted="raise")("q", DOCS)
        assert "stalled" == caught.value.result.outcome

    def test_stalled_is_the_call_span_outcome(self) -> None:
        """The call span reports relapse.outcome = 'stalled'."""
        with capture_spans() as spans:
            decorated(ScriptedLLM(["WRONG"]), stop_on_repeat=True, tracer_provider=spans.provider)(
                "q", DOCS
            )
            (call,) = [s for s in spans.spans if s.name.startswith("relapse ")]
            assert "stalled" == call.attributes["relapse.outcome"]  # type: ignore[index]

    def test_non_bool_is_a_type_error(self) -> None:
        """stop_on_repeat must be a bool."""
        with pytest.raises(TypeError, match="stop_on_repeat must be a bool"):
            relapse.grounded(chunks_arg="docs", stop_on_repeat="yes")  # type: ignore[arg-type]


def _every_word(word: str) -> Any:
    def check(query: str, chunks: Sequence[str], answer: str) -> GroundingResult:
        count = answer.split().count(word)
        if not count:
            return GroundingResult(ok=True)
        return GroundingResult(False, (GroundingFinding("FG001", "bad", (word,) * count),))

    return check


class TestSeverity:
    def test_default_is_error(self) -> None:
        """A finding is an error unless it says otherwise."""
        assert "error" == GroundingFinding("FG001", "m").severity

    def test_unknown_severity_is_rejected(self) -> None:
        """Only 'error' and 'warning' exist."""
        with pytest.raises(ValueError, match="severity must be 'error' or 'warning'"):
            GroundingFinding("FG001", "m", severity="fatal")  # type: ignore[arg-type]

    @pytest.mark.parametrize("score", [-0.01, 1.01, float("nan"), float("inf"), True, "0.5"])
    def test_score_outside_unit_interval_is_rejected(self, score: object) -> None:
        """A score is a probability: a number in [0, 1], never a bool or a string."""
        with pytest.raises(ValueError, match=r"score must be a number in \[0, 1\]"):
            GroundingFinding("DT001", "m", score=score)  # type: ignore[arg-type]

    @pytest.mark.parametrize("score", [0, 0.0, 0.5, 1, 1.0, None])
    def test_score_in_unit_interval_is_kept(self, score: float | None) -> None:
        """The bounds are inclusive; None means the stage has no probability."""
        assert score == GroundingFinding("DT001", "m", score=score).score

    def test_only_warnings_make_ok_true(self) -> None:
        """GroundingResult.ok is False only when an error finding exists."""
        warning = GroundingFinding("W001", "m", severity="warning")
        error = GroundingFinding("FG001", "m")
        assert GroundingResult(ok=False, findings=(warning,)).ok is True
        assert GroundingResult(ok=False, findings=(warning, error)).ok is False
        assert (error,) == GroundingResult(ok=False, findings=(warning, error)).errors

    def test_warnings_neither_retry_nor_appear_in_the_retry_query(self) -> None:
        """A warning stays in the transcript; only the error is named in the retry."""
        llm = ScriptedLLM(["WRONG and meh", "fine"])
        check = all_of(forbid("WRONG"), warn_on("meh"), short_circuit=False)
        result = decorated(llm, grounding_check=check).run("q", DOCS)
        assert 2 == result.iterations
        assert ["FG001", "W001"] == [f.code for f in result.transcript[0].findings]
        assert "FG001" in llm.prompts[1]
        assert "W001" not in llm.prompts[1]

    def test_warning_only_answer_is_grounded_and_keeps_its_warning(self) -> None:
        """An answer with only warnings is returned at once, its warning kept and on the span."""
        with capture_spans() as spans:
            result = decorated(
                ScriptedLLM(["meh"]), grounding_check=warn_on("meh"), tracer_provider=spans.provider
            ).run("q", DOCS)
            (iteration,) = spans.named("relapse.iteration")
            assert ("W001",) == iteration.attributes["relapse.findings.codes"]  # type: ignore[index]
        assert (True, 1) == (result.grounded, result.iterations)
        assert "warning" == result.transcript[0].findings[0].severity


class TestBestNeverReturnsANonAnswer:
    @pytest.mark.parametrize("non_answer", ["", "   ", "Your previous answer was rejected"])
    def test_real_answer_wins_however_many_spans_it_fails(self, non_answer: str) -> None:
        """Empty answers and FG004 echoes rank below a real answer with many failing spans."""
        real = "It has 41 buses, 42 vans, 43 cars and 44 bikes."
        llm = ScriptedLLM([real, non_answer, non_answer])
        result = decorated(llm, grounding_check=default_grounding_check, on_exhausted="best").run(
            "How many buses?", DOCS
        )
        assert 4 == len(result.transcript[0].findings[0].spans)
        assert (real, False) == (result.answer, result.grounded)

    def test_unreadable_answer_ranks_last(self) -> None:
        """An answer the check rejected without any finding ranks below a real one."""

        def check(query: str, chunks: Sequence[str], answer: str) -> GroundingResult:
            if answer == "???":
                return GroundingResult(ok=False)
            return forbid("WRONG")(query, chunks, answer)  # type: ignore[operator,no-any-return]

        llm = ScriptedLLM(["???", "WRONG WRONG"])
        result = decorated(llm, grounding_check=check, on_exhausted="best", max_iterations=2).run(
            "q", DOCS
        )
        assert "WRONG WRONG" == result.answer


class TestKillSwitch:
    def test_disabled_calls_once_straight_through(self) -> None:
        """enabled=False: one call with the caller's arguments, no check, no spans."""
        llm = ScriptedLLM(["WRONG"])
        with capture_spans() as spans:
            answer = decorated(llm, enabled=False, tracer_provider=spans.provider)
            assert "WRONG" == answer("q", DOCS)
            result = answer.run("q", DOCS)
            assert () == spans.spans
        assert (2, "disabled", False, 1) == (
            llm.calls,
            result.outcome,
            result.grounded,
            result.iterations,
        )

    def test_callable_is_read_on_every_call(self) -> None:
        """enabled=callable flips the loop on and off between calls."""
        state = {"on": False}
        llm = ScriptedLLM(["WRONG", "WRONG", "fine"])
        answer = decorated(llm, enabled=lambda: state["on"])
        assert "WRONG" == answer("q", DOCS)
        state["on"] = True
        assert "fine" == answer("q", DOCS)
        assert 3 == llm.calls

    def test_environment_variable_turns_everything_off(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """RELAPSE_ENABLED=0 disables decorated functions and run() alike."""
        monkeypatch.setenv("RELAPSE_ENABLED", "0")
        llm = ScriptedLLM(["WRONG"])
        assert "WRONG" == decorated(llm)("q", DOCS)
        result = relapse.run("q", DOCS, call_llm=llm)
        assert ("disabled", 1, 2) == (result.outcome, result.iterations, llm.calls)

    async def test_disabled_async_function_is_awaited_once(self) -> None:
        """An async decorated function with the switch off awaits the function once."""
        llm = ScriptedLLM(["WRONG"])

        @relapse.grounded(chunks_arg="docs", enabled=False)
        async def answer(query: str, docs: list[str]) -> str:
            return await llm.acall(query)

        assert "WRONG" == await answer("q", DOCS)
        assert "disabled" == (await answer.run("q", DOCS)).outcome

    def test_bad_enabled_is_a_type_error(self) -> None:
        """enabled is a bool or a callable."""
        with pytest.raises(TypeError, match="enabled must be a bool or callable"):
            relapse.grounded(chunks_arg="docs", enabled="no")  # type: ignore[arg-type]


class TestComposition:
    def test_and_is_all_of(self) -> None:
        """check_a & check_b runs both, in order, and fails when either fails."""
        judge = LLMJudge(lambda prompt: "UNSUPPORTED\nthe depot is red")
        combined = default_grounding_check & judge
        verdict = combined("q", DOCS, "The depot is red and stores 41 buses.")
        assert ["FG001"] == [f.code for f in verdict.findings]  # type: ignore[union-attr]
        verdict = combined("q", DOCS, "The depot is red and stores 40 buses.")
        assert ["LJ001"] == [f.code for f in verdict.findings]  # type: ignore[union-attr]
        assert "relapse.default & relapse.llm_judge" == combined.name  # type: ignore[attr-defined]

    def test_plain_function_on_the_left(self) -> None:
        """A plain function & a relapse check composes too (__rand__)."""
        combined = forbid("WRONG") & default_grounding_check  # type: ignore[operator]
        assert ["FG001"] == [f.code for f in combined("q", DOCS, "WRONG").findings]

    def test_protocols_describe_the_contract(self) -> None:
        """The default check is a PreparableCheck, its prepared form a BoundCheck."""
        assert isinstance(default_grounding_check, PreparableCheck)
        assert isinstance(default_grounding_check.prepare("q", DOCS), BoundCheck)
        assert isinstance(forbid("x"), Check)
        assert not isinstance(forbid("x"), PreparableCheck)


def reject_silently(query: str, chunks: Sequence[str], answer: str) -> GroundingResult:
    """A check that rejects every answer without naming a finding."""
    return GroundingResult(ok=False)


reject_silently.name = "silent"  # type: ignore[attr-defined]


async def areject_silently(query: str, chunks: Sequence[str], answer: str) -> GroundingResult:
    """:func:`reject_silently`, async."""
    return GroundingResult(ok=False)


areject_silently.name = "silent"  # type: ignore[attr-defined]


def warn_meh(query: str, chunks: Sequence[str], answer: str) -> GroundingResult:
    """A check that only warns, about every answer."""
    finding = GroundingFinding("W001", "style: meh", severity="warning")
    return GroundingResult(ok=True, findings=(finding,))


async def awarn_meh(query: str, chunks: Sequence[str], answer: str) -> GroundingResult:
    """:func:`warn_meh`, async."""
    return warn_meh(query, chunks, answer)


#: The finding a composition records for a check that rejected without one.
SILENT = GroundingFinding("AO001", "the check 'silent' rejected the answer without a finding")
MEH = GroundingFinding("W001", "style: meh", severity="warning")


class TestCompositionKeepsARejection:
    """A composition rejects whenever any of its checks rejects, warnings or not."""

    # (checks, short_circuit, findings): the warning check does not run after
    # the rejection when short-circuiting.
    CASES = [
        ("reject, warn", True, (SILENT,)),
        ("reject, warn", False, (SILENT, MEH)),
        ("warn, reject", True, (MEH, SILENT)),
        ("warn, reject", False, (MEH, SILENT)),
    ]

    @pytest.mark.parametrize(("order", "short_circuit", "findings"), CASES)
    def test_sync(
        self, order: str, short_circuit: bool, findings: tuple[GroundingFinding, ...]
    ) -> None:
        """A silent rejection next to a warning-only check still rejects, in either order."""
        checks = {"reject": reject_silently, "warn": warn_meh}
        check = all_of(*(checks[n] for n in order.split(", ")), short_circuit=short_circuit)
        assert GroundingResult(ok=False, findings=findings) == check("q", DOCS, "x")
        assert not check("q", DOCS, "x").ok  # type: ignore[union-attr]

    @pytest.mark.parametrize(("order", "short_circuit", "findings"), CASES)
    @pytest.mark.parametrize("asynchronous", ["reject", "warn", "reject, warn"])
    async def test_async(
        self,
        order: str,
        short_circuit: bool,
        findings: tuple[GroundingFinding, ...],
        asynchronous: str,
    ) -> None:
        """The same with either check (or both) async: the verdict is awaited."""
        sync = {"reject": reject_silently, "warn": warn_meh}
        a = {"reject": areject_silently, "warn": awarn_meh}
        chosen = [a[n] if n in asynchronous.split(", ") else sync[n] for n in order.split(", ")]
        verdict = all_of(*chosen, short_circuit=short_circuit)("q", DOCS, "x")
        # Short-circuited before its only async check, the verdict is already there.
        if inspect.isawaitable(verdict):
            verdict = await verdict
        assert GroundingResult(ok=False, findings=findings) == verdict

    def test_and_operator_and_the_loop(self) -> None:
        """Through ``&`` and the loop: never returned as grounded; every iteration paid for."""
        judge = LLMJudge(lambda prompt: "SUPPORTED")
        check = (judge & warn_meh) & reject_silently
        llm = ScriptedLLM(["one", "two"])
        result = decorated(llm, grounding_check=check, max_iterations=2).run("q", DOCS)
        assert (False, "exhausted", 2) == (result.grounded, result.outcome, llm.calls)
        assert [["W001", "AO001"]] * 2 == [[f.code for f in r.findings] for r in result.transcript]

    def test_best_ranks_a_composed_silent_rejection_as_no_answer(self) -> None:
        """As with the check alone, "best" prefers a real answer to one a check could not read."""

        def silent_on_unreadable(query: str, chunks: Sequence[str], answer: str) -> GroundingResult:
            return GroundingResult(ok=answer != "???")

        silent_on_unreadable.name = "silent"  # type: ignore[attr-defined]
        check = all_of(silent_on_unreadable, forbid("WRONG", "BAD"), warn_meh, short_circuit=False)
        # Two failing spans against one (the AO001 finding): only the ranking picks the first.
        llm = ScriptedLLM(["WRONG BAD", "???"])
        result = decorated(llm, grounding_check=check, on_exhausted="best", max_iterations=2).run(
            "q", DOCS
        )
        assert ["AO001", "W001"] == [f.code for f in result.transcript[1].findings]
        assert "WRONG BAD" == result.answer
