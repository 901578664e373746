"""
Joining a retry's continuation to the released text: one space where the stream had none.

A stream whose tokens carry their space in front (``" It"``) ends the released
text with no space after it: the space belonged to the failing sentence's
first token. A retry starting ``"It"`` must still read ``"... year. It"``.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import openai
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessageChunk
from openai.types.chat import ChatCompletionChunk

import relapse
from openai_scripted import Events, chat_event, text_of
from relapse._read.rebuild import edited
from relapse._stream.release import joins, piece_text
from stream_cases import BAD, DOCS, FIRST, GOOD, REST, TAIL, words

#: The retry: its first token is "It", with no space in front.
RETRY = (
    "It opened to traffic in May 1937. Visitors like to take pictures of it from the hills"
    " on the northern side, where the view of the whole city and of the water below is the"
    " finest of all, and many of them come back again and again over the years."
    " Its main span is 1280 metres long."
)
#: What the caller reads: the first sentence, one space, the retry.
JOINED = (
    "The Golden Gate Bridge is a suspension bridge over the strait at the entrance of the"
    " bay, and people walk across it every day of the year. It opened to traffic in May"
    " 1937. Visitors like to take pictures of it from the hills on the northern side, where"
    " the view of the whole city and of the water below is the finest of all, and many of"
    " them come back again and again over the years. Its main span is 1280 metres long."
)


def leading(text: str) -> list[str]:
    """``text`` as a stream whose tokens carry their space in front: ``"The", " Golden"``."""
    return [piece for piece in re.split(r"(?= )", text) if piece]


class TestJoins:
    @pytest.mark.parametrize(
        "continuation", ["It", "35 million", "$35", "(see", "\u201cOpen", '"Open', "\u00e9t\u00e9"]
    )
    def test_a_word_after_a_prefix_ending_without_space_is_joined(self, continuation: str) -> None:
        """A letter, digit, currency sign, opening bracket or quotation mark begins a word."""
        assert joins("in May 1937.", continuation)

    @pytest.mark.parametrize("continuation", [",", ".", ")", "%", "\u201d", ";", " It", "\nIt"])
    def test_punctuation_or_white_space_is_joined_as_it_is(self, continuation: str) -> None:
        """Punctuation that attaches to what precedes, or white space, takes no space."""
        assert not joins("in May 1937.", continuation)

    @pytest.mark.parametrize("prefix", ["", "in May 1937. ", "in May 1937.\n"])
    def test_no_prefix_or_a_spaced_one_takes_no_space(self, prefix: str) -> None:
        """Only a prefix ending with no white space is joined."""
        assert not joins(prefix, "It")


class TestStrStream:
    def test_the_retry_reads_one_space_after_the_released_text(self) -> None:
        """Caller, result and transcript read "... year. It opened", never "year.It"."""

        @relapse.grounded(chunks_arg="docs", release="sentence", max_iterations=2)
        def answer(query: str, docs: list[str]) -> Iterator[str]:
            first = relapse.current_attempt().iteration == 1  # type: ignore[union-attr]
            yield from leading(FIRST + BAD + TAIL + REST if first else RETRY)

        with answer("When did it open?", DOCS) as stream:
            pieces = list(stream)
        assert JOINED == "".join(pieces)
        assert all(type(piece) is str for piece in pieces)
        result = stream.result
        assert (True, JOINED) == (result.grounded, result.answer)
        first, second = result.transcript
        assert (
            "The Golden Gate Bridge is a suspension bridge over the strait at the entrance of the"
            " bay, and people walk across it every day of the year."
        ) == first.released
        assert " It opened to traffic in May 1937." == second.released[:34]
        assert JOINED == second.answer

    def test_a_continuation_with_its_own_space_is_not_given_another(self) -> None:
        """A retry starting " It" joins as it is: one space, not two."""

        @relapse.grounded(chunks_arg="docs", release="sentence", max_iterations=2)
        def answer(query: str, docs: list[str]) -> Iterator[str]:
            first = relapse.current_attempt().iteration == 1  # type: ignore[union-attr]
            yield from leading(FIRST + BAD + TAIL + REST if first else " " + RETRY)

        assert JOINED == "".join(answer("q", DOCS))


class LeadingServer:
    """A chat-completions server whose tokens carry their space in front."""

    def __init__(self, *answers: str) -> None:
        self.answers = answers
        self.bodies: list[Events] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        text = self.answers[len(self.bodies)]
        body = Events([chat_event(token) for token in leading(text)])
        self.bodies.append(body)
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, stream=body)


class TestObjectStreams:
    def test_openai_chunks_carry_the_space_in_the_first_chunk_after_the_prefix(self) -> None:
        """The first released chunk of the retry is a ChatCompletionChunk whose content is " It"."""
        server = LeadingServer(FIRST + BAD + TAIL + REST, RETRY)
        sdk = openai.OpenAI(
            api_key="test",
            base_url="http://test/v1",
            http_client=httpx.Client(transport=httpx.MockTransport(server)),
            max_retries=0,
        )

        @relapse.grounded(chunks_arg="docs", release="sentence", max_iterations=2)
        def answer(query: str, docs: list[str]) -> openai.Stream[ChatCompletionChunk]:
            return sdk.chat.completions.create(
                model="m", messages=[{"role": "user", "content": query}], stream=True
            )

        with answer("When did it open?", DOCS) as stream:
            chunks = list(stream)
        assert all(isinstance(chunk, ChatCompletionChunk) for chunk in chunks)
        assert JOINED == text_of(chunks)
        contents = [c.choices[0].delta.content for c in chunks if c.choices]
        at = contents.index(" year.")
        assert [" year.", " It", " opened"] == contents[at : at + 3]
        result = stream.result
        assert JOINED == result.answer
        # The attempt's response keeps the chunk the provider sent: "It", no space.
        assert "It" == result.response.pieces[0].choices[0].delta.content

    def test_a_langchain_chunk_is_copied_with_the_space(self) -> None:
        """An AIMessageChunk stays an AIMessageChunk; its content is prefixed, the original kept."""
        chunk = AIMessageChunk(content="It")
        copied = edited(chunk, piece_text, lead=" ")
        assert isinstance(copied, AIMessageChunk)
        assert (" It", "It") == (copied.content, chunk.content)

    def test_a_chunk_of_text_parts_has_its_first_text_part_prefixed(self) -> None:
        """A content list's first text part takes the space; the other parts are unchanged."""
        chunk = AIMessageChunk(
            content=[{"type": "text", "text": "It"}, {"type": "text", "text": " o"}]
        )
        copied = edited(chunk, piece_text, lead=" ")
        assert isinstance(copied, AIMessageChunk)
        assert [{"type": "text", "text": " It"}, {"type": "text", "text": " o"}] == copied.content

    def test_a_piece_that_cannot_be_rebuilt_is_none(self) -> None:
        """A frozen object's text cannot be set: edited says so (the piece goes as it is)."""

        @dataclass(frozen=True)
        class Frozen:
            content: str

        assert edited(Frozen("It"), piece_text, lead=" ") is None

    def test_a_frozen_piece_is_released_unchanged_and_recorded_with_the_space(self) -> None:
        """The caller's piece lacks the space it cannot carry; the recorded answer has it."""

        @dataclass(frozen=True)
        class Frozen:
            content: str

        @relapse.grounded(chunks_arg="docs", release="sentence", max_iterations=2)
        def answer(query: str, docs: list[str]) -> Iterator[Any]:
            first = relapse.current_attempt().iteration == 1  # type: ignore[union-attr]
            yield from (Frozen(t) for t in leading(FIRST + BAD + TAIL + REST if first else RETRY))

        with answer("q", DOCS) as stream:
            pieces = list(stream)
        assert all(isinstance(piece, Frozen) for piece in pieces)
        assert JOINED.replace("year. It", "year.It") == "".join(p.content for p in pieces)
        assert JOINED == stream.result.answer


