"""
Any function: response objects, dicts, streams, chunks the function retrieves itself,
the feedback channel and the token cost of every retry, through the decorator.
"""

from __future__ import annotations

import asyncio
import gc
import warnings
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

import relapse
from helpers import forbid
from relapse.testing import CapturedMetrics, CapturedSpans
from sdk_shapes import (
    AnthropicUsage,
    ChatCompletion,
    Document,
    LlamaResponse,
    Message,
    NodeWithScore,
    TextBlock,
    TextNode,
    anthropic_events,
    chat_chunks,
    chat_completion,
)

DOCS = ["The tower opened in 1889."]


class TestResponseObjects:
    def test_calling_returns_the_chosen_response_object(self) -> None:
        """The caller gets the function's own return value of the grounded attempt."""
        replies = iter(
            [
                chat_completion("It opened in 1999.", prompt=40, completion=6),
                chat_completion("It opened in 1889.", prompt=95, completion=6),
            ]
        )

        @relapse.grounded(chunks_arg="docs", grounding_check=forbid("1999"))
        def answer(query: str, docs: list[str]) -> ChatCompletion:
            return next(replies)

        response = answer("When did it open?", DOCS)
        assert isinstance(response, ChatCompletion)
        assert "It opened in 1889." == response.choices[0].message.content

    def test_result_keeps_answer_response_and_usage(self) -> None:
        """Records and the result keep the text, the raw response and its tokens."""
        first = chat_completion("It opened in 1999.", prompt=40, completion=6)
        second = chat_completion("It opened in 1889.", prompt=95, completion=7)
        replies = iter([first, second])

        @relapse.grounded(chunks_arg="docs", grounding_check=forbid("1999"))
        def answer(query: str, docs: list[str]) -> ChatCompletion:
            return next(replies)

        result = answer.run("When did it open?", DOCS)
        assert ("It opened in 1889.", second, relapse.Usage(135, 13)) == (
            result.answer,
            result.response,
            result.usage,
        )
        assert [
            ("It opened in 1999.", first, relapse.Usage(40, 6)),
            ("It opened in 1889.", second, relapse.Usage(95, 7)),
        ] == [(r.answer, r.response, r.usage) for r in result.transcript]

    def test_dict_with_sources(self) -> None:
        """A function returning ``{"answer", "sources"}`` is checked on its answer."""

        @relapse.grounded(chunks_arg="docs")
        def answer(query: str, docs: list[str]) -> dict[str, Any]:
            return {"answer": "It opened in 1889.", "sources": [0]}

        assert {"answer": "It opened in 1889.", "sources": [0]} == answer("When?", DOCS)
        result = answer.run("When?", DOCS)
        assert (True, None) == (result.grounded, result.usage)

    def test_answer_of_reads_a_custom_shape(self) -> None:
        """``answer_of=`` reads what the defaults do not know."""

        class Reply:
            def __init__(self, said: str) -> None:
                self.said = said

        @relapse.grounded(chunks_arg="docs", answer_of=lambda reply: reply.said)
        def answer(query: str, docs: list[str]) -> Reply:
            return Reply("It opened in 1889.")

        assert "It opened in 1889." == answer.run("When?", DOCS).answer

    def test_unreadable_response_is_kept_on_the_transcript(self) -> None:
        """An unreadable return value fails clearly, and the paid response is not lost."""
        opaque = object()

        @relapse.grounded(chunks_arg="docs")
        def answer(query: str, docs: list[str]) -> object:
            return opaque

        with pytest.raises(TypeError, match=r"^cannot read the answer text of a object;") as caught:
            answer("When?", DOCS)
        (record,) = caught.value.relapse_transcript  # type: ignore[attr-defined]
        assert (opaque, False) == (record.response, record.grounded)

    async def test_async_function_returning_an_anthropic_message(self) -> None:
        """The async path reads the same shapes and returns the raw message."""
        message = Message([TextBlock("It opened in 1889.")], AnthropicUsage(30, 5))

        @relapse.grounded(chunks_arg="docs")
        async def answer(query: str, docs: list[str]) -> Message:
            await asyncio.sleep(0)
            return message

        assert message is await answer("When?", DOCS)
        result = await answer.run("When?", DOCS)
        assert relapse.Usage(30, 5) == result.usage


