"""Which functions the decorator treats as async: coroutine functions, partials, methods."""

from __future__ import annotations

import asyncio
import functools
from typing import Any

import pytest

import relapse
from contract_cases import DOCS
from relapse.testing import ScriptedLLM


# Found by hostile testing of the loop's contract.
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
