"""
``release="sentence"`` with the real ``openai`` SDK over scripted HTTP (httpx ``MockTransport``).

The transport serves a chat-completions event stream one event per token and
records how many events the client pulled and whether it closed the response:
stopping at a failing sentence must close the HTTP response, so the events
after it are never read.
"""

from __future__ import annotations

import asyncio

import openai
from openai.types.chat import ChatCompletionChunk
from openai.types.completion import Completion

import relapse
from openai_scripted import (
    Server,
    assert_stopped_at_the_failing_sentence,
    async_client,
    client,
    text_of,
)
from stream_cases import BAD, DOCS, FIRST, GOOD, REST, TAIL


class TestOpenAIChat:
    def test_failing_sentence_closes_the_http_response(self) -> None:
        """No byte of the failing sentence reaches the caller; the response is closed early."""
        server = Server(FIRST + BAD + TAIL + REST, GOOD)
        sdk = client(server)

        @relapse.grounded(chunks_arg="docs", release="sentence", max_iterations=2)
        def answer(query: str, docs: list[str]) -> openai.Stream[ChatCompletionChunk]:
            return sdk.chat.completions.create(
                model="m",
                messages=[{"role": "user", "content": query}],
                stream=True,
                stream_options={"include_usage": True},
            )

        with answer("When did it open?", DOCS) as stream:
            chunks = list(stream)
        # Stopped at the failing sentence: the events of REST were never read.
        assert_stopped_at_the_failing_sentence(server, chunks)
        second = server.bodies[1]
        # The retry was read to its end, its usage chunk released last.
        assert (len(second.events), [], 40) == (
            second.sent,
            chunks[-1].choices,
            chunks[-1].usage.completion_tokens if chunks[-1].usage else None,
        )
        assert "You have already said" in server.prompts[1]
        result = stream.result
        assert (True, 2, None) == (result.grounded, result.iterations, result.transcript[0].usage)
        assert relapse.Usage(50, 40) == result.transcript[1].usage
        assert result.response is result.transcript[1].response

    def test_async_stream(self) -> None:
        """AsyncStream through an async def function: async with, the same chunk objects."""
        server = Server(FIRST + BAD + TAIL + REST, GOOD)
        sdk = async_client(server)

        @relapse.grounded(chunks_arg="docs", release="sentence", max_iterations=2)
        async def answer(query: str, docs: list[str]) -> openai.AsyncStream[ChatCompletionChunk]:
            return await sdk.chat.completions.create(
                model="m", messages=[{"role": "user", "content": query}], stream=True
            )

        async def main() -> list[ChatCompletionChunk]:
            stream = await answer("q", DOCS)
            async with stream:
                return [chunk async for chunk in stream]

        chunks = asyncio.run(main())
        assert FIRST + GOOD == text_of(chunks)
        assert server.bodies[0].closed
        assert server.bodies[0].sent < len(server.bodies[0].events)


class TestOpenAICompletions:
    def test_completions_stream(self) -> None:
        """Completions chunks (``choices[0].text``) are released sentence by sentence too."""
        server = Server(FIRST + BAD + TAIL + REST, completions=True)
        sdk = client(server)

        @relapse.grounded(chunks_arg="docs", release="sentence", max_iterations=1)
        def answer(query: str, docs: list[str]) -> openai.Stream[Completion]:
            return sdk.completions.create(model="m", prompt=query, stream=True)

        chunks = list(answer("q", DOCS))
        assert FIRST == "".join(c.choices[0].text for c in chunks)
        assert server.bodies[0].closed
