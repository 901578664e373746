"""
Type-checker regression samples: ``mypy --strict tests/typing`` must pass.

Never run by pytest (the file name does not start with ``test_``); it pins
down the types of the decorator, ``relapse.run``/``arun`` and
``current_attempt()``. Each ``assert_type`` fails the type check, not a test,
when a type drifts.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Coroutine
from typing import Any, assert_type

import relapse
from relapse.checks._incremental import GENERIC_READER, ComposedReader
from relapse.grounding import GroundingCheck


@relapse.grounded(chunks_arg="docs")
def answer(query: str, docs: list[str]) -> str:
    """A sync grounded function."""
    return "It opened in 1932."


@relapse.grounded(chunks_arg="docs", stop_on_repeat=True, on_exhausted="best")
async def aanswer(query: str, docs: list[str], *, temperature: float = 0.0) -> str:
    """An async grounded function."""
    return "It opened in 1932."


class Service:
    """A class with a grounded method."""

    @relapse.grounded(chunks_arg="docs")
    def answer(self, query: str, docs: list[str]) -> str:
        """A grounded method."""
        return "It opened in 1932."

    @relapse.grounded(chunks_arg="docs")
    async def aanswer(self, query: str, docs: list[str]) -> str:
        """An async grounded method."""
        return "It opened in 1932."


def rewrite(attempt: relapse.Attempt) -> str:
    """A new-style rewrite policy."""
    return f"{attempt.query} (try {attempt.iteration})"


DOCS = ["The bridge opened in 1932."]

assert_type(answer("q", DOCS), str)
assert_type(answer.run("q", DOCS), relapse.RelapseResult)
# Closed, not discarded: mypy rightly flags an unused coroutine.
assert_type(aanswer("q", DOCS), Coroutine[Any, Any, str]).close()
assert_type(
    aanswer.run("q", DOCS, temperature=0.5), Coroutine[Any, Any, relapse.RelapseResult]
).close()

service = Service()
assert_type(service.answer("q", DOCS), str)
assert_type(service.answer.run("q", DOCS), relapse.RelapseResult)
assert_type(service.aanswer("q", DOCS), Coroutine[Any, Any, str]).close()
assert_type(service.aanswer.run("q", DOCS), Coroutine[Any, Any, relapse.RelapseResult]).close()

assert_type(
    relapse.run("q", DOCS, call_llm=lambda prompt: "a", rewrite=rewrite),
    relapse.RelapseResult,
)


async def call_model(prompt: str) -> str:
    """An async call_llm."""
    attempt = relapse.current_attempt()
    assert_type(attempt, relapse.Attempt | None)
    if attempt is not None and attempt.iteration > 1:
        assert_type(attempt.findings, tuple[relapse.GroundingFinding, ...])
    return "a"


async def main() -> None:
    """arun and awaiting decorated coroutines."""
    assert_type(await relapse.arun("q", DOCS, call_llm=call_model), relapse.RelapseResult)
    assert_type(await aanswer("q", DOCS), str)
    assert_type(await aanswer.run("q", DOCS), relapse.RelapseResult)


@relapse.grounded(chunks_arg="docs")
def answer_dict(query: str, docs: list[str]) -> dict[str, object]:
    """A function returning its own response shape: calling returns it unchanged."""
    return {"answer": "It opened in 1932.", "sources": [0]}


@relapse.grounded(chunks_of=relapse.chunks_from.sources, feedback_arg="hint")
async def ask(query: str, hint: str | None = None) -> dict[str, object]:
    """A function that retrieves itself, with a feedback parameter."""
    return {"answer": "It opened in 1932.", "sources": DOCS}


assert_type(answer_dict("q", DOCS), dict[str, object])
assert_type(answer_dict.run("q", DOCS).usage, relapse.Usage | None)
assert_type(ask("q"), Coroutine[Any, Any, dict[str, object]]).close()
assert_type(ask.run("q", hint=None), Coroutine[Any, Any, relapse.RelapseResult]).close()


@relapse.grounded(chunks_arg="docs")
async def stream(query: str, docs: list[str]) -> AsyncIterator[str]:
    """An async generator function: calling it gives the caller's async stream."""
    yield "It opened in 1932."


assert_type(stream("q", DOCS), relapse.AsyncGroundedStream[str])
assert_type(stream.run("q", DOCS), Coroutine[Any, Any, relapse.RelapseResult]).close()


def rewrite_policy(attempt: relapse.Attempt) -> str:
    """A rewrite policy: one Attempt in, the retry query out."""
    return relapse.prompts.compact_retry(attempt)


loop = relapse.Loop(max_iterations=2, rewrite=rewrite_policy, on_iteration=print)
also = loop.replace(rewrite=relapse.prompts.instruction_retry)
assert_type(also, relapse.Loop)
assert_type(loop.run("q", DOCS, call_llm=lambda prompt: "a"), relapse.RelapseResult)
assert_type(
    loop.arun("q", DOCS, call_llm=call_model), Coroutine[Any, Any, relapse.RelapseResult]
).close()
outcome: relapse.Outcome = loop.run("q", DOCS, call_llm=lambda prompt: "a").outcome
assert_type(outcome, relapse.Outcome)


@loop.grounded(chunks_arg="docs")
def loop_answer(query: str, docs: list[str]) -> str:
    """A function decorated by a shared Loop."""
    return "It opened in 1932."


assert_type(loop_answer("q", DOCS), str)
assert_type(loop_answer.run("q", DOCS), relapse.RelapseResult)


# The stream readers the library ships are relapse.checks.StreamReader (the
# protocol the incremental check asks); a drift of either side fails here.
_default_reader: relapse.checks.StreamReader = GroundingCheck().stream_reader()
_generic_reader: relapse.checks.StreamReader = GENERIC_READER
_composed_reader: relapse.checks.StreamReader = ComposedReader([_default_reader], complete=True)
_check_reads: relapse.checks.ReadsItsStream = GroundingCheck()
