"""relapse.Attempt: the one state object every policy receives, and current_attempt()."""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import threading
import weakref
from concurrent.futures import ThreadPoolExecutor

import pytest

import relapse
from helpers import decorated, forbid
from relapse.testing import ScriptedLLM, attempt_after

DOCS = ["The bridge opened in 1932 and is 503 metres long."]
#: What forbid("WRONG") finds in the answer "WRONG".
FORBIDDEN = relapse.GroundingFinding("FG001", "not in chunks: ['WRONG']", ("WRONG",))


class TestFields:
    def test_iteration_one_then_the_retry(self) -> None:
        """Inside the function: iteration, query, prompt, chunks, transcript and findings."""
        seen: list[relapse.Attempt] = []

        def llm(prompt: str) -> str:
            attempt = relapse.current_attempt()
            assert attempt is not None
            seen.append(attempt)
            return "WRONG" if attempt.iteration == 1 else "fine"

        result = decorated(llm).run("When?", DOCS)
        first, second = seen
        assert (1, "When?", "When?", tuple(DOCS), (), ()) == (
            first.iteration,
            first.query,
            first.prompt,
            first.chunks,
            first.transcript,
            first.findings,
        )
        assert (2, "When?", result.transcript[1].prompt) == (
            second.iteration,
            second.query,
            second.prompt,
        )
        assert (result.transcript[0],) == second.transcript
        assert result.transcript[0].findings == second.findings
        assert "WRONG" == second.previous_answer
        assert second.elapsed_s >= first.elapsed_s >= 0.0

    def test_attempt_is_frozen(self) -> None:
        """No policy can change the loop's state behind its back."""
        attempt = relapse.Attempt(1, "q", "q", (), (), (), 0.0)
        with pytest.raises(dataclasses.FrozenInstanceError):
            attempt.iteration = 2  # type: ignore[misc]

    def test_none_outside_any_loop(self) -> None:
        """current_attempt() is None outside a grounded call, also after one."""
        assert relapse.current_attempt() is None
        decorated(ScriptedLLM(["fine"]))("q", DOCS)
        assert relapse.current_attempt() is None


class TestPolicies:
    def test_rewrite_takes_the_attempt(self) -> None:
        """rewrite(attempt) builds the retry query from the failed attempt's state."""
        llm = ScriptedLLM(["WRONG", "fine"])

        def rewrite(attempt: relapse.Attempt) -> str:
            return (
                f"{attempt.query} / {attempt.iteration} / {attempt.previous_answer} / "
                + ",".join(f.code for f in attempt.findings)
            )

        decorated(llm, rewrite=rewrite)("q", DOCS)
        assert "q / 2 / WRONG / FG001" == llm.prompts[1]

    @pytest.mark.parametrize("option", ["rewrite", "retrieve", "on_iteration", "on_exhausted"])
    def test_a_policy_that_cannot_take_one_attempt_fails_before_any_call(self, option: str) -> None:
        """The three-argument form is gone: TypeError naming the option and f(attempt)."""
        llm = ScriptedLLM(["never"])
        for entry in (
            lambda: relapse.grounded(chunks_arg="docs", **{option: lambda q, a, f: "x"}),
            lambda: relapse.run("q", DOCS, call_llm=llm, **{option: lambda q, a, f: "x"}),
            lambda: relapse.Loop(**{option: lambda: "x"}),
        ):
            with pytest.raises(TypeError, match=rf"^{option} must be callable as f\(attempt\)"):
                entry()
        assert 0 == llm.calls

    def test_a_policy_taking_extra_defaults_or_star_args_is_accepted(self) -> None:
        """What can be called with one positional argument is an f(attempt)."""
        defaults, star = ScriptedLLM(["WRONG", "fine"]), ScriptedLLM(["WRONG", "fine"])
        decorated(defaults, rewrite=lambda attempt, end="!": f"{attempt.query}{end}")("q", DOCS)
        decorated(star, rewrite=lambda *args: f"{args[0].query}?")("q", DOCS)
        assert (["q", "q!"], ["q", "q?"]) == (defaults.prompts, star.prompts)

    def test_the_shipped_wordings_are_rewrite_policies(self) -> None:
        """relapse.prompts.compact_retry is itself a valid rewrite=."""
        llm = ScriptedLLM(["WRONG", "fine"])
        decorated(llm, rewrite=relapse.prompts.instruction_retry)("q", DOCS)
        assert llm.prompts[1] == relapse.prompts.instruction_retry(
            attempt_after("q", "WRONG", [FORBIDDEN])
        )

    def test_retrieve_takes_the_attempt_before_rewrite(self) -> None:
        """retrieve(attempt) runs first; rewrite then sees the new chunks."""
        llm = ScriptedLLM(["WRONG", "fine"])
        chunks_seen: list[tuple[str, ...]] = []

        def rewrite(attempt: relapse.Attempt) -> str:
            chunks_seen.append(attempt.chunks)
            return "again"

        decorated(llm, retrieve=lambda attempt: ["fresh chunk"], rewrite=rewrite)("q", DOCS)
        assert [("fresh chunk",)] == chunks_seen

    def test_on_iteration_sees_every_attempt_before_its_call(self) -> None:
        """on_iteration(attempt) runs once per LLM call, before it, in order."""
        events: list[str] = []

        def llm(prompt: str) -> str:
            events.append("call")
            return "WRONG" if len(events) < 3 else "fine"

        decorated(llm, on_iteration=lambda a: events.append(f"hook {a.iteration}"))("q", DOCS)
        assert ["hook 1", "call", "hook 2", "call"] == events

    def test_callable_on_exhausted_gets_the_whole_transcript(self) -> None:
        """on_exhausted(attempt) picks the answer; its transcript holds every record."""
        llm = ScriptedLLM(["WRONG 1", "WRONG 2"])
        result = decorated(
            llm,
            max_iterations=2,
            on_exhausted=lambda a: f"gave up after {len(a.transcript)}: {a.previous_answer}",
        ).run("q", DOCS)
        assert ("gave up after 2: WRONG 2", False, "exhausted") == (
            result.answer,
            result.grounded,
            result.outcome,
        )

    def test_callable_on_exhausted_must_return_str(self) -> None:
        """A handler returning a non-str is a TypeError naming on_exhausted."""
        with pytest.raises(TypeError, match="on_exhausted returned int"):
            decorated(ScriptedLLM(["WRONG"]), on_exhausted=lambda a: 3)("q", DOCS)

    def test_run_passes_the_attempt_to_call_llm(self) -> None:
        """relapse.run: call_llm reads current_attempt() too."""
        iterations: list[int] = []

        def llm(prompt: str) -> str:
            attempt = relapse.current_attempt()
            assert attempt is not None
            iterations.append(attempt.iteration)
            return "It opened in 1931." if attempt.iteration == 1 else "It opened in 1932."

        result = relapse.run("When?", DOCS, call_llm=llm)
        assert ([1, 2], True) == (iterations, result.grounded)


