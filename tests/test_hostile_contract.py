"""
Failures found by hostile testing of the loop's contract, one test each.

Each test reproduced a real failure of the code before the "loop's contract"
change: pickling, async detection and validation timing, exceptions from the
user's code, chunk containers, privacy with content capture off, the retry
query's size, and the LLM judge's verdicts.
"""

from __future__ import annotations

import asyncio
import copy
import functools
import multiprocessing
import pickle
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import pytest
from opentelemetry.trace import StatusCode

import relapse
from helpers import decorated, echo_answer, forbid, never_grounded
from relapse import GroundingFinding, GroundingResult
from relapse.checks import LLMJudge, parse_verdict
from relapse.testing import CapturedSpans, ScriptedLLM

DOCS = ["The depot stores 40 buses."]


def _raise_not_grounded(query: str) -> str:
    return never_grounded(query, DOCS)


class TestPickling:
    def test_not_grounded_error_round_trips(self) -> None:
        """NotGroundedError unpickles with its result and message."""
        with pytest.raises(relapse.NotGroundedError) as caught:
            never_grounded("q", DOCS)
        again = pickle.loads(pickle.dumps(caught.value))
        assert (str(caught.value), 3, "exhausted") == (
            str(again),
            again.result.iterations,
            again.result.outcome,
        )

    @pytest.mark.skipif(
        "fork" not in multiprocessing.get_all_start_methods(), reason="needs the fork start method"
    )
    def test_worker_raising_it_does_not_break_the_pool(self) -> None:
        """A process-pool worker raising NotGroundedError hands it back; the pool lives on."""
        # fork: the worker inherits the test modules, so functions unpickle by name.
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(1, mp_context=context) as pool:
            error = pool.submit(_raise_not_grounded, "q").exception(timeout=60)
            assert isinstance(error, relapse.NotGroundedError)
            assert 3 == error.result.iterations
            assert "echo still alive" == pool.submit(echo_answer, "still alive", DOCS).result(60)

    def test_decorated_module_function_pickles_and_copies(self) -> None:
        """A decorated module-level function pickles by reference; copies are itself."""
        assert pickle.loads(pickle.dumps(echo_answer)) is echo_answer
        assert copy.copy(echo_answer) is echo_answer
        assert copy.deepcopy(echo_answer) is echo_answer
        assert "echo q" == pickle.loads(pickle.dumps(echo_answer))("q", DOCS)

    def test_decorated_closure_says_why_it_cannot_pickle(self) -> None:
        """A closure cannot pickle, as with plain functions, and the error says why."""
        with pytest.raises(pickle.PicklingError, match="module level"):
            pickle.dumps(decorated(ScriptedLLM(["x"])))


class TestAsyncDetection:
    def test_functools_wraps_of_an_async_function_stays_sync(self) -> None:
        """An asyncio.run-style sync wrapper is sync: the decorated call returns a str."""

        async def fetch(query: str, docs: list[str]) -> str:
            return "fine"

        @functools.wraps(fetch)
        def sync_fetch(query: str, docs: list[str]) -> str:
            return asyncio.run(fetch(query, docs))

        answer = relapse.grounded(chunks_arg="docs")(sync_fetch)
        assert "fine" == answer("q", DOCS)

    def test_sync_wrapper_returning_a_coroutine_gets_a_clear_error(self) -> None:
        """A sync wrapper handing back an un-awaited coroutine is told how to fix it."""

        async def fetch(query: str, docs: list[str]) -> str:
            return "fine"

        @functools.wraps(fetch)
        def leaky(query: str, docs: list[str]) -> Any:
            return fetch(query, docs)

        with pytest.raises(TypeError, match=r"returned coroutine.*async def"):
            relapse.grounded(chunks_arg="docs")(leaky)("q", DOCS)

    async def test_validation_errors_surface_on_await(self) -> None:
        """A bad argument of an async call raises when awaited, so gather sees every result."""
        llm = ScriptedLLM(["fine"])

        @relapse.grounded(chunks_arg="docs")
        async def answer(query: str, docs: Any) -> str:
            return await llm.acall(query)

        bad = answer("q", None)  # no exception here
        results = await asyncio.gather(bad, answer("q", DOCS), return_exceptions=True)
        assert isinstance(results[0], TypeError)
        assert "fine" == results[1]
        assert 1 == llm.calls


class _NotesNotAList(Exception):  # noqa: N818
    pass


