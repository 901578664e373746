"""relapse.integrations.llamaindex against the real llama-index-core: mock LLM, real index."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import pytest

pytest.importorskip(
    "llama_index.core", reason="the llamaindex extra: pip install 'relapse[llamaindex]'"
)
from llama_index.core import Document, Settings, VectorStoreIndex
from llama_index.core.base.llms.types import CompletionResponse, CompletionResponseGen, LLMMetadata
from llama_index.core.base.response.schema import Response
from llama_index.core.embeddings import MockEmbedding
from llama_index.core.evaluation import BatchEvalRunner, EvaluationResult
from llama_index.core.llms import CustomLLM, MockLLM
from llama_index.core.llms.callbacks import llm_completion_callback
from llama_index.core.query_engine import RetryQueryEngine

import relapse
from llama_server import MODEL, LlamaServer
from relapse.integrations.llamaindex import (
    GROUNDED_FEEDBACK,
    RESULT_KEY,
    USAGE_KEY,
    GroundedQueryEngine,
    GroundingEvaluator,
    llm_usage,
)
from relapse.testing import CapturedSpans

PASSAGES = [
    "The Golden Gate Bridge opened to traffic on May 27, 1937.",
    "Its main span is 1,280 metres long.",
]


class ScriptedLLM(MockLLM):
    """llama-index-core's MockLLM answering from a script, recording each prompt."""

    answers: list[str] = []
    prompts: list[str] = []

    def __init__(self, answers: Sequence[str]) -> None:
        super().__init__()
        self.answers = list(answers)
        self.prompts = []

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        self.prompts.append(prompt)
        return CompletionResponse(text=self.answers[min(len(self.prompts), len(self.answers)) - 1])


@pytest.fixture
def index() -> VectorStoreIndex:
    """A real in-memory vector index over the two passages, with mock embeddings."""
    return VectorStoreIndex.from_documents(
        [Document(text=p) for p in PASSAGES], embed_model=MockEmbedding(embed_dim=8)
    )