class TestStreams:
    def test_sync_stream_is_replayed(self) -> None:
        """A sync stream is read to its end, checked, and replayed to the caller."""
        streams = iter(
            [
                chat_chunks("It opened ", "in 1999.", prompt=40, completion=6),
                chat_chunks("It opened ", "in 1889.", prompt=90, completion=6),
            ]
        )

        @relapse.grounded(chunks_arg="docs", grounding_check=forbid("1999"))
        def answer(query: str, docs: list[str]) -> Iterator[Any]:
            yield from next(streams)

        replay = answer("When?", DOCS)
        pieces = list(replay)
        assert "in 1889." == pieces[2].choices[0].delta.content
        assert 4 == len(pieces)

    def test_stream_result_and_usage(self) -> None:
        """The result's response is a Streamed; usage comes from the final usage chunk."""
        chunks = chat_chunks("It opened ", "in 1889.", prompt=40, completion=6)

        @relapse.grounded(chunks_arg="docs")
        def answer(query: str, docs: list[str]) -> Iterator[Any]:
            return iter(chunks)

        result = answer.run("When?", DOCS)
        assert relapse.Streamed("sync", tuple(chunks)) == result.response
        assert ("It opened in 1889.", relapse.Usage(40, 6)) == (result.answer, result.usage)

    async def test_async_stream_is_replayed_as_async(self) -> None:
        """An async generator's pieces come back as an async iterator."""
        events = anthropic_events("It opened ", "in 1889.", given=25, made=7)

        @relapse.grounded(chunks_arg="docs")
        async def answer(query: str, docs: list[str]) -> AsyncIterator[Any]:
            async def stream() -> AsyncIterator[Any]:
                for event in events:
                    yield event

            return stream()

        replay = await answer("When?", DOCS)
        assert events == [event async for event in replay]
        result = await answer.run("When?", DOCS)
        assert ("It opened in 1889.", relapse.Usage(25, 7)) == (result.answer, result.usage)

    async def test_async_generator_function(self) -> None:
        """An ``async def`` that yields: calling it gives an async iterator of the chosen pieces."""
        streams = iter(
            [
                chat_chunks("It opened ", "in 1999.", prompt=40, completion=6),
                chat_chunks("It opened ", "in 1889.", prompt=90, completion=6),
            ]
        )
        chosen: list[Any] = []

        @relapse.grounded(chunks_arg="docs", grounding_check=forbid("1999"))
        async def answer(query: str, docs: list[str]) -> AsyncIterator[Any]:
            pieces = next(streams)
            chosen[:] = pieces
            for piece in pieces:
                await asyncio.sleep(0)
                yield piece

        replay = answer("When?", DOCS)
        assert isinstance(replay, AsyncIterator)
        assert chosen == [piece async for piece in replay]
        assert "in 1889." == chosen[2].choices[0].delta.content
        streams = iter([chat_chunks("It opened in 1889.", prompt=9, completion=3)])
        result = await answer.run("When?", DOCS)
        assert ("It opened in 1889.", relapse.Usage(9, 3)) == (result.answer, result.usage)

    async def test_async_generator_method_and_kill_switch(self) -> None:
        """Bound async generator methods work; with the kill switch off they stream through."""

        class Service:
            @relapse.grounded(chunks_arg="docs", enabled=lambda: switch[0])
            async def answer(self, query: str, docs: list[str]) -> AsyncIterator[str]:
                for piece in ("It opened ", "in 1889."):
                    yield piece

        switch = [True]
        assert ["It opened ", "in 1889."] == [p async for p in Service().answer("q", DOCS)]
        switch[0] = False
        assert ["It opened ", "in 1889."] == [p async for p in Service().answer("q", DOCS)]

    def test_answer_of_on_a_stream_gets_the_streamed_pieces(self) -> None:
        """A custom ``answer_of`` reads a stream from its Streamed pieces."""

        @relapse.grounded(
            chunks_arg="docs", answer_of=lambda streamed: "".join(streamed.pieces).upper()
        )
        def answer(query: str, docs: list[str]) -> Iterator[str]:
            return iter(["it opened ", "in 1889."])

        assert "IT OPENED IN 1889." == answer.run("q", DOCS).answer

    def test_callable_on_exhausted_gives_a_sync_stream(self) -> None:
        """A generator function whose answers all fail: the handler's text comes back streamed."""

        @relapse.grounded(
            chunks_arg="docs",
            grounding_check=forbid("1999"),
            max_iterations=2,
            on_exhausted=lambda attempt: "I cannot tell.",
        )
        def answer(query: str, docs: list[str]) -> Iterator[str]:
            yield from ("It opened ", "in 1999.")

        replay = answer("When?", DOCS)
        assert isinstance(replay, Iterator)
        assert ["I cannot tell."] == list(replay)
        result = answer.run("When?", DOCS)
        assert relapse.Streamed("sync", ("I cannot tell.",)) == result.response
        assert ("I cannot tell.", False, 2) == (result.answer, result.grounded, result.iterations)

    async def test_callable_on_exhausted_gives_an_async_stream(self) -> None:
        """The same for an async generator function, and an async def returning a stream."""

        def handler(attempt: relapse.Attempt) -> str:
            return "I cannot tell."

        @relapse.grounded(chunks_arg="docs", grounding_check=forbid("1999"), on_exhausted=handler)
        async def generator(query: str, docs: list[str]) -> AsyncIterator[str]:
            yield "It opened in 1999."

        @relapse.grounded(chunks_arg="docs", grounding_check=forbid("1999"), on_exhausted=handler)
        async def returning(query: str, docs: list[str]) -> AsyncIterator[str]:
            return generator.__wrapped__(query, docs)  # type: ignore[no-any-return]

        assert ["I cannot tell."] == [piece async for piece in generator("When?", DOCS)]
        replay = await returning("When?", DOCS)
        assert isinstance(replay, AsyncIterator)
        assert ["I cannot tell."] == [piece async for piece in replay]
        result = await returning.run("When?", DOCS)
        assert relapse.Streamed("async", ("I cannot tell.",)) == result.response


