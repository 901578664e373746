"""The decorator: call shapes, iteration budget, exhaustion policies, errors."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Iterator
from typing import Any

import pytest

import relapse
from helpers import forbid
from relapse.testing import ScriptedLLM

DOCS = ["The bridge opened in 1932 and is 503 metres long."]


def make(llm: ScriptedLLM, **options: Any) -> Any:
    options.setdefault("grounding_check", forbid("WRONG"))

    @relapse.grounded(chunks_arg="docs", **options)
    def answer(query: str, docs: list[str]) -> str:
        """Answer from the docs."""
        return llm(query)

    return answer


class TestIterations:
    def test_clean_answer_stops_after_one_call(self) -> None:
        """A grounded first answer is returned after exactly one call."""
        llm = ScriptedLLM(["It opened in 1932."])
        result = make(llm).run("When did it open?", DOCS)
        assert 1 == llm.calls
        assert (True, 1, "grounded_first_try") == (
            result.grounded,
            result.iterations,
            result.outcome,
        )
        assert "It opened in 1932." == result.answer

    def test_hallucination_then_correction_takes_two_calls(self) -> None:
        """A rejected answer is re-asked once and the corrected one returned."""
        llm = ScriptedLLM(["It opened in WRONG.", "It opened in 1932."])
        result = make(llm).run("When did it open?", DOCS)
        assert 2 == llm.calls
        assert (True, 2, "recovered") == (result.grounded, result.iterations, result.outcome)
        assert [False, True] == [r.grounded for r in result.transcript]

    def test_retry_query_quotes_question_answer_and_findings(self) -> None:
        """Iteration 2 receives the question, the rejected answer and each finding."""
        llm = ScriptedLLM(["It opened in WRONG.", "It opened in 1932."])
        make(llm)("When did it open?", DOCS)
        retry = llm.prompts[1]
        assert "When did it open?" == llm.prompts[0]
        assert "When did it open?" in retry
        assert "It opened in WRONG." in retry
        assert "FG001" in retry
        assert '"WRONG"' in retry
        assert "only the context" in retry

    def test_stubborn_model_uses_the_whole_budget(self) -> None:
        """An answer that never passes costs exactly max_iterations calls."""
        llm = ScriptedLLM(["WRONG"])
        result = make(llm, max_iterations=4).run("q", DOCS)
        assert 4 == llm.calls
        assert (False, 4, "exhausted") == (result.grounded, result.iterations, result.outcome)

    def test_max_iterations_one_means_no_retry(self) -> None:
        """max_iterations=1 makes a single call even when the answer fails."""
        llm = ScriptedLLM(["WRONG", "fine"])
        result = make(llm, max_iterations=1).run("q", DOCS)
        assert (1, False) == (llm.calls, result.grounded)

    @pytest.mark.parametrize("bad", [0, -3])
    def test_max_iterations_below_one_is_rejected(self, bad: int) -> None:
        """max_iterations counts calls, so below 1 is a ValueError."""
        with pytest.raises(ValueError, match="max_iterations"):
            relapse.grounded(chunks_arg="docs", max_iterations=bad)

    def test_records_carry_prompt_answer_and_duration(self) -> None:
        """Each record holds its iteration number, query text, answer and a duration."""
        llm = ScriptedLLM(["WRONG", "ok"])
        result = make(llm).run("q", DOCS)
        first, second = result.transcript
        assert (1, "q", "WRONG", False) == (
            first.iteration,
            first.prompt,
            first.answer,
            first.grounded,
        )
        assert (2, llm.prompts[1], "ok", True) == (
            second.iteration,
            second.prompt,
            second.answer,
            second.grounded,
        )
        assert ("FG001",) == tuple(f.code for f in first.findings)
        assert first.duration_s >= 0.0


class TestOnExhausted:
    def test_return_gives_the_last_answer(self) -> None:
        """on_exhausted='return' returns the last answer, not grounded."""
        llm = ScriptedLLM(["WRONG WRONG", "WRONG once", "WRONG again WRONG"])
        answer = make(llm, grounding_check=_count_check(), on_exhausted="return")
        assert "WRONG again WRONG" == answer("q", DOCS)

    def test_best_gives_the_fewest_failing_spans_earliest_on_ties(self) -> None:
        """on_exhausted='best' picks the answer with fewest failing spans, earliest on ties."""
        llm = ScriptedLLM(["WRONG WRONG", "WRONG one", "WRONG two"])
        result = make(llm, grounding_check=_count_check(), on_exhausted="best").run("q", DOCS)
        assert ("WRONG one", False, 3) == (result.answer, result.grounded, result.iterations)

    def test_raise_carries_the_result(self) -> None:
        """on_exhausted='raise' raises NotGroundedError with the whole transcript."""
        llm = ScriptedLLM(["WRONG"])
        with pytest.raises(relapse.NotGroundedError) as caught:
            make(llm, on_exhausted="raise")("q", DOCS)
        assert 3 == len(caught.value.result.transcript)
        assert caught.value.result.grounded is False

    def test_unknown_policy_is_rejected(self) -> None:
        """An unknown on_exhausted value is a ValueError naming the choices."""
        with pytest.raises(ValueError, match="'best'"):
            relapse.grounded(chunks_arg="docs", on_exhausted="retry")  # type: ignore[arg-type]


def _count_check() -> Any:
    """Fails on each occurrence of WRONG, one span per occurrence."""

    def check(query: str, chunks: Any, answer: str) -> relapse.GroundingResult:
        n = answer.count("WRONG")
        if not n:
            return relapse.GroundingResult(ok=True)
        finding = relapse.GroundingFinding("FG001", "wrong", ("WRONG",) * n)
        return relapse.GroundingResult(ok=False, findings=(finding,))

    return check


class TestCallShapes:
    def test_chunks_by_keyword_and_query_by_keyword(self) -> None:
        """Keyword arguments are found and the query is replaced by keyword."""
        llm = ScriptedLLM(["WRONG", "ok"])
        assert "ok" == make(llm)(docs=DOCS, query="q")
        assert "q" == llm.prompts[0]
        assert "FG001" in llm.prompts[1]

    def test_query_arg_can_be_named(self) -> None:
        """query_arg picks a parameter other than the first."""
        seen: list[tuple[str, str]] = []

        @relapse.grounded(chunks_arg="docs", query_arg="question", grounding_check=forbid("WRONG"))
        def answer(style: str, question: str, docs: list[str]) -> str:
            seen.append((style, question))
            return "WRONG" if len(seen) == 1 else "ok"

        assert "ok" == answer("terse", "q", DOCS)
        assert "terse" == seen[1][0]
        assert seen[1][1].startswith("q ")

    def test_missing_chunks_argument_names_it(self) -> None:
        """A call without the chunks argument is a TypeError naming it."""
        answer = make(ScriptedLLM(["x"]))
        with pytest.raises(TypeError, match="'docs'"):
            answer("q")

    def test_unknown_chunks_arg_lists_the_parameters(self) -> None:
        """A chunks_arg that is not a parameter fails when decorating."""
        with pytest.raises(ValueError, match=r"its parameters: query, docs"):

            @relapse.grounded(chunks_arg="documents")
            def answer(query: str, docs: list[str]) -> str:
                return ""

    def test_generator_chunks_are_read_once_and_reused(self) -> None:
        """A one-shot iterable is materialized; every iteration gets the same list."""
        received: list[list[str]] = []

        @relapse.grounded(chunks_arg="docs", grounding_check=forbid("WRONG"))
        def answer(query: str, docs: list[str]) -> str:
            received.append(list(docs))
            return "WRONG" if len(received) == 1 else "ok"

        def chunks() -> Iterator[str]:
            yield "a"
            yield "b"

        assert "ok" == answer("q", chunks())
        assert [["a", "b"], ["a", "b"]] == received

    @pytest.mark.parametrize(
        ("chunks", "message"),
        [
            ("one string", r"docs must be an iterable .* single str"),
            (None, r"got None$"),
            (b"bytes", r"single bytes"),
            (
                [{"title": "x"}],
                r"docs\[0\] is a mapping without a 'text', 'page_content' or 'content' key"
                r" \(its keys: 'title'\)",
            ),
            (["ok", 3], r"docs\[1\] is int"),
        ],
    )
    def test_bad_chunks_are_type_errors(self, chunks: Any, message: str) -> None:
        """Wrong chunk values are rejected with the argument and what was expected."""
        with pytest.raises(TypeError, match=message):
            make(ScriptedLLM(["x"]))("q", chunks)

    def test_non_string_answer_is_a_type_error(self) -> None:
        """The decorated function must return something an answer can be read from."""

        @relapse.grounded(chunks_arg="docs")
        def answer(query: str, docs: list[str]) -> Any:
            return None

        with pytest.raises(TypeError, match=r"^cannot read the answer text of a NoneType;"):
            answer("q", DOCS)


class TestMetadata:
    def test_name_doc_and_signature_are_preserved(self) -> None:
        """wrapt keeps the wrapped function's identity."""
        answer = make(ScriptedLLM(["x"]))
        assert "answer" == answer.__name__
        assert "Answer from the docs." == answer.__doc__
        assert ["query", "docs"] == list(inspect.signature(answer).parameters)
        assert not inspect.iscoroutinefunction(answer)

    def test_async_function_stays_a_coroutine_function(self) -> None:
        """An async def decorated function reports iscoroutinefunction() True."""

        @relapse.grounded(chunks_arg="docs")
        async def answer(query: str, docs: list[str]) -> str:
            return "x"

        assert inspect.iscoroutinefunction(answer)


