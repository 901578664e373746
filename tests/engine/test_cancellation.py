"""
Cancellation, interrupts and the overall timeout.

``CancelledError``, ``KeyboardInterrupt`` and ``SystemExit`` are the caller's
way to stop; the loop must never take them for a grounding failure, never
retry, and must end its spans on the way out. Time is faked wherever the
outcome depends on it, so no test waits on the wall clock for its verdict.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
from collections.abc import Callable, Coroutine
from typing import Any

import pytest
from opentelemetry.trace import StatusCode

import relapse
from helpers import forbid
from relapse import testing
from relapse._loop import drive, steps
from relapse._policy import Policy, make_policy
from relapse.testing import CapturedSpans, ScriptedLLM

DOCS = ["The depot stores 40 buses."]
INTERRUPTS = [KeyboardInterrupt, SystemExit, asyncio.CancelledError]


def assert_spans_failed_with(spans: CapturedSpans, error_type: str, iterations: int) -> None:
    """Call span and every iteration span ended, status ERROR, ``error.type`` set."""
    (call,) = [s for s in spans.spans if s.name.startswith("relapse ")]
    iteration_spans = spans.named("relapse.iteration")
    assert iterations == len(iteration_spans)
    for span in (call, iteration_spans[-1]):
        assert StatusCode.ERROR == span.status.status_code
        assert error_type == span.attributes["error.type"]  # type: ignore[index]
    for span in (call, *iteration_spans):
        assert span.end_time is not None


def run_to_completion(coroutine: Coroutine[Any, Any, Any]) -> Any:
    """
    Drive a coroutine that never suspends, without an event loop.

    Raising ``KeyboardInterrupt`` or ``SystemExit`` inside an asyncio task
    would stop the test runner's loop itself; stepping the coroutine by hand
    lets the test see exactly what the decorated coroutine raises.
    """
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value
    coroutine.close()
    raise AssertionError("the coroutine suspended")


class TestInterruptsAreNotRetried:
    @pytest.mark.parametrize("interrupt", INTERRUPTS)
    def test_raised_by_the_llm(self, interrupt: type[BaseException], spans: CapturedSpans) -> None:
        """An interrupt from the LLM call propagates after one call, spans failed."""
        llm = ScriptedLLM([interrupt()])

        @relapse.grounded(
            chunks_arg="docs",
            grounding_check=forbid("WRONG"),
            on_exhausted="best",
            tracer_provider=spans.provider,
        )
        def answer(query: str, docs: list[str]) -> str:
            return llm(query)

        with pytest.raises(interrupt) as caught:
            answer("q", DOCS)
        assert 1 == llm.calls
        assert () == caught.value.relapse_transcript  # type: ignore[attr-defined]
        assert_spans_failed_with(spans, interrupt.__qualname__, 1)

    @pytest.mark.parametrize("interrupt", INTERRUPTS)
    def test_raised_by_the_check_after_a_failed_answer(
        self, interrupt: type[BaseException], spans: CapturedSpans
    ) -> None:
        """An interrupt from the check on iteration 2 stops the loop there; no third call."""
        llm = ScriptedLLM(["WRONG"])
        verdicts = iter([relapse.GroundingResult(False, (relapse.GroundingFinding("X", "x"),))])

        def check(query: str, chunks: object, answer: str) -> relapse.GroundingResult:
            for verdict in verdicts:
                return verdict
            raise interrupt()

        @relapse.grounded(
            chunks_arg="docs",
            grounding_check=check,
            max_iterations=5,
            tracer_provider=spans.provider,
        )
        def answer(query: str, docs: list[str]) -> str:
            return llm(query)

        with pytest.raises(interrupt) as caught:
            answer("q", DOCS)
        assert 2 == llm.calls
        # The second answer was paid for, so it is in the transcript, unchecked.
        transcript = caught.value.relapse_transcript  # type: ignore[attr-defined]
        assert [(1, False), (2, False)] == [(r.iteration, r.grounded) for r in transcript]
        assert ((), "WRONG") == (transcript[1].findings, transcript[1].answer)
        assert_spans_failed_with(spans, interrupt.__qualname__, 2)

    @pytest.mark.parametrize("interrupt", INTERRUPTS)
    def test_raised_by_an_async_llm(self, interrupt: type[BaseException]) -> None:
        """The async driver lets interrupts through unchanged, after one call."""
        llm = ScriptedLLM([interrupt()])

        @relapse.grounded(chunks_arg="docs", grounding_check=forbid("WRONG"))
        async def answer(query: str, docs: list[str]) -> str:
            return await llm.acall(query)

        with pytest.raises(interrupt):
            run_to_completion(answer("q", DOCS))
        assert 1 == llm.calls

    @pytest.mark.parametrize("interrupt", INTERRUPTS)
    def test_raised_by_rewrite(self, interrupt: type[BaseException]) -> None:
        """An interrupt while building the retry query stops before the second call."""
        llm = ScriptedLLM(["WRONG"])

        def rewrite(attempt: relapse.Attempt) -> str:
            raise interrupt()

        @relapse.grounded(chunks_arg="docs", grounding_check=forbid("WRONG"), rewrite=rewrite)
        def answer(query: str, docs: list[str]) -> str:
            return llm(query)

        with pytest.raises(interrupt):
            answer("q", DOCS)
        assert 1 == llm.calls


class TestCallerTimeout:
    async def test_wait_for_cancels_the_running_llm_call(self, spans: CapturedSpans) -> None:
        """
        ``wait_for`` around a slow decorated coroutine: TimeoutError, one LLM call.

        Nothing keeps running: the LLM coroutine saw the cancellation, no task
        is left behind, and both spans ended with status ERROR.
        """
        started = 0
        cancelled = asyncio.Event()

        @relapse.grounded(
            chunks_arg="docs", grounding_check=forbid("WRONG"), tracer_provider=spans.provider
        )
        async def answer(query: str, docs: list[str]) -> str:
            nonlocal started
            started += 1
            try:
                await asyncio.Event().wait()  # an LLM that never answers
            except asyncio.CancelledError:
                cancelled.set()
                raise
            return "never"

        before = asyncio.all_tasks()
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(answer("q", DOCS), timeout=0.05)
        assert 1 == started
        assert cancelled.is_set()
        assert before == asyncio.all_tasks()
        assert_spans_failed_with(spans, "CancelledError", 1)

    async def test_cancelled_task_ends_its_spans(self, spans: CapturedSpans) -> None:
        """Cancelling the caller's task mid-call propagates CancelledError and ends the spans."""
        entered = asyncio.Event()

        @relapse.grounded(
            chunks_arg="docs", grounding_check=forbid("WRONG"), tracer_provider=spans.provider
        )
        async def answer(query: str, docs: list[str]) -> str:
            entered.set()
            await asyncio.Event().wait()
            return "never"

        task = asyncio.ensure_future(answer("q", DOCS))
        await entered.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert_spans_failed_with(spans, "CancelledError", 1)

    def test_abandoned_coroutine_ends_its_spans(self, spans: CapturedSpans) -> None:
        """Closing a suspended decorated coroutine (never resumed) ends both spans."""

        class Pending:
            def __await__(self) -> Any:
                yield None  # suspend once, as a real I/O wait would
                return "never"

        @relapse.grounded(
            chunks_arg="docs", grounding_check=forbid("WRONG"), tracer_provider=spans.provider
        )
        async def answer(query: str, docs: list[str]) -> str:
            return await Pending()  # type: ignore[no-any-return]

        coroutine = answer("q", DOCS)
        coroutine.send(None)
        coroutine.close()
        assert_spans_failed_with(spans, "GeneratorExit", 1)


