"""
LlamaIndex streaming query engines with ``release="sentence"``, on the real llama-index-core.

A ``VectorStoreIndex`` over the passages with ``MockEmbedding``, queried
through ``as_query_engine(streaming=True)`` with llama-index-core's
``MockLLM`` streaming a scripted answer word by word (through the real
``stream_complete`` callback path). A ``StreamingResponse`` has its
``source_nodes`` before its ``response_gen`` is read, so relapse reads the
nodes first and checks each sentence against them while the tokens stream.
"""

from __future__ import annotations

import warnings
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any

import pytest

pytest.importorskip(
    "llama_index.core", reason="the llamaindex extra: pip install 'relapse[llamaindex]'"
)
from llama_index.core import Document, VectorStoreIndex
from llama_index.core.base.llms.types import (
    CompletionResponse,
    CompletionResponseAsyncGen,
    CompletionResponseGen,
)
from llama_index.core.base.response.schema import (
    AsyncStreamingResponse,
    Response,
    StreamingResponse,
)
from llama_index.core.embeddings import MockEmbedding
from llama_index.core.llms import MockLLM
from llama_index.core.llms.callbacks import llm_completion_callback

import relapse
from relapse import GroundedStream
from relapse.integrations.llamaindex import (
    RESULT_KEY,
    GroundedQueryEngine,
    ResponseStream,
    response_stream,
)
from relapse.prompts import quote_answer
from stream_cases import BAD, DOCS, FIRST, GOOD, TAIL, words

#: A sentence that passes, one that fails (35 is in no passage), more text.
FAILING = FIRST + BAD + TAIL + "It is very old."


class StreamingLLM(MockLLM):
    """llama-index-core's MockLLM streaming scripted answers word by word, logging each word."""

    answers: list[str] = []
    prompts: list[str] = []
    made: list[str] = []
    closed: int = 0

    def __init__(self, answers: Sequence[str]) -> None:
        super().__init__()
        self.answers = list(answers)
        self.prompts = []
        self.made = []
        self.closed = 0

    def _words(self, prompt: str) -> Iterator[CompletionResponse]:
        self.prompts.append(prompt)
        so_far = ""
        try:
            for word in words(self.answers[len(self.prompts) - 1]):
                self.made.append(word)
                so_far += word
                yield CompletionResponse(text=so_far, delta=word)
        finally:
            self.closed += 1

    @llm_completion_callback()
    def stream_complete(
        self, prompt: str, formatted: bool = False, **kwargs: Any
    ) -> CompletionResponseGen:
        return self._words(prompt)

    @llm_completion_callback()
    async def astream_complete(
        self, prompt: str, formatted: bool = False, **kwargs: Any
    ) -> CompletionResponseAsyncGen:
        made = self._words(prompt)

        async def tokens() -> AsyncIterator[CompletionResponse]:
            try:
                for response in made:
                    yield response
            finally:
                made.close()

        return tokens()


@pytest.fixture
def index() -> VectorStoreIndex:
    """A real in-memory vector index over the passage, with mock embeddings."""
    return VectorStoreIndex.from_documents(
        [Document(text=text) for text in DOCS], embed_model=MockEmbedding(embed_dim=8)
    )