class TestAsync:
    async def test_async_hallucination_then_correction(self) -> None:
        """The async path shares the loop: two awaits, grounded."""
        llm = ScriptedLLM(["WRONG", "ok"])

        @relapse.grounded(chunks_arg="docs", grounding_check=forbid("WRONG"))
        async def answer(query: str, docs: list[str]) -> str:
            await asyncio.sleep(0)
            return await llm.acall(query)

        assert "ok" == await answer("q", DOCS)
        result = await answer.run("q", DOCS)
        assert (True, 1) == (result.grounded, result.iterations)
        assert 3 == llm.calls


class Service:
    def __init__(self, llm: ScriptedLLM) -> None:
        self.llm = llm

    @relapse.grounded(chunks_arg="docs", grounding_check=forbid("WRONG"))
    def answer(self, query: str, docs: list[str]) -> str:
        return self.llm(query)

    @classmethod
    @relapse.grounded(chunks_arg="docs", grounding_check=forbid("WRONG"))
    def ask_class(cls, query: str, docs: list[str]) -> str:
        return SHARED(query)

    @staticmethod
    @relapse.grounded(chunks_arg="docs", grounding_check=forbid("WRONG"))
    def ask_static(query: str, docs: list[str]) -> str:
        return SHARED(query)

    @relapse.grounded(chunks_arg="docs", grounding_check=forbid("WRONG"))
    async def aanswer(self, query: str, docs: list[str]) -> str:
        return self.llm(query)


