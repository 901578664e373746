"""
Ground a LlamaIndex query engine: runs offline, no API key.

A real in-memory ``VectorStoreIndex`` (mock embeddings) and a scripted LLM
built on llama-index-core's ``CustomLLM`` stand in for yours: its first
answer states a year the documents do not hold, its second is right. Two ways
to use relapse are shown: :class:`GroundedQueryEngine` (relapse's loop around
the engine) and :class:`GroundingEvaluator` inside LlamaIndex's own
``RetryQueryEngine``::

    pip install 'relapse[llamaindex]'
    python examples/integrations/llamaindex_rag.py
"""

from __future__ import annotations

from typing import Any

from llama_index.core import Document, Settings, VectorStoreIndex
from llama_index.core.base.llms.types import (
    CompletionResponse,
    CompletionResponseGen,
    LLMMetadata,
)
from llama_index.core.embeddings import MockEmbedding
from llama_index.core.llms import CustomLLM
from llama_index.core.llms.callbacks import llm_completion_callback
from llama_index.core.query_engine import RetryQueryEngine

from relapse.integrations.llamaindex import RESULT_KEY, GroundedQueryEngine, GroundingEvaluator


class WrongThenRight(CustomLLM):
    """Answers with a wrong year first, then the right date (stands in for a real LLM)."""

    calls: int = 0

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata()

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        self.calls += 1
        text = "It opened in 1950." if self.calls % 2 else "It opened on May 27, 1937."
        return CompletionResponse(text=text)

    @llm_completion_callback()
    def stream_complete(
        self, prompt: str, formatted: bool = False, **kwargs: Any
    ) -> CompletionResponseGen:
        yield self.complete(prompt)


index = VectorStoreIndex.from_documents(
    [
        Document(text="The Golden Gate Bridge opened to traffic on May 27, 1937."),
        Document(text="Its main span is 1,280 metres long."),
    ],
    embed_model=MockEmbedding(embed_dim=8),
)
QUESTION = "When did the Golden Gate Bridge open?"


def main() -> None:
    engine = GroundedQueryEngine(index.as_query_engine(llm=WrongThenRight(), similarity_top_k=2))
    response = engine.query(QUESTION)
    result = response.metadata[RESULT_KEY]
    for record in result.transcript:
        codes = ",".join(f.code for f in record.findings) or "-"
        print(f"attempt {record.iteration}: {record.answer!r} [{codes}]")
    print(f"GroundedQueryEngine: {response} grounded: {result.grounded} ({result.outcome})")

    # LlamaIndex's RetryQueryEngine builds a FeedbackQueryTransformation that
    # reads Settings.llm; give it one so it does not look for OpenAI's.
    Settings.llm = WrongThenRight()
    retrying = RetryQueryEngine(
        index.as_query_engine(llm=WrongThenRight(), similarity_top_k=2),
        GroundingEvaluator(),
        max_retries=2,
    )
    print(f"RetryQueryEngine + GroundingEvaluator: {retrying.query(QUESTION)}")


if __name__ == "__main__":
    main()