class TestGroundedQueryEngine:
    def test_the_response_streams_before_the_llm_finished(self, index: VectorStoreIndex) -> None:
        """The StreamingResponse comes back unread, with its nodes; tokens while the LLM streams."""
        llm = StreamingLLM([FIRST + GOOD])
        engine = GroundedQueryEngine(
            index.as_query_engine(streaming=True, llm=llm), release="sentence"
        )
        response = engine.query("Tell me about the bridge.")
        assert isinstance(response, StreamingResponse)
        assert DOCS == [n.node.get_content() for n in response.source_nodes]
        assert [] == llm.made  # the loop runs as the tokens are read
        first = next(response.response_gen)
        made_then = len(llm.made)
        rest = list(response.response_gen)
        assert "The " == first
        # FIRST is judged once the next sentence begins: its words and GOOD's first.
        assert len(words(FIRST)) + 1 == made_then
        assert FIRST + GOOD == first + "".join(rest)
        result = (response.metadata or {})[RESULT_KEY]
        assert (True, "grounded_first_try", FIRST + GOOD) == (
            result.grounded,
            result.outcome,
            result.answer,
        )

    def test_no_byte_of_the_failing_sentence_reaches_the_caller(
        self, index: VectorStoreIndex
    ) -> None:
        """The LLM's stream is closed at BAD; the retry is asked to continue after FIRST."""
        llm = StreamingLLM([FAILING, GOOD])
        engine = GroundedQueryEngine(
            index.as_query_engine(streaming=True, llm=llm), release="sentence"
        )
        response = engine.query("Tell me about the bridge.")
        assert isinstance(response, StreamingResponse)
        out = "".join(response.response_gen)
        assert FIRST + GOOD == out
        assert "35" not in out
        # Attempt 1 was closed inside TAIL: "It is very old." was never generated.
        first_attempt = llm.made[: len(llm.made) - len(words(GOOD))]
        assert len(words(FIRST + BAD)) < len(first_attempt) < len(words(FAILING))
        assert 2 == llm.closed
        assert f'You have already said: "{quote_answer(FIRST)}"' in llm.prompts[1]
        result = (response.metadata or {})[RESULT_KEY]
        assert (True, "recovered") == (result.grounded, result.outcome)
        assert [FIRST, GOOD] == [record.released for record in result.transcript]
        assert DOCS == [n.node.get_content() for n in response.source_nodes]

    async def test_aquery_streams_an_async_response(self, index: VectorStoreIndex) -> None:
        """aquery: an AsyncStreamingResponse of the released tokens, BAD never among them."""
        llm = StreamingLLM([FAILING, GOOD])
        engine = GroundedQueryEngine(
            index.as_query_engine(streaming=True, llm=llm), release="sentence"
        )
        response = await engine.aquery("Tell me about the bridge.")
        assert isinstance(response, AsyncStreamingResponse)
        out = "".join([token async for token in response.response_gen])
        assert FIRST + GOOD == out
        assert len(llm.made) < len(words(FAILING)) + len(words(GOOD))
        assert "recovered" == (response.metadata or {})[RESULT_KEY].outcome

    def test_a_non_streaming_engine_is_unchanged(self, index: VectorStoreIndex) -> None:
        """With release="sentence" an engine that does not stream returns its Response, checked."""

        class Whole(StreamingLLM):
            @llm_completion_callback()
            def complete(
                self, prompt: str, formatted: bool = False, **kwargs: Any
            ) -> CompletionResponse:
                return CompletionResponse(text="".join(r.delta or "" for r in self._words(prompt)))

        engine = GroundedQueryEngine(
            index.as_query_engine(llm=Whole([FAILING, GOOD])), release="sentence"
        )
        response = engine.query("Tell me about the bridge.")
        assert isinstance(response, Response)
        assert GOOD == response.response
        assert "recovered" == (response.metadata or {})[RESULT_KEY].outcome


class TestDecorated:
    def test_chunks_from_llamaindex_streams_a_response_stream(
        self, index: VectorStoreIndex
    ) -> None:
        """chunks_of=chunks_from.llamaindex reads the nodes first: no fallback, tokens stream."""
        llm = StreamingLLM([FAILING, GOOD])
        streaming_engine = index.as_query_engine(streaming=True, llm=llm)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no fallback warning

            @relapse.grounded(chunks_of=relapse.chunks_from.llamaindex, release="sentence")
            def ask(query: str) -> ResponseStream:
                return response_stream(streaming_engine.query(query))  # type: ignore[return-value]

        stream = ask("Tell me about the bridge.")
        assert isinstance(stream, GroundedStream)
        with stream:
            got = list(stream)
        assert all(isinstance(token, str) for token in got)
        assert words(FIRST) + words(GOOD) == got
        # GOOD's "May 1937" and "1280" pass only against the retrieved node's
        # text: the chunks were read off the unread stream.
        assert (True, "recovered") == (stream.result.grounded, stream.result.outcome)

    def test_a_hand_built_streaming_response(self) -> None:
        """A hand-built StreamingResponse: its nodes check its tokens; BAD closes its generator."""
        from llama_index.core.schema import NodeWithScore, TextNode

        closed: list[bool] = []

        def tokens(text: str) -> Iterator[str]:
            try:
                yield from words(text)
            finally:
                closed.append(True)

        answers = iter([FAILING, GOOD])

        @relapse.grounded(chunks_of=relapse.chunks_from.llamaindex, release="sentence")
        def ask(query: str) -> ResponseStream:
            nodes = [NodeWithScore(node=TextNode(text=DOCS[0]), score=1.0)]
            return response_stream(  # type: ignore[return-value]
                StreamingResponse(response_gen=tokens(next(answers)), source_nodes=nodes)
            )

        assert FIRST + GOOD == "".join(ask("q"))
        assert [True, True] == closed

    def test_response_stream_refuses_a_plain_response(self) -> None:
        """A Response (the engine does not stream) is a TypeError saying what is expected."""
        with pytest.raises(TypeError, match="streaming=True"):
            response_stream(Response(response="It opened in 1937."))

    def test_response_stream_refuses_a_read_response(self) -> None:
        """A StreamingResponse read already (str()) has spent its tokens: a TypeError."""
        response = StreamingResponse(response_gen=iter(["It ", "opened."]))
        assert "It opened." == str(response)
        with pytest.raises(TypeError, match="not read"):
            response_stream(response)