SHARED = ScriptedLLM([lambda p: "WRONG" if p == "q" else "ok"])


class TestMethods:
    def test_instance_method_positional_and_keyword(self) -> None:
        """self is bound; the query is the first parameter after it."""
        service = Service(ScriptedLLM([lambda p: "WRONG" if p == "q" else "ok"]))
        assert "ok" == service.answer("q", DOCS)
        assert "ok" == service.answer(query="q", docs=DOCS)
        assert "q" == service.llm.prompts[0]
        assert "FG001" in service.llm.prompts[1]

    def test_instance_method_called_through_the_class(self) -> None:
        """Service.answer(obj, ...) binds obj like a normal method call."""
        service = Service(ScriptedLLM(["ok"]))
        assert "ok" == Service.answer(service, "q", DOCS)

    def test_run_on_a_bound_method(self) -> None:
        """obj.method.run(...) returns the RelapseResult."""
        service = Service(ScriptedLLM([lambda p: "WRONG" if p == "q" else "ok"]))
        result = service.answer.run("q", DOCS)
        assert (True, 2) == (result.grounded, result.iterations)

    def test_classmethod_and_staticmethod(self) -> None:
        """Both retry with the rewritten query, through the class and an instance."""
        assert "ok" == Service.ask_class("q", DOCS)
        assert "ok" == Service.ask_static("q", docs=DOCS)
        assert "ok" == Service(ScriptedLLM(["x"])).ask_static("q", DOCS)

    async def test_async_method(self) -> None:
        """An async method is awaited per iteration."""
        service = Service(ScriptedLLM([lambda p: "WRONG" if p == "q" else "ok"]))
        assert inspect.iscoroutinefunction(service.aanswer)
        assert "ok" == await service.aanswer("q", DOCS)


