"""
Streams: the caller's stream keeps its interface; ``release="sentence"`` releases what passed.

The answers are written so that the default check's hold-back is known: a
sentence without a number is judged once the next one begins, and a number
is judged once 144 characters (``LOOK_AHEAD``) follow it, so the rejected
sentence below is rejected while the stream still has more to say.
"""

from __future__ import annotations

import asyncio
import re
import warnings
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from openai.types.chat import ChatCompletion, ChatCompletionChunk

import relapse
from openai_scripted import Server, client
from relapse import GroundedStream, NotGroundedError
from relapse._telemetry import attributes as attr
from relapse.prompts import continuation_note, continuation_retry
from relapse.testing import CapturedSpans, attempt_after
from stream_cases import BAD, DOCS, FIRST, GOOD, REST, TAIL, words


class Source:
    """A generator function's stream that logs what it produced and whether it was closed."""

    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.log: list[str] = []
        self.closed = 0
        self.queries: list[str] = []

    def pieces(self, query: str) -> Iterator[str]:
        self.queries.append(query)
        text = self.answers[len(self.queries) - 1]
        try:
            for piece in words(text):
                self.log.append(f"made {piece}")
                yield piece
        finally:
            self.closed += 1


def grounded_source(source: Source, **options: Any) -> Any:
    @relapse.grounded(chunks_arg="docs", **options)
    def answer(query: str, docs: list[str]) -> Iterator[str]:
        yield from source.pieces(query)

    return answer


class TestTheCallersStream:
    @pytest.mark.parametrize("release", ["answer", "sentence"])
    def test_with_block_iterates_and_exposes_the_result(self, release: str) -> None:
        """``with answer(...) as stream`` works, yields the pieces, then has the result."""
        source = Source(FIRST + GOOD)
        answer = grounded_source(source, release=release)
        with answer("q", DOCS) as stream:
            assert isinstance(stream, GroundedStream)
            got = list(stream)
        assert words(FIRST + GOOD) == got
        assert (True, FIRST + GOOD) == (stream.result.grounded, stream.result.answer)
        assert got == list(stream.response.pieces)

    def test_sentence_result_is_unknown_until_done(self) -> None:
        """Before the loop ends (release="sentence"), ``result`` says to iterate first."""
        stream = grounded_source(Source(FIRST + GOOD), release="sentence")("q", DOCS)
        with pytest.raises(RuntimeError, match="iterate it to its end first"):
            stream.result  # noqa: B018 (the property raises)
        stream.close()

    def test_close_stops_the_underlying_stream(self, spans: CapturedSpans) -> None:
        """close() after the first piece closes the function's generator; spans end, not failed."""
        source = Source(FIRST + GOOD)
        stream = grounded_source(source, release="sentence", tracer_provider=spans.provider)(
            "q", DOCS
        )
        first = next(stream)
        stream.close()
        assert ("The ", 1) == (first, source.closed)
        assert [] == list(stream)
        # Only what the check needed to release the first sentence was made.
        assert len(source.log) < len(words(FIRST + GOOD))
        (call,) = [s for s in spans.spans if s.name.startswith("relapse ")]
        assert (True, attr.STOP_CLOSED) == (
            call.attributes[attr.RELAPSE_STREAM_STOPPED],  # type: ignore[index]
            call.attributes[attr.RELAPSE_STREAM_STOP_REASON],  # type: ignore[index]
        )
        assert "error.type" not in call.attributes  # type: ignore[operator]

    def test_plain_answer_in_sentence_mode_is_returned_as_it_is(self) -> None:
        """A function returning a str is unaffected by release="sentence"."""

        @relapse.grounded(chunks_arg="docs", release="sentence")
        def answer(query: str, docs: list[str]) -> str:
            return "It opened in May 1937."

        assert "It opened in May 1937." == answer("q", DOCS)


