"""
``release="sentence"`` with the real ``openai`` SDK over scripted HTTP (httpx ``MockTransport``).

The transport serves a chat-completions event stream one event per token and
records how many events the client pulled and whether it closed the response:
stopping at a failing sentence must close the HTTP response, so the events
after it are never read.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import openai
from openai.types.chat import ChatCompletionChunk
from openai.types.completion import Completion

import relapse
from test_stream_release import BAD, DOCS, FIRST, GOOD, REST, TAIL, words


def chat_event(text: str | None, usage: tuple[int, int] | None = None) -> bytes:
    """One ``data:`` line of a chat-completions stream."""
    body: dict[str, Any] = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "m",
        "choices": []
        if text is None
        else [{"index": 0, "delta": {"content": text}, "finish_reason": None}],
    }
    if usage is not None:
        body["usage"] = {
            "prompt_tokens": usage[0],
            "completion_tokens": usage[1],
            "total_tokens": sum(usage),
        }
    return b"data: " + json.dumps(body).encode() + b"\n\n"


def completion_event(text: str) -> bytes:
    body = {
        "id": "cmpl-1",
        "object": "text_completion",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "text": text, "finish_reason": None, "logprobs": None}],
    }
    return b"data: " + json.dumps(body).encode() + b"\n\n"


class Events(httpx.SyncByteStream, httpx.AsyncByteStream):
    """An event-stream body that counts the events read and records ``close``."""

    def __init__(self, events: list[bytes]) -> None:
        self.events = [*events, b"data: [DONE]\n\n"]
        self.sent = 0
        self.closed = False

    def __iter__(self) -> Iterator[bytes]:
        for event in self.events:
            self.sent += 1
            yield event

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for event in self.events:
            self.sent += 1
            yield event

    def close(self) -> None:
        self.closed = True

    async def aclose(self) -> None:
        self.closed = True


class Server:
    """Answers the n-th request with the n-th answer, one event per word, usage at the end."""

    def __init__(self, *answers: str, completions: bool = False) -> None:
        self.answers = answers
        self.bodies: list[Events] = []
        self.prompts: list[str] = []
        self.completions = completions

    def __call__(self, request: httpx.Request) -> httpx.Response:
        sent = json.loads(request.content)
        self.prompts.append(sent["prompt"] if self.completions else sent["messages"][-1]["content"])
        text = self.answers[len(self.bodies)]
        if self.completions:
            events = [completion_event(w) for w in words(text)]
        else:
            events = [chat_event(w) for w in words(text)] + [chat_event(None, (50, 40))]
        body = Events(events)
        self.bodies.append(body)
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, stream=body)


def client(server: Server) -> openai.OpenAI:
    return openai.OpenAI(
        api_key="test",
        base_url="http://test/v1",
        http_client=httpx.Client(transport=httpx.MockTransport(server)),
        max_retries=0,
    )


def text_of(chunks: list[ChatCompletionChunk]) -> str:
    return "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)


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
        assert all(isinstance(c, ChatCompletionChunk) for c in chunks)
        assert FIRST + GOOD == text_of(chunks)
        assert "35" not in text_of(chunks)
        first, second = server.bodies
        # Stopped at the failing sentence: the events of REST were never read.
        assert first.closed
        assert first.sent < len(first.events)
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
        sdk = openai.AsyncOpenAI(
            api_key="test",
            base_url="http://test/v1",
            http_client=httpx.AsyncClient(transport=httpx.MockTransport(server)),
            max_retries=0,
        )

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
