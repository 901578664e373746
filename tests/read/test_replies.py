"""Reading one attempt's return value with the defaults or the user's readers."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from relapse import Usage
from relapse._read.replies import Readers, Reply, returned
from relapse._read.streams import Streamed, asettle, settle
from sdk_shapes import Document, anthropic_events, chat_chunks, chat_completion


class TestReaders:
    def test_defaults_read_a_response(self) -> None:
        """Without readers, the answer and usage come from the duck-typed defaults."""
        response = chat_completion("It opened in 1889.", prompt=40, completion=6)
        assert Reply(response, "It opened in 1889.", Usage(40, 6)) == Readers().read(response)

    def test_defaults_read_a_stream(self) -> None:
        """A Streamed response is read by the stream reader."""
        streamed = Streamed("sync", tuple(chat_chunks("It ", "opened.", prompt=9, completion=2)))
        assert Reply(streamed, "It opened.", Usage(9, 2)) == Readers().read(streamed)

    def test_user_readers_get_the_response(self) -> None:
        """``answer_of`` and ``usage_of`` receive the raw response, a Streamed included."""
        streamed = Streamed("sync", (b"raw", b"bytes"))
        readers = Readers(
            answer_of=lambda s: b"".join(s.pieces).decode(),
            usage_of=lambda s: Usage(1, len(s.pieces)),
        )
        assert Reply(streamed, "rawbytes", Usage(1, 2)) == readers.read(streamed)

    @pytest.mark.parametrize(
        ("readers", "message"),
        [
            (Readers(answer_of=lambda r: 42), r"^answer_of returned int; expected str$"),
            (
                Readers(usage_of=lambda r: {"input_tokens": 1}),
                r"^usage_of returned dict; expected relapse\.Usage or None$",
            ),
        ],
    )
    def test_bad_reader_results_are_named(self, readers: Readers, message: str) -> None:
        """A reader returning the wrong type is named with what it returned."""
        with pytest.raises(TypeError, match=message):
            readers.read("text")

    def test_chunks_of_reads_framework_chunks(self) -> None:
        """``chunks_of`` results are read like a chunks argument, errors naming it."""
        readers = Readers(chunks_of=lambda r: r["context"])
        assert ("a", "b") == readers.chunks({"context": [Document("a"), {"text": "b"}]})
        assert Readers().chunks({"context": ["a"]}) is None
        with pytest.raises(TypeError, match=r"^chunks_of\(response\)\[1\] is int"):
            readers.chunks({"context": ["a", 1]})


class TestSettle:
    def test_values_pass_through(self) -> None:
        """A non-stream return value is kept as is."""
        value = {"answer": "x"}
        assert value is settle(value)

    def test_sync_stream_becomes_streamed(self) -> None:
        """A generator is read to its end into a Streamed of kind sync."""

        def stream() -> Iterator[str]:
            yield from ("a", "b")

        assert Streamed("sync", ("a", "b")) == settle(stream())

    def test_async_stream_from_a_sync_function_is_refused(self) -> None:
        """A sync function cannot have an async iterator read; the error says why."""

        async def stream() -> AsyncIterator[str]:
            yield "a"

        with pytest.raises(TypeError, match=r"async iterator \(async_generator\).*make it async"):
            settle(stream())

    async def test_asettle_reads_both_kinds(self) -> None:
        """An async function's sync or async stream is read, keeping its kind."""

        async def astream() -> AsyncIterator[str]:
            yield "a"

        assert (Streamed("async", ("a",)), Streamed("sync", ("b",)), "c") == (
            await asettle(astream()),
            await asettle(iter(["b"])),
            await asettle("c"),
        )


class TestReturned:
    async def test_streams_are_replayed_as_their_kind(self) -> None:
        """Calling the function gives a replay of a stream, the response itself otherwise."""
        events = tuple(anthropic_events("a", given=1, made=1))
        sync_replay: Any = returned(Streamed("sync", events))
        async_replay: Any = returned(Streamed("async", events))
        assert list(events) == list(sync_replay)
        assert list(events) == [event async for event in async_replay]
        response = chat_completion("x")
        assert response is returned(response)