class TestSentenceRelease:
    def test_pieces_arrive_before_the_stream_ends(self) -> None:
        """The first sentence reaches the caller while the function is still generating."""
        source = Source(FIRST + GOOD)
        stream = grounded_source(source, release="sentence")("q", DOCS)
        received: list[str] = []
        for piece in stream:
            received.append(piece)
            source.log.append(f"got {piece}")
        first_got = source.log.index("got The ")
        last_made = max(i for i, e in enumerate(source.log) if e.startswith("made "))
        assert first_got < last_made
        assert words(FIRST + GOOD) == received

    def test_same_piece_objects_in_order(self) -> None:
        """The caller gets the very objects the function yielded."""

        class Piece(str):
            pass

        made = [Piece(p) for p in words(FIRST + GOOD)]

        @relapse.grounded(chunks_arg="docs", release="sentence")
        def answer(query: str, docs: list[str]) -> Iterator[str]:
            yield from made

        got = list(answer("q", DOCS))
        assert len(made) == len(got)
        assert all(a is b for a, b in zip(made, got, strict=True))

    def test_a_failing_sentence_never_reaches_the_caller(self) -> None:
        """No byte of the failing sentence is released; the stream is stopped before REST."""
        source = Source(FIRST + BAD + TAIL + REST)
        answer = grounded_source(source, release="sentence", max_iterations=1)
        with answer("q", DOCS) as stream:
            released = "".join(stream)
        assert FIRST == released
        assert "35" not in released
        assert 1 == source.closed
        assert f"made {REST.split()[0]} " not in source.log[len(words(FIRST + BAD + TAIL)) :]
        assert len(source.log) < len(words(FIRST + BAD + TAIL + REST))
        result = stream.result
        assert (False, "exhausted", FIRST) == (
            result.grounded,
            result.outcome,
            result.answer,
        )
        (record,) = result.transcript
        assert FIRST == record.released
        assert ["FG001"] == [f.code for f in record.findings]
        # The record's answer ends at the failing sentence.
        assert (FIRST + BAD).rstrip() == record.answer.rstrip()

    def test_fallback_for_a_check_that_cannot_judge_a_prefix(self, spans: CapturedSpans) -> None:
        """A plain function check: one warning, answer-mode release, a span attribute."""

        def check(query: str, chunks: Any, answer: str) -> relapse.GroundingResult:
            return relapse.GroundingResult(ok=True)

        with pytest.warns(UserWarning, match="falls back to release='answer'"):
            answer = grounded_source(
                Source(FIRST + GOOD),
                release="sentence",
                grounding_check=check,
                tracer_provider=spans.provider,
            )
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no second warning on the call
            assert FIRST + GOOD == "".join(answer("q", DOCS))
        (iteration,) = spans.named("relapse.iteration")
        assert attr.FALLBACK_CHECK == iteration.attributes[attr.RELAPSE_STREAM_FALLBACK]  # type: ignore[index]

    def test_chunks_of_falls_back_unless_it_reads_the_unread_stream(self) -> None:
        """A chunks_of reader falls back with a warning; one declaring before_stream streams."""

        class Sourced:
            """A stream that carries its chunks, as a LlamaIndex streaming response does."""

            def __init__(self, text: str) -> None:
                self.chunks = DOCS
                self.pieces = iter(words(text))

            def __iter__(self) -> Sourced:
                return self

            def __next__(self) -> str:
                return next(self.pieces)

        def plain(stream: Any) -> Any:
            return DOCS

        def before(stream: Any) -> Any:
            return stream.chunks

        before.before_stream = True  # type: ignore[attr-defined]
        with pytest.warns(UserWarning, match="chunks_of knows the chunks only after the stream"):
            relapse.grounded(chunks_of=plain, release="sentence")(lambda q: Sourced(FIRST + GOOD))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            answer = relapse.grounded(chunks_of=before, release="sentence")(
                lambda q: Sourced(FIRST + GOOD)
            )
        stream = answer("Tell me about the bridge.")
        assert isinstance(stream, GroundedStream)
        first = next(stream)
        assert ("The ", FIRST + GOOD) == (first, first + "".join(stream))
        # GOOD's date and length pass only against DOCS: the chunks were read first.
        assert (True, "grounded_first_try") == (stream.result.grounded, stream.result.outcome)

    def test_release_is_validated(self) -> None:
        """An unknown release mode is refused when decorating, naming the option."""
        with pytest.raises(ValueError, match="release must be one of 'answer', 'sentence'"):
            relapse.grounded(chunks_arg="docs", release="word")  # type: ignore[typeddict-item]


