"""relapse.integrations.langchain on the real langchain-core: fake chat model, real retriever."""

from __future__ import annotations

import sys
from operator import itemgetter
from typing import Any
from uuid import UUID

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import AIMessage
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompt_values import PromptValue
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import Runnable, RunnableLambda, RunnablePassthrough
from langchain_core.vectorstores import InMemoryVectorStore
from pydantic import SecretStr

import relapse
from llama_server import MODEL, LlamaServer
from relapse.integrations.langchain import GroundedRunnable
from relapse.llms.local import LocalModel
from relapse.testing import CapturedSpans

PASSAGES = [
    "The Golden Gate Bridge opened to traffic on May 27, 1937.",
    "Its main span is 1,280 metres long.",
]
QUESTION = "When did the Golden Gate Bridge open?"
WRONG, RIGHT = "It opened in 1950.", "It opened on May 27, 1937."


class Recorder(BaseCallbackHandler):
    """Records the tags of every chain run and the query of every retriever run."""

    def __init__(self) -> None:
        self.chain_tags: list[tuple[str, list[str]]] = []
        self.retriever_queries: list[str] = []

    def on_chain_start(
        self,
        serialized: dict[str, Any] | None,
        inputs: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        **kwargs: Any,
    ) -> None:
        self.chain_tags.append((kwargs.get("name") or "", list(tags or [])))

    def on_retriever_start(
        self, serialized: dict[str, Any] | None, query: str, **kwargs: Any
    ) -> None:
        self.retriever_queries.append(query)


@pytest.fixture
def retriever() -> Any:
    """A real retriever over an in-memory vector store holding the two passages."""
    store = InMemoryVectorStore(DeterministicFakeEmbedding(size=16))
    store.add_texts(PASSAGES)
    return store.as_retriever(search_kwargs={"k": 2})


def recording(prompts: list[str]) -> Runnable[PromptValue, PromptValue]:
    """A pass-through step that records the prompt text the model receives."""

    def record(value: PromptValue) -> PromptValue:
        prompts.append(value.to_string())
        return value

    return RunnableLambda(record)


PROMPT = ChatPromptTemplate.from_template("Context: {context}\n{feedback}\nQuestion: {question}")


def retrieving_chain(retriever: Any, llm: FakeListChatModel, prompts: list[str]) -> Runnable:
    """A chain that retrieves inside itself and returns {context, question, feedback, answer}."""
    return RunnablePassthrough.assign(
        context=itemgetter("question") | retriever
    ) | RunnablePassthrough.assign(answer=PROMPT | recording(prompts) | llm | StrOutputParser())


class TestChunksFromTheOutput:
    def test_recovers_with_feedback_and_keeps_the_question(
        self, retriever: Any, spans: CapturedSpans
    ) -> None:
        """The retriever sees the question both times; the note reaches the prompt; dict out."""
        prompts: list[str] = []
        chain = retrieving_chain(retriever, FakeListChatModel(responses=[WRONG, RIGHT]), prompts)
        grounded = GroundedRunnable(
            chain, context_key="context", feedback_key="feedback", tracer_provider=spans.provider
        )
        recorder = Recorder()
        output = grounded.invoke({"question": QUESTION, "feedback": ""}, {"callbacks": [recorder]})
        assert RIGHT == output["answer"]
        assert sorted(PASSAGES) == sorted(d.page_content for d in output["context"])
        assert [QUESTION, QUESTION] == recorder.retriever_queries
        assert "1950" not in prompts[0]
        assert "1950" in prompts[1]
        assert QUESTION in prompts[1]
        assert ["relapse GroundedRunnable"] == [
            s.name for s in spans.spans if s.name.startswith("relapse ")
        ]

    def test_each_attempt_tagged(self, retriever: Any) -> None:
        """Each attempt's chain run carries relapse:attempt:N, under one GroundedRunnable run."""
        chain = retrieving_chain(retriever, FakeListChatModel(responses=[WRONG, RIGHT]), [])
        recorder = Recorder()
        GroundedRunnable(chain, context_key="context", feedback_key="feedback").invoke(
            {"question": QUESTION}, {"callbacks": [recorder], "tags": ["app"]}
        )
        attempt_runs = [
            tags for _, tags in recorder.chain_tags if any("relapse:" in t for t in tags)
        ]
        assert [["app", "relapse:attempt:1"], ["app", "relapse:attempt:2"]] == [
            sorted(tags) for tags in attempt_runs
        ]
        assert ("GroundedRunnable", ["app"]) == recorder.chain_tags[0]

    def test_question_replaced_without_feedback_key(self, retriever: Any) -> None:
        """Without feedback_key the retry query replaces the question everywhere."""
        chain = retrieving_chain(retriever, FakeListChatModel(responses=[WRONG, RIGHT]), [])
        recorder = Recorder()
        result = GroundedRunnable(chain, context_key="context").run(
            {"question": QUESTION, "feedback": ""}, {"callbacks": [recorder]}
        )
        assert (True, "recovered") == (result.grounded, result.outcome)
        first, retry = recorder.retriever_queries
        assert QUESTION == first
        assert retry.startswith(QUESTION)
        assert "1950" in retry
        assert RIGHT == result.response["answer"]