class TestUnstartedStreams:
    """A decorated async generator function that is called but never iterated."""

    def test_function_warns_nothing(self) -> None:
        """As for the undecorated function: no 'coroutine ... was never awaited' warning."""

        @relapse.grounded(chunks_arg="docs")
        async def answer(query: str, docs: list[str]) -> AsyncIterator[str]:
            yield "It opened in 1889."

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            stream = answer("When?", DOCS)
            del stream
            gc.collect()
        assert [] == [str(w.message) for w in caught]

    def test_method_warns_nothing(self) -> None:
        """The same for a bound async generator method."""

        class Service:
            @relapse.grounded(chunks_arg="docs")
            async def answer(self, query: str, docs: list[str]) -> AsyncIterator[str]:
                yield "It opened in 1889."

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            stream = Service().answer("When?", DOCS)
            del stream
            gc.collect()
        assert [] == [str(w.message) for w in caught]

    async def test_the_loop_starts_on_the_first_step(self) -> None:
        """Nothing is called until the first ``__anext__``; then the stream runs as before."""
        calls: list[str] = []

        @relapse.grounded(chunks_arg="docs")
        async def answer(query: str, docs: list[str]) -> AsyncIterator[str]:
            calls.append(query)
            yield "It opened in 1889."

        stream = answer("When?", DOCS)
        assert [] == calls
        assert ["It opened in 1889."] == [piece async for piece in stream]
        assert ["When?"] == calls