def sevens(text: str) -> list[str]:
    """``text`` in pieces of 7 characters: their ends fall anywhere, mid-word included."""
    return [text[at : at + 7] for at in range(0, len(text), 7)]


#: The retry restarts with the released FIRST (139 characters), in pieces of
#: 7: piece 19 is FIRST[133:] + GOOD[:1] = "year. I", straddling the repeat's end.
STRADDLING = sevens(FIRST + GOOD)


class SplitServer:
    """A chat-completions server answering the n-th request with the n-th (text, split)."""

    def __init__(self, *answers: tuple[str, Callable[[str], list[str]]]) -> None:
        self.answers = answers
        self.served = 0

    def __call__(self, request: httpx.Request) -> httpx.Response:
        text, split = self.answers[self.served]
        self.served += 1
        body = Events([chat_event(piece) for piece in split(text)])
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, stream=body)


class TestStraddlingRepeat:
    """A retry repeating the released text, one piece straddling the repeat's end."""

    def test_the_straddling_piece_is_cut(self) -> None:
        """The hand-computed split: "year. I" is piece 19, its first 6 characters the repeat."""
        assert ("year. I", FIRST[133:] + GOOD[:1], 139) == (STRADDLING[19], "year. I", len(FIRST))

    def test_an_openai_chunk_is_released_cut(self) -> None:
        """The SDK's ChatCompletionChunk "year. I" reaches the caller as a copy reading "I"."""
        server = SplitServer((FIRST + BAD + TAIL + REST, words), (FIRST + GOOD, sevens))
        sdk = openai.OpenAI(
            api_key="test",
            base_url="http://test/v1",
            http_client=httpx.Client(transport=httpx.MockTransport(server)),
            max_retries=0,
        )

        @relapse.grounded(chunks_arg="docs", release="sentence", max_iterations=2)
        def answer(query: str, docs: list[str]) -> openai.Stream[ChatCompletionChunk]:
            return sdk.chat.completions.create(
                model="m", messages=[{"role": "user", "content": query}], stream=True
            )

        with answer("When did it open?", DOCS) as stream:
            chunks = list(stream)
        assert all(isinstance(chunk, ChatCompletionChunk) for chunk in chunks)
        contents = [c.choices[0].delta.content for c in chunks if c.choices]
        assert [*words(FIRST), "I", *STRADDLING[20:]] == contents
        result = stream.result
        assert (True, FIRST + GOOD, FIRST + GOOD) == (
            result.grounded,
            text_of(chunks),
            result.answer,
        )
        # The attempt's response keeps the chunk as the provider sent it.
        assert "year. I" == result.response.pieces[19].choices[0].delta.content

    def test_a_langchain_chunk_is_released_cut(self) -> None:
        """langchain-core's AIMessageChunk "year. I" reaches the caller as an AIMessageChunk "I"."""

        @relapse.grounded(chunks_arg="docs", release="sentence", max_iterations=2)
        def answer(query: str, docs: list[str]) -> Iterator[AIMessageChunk]:
            first = relapse.current_attempt().iteration == 1  # type: ignore[union-attr]
            pieces = words(FIRST + BAD + TAIL + REST) if first else STRADDLING
            yield from (AIMessageChunk(content=piece) for piece in pieces)

        with answer("q", DOCS) as stream:
            chunks = list(stream)
        assert all(isinstance(chunk, AIMessageChunk) for chunk in chunks)
        assert [*words(FIRST), "I", *STRADDLING[20:]] == [chunk.content for chunk in chunks]
        assert (FIRST + GOOD, FIRST + GOOD) == (
            "".join(str(chunk.content) for chunk in chunks),
            stream.result.answer,
        )

    def test_text_parts_are_cut_in_order(self) -> None:
        """A content list: the cut runs through the text parts; a wholly cut part keeps ""."""
        chunk = AIMessageChunk(
            content=[{"type": "text", "text": "year"}, {"type": "text", "text": ". I"}]
        )
        cut = edited(chunk, piece_text, cut=6)
        assert isinstance(cut, AIMessageChunk)
        assert [{"type": "text", "text": ""}, {"type": "text", "text": "I"}] == cut.content
        assert "year. I" == piece_text(chunk)  # the original is left alone

    def test_a_piece_that_cannot_be_cut_is_released_and_recorded_whole(self) -> None:
        """A frozen piece keeps its whole text: the caller and the answer both read it once more."""

        @dataclass(frozen=True)
        class Frozen:
            content: str

        @relapse.grounded(chunks_arg="docs", release="sentence", max_iterations=2)
        def answer(query: str, docs: list[str]) -> Iterator[Any]:
            first = relapse.current_attempt().iteration == 1  # type: ignore[union-attr]
            pieces = words(FIRST + BAD + TAIL + REST) if first else STRADDLING
            yield from (Frozen(piece) for piece in pieces)

        with answer("q", DOCS) as stream:
            read = "".join(piece.content for piece in stream)
        assert (FIRST + "year. " + GOOD, FIRST + "year. " + GOOD) == (read, stream.result.answer)