class TestChunksFromTheInput:
    def chain(self, llm: FakeListChatModel, prompts: list[str]) -> Runnable:
        prompt = ChatPromptTemplate.from_template("Context: {docs}\nQuestion: {question}")
        return prompt | recording(prompts) | llm

    def test_returns_the_chains_message(self, retriever: Any) -> None:
        """Documents from the caller's retriever are the chunks; the output stays an AIMessage."""
        prompts: list[str] = []
        grounded = GroundedRunnable(
            self.chain(FakeListChatModel(responses=[WRONG, RIGHT]), prompts), chunks_key="docs"
        )
        docs = retriever.invoke(QUESTION)
        result = grounded.run({"question": QUESTION, "docs": docs})
        assert isinstance(result.response, AIMessage)
        assert RIGHT == result.response.content
        assert [WRONG, RIGHT] == [r.answer for r in result.transcript]
        assert 2 == len(prompts)
        assert prompts[1].count("May 27, 1937") == 1  # the documents, once, on the retry too

    async def test_ainvoke(self, retriever: Any) -> None:
        """ainvoke runs the loop on the chain's async path."""
        grounded = GroundedRunnable(
            self.chain(FakeListChatModel(responses=[WRONG, RIGHT]), []), chunks_key="docs"
        )
        output = await grounded.ainvoke({"question": QUESTION, "docs": retriever.invoke(QUESTION)})
        assert RIGHT == output.content

    def test_batch_and_stream(self) -> None:
        """batch grounds each input; stream yields the whole chosen output once (buffered)."""
        grounded = GroundedRunnable(
            self.chain(FakeListChatModel(responses=[RIGHT]), []), chunks_key="docs"
        )
        inputs = [{"question": QUESTION, "docs": PASSAGES}, {"question": "When?", "docs": PASSAGES}]
        assert [RIGHT, RIGHT] == [m.content for m in grounded.batch(inputs)]
        chunks = list(grounded.stream(inputs[0]))
        assert [RIGHT] == [c.content for c in chunks]

    async def test_abatch_and_astream(self) -> None:
        """abatch and astream, as their sync forms."""
        grounded = GroundedRunnable(
            self.chain(FakeListChatModel(responses=[RIGHT]), []), chunks_key="docs"
        )
        inputs = [{"question": QUESTION, "docs": PASSAGES}] * 2
        assert [RIGHT, RIGHT] == [m.content for m in await grounded.abatch(inputs)]
        assert [RIGHT] == [c.content async for c in grounded.astream(inputs[0])]

    def test_str_chain(self) -> None:
        """A chain returning str (a StrOutputParser) keeps returning str."""
        grounded = GroundedRunnable(
            self.chain(FakeListChatModel(responses=[WRONG, RIGHT]), []) | StrOutputParser(),
            chunks_key="docs",
        )
        assert RIGHT == grounded.invoke({"question": QUESTION, "docs": [Document(PASSAGES[0])]})