class TestBrokenStreams:
    """A stream that raises after some pieces: the error is unchanged, the pieces are kept."""

    #: An Anthropic stream cut after its second text delta: message_start
    #: reported 25 input tokens and 1 output token, the final usage never came.
    EVENTS = anthropic_events("It opened ", "in 1889.", given=25, made=7)[:5]

    def test_sync_generator_function(self, spans: CapturedSpans) -> None:
        """The partial attempt is on the transcript (not grounded) and its usage on the spans."""
        reset = ConnectionError("reset by peer")

        @relapse.grounded(chunks_arg="docs", tracer_provider=spans.provider)
        def answer(query: str, docs: list[str]) -> Iterator[Any]:
            yield from self.EVENTS
            raise reset

        with pytest.raises(ConnectionError) as caught:
            list(answer("When?", DOCS))
        assert reset is caught.value
        (record,) = caught.value.relapse_transcript  # type: ignore[attr-defined]
        assert (
            relapse.Streamed("sync", tuple(self.EVENTS)),
            "It opened in 1889.",
            False,
            (),
            relapse.Usage(25, 1),
        ) == (record.response, record.answer, record.grounded, record.findings, record.usage)
        (iteration,) = spans.named("relapse.iteration")
        (call,) = [s for s in spans.spans if s.name.startswith("relapse ")]
        for span in (iteration, call):
            assert span.attributes is not None
            assert ("ConnectionError", 25, 1) == (
                span.attributes["error.type"],
                span.attributes["relapse.usage.input_tokens"],
                span.attributes["relapse.usage.output_tokens"],
            )

    async def test_async_generator_function(self) -> None:
        """The same for an async generator function, after a rejected first attempt."""
        reset = ConnectionResetError("reset by peer")
        calls: list[int] = []

        @relapse.grounded(chunks_arg="docs", grounding_check=forbid("1999"))
        async def answer(query: str, docs: list[str]) -> AsyncIterator[Any]:
            calls.append(1)
            if len(calls) == 1:
                yield "It opened in 1999."
                return
            for event in self.EVENTS:
                yield event
            raise reset

        with pytest.raises(ConnectionResetError) as caught:
            [piece async for piece in answer("When?", DOCS)]
        assert reset is caught.value
        first, second = caught.value.relapse_transcript  # type: ignore[attr-defined]
        assert (1, "It opened in 1999.", None) == (first.iteration, first.answer, first.usage)
        assert (
            2,
            relapse.Streamed("async", tuple(self.EVENTS)),
            "It opened in 1889.",
            False,
            relapse.Usage(25, 1),
        ) == (second.iteration, second.response, second.answer, second.grounded, second.usage)

    @pytest.mark.parametrize("pieces", [(), ("It opened ",)])
    def test_run_with_a_streaming_call_llm(self, pieces: tuple[str, ...]) -> None:
        """
        relapse.run: a call_llm whose stream breaks after one piece, or before any.

        A stream raising before its first piece is a call that raised, as for
        a function: nothing shows it was paid for, so no record.
        """
        reset = ConnectionError("reset")

        def call_llm(prompt: str) -> Iterator[str]:
            yield from pieces
            raise reset

        with pytest.raises(ConnectionError) as caught:
            relapse.run("When?", DOCS, call_llm=call_llm)
        assert reset is caught.value
        expected = [(relapse.Streamed("sync", pieces), "".join(pieces), None)] if pieces else []
        assert expected == [
            (record.response, record.answer, record.usage)
            for record in caught.value.relapse_transcript  # type: ignore[attr-defined]
        ]

    async def test_arun_with_an_async_stream(self) -> None:
        """relapse.arun: an async stream of str pieces breaking after two."""

        async def call_llm(prompt: str) -> AsyncIterator[str]:
            yield "It opened "
            yield "in 18"
            raise TimeoutError

        with pytest.raises(TimeoutError) as caught:
            await relapse.arun("When?", DOCS, call_llm=call_llm)  # type: ignore[arg-type]
        (record,) = caught.value.relapse_transcript  # type: ignore[attr-defined]
        assert (relapse.Streamed("async", ("It opened ", "in 18")), "It opened in 18") == (
            record.response,
            record.answer,
        )