class TestContinuation:
    def test_retry_continues_after_the_released_prefix(self) -> None:
        """Iteration 2 is asked for the rest; the caller reads prefix + continuation once."""
        source = Source(FIRST + BAD + TAIL + REST, GOOD)
        seen: list[relapse.Attempt] = []
        answer = grounded_source(
            source, release="sentence", on_iteration=seen.append, max_iterations=2
        )
        with answer("When did it open?", DOCS) as stream:
            released = "".join(stream)
        assert FIRST + GOOD == released
        assert ("", FIRST) == (seen[0].released, seen[1].released)
        retry = source.queries[1]
        assert retry.startswith("When did it open? (You have already said: ")
        assert FIRST.strip() in retry
        assert "It cost 35 million dollars to build." in retry
        assert "FG001" in retry
        assert "do not repeat what you have already said" in retry
        result = stream.result
        assert (True, "recovered", FIRST + GOOD) == (
            result.grounded,
            result.outcome,
            result.answer,
        )
        assert [FIRST, GOOD] == [r.released for r in result.transcript]
        # The second attempt was checked as one answer with the prefix.
        assert FIRST + GOOD == result.transcript[1].answer

    def test_a_repeated_prefix_is_not_released_twice(self) -> None:
        """A retry that starts over with the released prefix has the repeat dropped."""
        source = Source(FIRST + BAD + TAIL + REST, FIRST + GOOD)
        answer = grounded_source(source, release="sentence", max_iterations=2)
        assert FIRST + GOOD == "".join(answer("q", DOCS))

    @pytest.mark.parametrize(
        "split",
        [
            pytest.param(lambda text: re.split(r"(\s)", text), id="space-own-piece"),
            pytest.param(lambda text: re.split(r"(?= )", text), id="space-leading"),
        ],
    )
    def test_a_repeat_whose_space_comes_later_keeps_one_space(
        self, split: Callable[[str], list[str]]
    ) -> None:
        """Tokens carrying the space apart (" ", or " It") after the repeat: not doubled."""

        @relapse.grounded(chunks_arg="docs", release="sentence", max_iterations=2)
        def answer(query: str, docs: list[str]) -> Iterator[str]:
            text = (
                FIRST + BAD + TAIL + REST
                if relapse.current_attempt().iteration == 1
                else FIRST + GOOD
            )  # type: ignore[union-attr]
            yield from (piece for piece in split(text) if piece)

        assert FIRST + GOOD == "".join(answer("q", DOCS))

    def test_usage_of_reads_a_stream_read_sentence_by_sentence(self) -> None:
        """A usage_of given by the user reads the attempt's Streamed, as with release="answer"."""
        seen: list[relapse.Streamed] = []

        def usage_of(streamed: relapse.Streamed) -> relapse.Usage:
            seen.append(streamed)
            return relapse.Usage(7, len(streamed.pieces))

        answer = grounded_source(Source(FIRST + GOOD), release="sentence", usage_of=usage_of)
        with answer("q", DOCS) as stream:
            got = list(stream)
        assert [tuple(got)] == [s.pieces for s in seen]
        assert relapse.Usage(7, len(words(FIRST + GOOD))) == stream.result.usage

    def test_feedback_arg_gets_the_continuation_note(self) -> None:
        """With feedback_arg the query stays the caller's; the note quotes the prefix."""
        notes: list[str | None] = []

        @relapse.grounded(chunks_arg="docs", feedback_arg="hint", release="sentence")
        def answer(query: str, docs: list[str], hint: str | None = None) -> Iterator[str]:
            notes.append(hint)
            yield from words(FIRST + BAD + TAIL + REST if hint is None else GOOD)

        assert FIRST + GOOD == "".join(answer("q", DOCS))
        assert None is notes[0]
        expected = continuation_note(attempt_after("q", FIRST + BAD + TAIL, released=FIRST))
        assert expected.split(" That stands.")[0] == str(notes[1]).split(" That stands.")[0]

    def test_every_shipped_wording_continues_once_text_was_released(self) -> None:
        """The three wordings become continuation_retry, retry_note continuation_note."""
        finding = relapse.GroundingFinding("FG001", "1 number(s) not in retrieved chunks", ("35",))
        attempt = attempt_after("q", FIRST + BAD, [finding], released=FIRST)
        expected = continuation_retry(attempt)
        assert expected.startswith(f'q (You have already said: "{FIRST.strip()}" That stands.')
        assert f'rejected: "{BAD.strip()}"' in expected
        for wording in (
            relapse.prompts.compact_retry,
            relapse.prompts.instruction_retry,
            relapse.prompts.spans_only_retry,
        ):
            assert expected == wording(attempt), wording.__name__
        assert continuation_note(attempt) == relapse.prompts.retry_note(attempt)
        # Nothing released: the wordings are their usual selves.
        plain = attempt_after("q", FIRST + BAD, [finding])
        retry = relapse.prompts.compact_retry(plain)
        assert retry.startswith("q (Your previous answer was rejected")

    def test_a_stop_iteration_from_the_retry_call_is_not_an_end(self) -> None:
        """The iteration protocol cannot carry it: a RuntimeError caused by it, after the prefix."""
        calls = iter([words(FIRST + BAD + TAIL + REST)])

        @relapse.grounded(chunks_arg="docs", release="sentence")
        def answer(query: str, docs: list[str]) -> Iterator[str]:
            return iter(next(calls))  # the retry's call raises StopIteration

        got: list[str] = []
        with answer("q", DOCS) as stream, pytest.raises(RuntimeError) as caught:
            got.extend(stream)
        assert FIRST == "".join(got)
        assert isinstance(caught.value.__cause__, StopIteration)
        assert [1] == [r.iteration for r in caught.value.__cause__.relapse_transcript]  # type: ignore[attr-defined]

    def test_a_custom_rewrite_receives_the_released_prefix(self) -> None:
        """rewrite(attempt) sees Attempt.released."""
        prefixes: list[str] = []

        def rewrite(attempt: relapse.Attempt) -> str:
            prefixes.append(attempt.released)
            return "continue"

        source = Source(FIRST + BAD + TAIL + REST, GOOD)
        answer = grounded_source(source, release="sentence", rewrite=rewrite)
        assert FIRST + GOOD == "".join(answer("q", DOCS))
        assert ([FIRST], "continue") == (prefixes, source.queries[1])

    def test_exhausted_return_ends_after_the_prefix(self) -> None:
        """on_exhausted="return": the stream ends after what passed."""
        source = Source(FIRST + BAD + TAIL + REST, BAD + TAIL + REST)
        answer = grounded_source(source, release="sentence", max_iterations=2)
        with answer("q", DOCS) as stream:
            assert FIRST == "".join(stream)
        assert (False, FIRST, 2) == (
            stream.result.grounded,
            stream.result.answer,
            stream.result.iterations,
        )

    def test_exhausted_raise_raises_after_the_prefix(self) -> None:
        """on_exhausted="raise": NotGroundedError from the iterator, after the prefix."""
        source = Source(FIRST + BAD + TAIL + REST, BAD + TAIL + REST)
        answer = grounded_source(source, release="sentence", max_iterations=2, on_exhausted="raise")
        got: list[str] = []
        stream = answer("q", DOCS)
        with pytest.raises(NotGroundedError) as caught:
            got.extend(stream)
        assert FIRST == "".join(got)
        assert FIRST == caught.value.result.answer

    def test_exhausted_callable_text_is_checked_and_released(self) -> None:
        """A callable on_exhausted's text follows the prefix once it passed."""
        source = Source(FIRST + BAD + TAIL + REST)
        closing = "That is all the context says."
        answer = grounded_source(
            source,
            release="sentence",
            max_iterations=1,
            on_exhausted=lambda attempt: closing,
        )
        assert [*words(FIRST), closing] == list(answer("q", DOCS))

    def test_spans_record_what_each_iteration_released(self, spans: CapturedSpans) -> None:
        """Each iteration span counts sentences and released characters, and where it stopped."""
        source = Source(FIRST + BAD + TAIL + REST, GOOD)
        answer = grounded_source(source, release="sentence", tracer_provider=spans.provider)
        assert FIRST + GOOD == "".join(answer("q", DOCS))
        one, two = (dict(s.attributes or {}) for s in spans.named("relapse.iteration"))
        assert (len(FIRST), True, attr.STOP_FAILED_SENTENCE) == (
            one[attr.RELAPSE_STREAM_RELEASED_CHARS],
            one[attr.RELAPSE_STREAM_STOPPED],
            one[attr.RELAPSE_STREAM_STOP_REASON],
        )
        assert (len(GOOD), False, len(FIRST), len(FIRST) // 4) == (
            two[attr.RELAPSE_STREAM_RELEASED_CHARS],
            two[attr.RELAPSE_STREAM_STOPPED],
            two[attr.RELAPSE_STREAM_PREFIX_CHARS],
            two[attr.RELAPSE_STREAM_SAVED_TOKENS_ESTIMATE],
        )
        assert one[attr.RELAPSE_STREAM_SENTENCES_CHECKED] >= 2  # type: ignore[operator]
        assert 1 == one[attr.RELAPSE_STREAM_SENTENCES_RELEASED]
        assert 0 < one[attr.RELAPSE_STREAM_FIRST_RELEASE]  # type: ignore[operator]
        assert attr.RELAPSE_STREAM_FIRST_RELEASE not in two
        for span in (one, two):
            assert not any(isinstance(v, str) and "bridge" in v for v in span.values())