class TestUserExceptions:
    def test_stop_iteration_propagates_as_itself(self) -> None:
        """A StopIteration from the LLM call is not turned into RuntimeError."""
        error = StopIteration("exhausted iterator")
        with pytest.raises(StopIteration) as caught:
            decorated(ScriptedLLM(["WRONG", error]))("q", DOCS)
        assert caught.value is error
        assert [1] == [r.iteration for r in caught.value.relapse_transcript]  # type: ignore[attr-defined]

    def test_bad_notes_do_not_stop_the_spans_ending(self, spans: CapturedSpans) -> None:
        """An exception whose __notes__ is not a list propagates as itself; every span ends."""
        error = _NotesNotAList("boom")
        error.__notes__ = "not a list"  # type: ignore[attr-defined]
        with pytest.raises(_NotesNotAList) as caught:
            decorated(ScriptedLLM([error]), tracer_provider=spans.provider)("q", DOCS)
        assert caught.value is error
        assert 2 == len(spans.spans)
        assert all(s.end_time is not None for s in spans.spans)
        assert all(s.status.status_code is StatusCode.ERROR for s in spans.spans)

    def test_raising_check_keeps_the_paid_answer(self) -> None:
        """When a custom check raises, that attempt's answer is in the attached transcript."""

        def check(query: str, chunks: Sequence[str], answer: str) -> GroundingResult:
            raise ValueError("check broke")

        with pytest.raises(ValueError, match="check broke") as caught:
            decorated(ScriptedLLM(["the paid answer"]), grounding_check=check)("q", DOCS)
        (record,) = caught.value.relapse_transcript  # type: ignore[attr-defined]
        assert ("the paid answer", False) == (record.answer, record.grounded)

    def test_nested_calls_keep_the_inner_transcript(self) -> None:
        """An error leaving a nested grounded call keeps the inner call's transcript."""
        error = RuntimeError("inner failed")
        inner = decorated(ScriptedLLM(["WRONG", error]))

        def outer_llm(query: str) -> str:
            return inner("inner q", DOCS)  # type: ignore[no-any-return]

        with pytest.raises(RuntimeError) as caught:
            decorated(outer_llm)("outer q", DOCS)
        transcript = caught.value.relapse_transcript  # type: ignore[attr-defined]
        assert ["inner q"] == [r.prompt for r in transcript]
        assert 1 == sum("relapse:" in n for n in caught.value.__notes__)

    def test_re_raised_instance_gets_one_note_and_the_latest_transcript(self) -> None:
        """The same exception instance raised in two calls carries one note, the last call's."""
        error = RuntimeError("flaky")
        answer = decorated(ScriptedLLM(["WRONG", error, error]))
        with pytest.raises(RuntimeError):
            answer("first", DOCS)
        with pytest.raises(RuntimeError) as caught:
            answer("second", DOCS)
        assert 1 == sum(n.startswith("relapse:") for n in caught.value.__notes__)
        assert () == caught.value.relapse_transcript  # type: ignore[attr-defined]


class _ResultSet:
    """A re-iterable container that is not a Sequence (a database result set)."""

    def __init__(self, rows: list[str]) -> None:
        self.rows = rows

    def __iter__(self) -> Iterator[str]:
        return iter(self.rows)


class TestChunkContainers:
    @pytest.mark.parametrize(
        "chunks",
        [
            {"The depot stores 40 buses."},
            {"The depot stores 40 buses.": 1}.keys(),
            _ResultSet(DOCS),
        ],
        ids=["set", "dict-view", "result-set"],
    )
    def test_re_iterable_containers_are_passed_untouched(self, chunks: Any) -> None:
        """Iteration 1 gets the caller's own object, and so does every retry."""
        received: list[Any] = []

        def llm(query: str) -> str:
            return "WRONG" if len(received) == 1 else "fine"

        @relapse.grounded(chunks_arg="docs", grounding_check=forbid("WRONG"))
        def answer(query: str, docs: Any) -> str:
            received.append(docs)
            return llm(query)

        assert "fine" == answer("q", chunks)
        assert [chunks, chunks] == received
        assert all(r is chunks for r in received)

    def test_generator_is_still_read_once(self) -> None:
        """A one-shot iterator is the only container replaced (by a list)."""
        received: list[Any] = []

        @relapse.grounded(chunks_arg="docs")
        def answer(query: str, docs: Any) -> str:
            received.append(docs)
            return "fine"

        answer("q", (d for d in DOCS))
        assert [DOCS] == received