class TestChunksOf:
    def test_each_attempt_is_checked_against_its_own_chunks(self) -> None:
        """With ``chunks_of``, the check reads the chunks each attempt returned."""
        seen: list[tuple[str, tuple[str, ...]]] = []

        def check(query: str, chunks: Any, answer: str) -> relapse.GroundingResult:
            seen.append((answer, tuple(chunks)))
            return relapse.GroundingResult(ok=answer in " ".join(chunks))

        replies = iter(
            [
                LlamaResponse("1999", [NodeWithScore(TextNode("Opened in 1889."))]),
                LlamaResponse("1889", [NodeWithScore(TextNode("Opened in 1889."))]),
            ]
        )

        @relapse.grounded(chunks_of=relapse.chunks_from.llamaindex, grounding_check=check)
        def ask(query: str) -> LlamaResponse:
            return next(replies)

        result = ask.run("When did it open?")
        assert [("1999", ("Opened in 1889.",)), ("1889", ("Opened in 1889.",))] == seen
        assert (True, 2) == (result.grounded, result.iterations)

    def test_langchain_chain_result(self) -> None:
        """A retrieval chain's ``{"input", "context", "answer"}`` works with the default check."""

        @relapse.grounded(chunks_of=relapse.chunks_from.langchain)
        def chain(query: str) -> dict[str, Any]:
            return {
                "input": query,
                "context": [Document("The tower opened in 1889.")],
                "answer": "It opened in 1889.",
            }

        result = chain.run("When did it open?")
        assert (True, "It opened in 1889.") == (result.grounded, result.answer)

    def test_call_span_has_no_chunk_count(self, spans: CapturedSpans) -> None:
        """With chunks_of, relapse.chunks.count is not set: the chunks are not known upfront."""

        @relapse.grounded(chunks_of=relapse.chunks_from.sources, tracer_provider=spans.provider)
        def ask(query: str) -> dict[str, Any]:
            return {"answer": "It opened in 1889.", "sources": DOCS}

        ask("q")
        (call,) = [s for s in spans.spans if s.name.endswith("<locals>.ask")]
        assert "relapse.chunks.count" not in (call.attributes or {})

    def test_retrieve_with_chunks_of_is_refused(self) -> None:
        """retrieve= replaces a chunks argument there is none of: refused when decorating."""
        with pytest.raises(ValueError, match=r"^retrieve= replaces the chunks argument"):
            relapse.grounded(chunks_of=relapse.chunks_from.sources, retrieve=lambda a: None)

    def test_exactly_one_of_chunks_arg_and_chunks_of(self) -> None:
        """Both or neither is an error when decorating."""
        with pytest.raises(TypeError, match=r"exactly one of chunks_arg= .* and chunks_of="):
            relapse.grounded(chunks_arg="docs", chunks_of=relapse.chunks_from.sources)
        with pytest.raises(TypeError, match=r"exactly one of chunks_arg= .* and chunks_of="):
            relapse.grounded()

    def test_bad_chunks_from_the_result_keep_the_response(self) -> None:
        """Unreadable returned chunks fail naming chunks_of; the response is kept."""
        reply = {"answer": "x", "sources": [3]}

        @relapse.grounded(chunks_of=relapse.chunks_from.sources)
        def ask(query: str) -> dict[str, Any]:
            return reply

        with pytest.raises(TypeError, match=r"^chunks_of\(response\)\[0\] is int") as caught:
            ask("q")
        (record,) = caught.value.relapse_transcript  # type: ignore[attr-defined]
        assert reply is record.response


class TestFeedbackArg:
    def test_query_stays_and_feedback_carries_the_note(self) -> None:
        """Iteration 2 gets the caller's query untouched and the retry note in ``hint``."""
        calls: list[tuple[str, str | None]] = []

        @relapse.grounded(chunks_arg="docs", feedback_arg="hint", grounding_check=forbid("1999"))
        def answer(query: str, docs: list[str], hint: str | None = None) -> str:
            calls.append((query, hint))
            return "It opened in 1999." if len(calls) == 1 else "It opened in 1889."

        result = answer.run("When did it open?", DOCS)
        assert ["When did it open?", "When did it open?"] == [q for q, _ in calls]
        assert calls[0][1] is None
        note = calls[1][1]
        assert note is not None
        assert note.startswith('Your previous answer was rejected: "It opened in 1999."')
        assert "When did it open?" not in note
        assert note == result.transcript[1].prompt

    async def test_method_retrieving_itself_with_feedback(self) -> None:
        """A bound async method with chunks_of and a keyword-only feedback parameter."""
        calls: list[tuple[str, str | None]] = []

        class Engine:
            @relapse.grounded(
                chunks_of=relapse.chunks_from.sources,
                feedback_arg="hint",
                grounding_check=forbid("1999"),
            )
            async def ask(self, query: str, *, hint: str | None = None) -> dict[str, Any]:
                calls.append((query, hint))
                said = "It opened in 1999." if hint is None else "It opened in 1889."
                return {"answer": said, "sources": DOCS}

        reply = await Engine().ask("When?")
        assert {"answer": "It opened in 1889.", "sources": DOCS} == reply
        assert ["When?", "When?"] == [query for query, _ in calls]
        assert calls[1][1] is not None

    def test_feedback_arg_must_be_a_parameter(self) -> None:
        """An unknown feedback parameter is refused when decorating, listing the parameters."""
        with pytest.raises(
            ValueError, match=r"feedback_arg='hint' is not a parameter .* query, docs"
        ):

            @relapse.grounded(chunks_arg="docs", feedback_arg="hint")
            def answer(query: str, docs: list[str]) -> str:
                return "x"