class TestAsync:
    def test_async_generator_function(self) -> None:
        """An async generator function: async with, async for, the failing sentence withheld."""
        queries: list[str] = []

        @relapse.grounded(chunks_arg="docs", release="sentence", max_iterations=2)
        async def answer(query: str, docs: list[str]) -> AsyncIterator[str]:
            queries.append(query)
            for piece in words(FIRST + BAD + TAIL + REST if len(queries) == 1 else GOOD):
                await asyncio.sleep(0)
                yield piece

        async def main() -> tuple[str, Any]:
            async with answer("q", DOCS) as stream:
                return "".join([piece async for piece in stream]), stream.result

        released, result = asyncio.run(main())
        assert (FIRST + GOOD, True, 2) == (released, result.grounded, result.iterations)

    @pytest.mark.parametrize("release", ["answer", "sentence"])
    def test_async_def_returning_an_async_iterator(self, release: str) -> None:
        """``await answer(...)`` gives an async stream with aclose() and the result."""
        closed: list[bool] = []

        async def pieces() -> AsyncIterator[str]:
            try:
                for piece in words(FIRST + GOOD):
                    yield piece
            finally:
                closed.append(True)

        @relapse.grounded(chunks_arg="docs", release=release)  # type: ignore[typeddict-item]
        async def answer(query: str, docs: list[str]) -> AsyncIterator[str]:
            return pieces()

        async def main() -> tuple[str, Any]:
            stream = await answer("q", DOCS)
            async with stream:
                first = await stream.__anext__()
            return first, stream

        first, stream = asyncio.run(main())
        assert ("The ", [True], True) == (first, closed, stream.done)


