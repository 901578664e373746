"""
Concurrent calls of one decorated function share nothing per call.

Every test drives many calls whose prompts and answers carry the call's own
id, so any leak between calls (a transcript entry, an iteration number, a span
parent) shows up as a wrong id rather than as a flaky count.
"""

from __future__ import annotations

import asyncio
import re
import sys
import threading
from collections import Counter
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan

import relapse
from helpers import forbid
from relapse.testing import CapturedSpans, ScriptedLLM

DOCS = ["The depot stores 40 buses."]
_ID = re.compile(r"^q(\d+)\b")


def per_query(prompt: str) -> str:
    """
    Answer by query id: odd ids hallucinate once, then recover.

    The id is read from the prompt's start (the retry query starts with the
    original query), so the answer depends on the call, not on call order.
    """
    match = _ID.match(prompt)
    assert match is not None, prompt
    ident = int(match.group(1))
    first_try = prompt == f"q{ident}"
    if ident % 2 and first_try:
        return f"WRONG {ident}"
    return f"answer {ident}"


def expected_iterations(ident: int) -> int:
    """1 for even ids (grounded at once), 2 for odd ids (one retry)."""
    return 2 if ident % 2 else 1


def assert_own_transcript(ident: int, result: relapse.RelapseResult) -> None:
    """Every record of call ``ident`` holds its own prompt and answer, numbered from 1."""
    count = expected_iterations(ident)
    assert (True, count) == (result.grounded, result.iterations)
    assert list(range(1, count + 1)) == [r.iteration for r in result.transcript]
    assert f"q{ident}" == result.transcript[0].prompt
    for record in result.transcript:
        assert (ident,) == tuple(int(x) for x in re.findall(r"\d+", record.answer))
        assert int(_ID.match(record.prompt).group(1)) == ident  # type: ignore[union-attr]
    assert f"answer {ident}" == result.answer


def assert_span_tree(spans: CapturedSpans, results: dict[int, relapse.RelapseResult]) -> None:
    """
    Each call span sits under its caller's span and owns its iteration spans.

    The caller span is named ``caller <id>`` and the LLM's own span
    ``llm <id>``, so each level of the tree can be matched to the call.
    """
    by_id: dict[int, ReadableSpan] = {s.context.span_id: s for s in spans.spans}
    callers = {int(s.name.split()[1]): s for s in spans.spans if s.name.startswith("caller ")}
    call_spans = {
        ident: next(
            s
            for s in spans.spans
            if s.parent is not None
            and s.parent.span_id == caller.context.span_id
            and s.name.startswith("relapse ")
        )
        for ident, caller in callers.items()
    }
    assert set(results) == set(callers) == set(call_spans)
    iterations_of: dict[int, list[ReadableSpan]] = {}
    for span in spans.named("relapse.iteration"):
        assert span.parent is not None
        iterations_of.setdefault(span.parent.span_id, []).append(span)
    for ident, call in call_spans.items():
        mine = iterations_of[call.context.span_id]
        assert [i + 1 for i in range(expected_iterations(ident))] == [
            s.attributes["relapse.iteration"]  # type: ignore[index]
            for s in sorted(mine, key=lambda s: s.attributes["relapse.iteration"])  # type: ignore[index]
        ]
        assert results[ident].iterations == call.attributes["relapse.iterations"]  # type: ignore[index]
    # The LLM's span for call n is under an iteration span of call n.
    for llm_span in (s for s in spans.spans if s.name.startswith("llm ")):
        ident = int(llm_span.name.split()[1])
        assert llm_span.parent is not None
        iteration = by_id[llm_span.parent.span_id]
        assert "relapse.iteration" == iteration.name
        assert iteration.parent is not None
        assert call_spans[ident].context.span_id == iteration.parent.span_id


@pytest.fixture
def fast_switching() -> Iterator[None]:
    """Make threads switch every few microseconds so that calls really interleave."""
    previous = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(previous)


class TestAsyncConcurrency:
    async def test_thousand_gathered_calls_keep_their_own_transcripts(
        self, spans: CapturedSpans
    ) -> None:
        """1,000 gathered calls: own prompts, answers, iteration numbers and span parents."""
        llm = ScriptedLLM([per_query])
        tracer = trace.get_tracer("test", tracer_provider=spans.provider)

        @relapse.grounded(
            chunks_arg="docs", grounding_check=forbid("WRONG"), tracer_provider=spans.provider
        )
        async def answer(query: str, docs: list[str]) -> str:
            # Yield to the event loop so that the calls interleave mid-loop.
            await asyncio.sleep(0)
            ident = _ID.match(query).group(1)  # type: ignore[union-attr]
            with tracer.start_as_current_span(f"llm {ident}"):
                await asyncio.sleep(0)
                return await llm.acall(query)

        async def one(ident: int) -> relapse.RelapseResult:
            with tracer.start_as_current_span(f"caller {ident}"):
                result: relapse.RelapseResult = await answer.run(f"q{ident}", DOCS)
                return result

        results = await asyncio.gather(*(one(i) for i in range(1000)))
        by_ident = dict(enumerate(results))
        for ident, result in by_ident.items():
            assert_own_transcript(ident, result)
        assert sum(expected_iterations(i) for i in range(1000)) == llm.calls
        assert_span_tree(spans, by_ident)

    async def test_different_outcomes_cost_one_and_max_iterations_calls(self) -> None:
        """A clean call and a stubborn one, interleaved: 1 and max_iterations LLM calls."""
        calls: Counter[str] = Counter()

        @relapse.grounded(chunks_arg="docs", grounding_check=forbid("WRONG"), max_iterations=4)
        async def answer(query: str, docs: list[str]) -> str:
            origin = query.split()[0]
            calls[origin] += 1
            await asyncio.sleep(0)
            return "WRONG" if origin == "stubborn" else "fine"

        clean, stubborn = await asyncio.gather(
            answer.run("clean question", DOCS), answer.run("stubborn question", DOCS)
        )
        assert {"clean": 1, "stubborn": 4} == dict(calls)
        assert ("grounded_first_try", 1) == (clean.outcome, clean.iterations)
        assert ("exhausted", 4) == (stubborn.outcome, stubborn.iterations)