class TestErrors:
    def test_exactly_one_chunk_source(self) -> None:
        """Neither or both of chunks_key and context_key is a ValueError when wrapping."""
        chain = RunnableLambda(lambda x: x)
        for keys in ({}, {"chunks_key": "docs", "context_key": "context"}):
            with pytest.raises(ValueError, match="exactly one of chunks_key"):
                GroundedRunnable(chain, **keys)  # type: ignore[arg-type]

    def test_not_a_runnable(self) -> None:
        with pytest.raises(TypeError, match="runnable must be a LangChain Runnable, got function"):
            GroundedRunnable(lambda x: x, chunks_key="docs")  # type: ignore[arg-type]

    def test_missing_query_key_before_the_chain_runs(self) -> None:
        """An input without the question fails naming the key and the keys it has; no call."""
        calls: list[object] = []
        grounded = GroundedRunnable(RunnableLambda(calls.append), chunks_key="docs")
        with pytest.raises(
            TypeError, match=r"query_key 'question' .* got no such key.*'q', 'docs'"
        ):
            grounded.invoke({"q": QUESTION, "docs": PASSAGES})
        assert [] == calls

    def test_bad_chunk_before_the_chain_runs(self) -> None:
        """A chunk of an unsupported type fails naming its index, before any call."""
        calls: list[object] = []
        grounded = GroundedRunnable(RunnableLambda(calls.append), chunks_key="docs")
        with pytest.raises(TypeError, match=r"docs\[1\]|chunks\[1\]"):
            grounded.invoke({"question": QUESTION, "docs": ["ok", 3]})
        assert [] == calls

    def test_chain_error_propagates_with_the_transcript(self) -> None:
        """The chain's own exception propagates unchanged, with the transcript attached."""
        replies = iter([WRONG])

        def model(_: object) -> str:
            try:
                return next(replies)
            except StopIteration:
                raise ConnectionError("model down") from None

        grounded = GroundedRunnable(RunnableLambda(model), chunks_key="docs")
        with pytest.raises(ConnectionError, match="model down") as raised:
            grounded.invoke({"question": QUESTION, "docs": PASSAGES})
        (record,) = raised.value.relapse_transcript  # type: ignore[attr-defined]
        assert (WRONG, False) == (record.answer, record.grounded)

    def test_not_grounded_raises(self) -> None:
        """on_exhausted='raise' raises NotGroundedError through LangChain's callbacks."""
        grounded = GroundedRunnable(
            RunnableLambda(lambda _: WRONG), chunks_key="docs", on_exhausted="raise",
            max_iterations=2,
        )  # fmt: skip
        with pytest.raises(relapse.NotGroundedError):
            grounded.invoke({"question": QUESTION, "docs": PASSAGES})

    def test_missing_extra_names_the_install_command(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Without langchain-core, importing the module names the extra."""
        monkeypatch.setitem(sys.modules, "langchain_core.runnables", None)
        monkeypatch.delitem(sys.modules, "relapse.integrations.langchain")
        with pytest.raises(ImportError, match=r"pip install 'relapse\[langchain\]'"):
            import relapse.integrations.langchain  # noqa: F401


@pytest.mark.slow
def test_local_model_through_langchain_openai(llama_server: LlamaServer) -> None:
    """langchain-openai's completions LLM against the local OpenAI-compatible server."""
    from langchain_openai import OpenAI

    llm = OpenAI(
        model=MODEL,
        base_url=llama_server.base_url,
        api_key=SecretStr("no-key"),
        temperature=0.0,
        max_tokens=60,
        max_retries=0,
    )
    prompt = RunnableLambda(
        lambda value: LocalModel.build_prompt(
            value["question"], [d.page_content for d in value["docs"]]
        )
    )
    grounded = GroundedRunnable(prompt | llm.bind(stop=["\n"]), chunks_key="docs")
    result = grounded.run({"question": QUESTION, "docs": [Document(p) for p in PASSAGES]})
    assert isinstance(result.response, str)
    assert (True, "grounded_first_try") == (result.grounded, result.outcome)
    assert "1937" in result.response