@dataclass
class Keepalive:
    """A provider event relapse cannot read: no ``type``, no ``choices``, no ``content``."""

    comment: str = "keep-alive"


def raising_at(word: str, error: BaseException) -> Any:
    """An incremental check passing everything until the text holds ``word``, then raising."""

    def check(query: str, chunks: Any, answer: str) -> relapse.GroundingResult:
        if word in answer:
            raise error
        return relapse.GroundingResult(ok=True)

    check.incremental = True  # type: ignore[attr-defined]
    return check


class TestPaidPiecesKept:
    """A failure while reading a stream: the record keeps every piece read, in both modes."""

    @pytest.mark.parametrize("release", ["answer", "sentence"])
    def test_an_event_relapse_cannot_read(self, release: str) -> None:
        """The TypeError names the event; the record holds every piece made, the event too."""
        pieces: list[Any] = [*words(FIRST + GOOD), Keepalive()]

        @relapse.grounded(chunks_arg="docs", release=release)  # type: ignore[call-overload]
        def answer(query: str, docs: list[str]) -> Iterator[Any]:
            yield from pieces

        got: list[Any] = []
        with pytest.raises(
            TypeError, match=f"stream item {len(pieces) - 1} is Keepalive"
        ) as caught:
            got.extend(answer("q", DOCS))
        (record,) = caught.value.relapse_transcript  # type: ignore[attr-defined]
        # Unreadable, so no answer text: as release="answer" has always recorded it.
        assert (relapse.Streamed("sync", tuple(pieces)), "", False) == (
            record.response,
            record.answer,
            record.grounded,
        )
        # What the caller got before the event is what the record says was released.
        assert "".join(got) == record.released
        # Sentence by sentence, all but the last sentence passed before the event
        # (the last one waits for the stream's end); the whole answer waits for it.
        assert ("" if release == "answer" else FIRST + GOOD[: -len(REST)]) == record.released

    @pytest.mark.parametrize("release", ["answer", "sentence"])
    def test_a_check_that_raises(self, release: str) -> None:
        """The check's own error, unchanged; the record holds every piece made and their text."""
        broke = RuntimeError("the check broke")
        made: list[str] = []

        @relapse.grounded(
            chunks_arg="docs",
            release=release,  # type: ignore[arg-type]
            grounding_check=raising_at("1937", broke),
        )
        def answer(query: str, docs: list[str]) -> Iterator[str]:
            for piece in words(FIRST + GOOD):
                made.append(piece)
                yield piece

        got: list[str] = []
        with pytest.raises(RuntimeError) as caught:
            got.extend(answer("q", DOCS))
        assert broke is caught.value
        (record,) = caught.value.relapse_transcript  # type: ignore[attr-defined]
        assert (relapse.Streamed("sync", tuple(made)), "".join(made), False) == (
            record.response,
            record.answer,
            record.grounded,
        )
        assert "".join(got) == record.released
        if release == "sentence":
            # The check choked on "1937" as it came: reading stopped there,
            # before the stream's end.
            assert "1937. " in made
            assert len(made) < len(words(FIRST + GOOD))

    async def test_async_stream_keeps_them_too(self) -> None:
        """An async generator function in sentence mode: the same record."""
        pieces: list[Any] = [*words(FIRST), Keepalive()]

        @relapse.grounded(chunks_arg="docs", release="sentence")
        async def answer(query: str, docs: list[str]) -> AsyncIterator[Any]:
            for piece in pieces:
                yield piece

        with pytest.raises(TypeError) as caught:
            [piece async for piece in answer("q", DOCS)]
        (record,) = caught.value.relapse_transcript  # type: ignore[attr-defined]
        assert relapse.Streamed("async", tuple(pieces)) == record.response


