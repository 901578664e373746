"""
Type-checker regression samples for grounded functions returning streams.

``MYPYPATH=src mypy --strict tests/typing`` must pass; never run by pytest.
Calling a grounded function that returns a stream gives the stream relapse
hands the caller, :class:`relapse.GroundedStream` (or
:class:`relapse.AsyncGroundedStream`), with ``.result``, ``.response``,
``close()`` and ``with``: each assignment below fails the type check when
that type drifts, and each ``# type: ignore[...]`` fails it (as unused,
``--strict`` warns on unused ignores) when the line it silences would
type-check, so the stream is never typed ``Any``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Coroutine, Generator, Iterator
from typing import Any, assert_type

import openai
from openai.types.chat import ChatCompletionChunk

import relapse

DOCS = ["The bridge opened in 1932."]
sdk = openai.OpenAI(api_key="test")
asdk = openai.AsyncOpenAI(api_key="test")


@relapse.grounded(chunks_arg="docs", release="sentence")
def tokens(query: str, docs: list[str]) -> Iterator[str]:
    """A generator function."""
    yield "It opened in 1932."


@relapse.grounded(chunks_arg="docs")
def generator(query: str, docs: list[str]) -> Generator[str, None, None]:
    """A generator function typed as a Generator."""
    yield "It opened in 1932."


@relapse.grounded(chunks_arg="docs", release="sentence")
def chat(query: str, docs: list[str]) -> openai.Stream[ChatCompletionChunk]:
    """A function returning the OpenAI SDK's Stream."""
    return sdk.chat.completions.create(
        model="m", messages=[{"role": "user", "content": query}], stream=True
    )


@relapse.grounded(chunks_arg="docs", release="sentence")
async def atokens(query: str, docs: list[str]) -> AsyncIterator[str]:
    """An async generator function."""
    yield "It opened in 1932."


@relapse.grounded(chunks_arg="docs", release="sentence")
async def achat(query: str, docs: list[str]) -> openai.AsyncStream[ChatCompletionChunk]:
    """An async def returning the OpenAI SDK's AsyncStream."""
    return await asdk.chat.completions.create(
        model="m", messages=[{"role": "user", "content": query}], stream=True
    )


@relapse.grounded(chunks_arg="docs")
def sometimes(query: str, docs: list[str], stream: bool) -> Iterator[str] | str:
    """A stream only sometimes: typed as written (docs/streaming.md says why)."""
    return iter(["It opened in 1932."]) if stream else "It opened in 1932."


class Service:
    """A grounded method returning a stream."""

    @relapse.grounded(chunks_arg="docs", release="sentence")
    def tokens(self, query: str, docs: list[str]) -> Iterator[str]:
        """A generator method."""
        yield "It opened in 1932."


loop = relapse.Loop(release="sentence")


@loop.grounded(chunks_arg="docs")
def shared(query: str, docs: list[str]) -> Iterator[str]:
    """A generator function decorated by a shared Loop."""
    yield "It opened in 1932."


def sync_streams() -> None:
    """The sync streams: GroundedStream, with .result once read."""
    stream: relapse.GroundedStream[str] = tokens("q", DOCS)
    with stream as same:
        texts: list[str] = list(same)
    result: relapse.RelapseResult = stream.result
    grounded: bool = stream.result.grounded
    stream.close()
    wrong: int = stream.result  # type: ignore[assignment]
    assert_type(tokens("q", DOCS), relapse.GroundedStream[str])
    assert_type(tokens.run("q", DOCS), relapse.RelapseResult)
    assert_type(generator("q", DOCS), relapse.GroundedStream[str])
    chunks: relapse.GroundedStream[ChatCompletionChunk] = chat("q", DOCS)
    for chunk in chunks:
        assert_type(chunk, ChatCompletionChunk)
    not_str: relapse.GroundedStream[str] = chat("q", DOCS)  # type: ignore[assignment]
    assert_type(Service().tokens("q", DOCS), relapse.GroundedStream[str])
    assert_type(shared("q", DOCS), relapse.GroundedStream[str])
    assert_type(sometimes("q", DOCS, True), Iterator[str] | str)
    print(texts, result, grounded, wrong, not_str)


async def async_streams() -> None:
    """The async streams: AsyncGroundedStream, with .result once read."""
    stream: relapse.AsyncGroundedStream[str] = atokens("q", DOCS)
    async with stream as same:
        texts = [text async for text in same]
    result: relapse.RelapseResult = stream.result
    await stream.aclose()
    wrong: int = stream.result  # type: ignore[assignment]
    run: Coroutine[Any, Any, relapse.RelapseResult] = atokens.run("q", DOCS)
    assert_type(await run, relapse.RelapseResult)
    chunks: relapse.AsyncGroundedStream[ChatCompletionChunk] = await achat("q", DOCS)
    async for chunk in chunks:
        assert_type(chunk, ChatCompletionChunk)
    assert_type(
        achat("q", DOCS), Coroutine[Any, Any, relapse.AsyncGroundedStream[ChatCompletionChunk]]
    ).close()
    assert_type(await achat.run("q", DOCS), relapse.RelapseResult)
    print(texts, result, wrong)