class TestThreadConcurrency:
    THREADS = 32
    CALLS_PER_THREAD = 25

    @pytest.mark.usefixtures("fast_switching")
    def test_thirty_two_threads_keep_their_own_transcripts(self, spans: CapturedSpans) -> None:
        """32 threads on one sync function: own transcripts, iterations and span parents."""
        llm = ScriptedLLM([per_query])
        tracer = trace.get_tracer("test", tracer_provider=spans.provider)
        start = threading.Barrier(self.THREADS)

        @relapse.grounded(
            chunks_arg="docs", grounding_check=forbid("WRONG"), tracer_provider=spans.provider
        )
        def answer(query: str, docs: Sequence[str]) -> str:
            ident = _ID.match(query).group(1)  # type: ignore[union-attr]
            with tracer.start_as_current_span(f"llm {ident}"):
                return llm(query)

        def worker(thread: int) -> dict[int, relapse.RelapseResult]:
            start.wait()
            out: dict[int, relapse.RelapseResult] = {}
            for n in range(self.CALLS_PER_THREAD):
                ident = thread * self.CALLS_PER_THREAD + n
                with tracer.start_as_current_span(f"caller {ident}"):
                    out[ident] = answer.run(f"q{ident}", DOCS)
            return out

        with ThreadPoolExecutor(self.THREADS) as pool:
            parts = list(pool.map(worker, range(self.THREADS)))
        results = {k: v for part in parts for k, v in part.items()}
        assert self.THREADS * self.CALLS_PER_THREAD == len(results)
        for ident, result in results.items():
            assert_own_transcript(ident, result)
        assert_span_tree(spans, results)

    @pytest.mark.usefixtures("fast_switching")
    def test_different_outcomes_cost_one_and_max_iterations_calls(self) -> None:
        """Threads with clean and stubborn queries: exactly 1 and max_iterations calls each."""
        calls: Counter[str] = Counter()
        lock = threading.Lock()

        @relapse.grounded(chunks_arg="docs", grounding_check=forbid("WRONG"), max_iterations=5)
        def answer(query: str, docs: list[str]) -> str:
            origin = query.split()[0]
            with lock:
                calls[origin] += 1
            return "WRONG" if origin.startswith("stubborn") else "fine"

        names = [f"{kind}{i}" for i in range(16) for kind in ("clean", "stubborn")]
        with ThreadPoolExecutor(len(names)) as pool:
            results: list[Any] = list(pool.map(lambda n: answer.run(f"{n} q", DOCS), names))
        assert {n: 1 if n.startswith("clean") else 5 for n in names} == dict(calls)
        assert [1 if n.startswith("clean") else 5 for n in names] == [r.iterations for r in results]

    def test_nested_call_of_the_same_function_has_its_own_loop(self, spans: CapturedSpans) -> None:
        """A decorated function calling itself gets a separate loop and a nested call span."""

        @relapse.grounded(
            chunks_arg="docs", grounding_check=forbid("WRONG"), tracer_provider=spans.provider
        )
        def answer(query: str, docs: list[str]) -> str:
            if query == "outer":
                inner = answer.run("inner", docs)
                return f"outer saw {inner.iterations} inner iteration(s)"
            return "WRONG" if query == "inner" else "inner fixed"

        result = answer.run("outer", DOCS)
        assert ("outer saw 2 inner iteration(s)", 1) == (result.answer, result.iterations)
        # "relapse <qualname>" are call spans; iteration spans are "relapse.iteration".
        call_spans = [s for s in spans.spans if s.name.startswith("relapse ")]
        assert 2 == len(call_spans)
        inner_call = min(call_spans, key=lambda s: s.end_time or 0)
        outer_iteration = next(
            s
            for s in spans.named("relapse.iteration")
            if inner_call.parent is not None and s.context.span_id == inner_call.parent.span_id
        )
        assert 1 == outer_iteration.attributes["relapse.iteration"]  # type: ignore[index]