class TestAValueRetry:
    """The first attempt streamed and stopped; the retry returns a plain value (a cache)."""

    @pytest.mark.parametrize("retry", [GOOD, FIRST + GOOD], ids=["continues", "restarts"])
    def test_a_str_retry_reaches_the_callers_stream(self, retry: str) -> None:
        """The caller reads the prefix, then the retry's text, once; the record keeps the str."""

        @relapse.grounded(chunks_arg="docs", release="sentence", max_iterations=2)
        def answer(query: str, docs: list[str]) -> Any:
            if relapse.current_attempt().iteration == 1:  # type: ignore[union-attr]
                return iter(words(FIRST + BAD + TAIL + REST))
            return retry

        with answer("q", DOCS) as stream:
            pieces = list(stream)
        assert [*words(FIRST), GOOD] == pieces
        result = stream.result
        assert (True, "recovered", FIRST + GOOD) == (
            result.grounded,
            result.outcome,
            result.answer,
        )
        second = result.transcript[1]
        assert (retry, GOOD, FIRST + GOOD) == (second.response, second.released, second.answer)

    def test_a_chat_completion_retry_reaches_an_openai_stream_as_a_chunk(self) -> None:
        """A cached ChatCompletion after the SDK's Stream: the caller reads ChatCompletionChunks."""
        server = Server(FIRST + BAD + TAIL + REST)
        sdk = client(server)
        cached = ChatCompletion.model_validate(
            {
                "id": "cached",
                "object": "chat.completion",
                "created": 0,
                "model": "m",
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": "stop",
                        "message": {"role": "assistant", "content": GOOD},
                    }
                ],
            }
        )

        @relapse.grounded(chunks_arg="docs", release="sentence", max_iterations=2)
        def answer(query: str, docs: list[str]) -> Any:
            if relapse.current_attempt().iteration == 1:  # type: ignore[union-attr]
                return sdk.chat.completions.create(
                    model="m", messages=[{"role": "user", "content": query}], stream=True
                )
            return cached

        with answer("q", DOCS) as stream:
            chunks = list(stream)
        assert all(isinstance(chunk, ChatCompletionChunk) for chunk in chunks)
        assert [*words(FIRST), GOOD] == [c.choices[0].delta.content for c in chunks]
        assert (True, FIRST + GOOD) == (stream.result.grounded, stream.result.answer)
        assert cached is stream.result.transcript[1].response

    def test_a_failing_value_releases_what_passes_of_it(self) -> None:
        """A value failing too: nothing of it is released (one piece); the caller keeps FIRST."""

        @relapse.grounded(chunks_arg="docs", release="sentence", max_iterations=2)
        def answer(query: str, docs: list[str]) -> Any:
            if relapse.current_attempt().iteration == 1:  # type: ignore[union-attr]
                return iter(words(FIRST + BAD + TAIL + REST))
            return BAD + TAIL

        with answer("q", DOCS) as stream:
            assert FIRST == "".join(stream)
        assert (False, "exhausted", FIRST) == (
            stream.result.grounded,
            stream.result.outcome,
            stream.result.answer,
        )

    async def test_an_async_stream_then_an_awaited_value(self) -> None:
        """async def: an async stream first, then a str; the caller's async for reads both."""

        async def pieces() -> AsyncIterator[str]:
            for piece in words(FIRST + BAD + TAIL + REST):
                yield piece

        @relapse.grounded(chunks_arg="docs", release="sentence", max_iterations=2)
        async def answer(query: str, docs: list[str]) -> Any:
            if relapse.current_attempt().iteration == 1:  # type: ignore[union-attr]
                return pieces()
            return GOOD

        stream = await answer("q", DOCS)
        async with stream:
            got = [piece async for piece in stream]
        assert [*words(FIRST), GOOD] == got
        assert (True, FIRST + GOOD) == (stream.result.grounded, stream.result.answer)


