"""
``GroundedRunnable.stream``/``astream`` with ``release="sentence"`` on the real langchain-core.

The model is langchain-core's ``GenericFakeChatModel``, which streams its
message token by token (each word and each space a chunk) through the real
chat-model streaming path (``on_llm_new_token``, ``AIMessageChunk``s). The
answers are ``tests/streaming/test_release.py``'s, whose hold-back is known: the
number of ``BAD`` is judged within ``TAIL``, so the stream is stopped while
the model still has text to give.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessageChunk, BaseMessage
from langchain_core.output_parsers import StrOutputParser
from langchain_core.outputs import ChatGenerationChunk
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import Runnable

from langchain_steps import recording
from relapse import NotGroundedError
from relapse._telemetry.attributes import (
    ITERATION_SPAN_NAME,
    RELAPSE_USAGE_INPUT_TOKENS,
    RELAPSE_USAGE_KNOWN,
    RELAPSE_USAGE_OUTPUT_TOKENS,
)
from relapse.integrations.langchain import GroundedRunnable
from relapse.prompts import quote_answer
from relapse.testing import CapturedSpans
from stream_cases import BAD, DOCS, FIRST, GOOD, TAIL

#: The first answer: a sentence that passes, one that fails (its number is
#: not in the chunks), then text the model never gets to stream.
FAILING = FIRST + BAD + TAIL + "It is very old."
QUESTION = "Tell me about the Golden Gate Bridge."


def tokens(text: str) -> list[str]:
    """The chunks ``GenericFakeChatModel`` streams ``text`` as (its own split)."""
    return [part for part in re.split(r"(\s)", text) if part]


class Tokens(BaseCallbackHandler):
    """Records every token the model generated and each streamed message chunk."""

    def __init__(self) -> None:
        self.made: list[str] = []
        self.chunks: list[BaseMessage] = []
        self.ended: list[str] = []

    def on_llm_new_token(self, token: str, *, chunk: Any = None, **kwargs: Any) -> None:
        self.made.append(token)
        if isinstance(chunk, ChatGenerationChunk):
            self.chunks.append(chunk.message)

    def on_chain_end(self, outputs: Any, **kwargs: Any) -> None:
        if kwargs.get("name") == "GroundedRunnable" or not kwargs.get("parent_run_id"):
            self.ended.append(str(getattr(outputs, "content", outputs)))


def model(*answers: str) -> GenericFakeChatModel:
    """The real fake chat model, streaming each answer in turn."""
    return GenericFakeChatModel(messages=iter(answers))


PROMPT = ChatPromptTemplate.from_template("Context: {docs}\n{feedback}\nQuestion: {question}")


def chain(llm: GenericFakeChatModel, prompts: list[str]) -> Runnable[Any, Any]:
    return PROMPT | recording(prompts) | llm


def text_of(pieces: list[Any]) -> str:
    return "".join(p if isinstance(p, str) else str(p.content) for p in pieces)


class TestSentenceStreaming:
    def test_the_first_chunk_arrives_before_the_model_finished(self) -> None:
        """The first chunk reaches the caller while the model still streams (no buffering)."""
        recorder = Tokens()
        grounded = GroundedRunnable(
            chain(model(FIRST + GOOD), []), chunks_key="docs", release="sentence"
        )
        pieces = grounded.stream(
            {"question": QUESTION, "docs": DOCS, "feedback": ""}, {"callbacks": [recorder]}
        )
        first = next(pieces)
        made_then = len(recorder.made)
        rest = list(pieces)
        assert isinstance(first, AIMessageChunk)
        assert "The" == first.content
        # FIRST is judged once the next sentence begins: its tokens and the
        # first word of GOOD ("It", then a space) were made, nothing more.
        assert len(tokens(FIRST)) + 1 <= made_then < len(tokens(FIRST + GOOD))
        assert FIRST + GOOD == text_of([first, *rest])

    def test_the_callers_chunks_are_the_models_own_objects(self) -> None:
        """Each chunk yielded is the very AIMessageChunk the chat model streamed, in order."""
        recorder = Tokens()
        grounded = GroundedRunnable(
            chain(model(FIRST + GOOD), []), chunks_key="docs", release="sentence"
        )
        got = list(
            grounded.stream(
                {"question": QUESTION, "docs": DOCS, "feedback": ""}, {"callbacks": [recorder]}
            )
        )
        assert len(tokens(FIRST + GOOD)) == len(got)
        assert all(mine is theirs for mine, theirs in zip(got, recorder.chunks, strict=True))

    def test_no_byte_of_the_failing_sentence_reaches_the_caller(self) -> None:
        """The model's stream is closed at BAD; the retry continues after FIRST."""
        recorder = Tokens()
        prompts: list[str] = []
        grounded = GroundedRunnable(
            chain(model(FAILING, GOOD), prompts), chunks_key="docs", release="sentence"
        )
        got = list(
            grounded.stream(
                {"question": QUESTION, "docs": DOCS, "feedback": ""}, {"callbacks": [recorder]}
            )
        )
        out = text_of(got)
        assert FIRST + GOOD == out
        assert "35" not in out
        assert "million" not in out
        # Attempt 1 was stopped inside TAIL: "It is very old." was never generated.
        first_attempt = recorder.made[: len(recorder.made) - len(tokens(GOOD))]
        assert len(tokens(FIRST + BAD)) < len(first_attempt) < len(tokens(FAILING))
        assert "old." not in first_attempt
        # The retry replaced the question with the continuation query: it
        # quotes FIRST as already said and asks for the rest only.
        assert 2 == len(prompts)
        assert f'You have already said: "{quote_answer(FIRST)}"' in prompts[1]
        assert "do not repeat what you have already said" in prompts[1]

    def test_feedback_key_gets_the_continuation_note(self) -> None:
        """With feedback_key the question stays; the note quotes the released text."""
        prompts: list[str] = []
        grounded = GroundedRunnable(
            chain(model(FAILING, GOOD), prompts),
            chunks_key="docs",
            feedback_key="feedback",
            release="sentence",
        )
        out = text_of(list(grounded.stream({"question": QUESTION, "docs": DOCS})))
        assert FIRST + GOOD == out
        assert prompts[1].endswith(f"Question: {QUESTION}")
        assert f'You have already said: "{quote_answer(FIRST)}"' in prompts[1]

    def test_a_str_output_parser_streams_str(self) -> None:
        """After a StrOutputParser the caller gets the parser's str chunks, BAD never among them."""
        grounded = GroundedRunnable(
            chain(model(FAILING, GOOD), []) | StrOutputParser(),
            chunks_key="docs",
            release="sentence",
        )
        got = list(grounded.stream({"question": QUESTION, "docs": DOCS, "feedback": ""}))
        assert all(isinstance(piece, str) for piece in got)
        assert tokens(FIRST) + tokens(GOOD) == got

    def test_the_repeated_prefix_is_not_released_twice(self) -> None:
        """A retry that starts over with FIRST has the repeat dropped."""
        grounded = GroundedRunnable(
            chain(model(FAILING, FIRST + GOOD), []) | StrOutputParser(),
            chunks_key="docs",
            release="sentence",
        )
        got = list(grounded.stream({"question": QUESTION, "docs": DOCS, "feedback": ""}))
        assert FIRST + GOOD == "".join(got)

    def test_exhausted_raise_after_the_released_text(self) -> None:
        """on_exhausted="raise": the iterator raises NotGroundedError after FIRST."""
        grounded = GroundedRunnable(
            chain(model(FAILING), []) | StrOutputParser(),
            chunks_key="docs",
            release="sentence",
            max_iterations=1,
            on_exhausted="raise",
        )
        got: list[str] = []
        pieces = grounded.stream({"question": QUESTION, "docs": DOCS, "feedback": ""})
        with pytest.raises(NotGroundedError):
            got.extend(pieces)
        assert FIRST == "".join(got)

    def test_closing_stops_the_model(self) -> None:
        """Closing the caller's iterator closes the chain's stream: the model stops."""
        recorder = Tokens()
        grounded = GroundedRunnable(
            chain(model(FIRST + GOOD), []), chunks_key="docs", release="sentence"
        )
        pieces = grounded.stream(
            {"question": QUESTION, "docs": DOCS, "feedback": ""}, {"callbacks": [recorder]}
        )
        next(pieces)
        made = len(recorder.made)
        pieces.close()  # type: ignore[attr-defined]
        assert made == len(recorder.made) < len(tokens(FIRST + GOOD))

    def test_each_attempt_tagged_under_one_run(self) -> None:
        """The attempts' chain runs are tagged relapse:attempt:N, as with invoke."""
        tags: list[list[str]] = []

        class Tags(BaseCallbackHandler):
            def on_chain_start(self, *args: Any, **kwargs: Any) -> None:
                mine = [t for t in kwargs.get("tags") or [] if t.startswith("relapse:")]
                if mine:
                    tags.append(mine)

        grounded = GroundedRunnable(
            chain(model(FAILING, GOOD), []), chunks_key="docs", release="sentence"
        )
        list(
            grounded.stream(
                {"question": QUESTION, "docs": DOCS, "feedback": ""}, {"callbacks": [Tags()]}
            )
        )
        assert [["relapse:attempt:1"], ["relapse:attempt:2"]] == tags

    async def test_astream(self) -> None:
        """astream: the same chunks on the chain's async path, BAD never among them."""
        recorder = Tokens()
        grounded = GroundedRunnable(
            chain(model(FAILING, GOOD), []), chunks_key="docs", release="sentence"
        )
        got = [
            piece
            async for piece in grounded.astream(
                {"question": QUESTION, "docs": DOCS, "feedback": ""}, {"callbacks": [recorder]}
            )
        ]
        assert all(isinstance(piece, AIMessageChunk) for piece in got)
        assert FIRST + GOOD == text_of(got)
        assert len(recorder.made) < len(tokens(FAILING)) + len(tokens(GOOD))

    async def test_astream_close_stops_the_model(self) -> None:
        """aclose() after the first chunk stops the model's async stream."""
        recorder = Tokens()
        grounded = GroundedRunnable(
            chain(model(FIRST + GOOD), []), chunks_key="docs", release="sentence"
        )
        pieces = grounded.astream(
            {"question": QUESTION, "docs": DOCS, "feedback": ""}, {"callbacks": [recorder]}
        )
        first = await anext(pieces)  # type: ignore[call-overload]
        await pieces.aclose()  # type: ignore[attr-defined]
        assert "The" == first.content
        assert len(recorder.made) < len(tokens(FIRST + GOOD))


