"""relapse.Loop: options validated once, immutable, shared by threads and asyncio tasks."""

from __future__ import annotations

import asyncio
import pickle
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, get_args

import pytest

import relapse
import relapse._engine
from helpers import forbid
from relapse.testing import ScriptedLLM, capture_spans

DOCS = ["The bridge opened in 1932 and is 503 metres long."]
THREADS = 8


class TestBuilt:
    def test_options_are_validated_when_the_loop_is_built(self) -> None:
        """A bad option fails at Loop(...), naming Loop and the option, before any call."""
        with pytest.raises(ValueError, match="max_iterations must be >= 1"):
            relapse.Loop(max_iterations=0)
        with pytest.raises(
            TypeError, match=r"^Loop\(\) got an unexpected keyword argument 'retries'"
        ):
            relapse.Loop(retries=2)  # type: ignore[call-arg]

    def test_validated_once_for_every_run(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """make_policy runs once per Loop, not once per run/arun/decoration."""
        made: list[str] = []
        real = relapse._engine.make_policy

        def counting(entry: str, given: Any) -> Any:
            made.append(entry)
            return real(entry, given)

        monkeypatch.setattr(relapse._engine, "make_policy", counting)
        loop = relapse.Loop(max_iterations=2)
        for _ in range(3):
            loop.run("q", DOCS, call_llm=lambda prompt: "fine")
        asyncio.run(loop.arun("q", DOCS, call_llm=_async_fine))
        loop.grounded(chunks_arg="docs")(lambda query, docs: "fine")("q", DOCS)
        assert ["Loop"] == made
        relapse.run("q", DOCS, call_llm=lambda prompt: "fine")
        assert ["Loop", "run"] == made  # the module-level skin builds one per call

    def test_immutable(self) -> None:
        """Assigning or deleting an attribute raises; the options mapping is read-only."""
        loop = relapse.Loop(max_iterations=2)
        with pytest.raises(AttributeError, match=r"relapse\.Loop is immutable"):
            loop.max_iterations = 3  # type: ignore[attr-defined]
        with pytest.raises(AttributeError, match=r"relapse\.Loop is immutable"):
            loop._policy = None  # type: ignore[assignment]
        with pytest.raises(AttributeError, match=r"relapse\.Loop is immutable"):
            del loop._policy
        with pytest.raises(TypeError):
            loop.options["max_iterations"] = 3  # type: ignore[index]
        assert {"max_iterations": 2} == dict(loop.options)

    def test_replace_and_repr(self) -> None:
        """replace() builds a new Loop over the old options; the old one is unchanged."""
        loop = relapse.Loop(max_iterations=2)
        other = loop.replace(stop_on_repeat=True, max_iterations=4)
        assert "relapse.Loop(max_iterations=2)" == repr(loop)
        assert "relapse.Loop(max_iterations=4, stop_on_repeat=True)" == repr(other)
        with pytest.raises(TypeError, match=r"^replace\(\) got an unexpected keyword"):
            loop.replace(retries=1)  # type: ignore[call-arg]

    def test_run_is_the_skin_of_loop_run(self) -> None:
        """relapse.run(...) and Loop(...).run(...) give the same result and span names."""
        results = []
        for runner in (
            lambda **kw: relapse.run("When?", DOCS, **kw),
            lambda **kw: relapse.Loop(
                grounding_check=kw.pop("grounding_check"), tracer_provider=kw.pop("tracer_provider")
            ).run("When?", DOCS, **kw),
        ):
            with capture_spans() as spans:
                result = runner(
                    call_llm=ScriptedLLM(["WRONG", "fine"]),
                    grounding_check=forbid("WRONG"),
                    tracer_provider=spans.provider,
                )
            results.append(
                (
                    result.answer,
                    result.outcome,
                    [r.prompt for r in result.transcript],
                    sorted(s.name for s in spans.spans),
                )
            )
        skin, loop = results
        assert skin == loop
        assert ("fine", "recovered") == skin[:2]
        assert [
            "relapse run",
            "relapse.check",
            "relapse.check",
            "relapse.iteration",
            "relapse.iteration",
        ] == sorted(skin[3])

    def test_grounded_names_the_call_span_after_the_function(self) -> None:
        """One Loop decorating two functions: each call span has its function's name."""
        with capture_spans() as spans:
            loop = relapse.Loop(tracer_provider=spans.provider)

            @loop.grounded(chunks_arg="docs")
            def first(query: str, docs: list[str]) -> str:
                return "It opened in 1932."

            @loop.grounded(chunks_arg="docs")
            def second(query: str, docs: list[str]) -> str:
                return "It opened in 1932."

            first("q", DOCS)
            second("q", DOCS)
        names = [s.name for s in spans.spans if s.parent is None]
        prefix = "relapse TestBuilt.test_grounded_names_the_call_span_after_the_function.<locals>."
        assert [prefix + "first", prefix + "second"] == names

    def test_a_bare_decorator_and_both_chunk_options_are_refused(self) -> None:
        loop = relapse.Loop()
        with pytest.raises(TypeError, match=r"bare @relapse\.grounded"):
            loop.grounded(lambda q, d: "x")  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="exactly one of chunks_arg"):
            loop.grounded()
        with pytest.raises(ValueError, match="retrieve= replaces the chunks argument"):
            loop.replace(retrieve=lambda attempt: None).grounded(chunks_of=lambda r: [])