class TestRetrySize:
    def test_max_prompt_chars_caps_a_huge_answer(self) -> None:
        """A 149 KB answer with max_prompt_chars=4000 yields retry queries of at most 4000."""
        huge = " ".join(f"WRONG{i} is {i}." for i in range(12_000))[:149_000]

        def check(query: str, chunks: Sequence[str], answer: str) -> GroundingResult:
            spans = tuple(w for w in answer.split() if w.startswith("WRONG"))
            if not spans:
                return GroundingResult(ok=True)
            return GroundingResult(False, (GroundingFinding("FG001", "bad: " + answer, spans),))

        llm = ScriptedLLM([huge])
        decorated(llm, grounding_check=check, max_prompt_chars=4000)("q", DOCS)
        assert 3 == llm.calls
        assert all(len(p) <= 4000 for p in llm.prompts[1:])

    @pytest.mark.parametrize("limit", [1, 10, 60, 300])
    def test_cap_holds_for_any_query_and_wording(self, limit: int) -> None:
        """Even a query longer than the cap and a custom wording cannot exceed it."""
        llm = ScriptedLLM(["WRONG", "fine"])
        decorated(llm, max_prompt_chars=limit, rewrite=lambda a: "x" * 10_000)("q" * 500, DOCS)
        assert len(llm.prompts[1]) <= limit


class TestLLMJudge:
    @pytest.mark.parametrize(
        "reply",
        [
            "NOT SUPPORTED",
            "UNSUPPORTED: the year is wrong",
            "Verdict: UNSUPPORTED",
            "```\nUNSUPPORTED\nthe depot is red\n```",
            "**Unsupported**",
            "I checked it. The answer is not supported by the context.",
        ],
    )
    def test_recognisable_rejections_reject(self, reply: str) -> None:
        """Every recognisable rejection is a rejection, never 'no verdict'."""
        verdict = parse_verdict(reply, "the depot is red")
        assert verdict is not None
        assert verdict.ok is False

    def test_reason_on_the_verdict_line_is_a_claim(self) -> None:
        """'UNSUPPORTED: claim' lists the claim, as a span when it is in the answer."""
        verdict = parse_verdict("UNSUPPORTED: the depot is red", "Yes, the depot is red.")
        assert verdict is not None
        assert ("the depot is red",) == verdict.findings[0].spans

    def test_supported_and_garbage(self) -> None:
        """SUPPORTED accepts (also fenced); a reply with no verdict is None."""
        assert parse_verdict("```\nSUPPORTED\n```", "a") == GroundingResult(ok=True)
        assert parse_verdict("I like trains.", "a") is None

    async def test_async_judge_works_under_arun(self) -> None:
        """An async judge is awaited: its rejection drives a retry."""
        replies = iter(["UNSUPPORTED\nred", "SUPPORTED"])

        async def judge(prompt: str) -> str:
            await asyncio.sleep(0)
            return next(replies)

        llm = ScriptedLLM(["The depot is red.", "The depot stores 40 buses."])
        result = await relapse.arun("q", DOCS, call_llm=llm.acall, grounding_check=LLMJudge(judge))
        assert (True, 2) == (result.grounded, result.iterations)

    async def test_async_judge_works_in_an_async_decorated_function(self) -> None:
        """The same under a decorated async def function, combined with the default check."""

        async def judge(prompt: str) -> str:
            return "UNSUPPORTED" if "red" in prompt else "SUPPORTED"

        llm = ScriptedLLM(["The depot is red.", "It stores 40 buses."])

        @relapse.grounded(
            chunks_arg="docs", grounding_check=relapse.default_grounding_check & LLMJudge(judge)
        )
        async def answer(query: str, docs: list[str]) -> str:
            return await llm.acall(query)

        assert "It stores 40 buses." == await answer("q", DOCS)

    def test_async_judge_is_refused_under_a_sync_call(self) -> None:
        """A sync call cannot await the judge: a clear TypeError, the answer kept."""

        async def judge(prompt: str) -> str:
            return "SUPPORTED"

        with pytest.raises(TypeError, match="async") as caught:
            relapse.run("q", DOCS, call_llm=ScriptedLLM(["fine"]), grounding_check=LLMJudge(judge))
        assert ["fine"] == [r.answer for r in caught.value.relapse_transcript]  # type: ignore[attr-defined]

    @pytest.mark.parametrize(
        ("template", "message"),
        [
            ("Context {context} answer {answer} as JSON {", "not a valid template"),
            ('Context {context} answer {answer} reply {"ok": true}', "unknown field"),
            ("Only {answer}", r"lacks \{context\}"),
        ],
    )
    def test_broken_template_fails_at_construction(self, template: str, message: str) -> None:
        """A template .format cannot fill is a ValueError when the judge is built."""
        with pytest.raises(ValueError, match=message):
            LLMJudge(lambda p: "SUPPORTED", prompt=template)

    def test_literal_braces_doubled_are_fine(self) -> None:
        """A doubled brace is a literal brace."""
        judge = LLMJudge(lambda p: "SUPPORTED", prompt='{context} {answer} {{"ok": true}}')
        assert '{"ok": true}' in judge.render("q", ["c"], "a")