class TestBudget:
    def test_budget_stops_retrying(self) -> None:
        """Once the tokens spent reach ``max_total_tokens``, the loop stops: outcome budget."""
        replies = iter([chat_completion("1999", prompt=60, completion=50)] * 3)

        @relapse.grounded(
            chunks_arg="docs",
            grounding_check=forbid("1999"),
            max_total_tokens=100,
            max_iterations=3,
        )
        def answer(query: str, docs: list[str]) -> ChatCompletion:
            return next(replies)

        result = answer.run("q", DOCS)
        assert ("budget", 1, relapse.Usage(60, 50)) == (
            result.outcome,
            result.iterations,
            result.usage,
        )

    def test_the_attempt_that_crossed_it_is_still_checked(self) -> None:
        """A grounded answer that crossed the budget is still returned as grounded."""
        replies = iter(
            [
                chat_completion("1999", prompt=60, completion=10),
                chat_completion("1889", prompt=60, completion=10),
            ]
        )

        @relapse.grounded(chunks_arg="docs", grounding_check=forbid("1999"), max_total_tokens=100)
        def answer(query: str, docs: list[str]) -> ChatCompletion:
            return next(replies)

        result = answer.run("q", DOCS)
        assert ("recovered", True, 140) == (
            result.outcome,
            result.grounded,
            result.usage.total_tokens if result.usage else None,
        )

    @pytest.mark.parametrize(
        ("value", "error"), [(0, ValueError), (1.5, TypeError), (True, TypeError)]
    )
    def test_bad_budget(self, value: object, error: type[Exception]) -> None:
        """``max_total_tokens`` is a positive int."""
        with pytest.raises(error, match=r"max_total_tokens"):
            relapse.grounded(chunks_arg="docs", max_total_tokens=value)  # type: ignore[arg-type]


class TestUsageTelemetry:
    def test_iteration_and_call_spans_carry_tokens(self, spans: CapturedSpans) -> None:
        """Each iteration span has its tokens, the call span their sum, under relapse.usage.*."""
        replies = iter(
            [
                chat_completion("1999", prompt=40, completion=6),
                chat_completion("1889", prompt=95, completion=7),
            ]
        )

        @relapse.grounded(
            chunks_arg="docs", grounding_check=forbid("1999"), tracer_provider=spans.provider
        )
        def answer(query: str, docs: list[str]) -> ChatCompletion:
            return next(replies)

        answer("q", DOCS)
        iterations = spans.named("relapse.iteration")
        (call,) = [s for s in spans.spans if s.name.endswith("<locals>.answer")]
        assert [(40, 6), (95, 7)] == [
            (
                s.attributes["relapse.usage.input_tokens"],
                s.attributes["relapse.usage.output_tokens"],
            )
            for s in iterations
            if s.attributes is not None
        ]
        assert call.attributes is not None
        assert (135, 13) == (
            call.attributes["relapse.usage.input_tokens"],
            call.attributes["relapse.usage.output_tokens"],
        )
        assert not any(
            key.startswith("gen_ai.usage") for s in spans.spans for key in (s.attributes or {})
        )

    def test_no_usage_no_attribute(self, spans: CapturedSpans) -> None:
        """A plain-string function reports no tokens: no counts, not zero, and known=false."""

        @relapse.grounded(chunks_arg="docs", tracer_provider=spans.provider)
        def answer(query: str, docs: list[str]) -> str:
            return "It opened in 1889."

        answer("q", DOCS)
        usage = [
            {k: v for k, v in (s.attributes or {}).items() if k.startswith("relapse.usage")}
            for s in spans.spans
            if s.name != "relapse.check"
        ]
        assert [{"relapse.usage.known": False}] * 2 == usage