async def _async_fine(prompt: str) -> str:
    return "fine"


def _check_by_query(query: str, chunks: Sequence[str], answer: str) -> relapse.GroundingResult:
    """Accept only the answer naming the query, and only on a retry ("again")."""
    if answer == f"{query}: again":
        return relapse.GroundingResult(ok=True)
    finding = relapse.GroundingFinding("FG001", f"not in chunks: [{answer!r}]", (answer,))
    return relapse.GroundingResult(ok=False, findings=(finding,))


class TestPickled:
    def test_a_loop_pickles_as_its_options(self) -> None:
        """Unpickled, it is built again from the same options and runs with them."""
        loop = relapse.Loop(max_iterations=2, stop_on_repeat=True, rewrite=relapse.compact_retry)
        again = pickle.loads(pickle.dumps(loop))
        assert dict(loop.options) == dict(again.options)
        result = again.run("q", ["It opened in 1932."], call_llm=lambda _: "It opened in 1931.")
        # stop_on_repeat: the retry repeats the one failing span, resolving nothing.
        assert ("stalled", 2) == (result.outcome, result.iterations)

    def test_an_option_that_does_not_pickle_fails_pickling(self) -> None:
        """A lambda policy is the pickle module's own error, naming the lambda."""
        with pytest.raises((pickle.PicklingError, AttributeError), match="lambda"):
            pickle.dumps(relapse.Loop(rewrite=lambda attempt: attempt.query))


class TestShared:
    def test_threads_share_one_loop(self) -> None:
        """THREADS calls at once, each inside its first LLM call together: none sees another's."""
        loop = relapse.Loop(grounding_check=_check_by_query, max_iterations=2)
        together = threading.Barrier(THREADS, timeout=10)

        def call(query: str) -> relapse.RelapseResult:
            def llm(prompt: str) -> str:
                attempt = relapse.current_attempt()
                assert attempt is not None
                assert query == attempt.query
                if attempt.iteration == 1:
                    together.wait()  # every thread is inside the loop now
                    return f"{query}: first"
                return f"{query}: again"

            return loop.run(query, DOCS, call_llm=llm)

        queries = [f"question {n}" for n in range(THREADS)]
        with ThreadPoolExecutor(THREADS) as pool:
            results = list(pool.map(call, queries))
        for query, result in zip(queries, results, strict=True):
            assert (f"{query}: again", "recovered", 2) == (
                result.answer,
                result.outcome,
                result.iterations,
            )
            assert query == result.transcript[0].prompt
            assert f"{query}: first" == result.transcript[0].answer
            assert result.transcript[1].prompt.startswith(query)

    def test_asyncio_tasks_share_one_loop(self) -> None:
        """Tasks interleaving at every await (sync and decorated): each keeps its own state."""
        loop = relapse.Loop(grounding_check=_check_by_query, max_iterations=2)

        @loop.grounded(chunks_arg="docs")
        async def answer(query: str, docs: list[str]) -> str:
            attempt = relapse.current_attempt()
            assert attempt is not None
            await asyncio.sleep(0)  # let the other tasks run their iteration
            # The retry query starts with the question; iteration 1 is the question.
            question = attempt.query
            return f"{question}: first" if attempt.iteration == 1 else f"{question}: again"

        async def arun(query: str) -> relapse.RelapseResult:
            async def llm(prompt: str) -> str:
                attempt = relapse.current_attempt()
                assert attempt is not None
                await asyncio.sleep(0)
                return f"{query}: first" if attempt.iteration == 1 else f"{query}: again"

            return await loop.arun(query, DOCS, call_llm=llm)

        async def main() -> list[relapse.RelapseResult]:
            queries = [f"question {n}" for n in range(THREADS)]
            return await asyncio.gather(
                *(arun(q) for q in queries), *(answer.run(q, DOCS) for q in queries)
            )

        results = asyncio.run(main())
        queries = [f"question {n}" for n in range(THREADS)] * 2
        assert [(f"{q}: again", "recovered") for q in queries] == [
            (r.answer, r.outcome) for r in results
        ]


class TestOutcome:
    def test_outcome_lists_every_value_a_result_can_take(self) -> None:
        """relapse.Outcome is the Literal of RelapseResult.outcome; eight values."""
        assert (
            "grounded_first_try",
            "recovered",
            "exhausted",
            "timeout",
            "redacted",
            "stalled",
            "budget",
            "disabled",
        ) == get_args(relapse.Outcome)

    def test_every_outcome_is_reached(self) -> None:
        """Each value but "timeout" (in tests/engine/test_cancellation.py) from run()."""
        check = forbid("WRONG")

        def outcome(answers: list[str], **options: Any) -> str:
            options.setdefault("grounding_check", check)
            return relapse.run("q", DOCS, call_llm=ScriptedLLM(answers), **options).outcome

        seen = {
            outcome(["fine"]),
            outcome(["WRONG", "fine"]),
            outcome(["WRONG"]),
            outcome(["WRONG"], stop_on_repeat=True),
            outcome(["WRONG"], usage_of=lambda r: relapse.Usage(5, 4), max_total_tokens=9),
            outcome(["WRONG"], enabled=False),
            outcome(["WRONG"], on_exhausted="redact"),
        }
        assert set(get_args(relapse.Outcome)) - {"timeout"} == seen
