"""Streams: consumed to the end, read for text and usage, replayed as the same kind."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from relapse import Usage
from relapse._read.streams import (
    Streamed,
    acollect,
    collect,
    read_stream,
    stream_kind,
)
from sdk_shapes import (
    AIMessageChunk,
    AnthropicEvent,
    Completion,
    CompletionChoice,
    CompletionUsage,
    ResponseEvent,
    anthropic_events,
    chat_chunks,
    responses_response,
)


def _responses_events(*texts: str, given: int, made: int) -> list[ResponseEvent]:
    return [
        ResponseEvent("response.created"),
        ResponseEvent("response.output_item.added"),
        *(ResponseEvent("response.output_text.delta", delta=text) for text in texts),
        ResponseEvent("response.output_text.done"),
        ResponseEvent(
            "response.completed", response=responses_response("".join(texts), given, made)
        ),
    ]


class TestReadStream:
    @pytest.mark.parametrize(
        ("pieces", "text", "usage"),
        [
            (["It ", "opened ", "in 1889."], "It opened in 1889.", None),
            (chat_chunks("It ", "opened."), "It opened.", None),
            (chat_chunks("It ", "opened.", prompt=40, completion=3), "It opened.", Usage(40, 3)),
            (
                [
                    Completion([CompletionChoice("It ")]),
                    Completion([CompletionChoice("opened.")], CompletionUsage(12, 2, 14)),
                ],
                "It opened.",
                Usage(12, 2),
            ),
            (_responses_events("It ", "opened.", given=50, made=4), "It opened.", Usage(50, 4)),
            (anthropic_events("It ", "opened.", given=25, made=7), "It opened.", Usage(25, 7)),
            (
                [
                    AIMessageChunk("It "),
                    AIMessageChunk([{"type": "text", "text": "opened."}]),
                    AIMessageChunk("", {"input_tokens": 8, "output_tokens": 2, "total_tokens": 10}),
                ],
                "It opened.",
                Usage(8, 2),
            ),
        ],
        ids=[
            "str",
            "openai-chat",
            "openai-chat-usage",
            "openai-completions",
            "openai-responses",
            "anthropic",
            "langchain-chunks",
        ],
    )
    def test_reads_text_and_usage(self, pieces: list[Any], text: str, usage: Usage | None) -> None:
        """The text is the pieces' text joined; usage is the stream's final report."""
        assert (text, usage) == read_stream(pieces)

    def test_anthropic_delta_usage_replaces_the_start_count(self) -> None:
        """message_start counts 1 output token; message_delta's cumulative count replaces it."""
        events = anthropic_events("x", given=10, made=30)
        assert Usage(10, 30) == read_stream(events)[1]

    def test_langchain_chunk_usage_adds_up(self) -> None:
        """LangChain chunks report increments (``AIMessageChunk.__add__`` sums them)."""
        increment = {"input_tokens": 4, "output_tokens": 1, "total_tokens": 5}
        chunks = [AIMessageChunk("a", increment), AIMessageChunk("b", increment)]
        assert ("ab", Usage(8, 2)) == read_stream(chunks)

    def test_unsupported_piece_names_index_and_type(self) -> None:
        """A piece relapse cannot read is named by its index and type."""
        with pytest.raises(
            TypeError,
            match=r"^stream item 2 is bytes; expected str, OpenAI Chat Completions.*"
            r"pass answer_of=callable\(pieces\) -> str",
        ):
            read_stream(["a", "b", b"c"])

    def test_typed_events_without_text_are_passed_over(self) -> None:
        """Events of other types (``ping``, ``response.created``) hold no text; no error."""
        assert ("", None) == read_stream(
            [AnthropicEvent("ping"), ResponseEvent("response.created")]
        )

    def test_chat_delta_without_content_adds_nothing(self) -> None:
        """A role-only or finish chunk (``delta.content`` None) adds no text."""
        assert ("", None) == read_stream(chat_chunks())


class TestStreamKind:
    def test_kinds(self) -> None:
        """Iterators are sync streams, async iterators async ones; containers are values."""

        async def agen() -> AsyncIterator[str]:
            yield "a"

        pending = agen()
        assert ("sync", "sync", "async") == (
            stream_kind(iter(["a"])),
            stream_kind(x for x in "a"),
            stream_kind(pending),
        )
        assert [None] * 5 == [
            stream_kind(v) for v in ("text", ["a"], {"a": 1}, chat_chunks("a")[0], b"x")
        ]

    def test_an_sdk_style_stream_object_is_a_stream(self) -> None:
        """An object with ``__iter__`` and ``__next__`` (openai.Stream) is a sync stream."""

        class Stream:
            def __iter__(self) -> Iterator[str]:
                return self

            def __next__(self) -> str:
                raise StopIteration

        assert "sync" == stream_kind(Stream())


class TestCollectAndReplay:
    def test_collect_reads_to_the_end_and_closes(self) -> None:
        """Every piece is kept in order, and the stream's ``close()`` is called."""
        closed: list[bool] = []

        class Stream:
            def __init__(self) -> None:
                self.items = iter(["a", "b", "c"])

            def __iter__(self) -> Iterator[str]:
                return self

            def __next__(self) -> str:
                return next(self.items)

            def close(self) -> None:
                closed.append(True)

        assert (("a", "b", "c"), [True]) == (collect(Stream()), closed)

    def test_collect_closes_on_error_and_propagates_it(self) -> None:
        """A stream failing midway is closed; its exception reaches the caller unchanged."""
        boom = ConnectionError("reset")
        finished: list[str] = []

        def failing() -> Iterator[str]:
            try:
                yield "a"
                raise boom
            finally:
                finished.append("closed")

        with pytest.raises(ConnectionError) as caught:
            collect(failing())
        assert (boom, ["closed"]) == (caught.value, finished)

    async def test_acollect_reads_to_the_end_and_closes(self) -> None:
        """An async stream is read to the end, then its async ``close()`` is awaited."""
        closed: list[bool] = []

        class AsyncStream:
            def __init__(self) -> None:
                self.items = iter(["a", "b"])

            def __aiter__(self) -> AsyncStream:
                return self

            async def __anext__(self) -> str:
                try:
                    return next(self.items)
                except StopIteration:
                    raise StopAsyncIteration from None

            async def close(self) -> None:
                closed.append(True)

        assert (("a", "b"), [True]) == (await acollect(AsyncStream()), closed)

    async def test_acollect_closes_an_async_generator(self) -> None:
        """An async generator abandoned by an error is closed with ``aclose()``."""
        finished: list[str] = []

        async def failing() -> AsyncIterator[str]:
            try:
                yield "a"
                raise TimeoutError
            finally:
                finished.append("closed")

        with pytest.raises(TimeoutError):
            await acollect(failing())
        assert ["closed"] == finished

    def test_sync_replay_yields_the_original_pieces(self) -> None:
        """The replay is a fresh sync iterator over the very same piece objects."""
        pieces = tuple(chat_chunks("a", "b"))
        replayed = Streamed("sync", pieces).replay()
        assert isinstance(replayed, Iterator)
        assert list(pieces) == list(replayed)
        assert all(a is b for a, b in zip(pieces, Streamed("sync", pieces).replay(), strict=True))

    async def test_async_replay_yields_the_original_pieces(self) -> None:
        """The replay of an async stream is an async iterator over the same pieces."""
        pieces = tuple(anthropic_events("a", given=1, made=1))
        replayed = Streamed("async", pieces).replay()
        assert isinstance(replayed, AsyncIterator)
        assert list(pieces) == [piece async for piece in replayed]
