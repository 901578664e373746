"""
The real ``openai`` SDK against a scripted HTTP server (httpx ``MockTransport``).

The transport serves a chat-completions (or completions) event stream, one
event per word, and records how many events the client pulled and whether it
closed the response.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import openai
from openai.types.chat import ChatCompletionChunk

from stream_cases import FIRST, GOOD, words


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


#: How a client reaches the scripted server: a fake key, its URL, no retries.
_SCRIPTED: dict[str, Any] = {"api_key": "test", "base_url": "http://test/v1", "max_retries": 0}


def client(server: Server) -> openai.OpenAI:
    """The real ``openai`` client, its HTTP served by ``server``."""
    transport = httpx.MockTransport(server)
    return openai.OpenAI(http_client=httpx.Client(transport=transport), **_SCRIPTED)


def async_client(server: Server) -> openai.AsyncOpenAI:
    """:func:`client`'s ``AsyncOpenAI`` twin."""
    transport = httpx.MockTransport(server)
    return openai.AsyncOpenAI(http_client=httpx.AsyncClient(transport=transport), **_SCRIPTED)


def assert_stopped_at_the_failing_sentence(
    server: Server, chunks: list[ChatCompletionChunk]
) -> None:
    """
    The caller read the first sentence and the retry's answer, nothing of the failing one.

    For the script ``Server(FIRST + BAD + TAIL + REST, GOOD)``: the chunks are
    the SDK's own, two responses were served, and the first was closed before
    its last events.
    """
    assert all(isinstance(chunk, ChatCompletionChunk) for chunk in chunks)
    assert FIRST + GOOD == text_of(chunks)
    assert "35" not in text_of(chunks)  # the failing sentence's number
    first, _retry = server.bodies
    assert first.closed
    assert first.sent < len(first.events)


def text_of(chunks: list[ChatCompletionChunk]) -> str:
    return "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