class TestErrors:
    def test_llm_exception_propagates_unchanged_with_transcript(self) -> None:
        """The LLM's exception is the one raised, carrying the transcript so far."""
        boom = ConnectionError("provider down")
        llm = ScriptedLLM(["WRONG", boom])
        with pytest.raises(ConnectionError) as caught:
            make(llm)("q", DOCS)
        assert caught.value is boom
        transcript = caught.value.relapse_transcript  # type: ignore[attr-defined]
        assert [("WRONG", False)] == [(r.answer, r.grounded) for r in transcript]
        assert 2 == llm.calls

    def test_exception_is_not_fed_into_a_retry(self) -> None:
        """An exception on iteration 1 ends the call: no second call."""
        llm = ScriptedLLM([ValueError("bad request"), "ok"])
        with pytest.raises(ValueError, match="bad request"):
            make(llm)("q", DOCS)
        assert 1 == llm.calls


class TestReRetrieval:
    def test_retrieve_replaces_the_chunks_for_the_retry_and_the_check(self) -> None:
        """New chunks reach the function on the retry, and the check judges against them."""
        seen: list[list[str]] = []
        asked: list[tuple[str, str, tuple[str, ...]]] = []

        def retrieve(attempt: relapse.Attempt) -> list[str]:
            asked.append(
                (
                    attempt.query,
                    attempt.previous_answer or "",
                    tuple(f.code for f in attempt.errors),
                )
            )
            return ["It opened in 1933."]

        @relapse.grounded(chunks_arg="docs", retrieve=retrieve)
        def answer(query: str, docs: list[str]) -> str:
            seen.append(list(docs))
            return "It opened in 1933."

        result = answer.run("When did it open?", ["The bridge is 503 metres long."])
        assert [["The bridge is 503 metres long."], ["It opened in 1933."]] == seen
        assert [("When did it open?", "It opened in 1933.", ("FG002",))] == asked
        assert (True, 2) == (result.grounded, result.iterations)

    def test_retrieve_returning_none_keeps_the_chunks(self) -> None:
        """None from retrieve means: retry over the same chunks."""
        seen: list[list[str]] = []

        @relapse.grounded(
            chunks_arg="docs", retrieve=lambda attempt: None, grounding_check=forbid("WRONG")
        )
        def answer(query: str, docs: list[str]) -> str:
            seen.append(list(docs))
            return "WRONG" if len(seen) == 1 else "ok"

        assert "ok" == answer("q", DOCS)
        assert [DOCS, DOCS] == seen

    def test_retrieve_result_is_validated(self) -> None:
        """A malformed retrieve result is a TypeError naming it."""

        @relapse.grounded(chunks_arg="docs", retrieve=lambda attempt: "one string")
        def answer(query: str, docs: list[str]) -> str:
            return "It opened in 1999."

        with pytest.raises(TypeError, match=r"retrieve\(\) result must be an iterable"):
            answer("q", DOCS)

    def test_run_passes_retrieved_texts_to_the_prompt(self) -> None:
        """run(retrieve=...) builds the retry prompt over the new chunk texts."""
        llm = ScriptedLLM(["It opened in 1933.", "It opened in 1933."])
        result = relapse.run(
            "When?",
            ["The bridge is long."],
            call_llm=llm,
            retrieve=lambda attempt: [{"text": "Opened in 1933."}],
        )
        assert "Opened in 1933." not in llm.prompts[0]
        assert "Opened in 1933." in llm.prompts[1]
        assert result.grounded


class TestSpelling:
    def test_bare_decorator_names_the_missing_option(self) -> None:
        """A bare @relapse.grounded says that chunks_arg (or chunks_of) is required."""
        with pytest.raises(TypeError, match=r"use @relapse\.grounded\(chunks_arg=\.\.\.\) or"):

            @relapse.grounded  # type: ignore[call-overload, arg-type, call-arg]
            def answer(query: str, docs: list[str]) -> str:
                return ""