class TestEvaluate:
    def test_grounded_answer_passes(self) -> None:
        """A supported date passes with score 1.0 and the grounded feedback."""
        result = GroundingEvaluator().evaluate(
            query="When did it open?", response="It opened on May 27, 1937.", contexts=PASSAGES
        )
        assert (True, 1.0, GROUNDED_FEEDBACK) == (result.passing, result.score, result.feedback)
        assert (PASSAGES, "It opened on May 27, 1937.") == (result.contexts, result.response)

    def test_unsupported_number_fails_with_the_span_in_feedback(self) -> None:
        """An invented length fails with score 0.0; the feedback names FG001 and the span."""
        result = GroundingEvaluator().evaluate(
            query="How long is it?", response="The main span is 2,000 metres.", contexts=PASSAGES
        )
        assert (False, 0.0) == (result.passing, result.score)
        assert result.feedback is not None
        assert "FG001" in result.feedback
        assert '"2,000"' in result.feedback
        assert result.feedback.endswith("say: The context does not say.")

    async def test_aevaluate_same_verdict(self) -> None:
        """The async path gives the verdict of the sync one, inside a running loop."""
        evaluator = GroundingEvaluator()
        sync = evaluator.evaluate(query="q", response="It is 2,000 metres.", contexts=PASSAGES)
        result = await evaluator.aevaluate(
            query="q", response="It is 2,000 metres.", contexts=PASSAGES
        )
        assert sync == result

    def test_custom_check_is_used(self) -> None:
        """A custom check's verdict is the evaluator's verdict."""
        calls: list[tuple[str, list[str], str]] = []

        def check(query: str, chunks: Sequence[str], answer: str) -> relapse.GroundingResult:
            calls.append((query, list(chunks), answer))
            return relapse.GroundingResult(ok=True)

        result = GroundingEvaluator(check).evaluate(query="q", response="a", contexts=["c"])
        assert [("q", ["c"], "a")] == calls
        assert result.passing is True

    @pytest.mark.parametrize(
        ("arguments", "error", "words"),
        [
            ({"contexts": ["c"]}, ValueError, "response must be the answer text"),
            ({"response": "a"}, ValueError, "contexts must be the retrieved chunk texts"),
            ({"response": "a", "contexts": [3]}, TypeError, r"contexts\[0\] is int"),
            ({"response": b"a", "contexts": ["c"]}, TypeError, "response must be str, got bytes"),
        ],
    )
    def test_bad_arguments_named(self, arguments: dict[str, Any], error: type, words: str) -> None:
        """Missing or malformed arguments are errors that name them, not a silent pass."""
        with pytest.raises(error, match=words):
            GroundingEvaluator().evaluate(query="q", **arguments)

    async def test_async_check_needs_aevaluate(self) -> None:
        """An async check's verdict is awaited by aevaluate; evaluate refuses it by name."""

        async def check(query: str, chunks: Sequence[str], answer: str) -> relapse.GroundingResult:
            finding = relapse.GroundingFinding("LJ001", "judge: unsupported", (answer,))
            return relapse.GroundingResult(ok=False, findings=(finding,))

        evaluator = GroundingEvaluator(check)
        result = await evaluator.aevaluate(query="q", response="It is 9.", contexts=["c"])
        assert (False, 0.0) == (result.passing, result.score)
        assert result.feedback is not None
        assert 'LJ001: judge: unsupported ["It is 9."]' in result.feedback
        with pytest.raises(TypeError, match="is an async check; use aevaluate"):
            evaluator.evaluate(query="q", response="It is 9.", contexts=["c"])

    def test_warnings_do_not_fail(self) -> None:
        """A warning-only verdict passes, as in relapse's loop."""

        def check(query: str, chunks: Sequence[str], answer: str) -> relapse.GroundingResult:
            warning = relapse.GroundingFinding("W1", "hedged", (), severity="warning")
            return relapse.GroundingResult(ok=True, findings=(warning,))

        result = GroundingEvaluator(check).evaluate(query="q", response="a", contexts=["c"])
        assert (True, GROUNDED_FEEDBACK) == (result.passing, result.feedback)

    def test_check_not_callable(self) -> None:
        """A non-callable check is refused when the evaluator is built."""
        with pytest.raises(TypeError, match="grounding_check must be callable"):
            GroundingEvaluator("strict")  # type: ignore[arg-type]

    def test_missing_extra_names_the_install_command(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Without llama-index-core, importing the module names the extra."""
        monkeypatch.setitem(sys.modules, "llama_index.core.evaluation", None)
        monkeypatch.delitem(sys.modules, "relapse.integrations.llamaindex")
        with pytest.raises(ImportError, match=r"pip install 'relapse\[llamaindex\]'"):
            import relapse.integrations.llamaindex  # noqa: F401


class TestInLlamaIndex:
    def test_evaluate_response_reads_the_source_nodes(self, index: VectorStoreIndex) -> None:
        """evaluate_response checks a real query engine's Response against its source nodes."""
        engine = index.as_query_engine(llm=ScriptedLLM(["It opened in 1950."]), similarity_top_k=2)
        response = engine.query("When did it open?")
        result = GroundingEvaluator().evaluate_response(
            query="When did it open?", response=response
        )
        assert sorted(PASSAGES) == sorted(result.contexts or [])
        assert (False, "It opened in 1950.") == (result.passing, result.response)

    def test_retry_query_engine_recovers(
        self, index: VectorStoreIndex, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """RetryQueryEngine re-asks with relapse's feedback; the grounded second answer is kept."""
        # RetryQueryEngine's FeedbackQueryTransformation reads Settings.llm even
        # though it only uses it to resynthesise (off by default); without a
        # global LLM it tries to import OpenAI's.
        monkeypatch.setattr(Settings, "_llm", MockLLM())
        llm = ScriptedLLM(["It opened in 1950.", "It opened on May 27, 1937."])
        engine = RetryQueryEngine(
            index.as_query_engine(llm=llm, similarity_top_k=2), GroundingEvaluator(), max_retries=2
        )
        response = engine.query("When did it open?")
        assert "It opened on May 27, 1937." == str(response)
        assert 2 == len(llm.prompts)
        retry_prompt = llm.prompts[1]
        assert "Here is a previous bad answer.\nIt opened in 1950." in retry_prompt
        assert "FG00" in retry_prompt
        assert '"1950"' in retry_prompt

    def test_batch_eval_runner(self, index: VectorStoreIndex) -> None:
        """LlamaIndex's BatchEvalRunner runs the evaluator over several responses."""
        runner = BatchEvalRunner({"grounding": GroundingEvaluator()}, workers=1)
        results: dict[str, list[EvaluationResult]] = runner.evaluate_response_strs(
            queries=["When?", "How long?"],
            response_strs=["On May 27, 1937.", "It is 9 metres long."],
            contexts_list=[PASSAGES, PASSAGES],
        )
        assert [True, False] == [r.passing for r in results["grounding"]]


class RecordingEmbedding(MockEmbedding):
    """MockEmbedding that records the query texts it embeds (what retrieval searched for)."""

    queries: list[str] = []

    def _get_query_embedding(self, query: str) -> list[float]:
        self.queries.append(query)
        return super()._get_query_embedding(query)

    async def _aget_query_embedding(self, query: str) -> list[float]:
        self.queries.append(query)
        return await super()._aget_query_embedding(query)


class TestGroundedQueryEngine:
    @pytest.fixture
    def embedding(self) -> RecordingEmbedding:
        return RecordingEmbedding(embed_dim=8)

    @pytest.fixture
    def recording_index(self, embedding: RecordingEmbedding) -> VectorStoreIndex:
        return VectorStoreIndex.from_documents(
            [Document(text=p) for p in PASSAGES], embed_model=embedding
        )

    def test_recovers_and_returns_a_response(
        self, recording_index: VectorStoreIndex, embedding: RecordingEmbedding, spans: CapturedSpans
    ) -> None:
        """A rejected response is re-queried; the grounded Response carries the result."""
        llm = ScriptedLLM(["It opened in 1950.", "It opened on May 27, 1937."])
        engine = GroundedQueryEngine(
            recording_index.as_query_engine(llm=llm, similarity_top_k=2),
            tracer_provider=spans.provider,
        )
        response = engine.query("When did it open?")
        assert isinstance(response, Response)
        assert "It opened on May 27, 1937." == response.response
        assert sorted(PASSAGES) == sorted(n.get_content() for n in response.source_nodes)
        result = response.metadata[RESULT_KEY]  # type: ignore[index]
        assert (True, "recovered", 2) == (result.grounded, result.outcome, result.iterations)
        assert ["It opened in 1950.", "It opened on May 27, 1937."] == [
            r.answer for r in result.transcript
        ]
        assert result.response is response
        # The retry query reached the synthesiser, quoting the rejected answer...
        assert "1950" in llm.prompts[1]
        assert "When did it open?" in llm.prompts[1]
        # ...while retrieval searched for the question: the retriever stores the
        # question's embedding on the bundle and the retry reuses it, so the
        # retry note is never embedded.
        assert ["When did it open?"] == embedding.queries
        assert ["relapse GroundedQueryEngine"] == [
            s.name for s in spans.spans if s.name.startswith("relapse ")
        ]

    async def test_aquery(self, recording_index: VectorStoreIndex) -> None:
        """aquery runs the same loop on the engine's async path."""
        llm = ScriptedLLM(["It opened in 1950.", "It opened on May 27, 1937."])
        engine = GroundedQueryEngine(recording_index.as_query_engine(llm=llm, similarity_top_k=2))
        response = await engine.aquery("When did it open?")
        assert "It opened on May 27, 1937." == str(response)
        assert "recovered" == response.metadata[RESULT_KEY].outcome  # type: ignore[union-attr]

    def test_exhausted_keeps_the_engines_metadata(self, recording_index: VectorStoreIndex) -> None:
        """With no grounded answer the last Response is returned, its node metadata kept."""
        llm = ScriptedLLM(["It opened in 1950."])
        engine = GroundedQueryEngine(
            recording_index.as_query_engine(llm=llm, similarity_top_k=2), max_iterations=2
        )
        result = engine.run("When did it open?")
        assert (False, "exhausted", 2) == (result.grounded, result.outcome, result.iterations)
        metadata = result.response.metadata
        assert result is metadata[RESULT_KEY]
        assert 3 == len(metadata)  # the two source nodes' entries and relapse's

    def test_not_a_query_engine(self) -> None:
        """Anything but a BaseQueryEngine is refused when wrapping."""
        with pytest.raises(TypeError, match="query_engine must be a LlamaIndex BaseQueryEngine"):
            GroundedQueryEngine(lambda q: q)  # type: ignore[arg-type]

    def test_bad_option_refused_when_wrapping(self, index: VectorStoreIndex) -> None:
        """Loop options are validated when wrapping, before any query."""
        with pytest.raises(ValueError, match="max_iterations"):
            GroundedQueryEngine(index.as_query_engine(llm=MockLLM()), max_iterations=0)


class RawLLM(CustomLLM):
    """A CustomLLM whose responses carry a raw provider response with usage, from a script."""

    answers: list[tuple[str, int, int]] = []
    calls: int = 0
    chat_model: bool = False

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(is_chat_model=self.chat_model)

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        text, given, made = self.answers[min(self.calls, len(self.answers) - 1)]
        self.calls += 1
        # The JSON form of an OpenAI completion, as an HTTP client returns it.
        raw = {"usage": {"prompt_tokens": given, "completion_tokens": made}}
        return CompletionResponse(text=text, raw=raw)

    @llm_completion_callback()
    def stream_complete(
        self, prompt: str, formatted: bool = False, **kwargs: Any
    ) -> CompletionResponseGen:
        raise NotImplementedError


def reject_the_first() -> Any:
    """A check that rejects the first answer it sees and accepts every later one."""
    seen: list[str] = []

    def check(query: str, chunks: Sequence[str], answer: str) -> relapse.GroundingResult:
        seen.append(answer)
        if len(seen) > 1:
            return relapse.GroundingResult(True)
        return relapse.GroundingResult(False, (relapse.GroundingFinding("X1", "rejected once"),))

    return check


class TestUsage:
    def test_each_attempt_reports_its_llm_calls(self, index: VectorStoreIndex) -> None:
        """The raw responses' usage reaches the transcript, the metadata and the sum."""
        llm = RawLLM(answers=[("It opened in 1950.", 40, 6), ("It opened on May 27, 1937.", 95, 7)])
        engine = GroundedQueryEngine(index.as_query_engine(llm=llm, similarity_top_k=2))
        result = engine.run("When did it open?")
        assert (True, 2) == (result.grounded, result.iterations)
        assert [relapse.Usage(40, 6), relapse.Usage(95, 7)] == [r.usage for r in result.transcript]
        assert relapse.Usage(135, 13) == result.usage
        assert relapse.Usage(95, 7) == result.response.metadata[USAGE_KEY]

    async def test_async_counts_each_response_once(self, index: VectorStoreIndex) -> None:
        """acomplete calls complete: two end events, one raw response, counted once."""
        llm = RawLLM(answers=[("It opened on May 27, 1937.", 40, 6)])
        engine = GroundedQueryEngine(index.as_query_engine(llm=llm, similarity_top_k=2))
        result = await engine.arun("When did it open?")
        assert relapse.Usage(40, 6) == result.usage

    def test_chat_through_complete_counts_once(self, index: VectorStoreIndex) -> None:
        """A chat CustomLLM: chat() calls complete(), one raw response counted once."""
        llm = RawLLM(answers=[("It opened on May 27, 1937.", 40, 6)], chat_model=True)
        engine = GroundedQueryEngine(index.as_query_engine(llm=llm, similarity_top_k=2))
        assert relapse.Usage(40, 6) == engine.run("When did it open?").usage

    def test_mock_llm_says_unknown(self, index: VectorStoreIndex, spans: CapturedSpans) -> None:
        """MockLLM reports no tokens: usage None, no metadata key, relapse.usage.known=false."""
        engine = GroundedQueryEngine(
            index.as_query_engine(llm=ScriptedLLM(["It opened on May 27, 1937."])),
            tracer_provider=spans.provider,
        )
        result = engine.run("When did it open?")
        assert (True, None) == (result.grounded, result.usage)
        assert USAGE_KEY not in result.response.metadata
        (call,) = spans.named("relapse GroundedQueryEngine")
        assert False is (call.attributes or {})["relapse.usage.known"]

    def test_queries_outside_the_engine_are_not_counted(self, index: VectorStoreIndex) -> None:
        """An LLM call made outside a grounded query counts nowhere."""
        llm = RawLLM(answers=[("It opened on May 27, 1937.", 40, 6)])
        GroundedQueryEngine(index.as_query_engine(llm=llm))
        llm.complete("unrelated")  # no grounded query in progress: nothing to count
        engine = GroundedQueryEngine(index.as_query_engine(llm=llm, similarity_top_k=2))
        assert relapse.Usage(40, 6) == engine.run("When did it open?").usage

    def test_llm_usage_reads_additional_kwargs(self) -> None:
        """Without raw usage, prompt_tokens/completion_tokens in additional_kwargs."""
        response = CompletionResponse(
            text="x", additional_kwargs={"prompt_tokens": 7, "completion_tokens": 3}
        )
        assert relapse.Usage(7, 3) == llm_usage(response)
        assert llm_usage(CompletionResponse(text="x")) is None


class ServerLLM(CustomLLM):
    """A CustomLLM calling an OpenAI-compatible server through the openai SDK."""

    base_url: str = ""
    raws: list[Any] = []

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(context_window=4096, num_output=60, model_name=MODEL)

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        import openai

        client = openai.OpenAI(base_url=self.base_url, api_key="no-key", max_retries=0)
        completion = client.completions.create(
            model=MODEL, prompt=prompt, max_tokens=60, temperature=0.0, stop=["\n"]
        )
        self.raws.append(completion)
        return CompletionResponse(text=completion.choices[0].text, raw=completion)

    @llm_completion_callback()
    def stream_complete(
        self, prompt: str, formatted: bool = False, **kwargs: Any
    ) -> CompletionResponseGen:
        raise NotImplementedError


@pytest.mark.slow
def test_usage_from_the_local_server(index: VectorStoreIndex, llama_server: LlamaServer) -> None:
    """Each attempt's usage is the server's own count for the completion that attempt made."""
    llm = ServerLLM(base_url=llama_server.base_url, raws=[])
    engine = GroundedQueryEngine(
        index.as_query_engine(llm=llm, similarity_top_k=2),
        grounding_check=reject_the_first(),
        max_iterations=2,
    )
    result = engine.run("When did the Golden Gate Bridge open?")
    assert 2 == result.iterations == len(llm.raws)
    assert [relapse.Usage(r.usage.prompt_tokens, r.usage.completion_tokens) for r in llm.raws] == [
        record.usage for record in result.transcript
    ]
    assert all(0 < r.usage.prompt_tokens and r.usage.completion_tokens <= 60 for r in llm.raws)