class StreamingWithUsage(GenericFakeChatModel):
    """The real fake model, its last chunk reporting tokens as a provider's does."""

    def _stream(self, *args: Any, **kwargs: Any) -> Iterator[ChatGenerationChunk]:
        chunks = list(super()._stream(*args, **kwargs))
        for index, chunk in enumerate(chunks):
            if index == len(chunks) - 1:
                chunk.message.usage_metadata = {  # type: ignore[attr-defined]
                    "input_tokens": 40,
                    "output_tokens": len(chunks),
                    "total_tokens": 40 + len(chunks),
                }
            yield chunk

    async def _astream(self, *args: Any, **kwargs: Any) -> AsyncIterator[ChatGenerationChunk]:
        for chunk in self._stream(*args, **kwargs):
            yield chunk


class TestUsage:
    def test_tokens_of_a_str_stream_come_from_the_llm_run(self, spans: CapturedSpans) -> None:
        """A StrOutputParser stream drops the usage; the attempt's LLM run reports it."""
        grounded = GroundedRunnable(
            chain(StreamingWithUsage(messages=iter([FIRST + GOOD])), []) | StrOutputParser(),
            chunks_key="docs",
            release="sentence",
            tracer_provider=spans.provider,
        )
        got = list(grounded.stream({"question": QUESTION, "docs": DOCS, "feedback": ""}))
        assert FIRST + GOOD == "".join(got)
        (iteration,) = [s for s in spans.spans if s.name == ITERATION_SPAN_NAME]
        attributes = iteration.attributes or {}
        assert 40 == attributes[RELAPSE_USAGE_INPUT_TOKENS]
        assert len(tokens(FIRST + GOOD)) == attributes[RELAPSE_USAGE_OUTPUT_TOKENS]

    async def test_astream_a_closed_attempt_reports_no_tokens(self, spans: CapturedSpans) -> None:
        """astream: the attempt closed at BAD never reached its usage; the retry's is counted."""
        grounded = GroundedRunnable(
            chain(StreamingWithUsage(messages=iter([FAILING, GOOD])), []) | StrOutputParser(),
            chunks_key="docs",
            release="sentence",
            tracer_provider=spans.provider,
        )
        got = [
            piece
            async for piece in grounded.astream(
                {"question": QUESTION, "docs": DOCS, "feedback": ""}
            )
        ]
        assert FIRST + GOOD == "".join(got)
        closed, retry = [s.attributes or {} for s in spans.named(ITERATION_SPAN_NAME)]
        assert False is closed[RELAPSE_USAGE_KNOWN]
        assert (True, 40, len(tokens(GOOD))) == (
            retry[RELAPSE_USAGE_KNOWN],
            retry[RELAPSE_USAGE_INPUT_TOKENS],
            retry[RELAPSE_USAGE_OUTPUT_TOKENS],
        )


class TestAnswerRelease:
    def test_release_answer_yields_the_chosen_output_once(self) -> None:
        """release="answer" keeps today's stream: one whole output, after the loop."""
        grounded = GroundedRunnable(chain(model(FAILING, GOOD), []), chunks_key="docs")
        got = list(grounded.stream({"question": QUESTION, "docs": DOCS, "feedback": ""}))
        assert [GOOD] == [piece.content for piece in got]