class TestAcrossTheLoop:
    def test_attempt_carries_the_usage_so_far(self) -> None:
        """``current_attempt().usage`` is the tokens the earlier attempts spent."""
        seen: list[relapse.Usage | None] = []
        replies = iter(
            [
                chat_completion("1999", prompt=40, completion=6),
                chat_completion("1999", prompt=50, completion=6),
                chat_completion("1889", prompt=60, completion=6),
            ]
        )

        @relapse.grounded(chunks_arg="docs", grounding_check=forbid("1999"))
        def answer(query: str, docs: list[str]) -> ChatCompletion:
            attempt = relapse.current_attempt()
            assert attempt is not None
            seen.append(attempt.usage)
            return next(replies)

        answer("q", DOCS)
        assert [None, relapse.Usage(40, 6), relapse.Usage(90, 12)] == seen

    def test_best_returns_the_best_attempts_response(self) -> None:
        """With ``on_exhausted="best"`` the caller gets the response of the answer picked."""
        worse = chat_completion("1999 and 1998")
        better = chat_completion("1999")
        replies = iter([worse, better])

        @relapse.grounded(
            chunks_arg="docs",
            grounding_check=forbid("1999", "1998"),
            max_iterations=2,
            on_exhausted="best",
        )
        def answer(query: str, docs: list[str]) -> ChatCompletion:
            return next(replies)

        assert better is answer("q", DOCS)

    def test_run_reads_an_sdk_response_from_call_llm(self) -> None:
        """``relapse.run`` reads the answer and usage of whatever ``call_llm`` returns."""
        result = relapse.run(
            "When did it open?",
            DOCS,
            call_llm=lambda prompt: chat_completion("It opened in 1889.", prompt=30, completion=5),
        )
        assert ("It opened in 1889.", relapse.Usage(30, 5)) == (result.answer, result.usage)

    def test_failed_call_keeps_usage_of_paid_attempts(self) -> None:
        """An LLM error after a paid attempt: the transcript keeps that attempt's usage."""
        calls: list[int] = []

        @relapse.grounded(chunks_arg="docs", grounding_check=forbid("1999"))
        def answer(query: str, docs: list[str]) -> ChatCompletion:
            calls.append(1)
            if len(calls) == 2:
                raise ConnectionError("reset")
            return chat_completion("1999", prompt=40, completion=6)

        with pytest.raises(ConnectionError) as caught:
            answer("q", DOCS)
        transcript = caught.value.relapse_transcript  # type: ignore[attr-defined]
        assert [relapse.Usage(40, 6)] == [record.usage for record in transcript]

    def test_tokens_histogram_counts_a_budget_stop(self, metrics: CapturedMetrics) -> None:
        """The tokens histogram records a call stopped by the budget under outcome budget."""
        reader = metrics.reader

        @relapse.grounded(
            chunks_arg="docs",
            grounding_check=forbid("1999"),
            max_total_tokens=50,
            meter_provider=metrics.provider,
        )
        def answer(query: str, docs: list[str]) -> ChatCompletion:
            return chat_completion("1999", prompt=45, completion=10)

        assert "budget" == answer.run("q", DOCS).outcome
        data = reader.get_metrics_data()
        assert data is not None
        sums = {
            (point.attributes or {}).get("gen_ai.token.type"): (
                (point.attributes or {}).get("relapse.outcome"),
                point.sum,
            )
            for resource in data.resource_metrics
            for scope in resource.scope_metrics
            for metric in scope.metrics
            if metric.name == "relapse.call.tokens"
            for point in metric.data.data_points
        }
        assert {"input": ("budget", 45), "output": ("budget", 10)} == sums