def _chat_chunk(text: str) -> ChatCompletionChunk:
    """The real SDK's chunk carrying ``text``."""
    return ChatCompletionChunk.model_validate(json.loads(chat_event(text)[len(b"data: ") :]))


#: Each stream source, and how to read the text of its pieces.
SOURCES: dict[str, tuple[Callable[[str], Any], Callable[[Any], str]]] = {
    "str": (str, str),
    "openai": (_chat_chunk, lambda chunk: chunk.choices[0].delta.content or ""),
    "langchain": (lambda text: AIMessageChunk(content=text), lambda chunk: str(chunk.content)),
}


class TestTheCallerReadsTheAnswer:
    @pytest.mark.parametrize("source", sorted(SOURCES))
    @settings(max_examples=25, deadline=None)
    @given(cuts=st.lists(st.integers(1, len(FIRST + GOOD) - 1), max_size=40, unique=True))
    def test_a_restart_cut_anywhere(self, source: str, cuts: list[int]) -> None:
        """Whatever the retry's piece ends, the caller reads FIRST + GOOD, as result.answer."""
        make, read = SOURCES[source]
        ends = [0, *sorted(cuts), len(FIRST + GOOD)]
        retry = [(FIRST + GOOD)[start:end] for start, end in itertools.pairwise(ends)]

        @relapse.grounded(chunks_arg="docs", release="sentence", max_iterations=2)
        def answer(query: str, docs: list[str]) -> Iterator[Any]:
            first = relapse.current_attempt().iteration == 1  # type: ignore[union-attr]
            yield from map(make, words(FIRST + BAD + TAIL + REST) if first else retry)

        with answer("q", DOCS) as stream:
            pieces = list(stream)
        assert all(type(piece) is type(make("x")) for piece in pieces)
        assert (FIRST + GOOD, FIRST + GOOD) == (
            "".join(map(read, pieces)),
            stream.result.answer,
        )


def test_chat_event_is_the_openai_wire_format() -> None:
    """The helper's event parses as a chunk (guards the expectations above)."""
    body = json.loads(chat_event(" It")[len(b"data: ") :])
    assert " It" == ChatCompletionChunk.model_validate(body).choices[0].delta.content