class TestEvidenceOfTheAnswer:
    """An exhausted stream's evidence is that of the text the caller read, so cite() works."""

    #: Its one sentence fails at the stream's end (35 million); May 1937 is supported.
    NOTHING_SHOWN = "It opened in May 1937 and cost 35 million dollars."
    #: The first sentence passes; the second fails, though its 1280 is supported.
    ONE_SHOWN = (
        "It opened to traffic in May 1937. Its main span is 1280 metres long and it cost"
        " 35 million dollars."
    )

    def _exhausted(self, text: str, **options: Any) -> tuple[str, relapse.RelapseResult]:
        @relapse.grounded(chunks_arg="docs", release="sentence", max_iterations=1, **options)
        def answer(query: str, docs: list[str]) -> Iterator[str]:
            yield from words(text)

        with answer("When did it open?", DOCS) as stream:
            read = "".join(stream)
        return read, stream.result

    @pytest.mark.parametrize("on_exhausted", ["return", "best"])
    def test_nothing_shown_no_evidence(self, on_exhausted: str) -> None:
        """The attempt cited May 1937 (offsets 13 to 21), but the caller read nothing."""
        read, result = self._exhausted(self.NOTHING_SHOWN, on_exhausted=on_exhausted)
        assert ("", "", (), False) == (read, result.answer, result.evidence, result.grounded)
        assert "" == relapse.cite(result.answer, result.evidence)
        # The attempt's own record keeps its evidence, about its own text.
        assert [(13, 21)] == [e.answer_span for e in result.transcript[0].evidence]

    def test_evidence_past_the_shown_text_is_dropped(self) -> None:
        """May 1937 (24 to 32) was shown; 1280 (51 to 55) was in the withheld sentence."""
        read, result = self._exhausted(self.ONE_SHOWN)
        shown = "It opened to traffic in May 1937. "
        assert (shown, shown) == (read, result.answer)
        assert (relapse.Evidence("date", (24, 32), 0, (44, 52)),) == result.evidence
        assert "It opened to traffic in May 1937[1]. " == relapse.cite(
            result.answer, result.evidence
        )

    def test_a_chat_page_fallback_when_nothing_was_shown(self) -> None:
        """A callable on_exhausted: the caller reads its text, checked; cite() has no claim."""
        fallback = "I could not find that in the documents."
        read, result = self._exhausted(self.NOTHING_SHOWN, on_exhausted=lambda attempt: fallback)
        assert (fallback, fallback, (), "exhausted") == (
            read,
            result.answer,
            result.evidence,
            result.outcome,
        )
        assert fallback == relapse.cite(result.answer, result.evidence)

    def test_the_handler_knows_what_was_shown(self) -> None:
        """``attempt.released`` in a callable on_exhausted is the text the caller read."""
        seen: list[str] = []

        def handler(attempt: relapse.Attempt) -> str:
            seen.append(attempt.released)
            return "That is all the documents say." if attempt.released else "Nothing found."

        read, result = self._exhausted(self.ONE_SHOWN, on_exhausted=handler)
        shown = "It opened to traffic in May 1937. "
        assert ([shown], shown + "That is all the documents say.") == (seen, read)
        assert read == result.answer
        read, result = self._exhausted(self.NOTHING_SHOWN, on_exhausted=handler)
        assert ([shown, ""], "Nothing found.") == (seen, read)