class FakeClock(testing.FakeClock):
    """:class:`relapse.testing.FakeClock` at 1000.0 s, moved ``tick`` seconds per LLM call."""

    def __init__(self, tick: float) -> None:
        super().__init__(start=1000.0)
        self.tick = tick

    def llm(self, answers: list[str]) -> Callable[[str, Any], str]:
        """A driver call that returns ``answers`` in order and advances the clock each time."""
        script = itertools.chain(answers, itertools.repeat(answers[-1]))

        def call(prompt: str, chunks: Any) -> str:
            self.advance(self.tick)
            return next(script)

        return call


def policy(clock: FakeClock, **options: Any) -> Policy:
    """A loop policy over the ``forbid("WRONG")`` check with a fake clock."""
    values: dict[str, Any] = {"max_iterations": 5, "grounding_check": forbid("WRONG")}
    values.update(options)
    return dataclasses.replace(make_policy("test", values), clock=clock)


class TestOverallTimeout:
    def test_expiry_between_iterations_ends_with_outcome_timeout(self) -> None:
        """Each call takes 4 s of fake time; a 10 s budget allows 3 calls, then 'timeout'."""
        clock = FakeClock(tick=4.0)
        calls = clock.llm(["WRONG 1", "WRONG 2", "WRONG 3", "fine"])
        result = drive(steps(policy(clock, timeout=10.0), "q", DOCS), calls)
        assert ("timeout", 3, False, "WRONG 3") == (
            result.outcome,
            result.iterations,
            result.grounded,
            result.answer,
        )

    def test_best_policy_on_timeout_picks_the_fewest_failing_spans(self) -> None:
        """on_exhausted='best' applies to a timed-out loop too."""
        clock = FakeClock(tick=4.0)
        calls = clock.llm(["WRONG WRONG", "WRONG", "WRONG WRONG WRONG"])
        loop = steps(
            policy(clock, timeout=10.0, on_exhausted="best", grounding_check=forbid("WRONG")),
            "q",
            DOCS,
        )
        result = drive(loop, calls)
        assert ("timeout", 3) == (result.outcome, result.iterations)
        assert "WRONG WRONG" == result.answer  # earliest of the ties (one span each)

    def test_raise_policy_on_timeout_raises_with_the_result(self) -> None:
        """on_exhausted='raise' raises NotGroundedError whose result says 'timeout'."""
        clock = FakeClock(tick=6.0)
        loop = steps(policy(clock, timeout=10.0, on_exhausted="raise"), "q", DOCS)
        with pytest.raises(relapse.NotGroundedError) as caught:
            drive(loop, clock.llm(["WRONG"]))
        assert ("timeout", 2) == (caught.value.result.outcome, caught.value.result.iterations)

    def test_grounded_answer_wins_over_an_expired_budget(self) -> None:
        """An answer that passes is returned as grounded even when the budget is spent."""
        clock = FakeClock(tick=100.0)
        result = drive(steps(policy(clock, timeout=1.0), "q", DOCS), clock.llm(["fine"]))
        assert ("grounded_first_try", True) == (result.outcome, result.grounded)

    def test_last_iteration_is_exhausted_not_timeout(self) -> None:
        """Running out of iterations and time at once reports 'exhausted'."""
        clock = FakeClock(tick=5.0)
        loop = steps(policy(clock, timeout=10.0, max_iterations=2), "q", DOCS)
        result = drive(loop, clock.llm(["WRONG"]))
        assert ("exhausted", 2) == (result.outcome, result.iterations)

    def test_no_timeout_never_reads_as_timeout(self) -> None:
        """Without timeout_s, however much time passes, the loop uses its whole budget."""
        clock = FakeClock(tick=1e9)
        result = drive(steps(policy(clock), "q", DOCS), clock.llm(["WRONG"]))
        assert ("exhausted", 5) == (result.outcome, result.iterations)

    @pytest.mark.parametrize("slow", ["retrieve", "rewrite"])
    def test_deadline_checked_again_before_the_next_call(self, slow: str) -> None:
        """
        A ``retrieve`` or ``rewrite`` that spends the budget: no second LLM call.

        The call takes no time and the budget is 0.2 s; the hook takes 0.6 s,
        so when the next call would start, 0.6 s have passed.
        """
        clock = FakeClock(tick=0.0)

        def retrieve(attempt: relapse.Attempt) -> None:
            clock.now += 0.6

        def rewrite(attempt: relapse.Attempt) -> str:
            clock.now += 0.6
            return "retry"

        hooks: dict[str, Any] = {"retrieve": retrieve, "rewrite": rewrite}
        prompts: list[str] = []
        answers = clock.llm(["WRONG"])

        def call(prompt: str, chunks: Any) -> str:
            prompts.append(prompt)
            return answers(prompt, chunks)

        loop = steps(policy(clock, timeout=0.2, **{slow: hooks[slow]}), "q", DOCS)
        result = drive(loop, call)
        assert ("timeout", 1, ["q"]) == (result.outcome, result.iterations, prompts)
        assert (1000.6, "WRONG") == (clock.now, result.answer)

    def test_a_retrieve_that_spent_the_budget_skips_rewrite(self) -> None:
        """After a retrieve past the deadline, rewrite (which may call a model) is not called."""
        clock = FakeClock(tick=0.0)
        rewrites: list[int] = []

        def retrieve(attempt: relapse.Attempt) -> None:
            clock.now += 0.6

        def rewrite(attempt: relapse.Attempt) -> str:
            rewrites.append(attempt.iteration)
            return "retry"

        loop = steps(policy(clock, timeout=0.2, retrieve=retrieve, rewrite=rewrite), "q", DOCS)
        result = drive(loop, clock.llm(["WRONG"]))
        assert ("timeout", 1, []) == (result.outcome, result.iterations, rewrites)

    def test_deadline_after_retrieve_raises_with_on_exhausted_raise(self) -> None:
        """on_exhausted='raise' after a retrieve that spent the budget: outcome 'timeout'."""
        clock = FakeClock(tick=0.1)

        def retrieve(attempt: relapse.Attempt) -> None:
            clock.now += 0.6

        loop = steps(policy(clock, timeout=0.2, retrieve=retrieve, on_exhausted="raise"), "q", DOCS)
        with pytest.raises(relapse.NotGroundedError) as caught:
            drive(loop, clock.llm(["WRONG"]))
        assert ("timeout", 1) == (caught.value.result.outcome, caught.value.result.iterations)

    def test_decorator_timeout_with_the_real_clock(self, spans: CapturedSpans) -> None:
        """
        ``grounded(timeout=)`` end to end: an LLM slower than the budget stops after one call.

        The fake LLM sleeps 20 ms against a 1 ms budget; ``time.sleep`` sleeps
        at least that long, so the verdict does not depend on machine speed.
        """
        import time

        llm = ScriptedLLM(["WRONG"])

        @relapse.grounded(
            chunks_arg="docs",
            grounding_check=forbid("WRONG"),
            timeout=0.001,
            tracer_provider=spans.provider,
        )
        def answer(query: str, docs: list[str]) -> str:
            time.sleep(0.02)
            return llm(query)

        result = answer.run("q", DOCS)
        assert ("timeout", 1, 1) == (result.outcome, result.iterations, llm.calls)
        (call,) = [s for s in spans.spans if s.name.startswith("relapse ")]
        assert "timeout" == call.attributes["relapse.outcome"]  # type: ignore[index]

    async def test_arun_timeout_with_the_real_clock(self) -> None:
        """``arun(timeout=)`` ends with outcome 'timeout' after one slow call."""

        async def call_llm(prompt: str) -> str:
            await asyncio.sleep(0.02)
            return "WRONG"

        result = await relapse.arun(
            "q", DOCS, call_llm=call_llm, grounding_check=forbid("WRONG"), timeout=0.001
        )
        assert ("timeout", 1) == (result.outcome, result.iterations)

    @pytest.mark.parametrize("bad", [0, -1.0, float("nan")])
    def test_non_positive_timeout_is_rejected(self, bad: float) -> None:
        """timeout must be a positive number of seconds."""
        with pytest.raises(ValueError, match="timeout"):
            relapse.grounded(chunks_arg="docs", timeout=bad)

    def test_non_numeric_timeout_is_rejected(self) -> None:
        """A timeout that is not a number is a TypeError naming it."""
        with pytest.raises(TypeError, match="timeout"):
            relapse.grounded(chunks_arg="docs", timeout="5")  # type: ignore[arg-type]


class TestThePublicClock:
    """``clock=``: a timeout tested through the public API, with relapse.testing.FakeClock."""

    def test_the_loop_reads_the_given_clock(self) -> None:
        """Each call takes 4 s: after 3 calls 12 s >= 10 s are spent, so no fourth starts."""
        clock = testing.FakeClock(start=100.0)
        elapsed: list[float] = []

        def llm(prompt: str) -> str:
            clock.advance(4.0)
            return "WRONG"

        result = relapse.run(
            "q",
            DOCS,
            call_llm=llm,
            grounding_check=forbid("WRONG"),
            max_iterations=5,
            timeout=10.0,
            clock=clock,
            on_iteration=lambda attempt: elapsed.append(attempt.elapsed_s),
        )
        assert ("timeout", 3) == (result.outcome, result.iterations)
        assert [0.0, 4.0, 8.0] == elapsed

    def test_a_clock_must_be_callable(self) -> None:
        with pytest.raises(TypeError, match="clock must be callable"):
            relapse.Loop(clock=12.0)  # type: ignore[typeddict-item]