class TestIsolation:
    def test_threads_see_their_own_attempt(self) -> None:
        """Concurrent threads each read their own iteration and query."""
        barrier = threading.Barrier(8)

        def llm(prompt: str) -> str:
            attempt = relapse.current_attempt()
            assert attempt is not None
            barrier.wait(timeout=10)
            return f"{attempt.query} {attempt.iteration}"

        answer = decorated(llm)
        with ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(lambda i: answer(f"q{i}", DOCS), range(8)))
        assert [f"q{i} 1" for i in range(8)] == answers

    async def test_tasks_see_their_own_attempt(self) -> None:
        """Gathered asyncio tasks each read their own attempt across awaits."""

        @relapse.grounded(chunks_arg="docs", grounding_check=forbid("WRONG"))
        async def answer(query: str, docs: list[str]) -> str:
            await asyncio.sleep(0)
            attempt = relapse.current_attempt()
            assert attempt is not None
            await asyncio.sleep(0)
            return "WRONG" if attempt.iteration == 1 and query.endswith("odd") else attempt.query

        results = await asyncio.gather(
            *(answer.run(f"q{i} {'odd' if i % 2 else 'even'}", DOCS) for i in range(6))
        )
        assert [1, 2, 1, 2, 1, 2] == [r.iterations for r in results]
        assert [f"q{i} {'odd' if i % 2 else 'even'}" for i in range(6)] == [
            r.answer for r in results
        ]

    def test_nested_call_sees_its_own_then_the_outer_again(self) -> None:
        """A grounded call inside another has its own attempt; the outer's is back after it."""
        seen: list[tuple[str, int]] = []

        @relapse.grounded(chunks_arg="docs", grounding_check=forbid("WRONG"))
        def answer(query: str, docs: list[str]) -> str:
            attempt = relapse.current_attempt()
            assert attempt is not None
            if attempt.query == "outer":
                answer("inner", docs)
                after = relapse.current_attempt()
                assert after is attempt
            seen.append((attempt.query, attempt.iteration))
            return "WRONG" if (attempt.query, attempt.iteration) == ("inner", 1) else "fine"

        answer("outer", DOCS)
        assert [("inner", 1), ("inner", 2), ("outer", 1)] == seen


class TestNoCacheKeepsUserObjectsAlive:
    def test_decorated_closures_die_with_their_requests(self) -> None:
        """A per-request decorated closure and what it holds are freed after the request."""

        class Request:
            pass

        refs = []
        for _ in range(20):
            request = Request()
            refs.append(weakref.ref(request))

            @relapse.grounded(chunks_arg="docs", grounding_check=forbid("WRONG"))
            def answer(query: str, docs: list[str], request: Request = request) -> str:
                return "fine"

            answer("q", DOCS)
            del answer, request
        gc.collect()
        assert [None] * 20 == [ref() for ref in refs]

    def test_run_keeps_no_call_llm_or_chunks_alive(self) -> None:
        """relapse.run holds neither call_llm nor the chunks after returning."""

        class Chunks(list[str]):
            pass

        class Model:
            def __call__(self, prompt: str) -> str:
                return "It opened in 1932."

        model, chunks = Model(), Chunks(DOCS)
        refs = (weakref.ref(model), weakref.ref(chunks))
        relapse.run("When?", chunks, call_llm=model)
        del model, chunks
        gc.collect()
        assert (None, None) == tuple(ref() for ref in refs)


class TestHookErrors:
    def test_on_iteration_error_propagates_with_the_transcript(self) -> None:
        """An on_iteration error reaches the caller as itself, with the records so far."""
        llm = ScriptedLLM(["WRONG", "fine"])
        error = LookupError("quota spent")

        def hook(attempt: relapse.Attempt) -> None:
            if attempt.iteration == 2:
                raise error

        with pytest.raises(LookupError) as caught:
            decorated(llm, on_iteration=hook)("q", DOCS)
        assert caught.value is error
        assert (1, ["WRONG"]) == (
            llm.calls,
            [r.answer for r in caught.value.relapse_transcript],  # type: ignore[attr-defined]
        )
