"""
``relapse.llms.openai`` with ``stream=True``: the SDK's own stream, released sentence by sentence.

Against the real ``openai`` SDK over scripted HTTP (``tests/streaming/test_openai_sdk.py``'s
``Server``, which counts the events read and records the close), and against
llama-cpp-python's server with the bundled model (slow).
"""

from __future__ import annotations

import json

import httpx
import openai
import pytest
from openai.types import Completion
from openai.types.chat import ChatCompletionChunk

import relapse
from llama_server import MODEL, LlamaServer
from openai_scripted import (
    Server,
    assert_stopped_at_the_failing_sentence,
    async_client,
    client,
    text_of,
)
from relapse.llms.local import LocalModel
from relapse.llms.openai import AsyncOpenAICompatible, OpenAICompatible, Sampling
from stream_cases import BAD, DOCS, FIRST, GOOD, REST, TAIL


class Recording(Server):
    """The scripted server, keeping every request body as sent."""

    def __init__(self, *answers: str, completions: bool = False) -> None:
        super().__init__(*answers, completions=completions)
        self.sent: list[dict[str, object]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.sent.append(json.loads(request.content))
        return super().__call__(request)


class TestStreamFlag:
    def test_the_request_streams_with_usage(self) -> None:
        """stream=True sends stream and include_usage; llm(prompt) returns the SDK's Stream."""
        server = Recording(GOOD)
        llm = OpenAICompatible(model="m", stream=True, client=client(server))
        returned = llm("When did it open?")
        assert isinstance(returned, openai.Stream)
        chunks = list(returned)
        assert GOOD == text_of(chunks)
        (sent,) = server.sent
        assert (True, {"include_usage": True}) == (sent["stream"], sent["stream_options"])

    def test_without_the_flag_nothing_streams(self) -> None:
        """The default sends no stream argument (the Answer path is unchanged)."""
        llm = OpenAICompatible(model="m", client=client(Recording(GOOD)))
        assert "stream" not in llm._request.arguments("q")

    def test_stream_must_be_a_bool(self) -> None:
        """A non-bool stream is refused, naming the argument."""
        with pytest.raises(TypeError, match="stream must be a bool, got str"):
            OpenAICompatible(model="m", stream="yes", client=client(Recording(GOOD)))  # type: ignore[arg-type]

    def test_a_grounded_function_releases_its_chunks(self) -> None:
        """release="sentence": llm(prompt)'s chunks as they pass; the response closed at BAD."""
        server = Recording(FIRST + BAD + TAIL + REST, GOOD)
        llm = OpenAICompatible(model="m", stream=True, client=client(server))

        @relapse.grounded(chunks_arg="docs", release="sentence", max_iterations=2)
        def answer(query: str, docs: list[str]) -> openai.Stream[ChatCompletionChunk]:
            return llm(query)  # type: ignore[no-any-return]

        with answer("When did it open?", DOCS) as stream:
            chunks = list(stream)
        assert_stopped_at_the_failing_sentence(server, chunks)
        assert "You have already said" in server.prompts[1]
        # The retry's stream reported its usage (the scripted 50 in, 40 out).
        assert relapse.Usage(50, 40) == stream.result.transcript[1].usage

    async def test_the_async_client_returns_an_async_stream(self) -> None:
        """AsyncOpenAICompatible(stream=True): an AsyncStream, released by an async function."""
        server = Recording(FIRST + BAD + TAIL + REST, GOOD)
        sdk = async_client(server)
        llm = AsyncOpenAICompatible(model="m", stream=True, client=sdk)

        @relapse.grounded(chunks_arg="docs", release="sentence", max_iterations=2)
        async def answer(query: str, docs: list[str]) -> openai.AsyncStream[ChatCompletionChunk]:
            return await llm(query)  # type: ignore[no-any-return]

        stream = await answer("When did it open?", DOCS)
        async with stream:
            chunks = [chunk async for chunk in stream]
        assert FIRST + GOOD == text_of(chunks)
        assert server.bodies[0].closed


@pytest.mark.slow
def test_the_local_server_streams_released_chunks(llama_server: LlamaServer) -> None:
    """The bundled model through llama.cpp's server: the caller reads what each attempt released."""
    llm = OpenAICompatible(
        base_url=llama_server.base_url,
        model=MODEL,
        api="completions",
        sampling=Sampling(temperature=0.0, max_tokens=60, stop=("\n",)),
        stream=True,
    )
    docs = [
        "The Golden Gate Bridge opened to traffic on May 27, 1937. Its main span is 1,280 metres."
    ]

    @relapse.grounded(chunks_arg="docs", release="sentence", max_iterations=2)
    def answer(question: str, docs: list[str]) -> openai.Stream[Completion]:
        return llm(LocalModel.build_prompt(question, docs))  # type: ignore[no-any-return]

    with answer("When did the Golden Gate Bridge open?", docs) as stream:
        chunks = list(stream)
    assert chunks
    assert all(isinstance(chunk, Completion) for chunk in chunks)
    printed = "".join(c.choices[0].text for c in chunks if c.choices)
    result = stream.result
    # What the caller read is exactly what the attempts released, in order.
    assert printed == "".join(record.released for record in result.transcript)
    assert printed == result.answer
    # Greedy decoding reads the date off the chunk, one chunk per token.
    assert (True, "grounded_first_try") == (result.grounded, result.outcome)
    assert "May 27, 1937" in printed
    assert len(chunks) > len(printed.split())
    # llama-cpp-python's server (0.3.x) ignores stream_options: no usage chunk.
    assert result.transcript[0].usage is None