class TestKillSwitchStreams:
    """With the kill switch off, a streaming function still hands over a GroundedStream."""

    @pytest.mark.parametrize("release", ["answer", "sentence"])
    def test_a_generator_function_works_the_documented_way(self, release: str) -> None:
        """``with answer(...) as stream``, the same pieces, then ``stream.result``, unchecked."""
        made: list[str] = []

        @relapse.grounded(chunks_arg="docs", enabled=False, release=release)  # type: ignore[call-overload]
        def answer(query: str, docs: list[str]) -> Iterator[str]:
            for piece in ("It opened ", "in 1999."):
                made.append(piece)
                yield piece

        with answer("When?", DOCS) as stream:
            assert isinstance(stream, relapse.GroundedStream)
            assert [] == made  # nothing read before the caller reads
            pieces = list(stream)
        assert ["It opened ", "in 1999."] == pieces
        result = stream.result
        assert ("disabled", False, 1, "") == (
            result.outcome,
            result.grounded,
            result.iterations,
            result.answer,
        )
        assert relapse.Streamed("sync", ("It opened ", "in 1999.")) == stream.response

    def test_closing_it_closes_the_functions_stream(self) -> None:
        """close() after the first piece closes the generator; the result is then unknown."""
        closed: list[bool] = []

        @relapse.grounded(chunks_arg="docs", enabled=False)
        def answer(query: str, docs: list[str]) -> Iterator[str]:
            try:
                yield from ("It opened ", "in 1999.")
            finally:
                closed.append(True)

        stream = answer("When?", DOCS)
        assert "It opened " == next(stream)
        stream.close()
        assert [True] == closed
        with pytest.raises(RuntimeError, match="iterate it to its end first"):
            stream.result  # noqa: B018 (the property raises)

    async def test_closing_before_reading_closes_the_stream(self) -> None:
        """A ``with`` block left before the first piece still closes the function's stream."""

        closed: list[str] = []

        class Provider:
            """A stream with close(), as the OpenAI SDK's Stream."""

            def __iter__(self) -> Provider:
                return self

            def __next__(self) -> str:
                return "It opened "

            def close(self) -> None:
                closed.append("sync")

        class AsyncProvider:
            """A stream with aclose(), as the OpenAI SDK's AsyncStream (async def close)."""

            def __aiter__(self) -> AsyncProvider:
                return self

            async def __anext__(self) -> str:
                return "It opened "

            async def aclose(self) -> None:
                closed.append("async")

        @relapse.grounded(chunks_arg="docs", enabled=False)
        def answer(query: str, docs: list[str]) -> Provider:
            return Provider()

        @relapse.grounded(chunks_arg="docs", enabled=False)
        async def aanswer(query: str, docs: list[str]) -> AsyncProvider:
            return AsyncProvider()

        with answer("When?", DOCS):
            pass
        async with await aanswer("When?", DOCS):
            pass
        assert ["sync", "async"] == closed

    async def test_an_async_def_returning_an_async_stream(self) -> None:
        """``await answer(...)`` gives an AsyncGroundedStream; async with, then its result."""

        async def pieces() -> AsyncIterator[str]:
            for piece in ("It opened ", "in 1999."):
                yield piece

        @relapse.grounded(chunks_arg="docs", enabled=False)
        async def answer(query: str, docs: list[str]) -> AsyncIterator[str]:
            return pieces()

        stream = await answer("When?", DOCS)
        assert isinstance(stream, relapse.AsyncGroundedStream)
        async with stream:
            got = [piece async for piece in stream]
        assert ["It opened ", "in 1999."] == got
        assert ("disabled", relapse.Streamed("async", tuple(got))) == (
            stream.result.outcome,
            stream.response,
        )

    async def test_an_async_generator_function(self) -> None:
        """An async generator function: the same AsyncGroundedStream, its result a Streamed."""

        @relapse.grounded(chunks_arg="docs", enabled=lambda: False)
        async def answer(query: str, docs: list[str]) -> AsyncIterator[str]:
            for piece in ("It opened ", "in 1999."):
                yield piece

        stream = answer("When?", DOCS)
        async with stream:
            got = [piece async for piece in stream]
        assert ["It opened ", "in 1999."] == got
        assert relapse.Streamed("async", ("It opened ", "in 1999.")) == stream.result.response

    def test_run_reads_the_stream(self) -> None:
        """``.run`` with the switch off reads the stream once and returns the unchecked result."""

        @relapse.grounded(chunks_arg="docs", enabled=False)
        def answer(query: str, docs: list[str]) -> Iterator[str]:
            yield from ("It opened ", "in 1999.")

        result = answer.run("When?", DOCS)
        assert ("disabled", relapse.Streamed("sync", ("It opened ", "in 1999."))) == (
            result.outcome,
            result.response,
        )
