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
from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.fake_chat_models import (
    FakeListChatModel,
    FakeMessagesListChatModel,
)
from langchain_core.messages import AIMessage
from langchain_core.output_parsers import StrOutputParser
from langchain_core.outputs import Generation, LLMResult
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import Runnable, RunnableLambda, RunnablePassthrough
from langchain_core.vectorstores import InMemoryVectorStore
from pydantic import SecretStr

import relapse
from langchain_steps import recording
from llama_server import MODEL, LlamaServer
from relapse.integrations.langchain import GroundedRunnable, llm_result_usage
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


PROMPT = ChatPromptTemplate.from_template("Context: {context}\n{feedback}\nQuestion: {question}")


def retrieving_chain(retriever: Any, llm: BaseChatModel, prompts: list[str]) -> Runnable:
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


def reporting(*answers: tuple[str, int, int]) -> FakeMessagesListChatModel:
    """A fake chat model whose messages report ``(text, input_tokens, output_tokens)``."""
    return FakeMessagesListChatModel(
        responses=[
            AIMessage(
                content=text,
                usage_metadata={
                    "input_tokens": given,
                    "output_tokens": made,
                    "total_tokens": given + made,
                },
            )
            for text, given, made in answers
        ]
    )


class TestUsage:
    """Tokens through LCEL chains whose output parser drops the message."""

    def test_str_output_parser_keeps_the_tokens(self, retriever: Any) -> None:
        """The documented chain (... | llm | StrOutputParser()) reports each attempt's tokens."""
        llm = reporting((WRONG, 40, 6), (RIGHT, 95, 7))
        grounded = GroundedRunnable(
            retrieving_chain(retriever, llm, []),
            context_key="context",
            feedback_key="feedback",
        )
        result = grounded.run({"question": QUESTION})
        assert isinstance(result.response["answer"], str)
        assert [relapse.Usage(40, 6), relapse.Usage(95, 7)] == [r.usage for r in result.transcript]
        assert relapse.Usage(135, 13) == result.usage

    async def test_async_path(self) -> None:
        """ainvoke collects the same tokens."""
        llm = reporting((WRONG, 40, 6), (RIGHT, 95, 7))
        chain = PROMPT | llm | StrOutputParser()
        grounded = GroundedRunnable(chain, chunks_key="context", feedback_key="feedback")
        result = await grounded.arun({"question": QUESTION, "context": PASSAGES})
        assert relapse.Usage(135, 13) == result.usage

    def test_two_llm_calls_in_one_attempt_are_summed(self) -> None:
        """A chain calling two models per attempt reports both: 10+40 in, 2+6 out."""
        rewriter = reporting(("When did the Golden Gate Bridge open?", 10, 2))
        answerer = reporting((RIGHT, 40, 6))
        chain = RunnablePassthrough.assign(
            question=ChatPromptTemplate.from_template("Rewrite: {question}")
            | rewriter
            | StrOutputParser()
        ) | (PROMPT | answerer | StrOutputParser())
        grounded = GroundedRunnable(chain, chunks_key="context", feedback_key="feedback")
        result = grounded.run({"question": QUESTION, "context": PASSAGES})
        assert (True, relapse.Usage(50, 8)) == (result.grounded, result.usage)

    def test_a_model_without_usage_says_unknown(self, spans: CapturedSpans) -> None:
        """FakeListChatModel reports no tokens: usage None and relapse.usage.known=false."""
        grounded = GroundedRunnable(
            PROMPT | FakeListChatModel(responses=[RIGHT]) | StrOutputParser(),
            chunks_key="context",
            feedback_key="feedback",
            tracer_provider=spans.provider,
        )
        result = grounded.run({"question": QUESTION, "context": PASSAGES})
        assert (True, None) == (result.grounded, result.usage)
        (call,) = spans.named("relapse GroundedRunnable")
        assert False is (call.attributes or {})["relapse.usage.known"]

    def test_an_explicit_usage_of_wins(self) -> None:
        """usage_of= replaces the collected tokens."""
        grounded = GroundedRunnable(
            PROMPT | reporting((RIGHT, 40, 6)) | StrOutputParser(),
            chunks_key="context",
            feedback_key="feedback",
            usage_of=lambda output: relapse.Usage(1, 1),
        )
        assert (
            relapse.Usage(1, 1) == grounded.run({"question": QUESTION, "context": PASSAGES}).usage
        )

    def test_completion_llm_output(self) -> None:
        """A completion LLM's llm_output["token_usage"] is read when no message reports any."""
        result = LLMResult(
            generations=[[Generation(text="x")]],
            llm_output={"token_usage": {"prompt_tokens": 7, "completion_tokens": 3}},
        )
        assert relapse.Usage(7, 3) == llm_result_usage(result)
        assert llm_result_usage(LLMResult(generations=[[Generation(text="x")]])) is None


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
    # The str output carries no tokens; the LLM run's llm_output["token_usage"] did.
    usage = result.transcript[0].usage
    assert usage is not None
    assert usage.input_tokens > 0
    assert 0 < usage.output_tokens <= 60


@pytest.mark.slow
def test_chat_model_through_langchain_openai(llama_server: LlamaServer) -> None:
    """
    langchain-openai's ChatOpenAI against the local server, the documented LCEL chain.

    ``ChatOpenAI(max_tokens=...)`` sends ``max_completion_tokens``, which
    llama-cpp-python's server ignores (the model then writes until its
    context is full); ``extra_body={"max_tokens": 60}`` is what it reads. The
    first attempt is rejected by the check so that the retry request goes
    to the server too; each attempt's tokens are the server's own counts for
    that request, although StrOutputParser drops the message that held them.
    """
    import openai
    from langchain_openai import ChatOpenAI

    llm = ChatOpenAI(
        model=MODEL,
        base_url=llama_server.base_url,
        api_key=SecretStr("no-key"),
        temperature=0.0,
        max_retries=0,
        extra_body={"max_tokens": 60},
    )
    prompts: list[str] = []
    prompt = ChatPromptTemplate.from_messages(
        [("user", "Context: {context}\n{feedback}\nQuestion: {question}\nAnswer:")]
    )
    chain = RunnablePassthrough.assign(answer=prompt | recording(prompts) | llm | StrOutputParser())
    checked: list[str] = []

    def reject_the_first(query: str, chunks: list[str], answer: str) -> relapse.GroundingResult:
        checked.append(answer)
        if len(checked) > 1:
            return relapse.GroundingResult(True)
        return relapse.GroundingResult(False, (relapse.GroundingFinding("X1", "rejected once"),))

    grounded = GroundedRunnable(
        chain,
        chunks_key="context",
        feedback_key="feedback",
        grounding_check=reject_the_first,
        max_iterations=2,
    )
    result = grounded.run({"question": QUESTION, "context": PASSAGES})
    assert (True, 2) == (result.grounded, result.iterations)
    assert isinstance(result.response["answer"], str)
    assert "Your previous answer was rejected" in prompts[1]
    client = openai.OpenAI(base_url=llama_server.base_url, api_key="no-key", max_retries=0)
    for record, text in zip(result.transcript, prompts, strict=True):
        # recording() sees the prompt value: "Human: <message>".
        message = text.removeprefix("Human: ")
        direct = client.chat.completions.create(
            model=MODEL,
            messages=[{"role": "user", "content": message}],
            temperature=0.0,
            max_tokens=60,
        )
        assert direct.usage is not None
        assert record.usage == relapse.Usage(
            direct.usage.prompt_tokens, direct.usage.completion_tokens
        )
        assert record.usage.output_tokens <= 60
