"""
A LlamaIndex streaming query engine through relapse: its tokens, as their sentences pass.

Runs offline: a real in-memory ``VectorStoreIndex`` (mock embeddings) and
llama-index-core's ``MockLLM`` streaming scripted answers word by word; the
first answer gets the span's length wrong::

    python examples/streaming/llamaindex_stream.py

A ``StreamingResponse`` has its ``source_nodes`` before its tokens are
read, so ``GroundedQueryEngine(..., release="sentence")`` checks each
sentence against them while the tokens stream. The failing sentence never
reaches the reader; the LLM's stream is closed there and the retry continues
after the sentence already shown.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from llama_index.core import Document, VectorStoreIndex
from llama_index.core.base.llms.types import CompletionResponse, CompletionResponseGen
from llama_index.core.embeddings import MockEmbedding
from llama_index.core.llms import MockLLM
from llama_index.core.llms.callbacks import llm_completion_callback

from relapse.integrations.llamaindex import RESULT_KEY, GroundedQueryEngine

DOCS = [
    "The Golden Gate Bridge opened to traffic on May 27, 1937. Its main span is 1,280 metres long."
]
ANSWERS = [
    "It opened to traffic on May 27, 1937. Its main span is 2,000 metres long. It is orange.",
    "Its main span is 1,280 metres long.",
]


class ScriptedStreamingLLM(MockLLM):
    """MockLLM streaming the next scripted answer word by word; counts the words it made."""

    calls: int = 0
    made: int = 0

    @llm_completion_callback()
    def stream_complete(
        self, prompt: str, formatted: bool = False, **kwargs: Any
    ) -> CompletionResponseGen:
        answer = ANSWERS[min(self.calls, len(ANSWERS) - 1)]
        self.calls += 1

        def tokens() -> Iterator[CompletionResponse]:
            text = ""
            words = answer.split(" ")
            for index, word in enumerate(words):
                # Each word with the space after it, as the released text ends.
                delta = word if index == len(words) - 1 else word + " "
                self.made += 1
                text += delta
                yield CompletionResponse(text=text, delta=delta)

        return tokens()


index = VectorStoreIndex.from_documents(
    [Document(text=text) for text in DOCS], embed_model=MockEmbedding(embed_dim=8)
)
llm = ScriptedStreamingLLM()
engine = GroundedQueryEngine(index.as_query_engine(streaming=True, llm=llm), release="sentence")

response = engine.query("When did the Golden Gate Bridge open, and how long is its main span?")
print(f"{len(response.source_nodes)} source node(s) before the first token")
for token in response.response_gen:  # type: ignore[union-attr]
    print(token, end="", flush=True)
print()
result = response.metadata[RESULT_KEY]  # type: ignore[index]
print(f"{result.outcome}: {len(result.transcript)} attempts, {llm.made} words generated")
