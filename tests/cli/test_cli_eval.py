"""``relapse eval``: the report, --check, --json, --plot, --split, --limit, --loop, bad input."""

from __future__ import annotations

import functools
import importlib.util
import json
import sys
import types
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

import relapse.evaluation
import relapse.llms.local
from helpers import INVENTED, SIX, LoopFake, record, write
from relapse.cli import main
from relapse.llms.local import LocalModelUnavailable
from relapse.testing import FakeClock
from stream_cases import BAD, DOCS, FIRST, GOOD, REST, TAIL, words

SAMPLE = Path(__file__).resolve().parents[2] / "src" / "relapse" / "data" / "dev.jsonl"


@pytest.fixture
def runner() -> CliRunner:
    """A runner keeping stdout and stderr apart."""
    return CliRunner()


@pytest.fixture
def six(tmp_path: Path) -> Path:
    """test_evaluation's six hand-scored records."""
    return write(tmp_path, SIX)


class TestEval:
    def test_report_with_a_module_attribute_check(self, runner: CliRunner, six: Path) -> None:
        """The summary line holds test_evaluation's hand-computed figures."""
        result = runner.invoke(main, ["eval", str(six), "--check", "helpers:flag_42_and_maybe"])
        assert 0 == result.exit_code, result.output
        assert (
            "summary: 6 responses (4 hallucinated), precision 0.667, recall 0.500, F1 0.571,"
            " false-alarm rate 0.500 (1/2), span precision 0.500 (1/2),"
            " numeric-span recall 0.500 (1/2), "
        ) in result.stdout
        assert "1 finding(s) had no offsets" in result.stdout
        lines = result.stdout.splitlines()
        assert any(line.split()[:2] == ["Summary", "2"] for line in lines)
        assert any(line.split()[:3] == ["LJ001", "1", "1.000"] for line in lines)

    def test_json_and_limit(self, runner: CliRunner, six: Path, tmp_path: Path) -> None:
        """--limit 3 scores r1 (TP), r2 (TN), r3 (FP): precision 1/2, recall 1/1."""
        out = tmp_path / "report.json"
        result = runner.invoke(
            main,
            [
                *("eval", str(six), "--check", "helpers:flag_42_and_maybe"),
                *("--limit", "3", "--json", str(out)),
            ],
        )
        assert 0 == result.exit_code, result.output
        data = json.loads(out.read_text(encoding="utf-8"))
        assert (str(six), "all", 3, 0.5, 1.0) == (
            data["dataset"],
            data["split"],
            data["responses"]["responses"],
            data["responses"]["precision"],
            data["responses"]["recall"],
        )

    def test_split(self, runner: CliRunner, tmp_path: Path) -> None:
        """--split dev keeps the dev records only."""
        path = write(
            tmp_path,
            [record("It is 42.", ["42"], split="dev"), record("Clean.", [], split="heldout")],
        )
        result = runner.invoke(main, ["eval", str(path), "--split", "dev"])
        assert 0 == result.exit_code, result.output
        assert "summary: 1 responses (1 hallucinated)" in result.stdout

    @pytest.mark.skipif(
        importlib.util.find_spec("matplotlib") is None, reason="pip install 'relapse[plot]'"
    )
    def test_plot_writes_a_png(self, runner: CliRunner, six: Path, tmp_path: Path) -> None:
        """--plot report.png writes a PNG file."""
        png = tmp_path / "report.png"
        result = runner.invoke(
            main, ["eval", str(six), "--check", "helpers:flag_42_and_maybe", "--plot", str(png)]
        )
        assert 0 == result.exit_code, result.output
        assert b"\x89PNG\r\n\x1a\n" == png.read_bytes()[:8]

    def test_malformed_line_exits_2_naming_it(self, runner: CliRunner, tmp_path: Path) -> None:
        """A bad offset on line 2: usage error naming the file, the line and the field."""
        bad = record("short", [])
        bad["hallucinated_spans"] = [{"start": 0, "end": 99}]
        path = write(tmp_path, [SIX[0], bad])
        result = runner.invoke(main, ["eval", str(path)])
        assert 2 == result.exit_code
        assert f"{path}:2: hallucinated_spans[0]: end 99 is past the end of response" in (
            result.stderr
        )
        assert "" == result.stdout

    def test_spans_by_text_alone(self, runner: CliRunner, tmp_path: Path) -> None:
        """A span with only "text" is scored; one whose text is not in the response exits 2."""
        found = record("It is 42.", [])
        found["hallucinated_spans"] = [{"text": "42"}]
        result = runner.invoke(main, ["eval", str(write(tmp_path, [found]))])
        assert 0 == result.exit_code, result.output
        assert "summary: 1 responses (1 hallucinated)" in result.stdout
        missing = record("It is 42.", [], id="r-9")
        missing["hallucinated_spans"] = [{"text": "43"}]
        path = write(tmp_path, [found, missing], name="missing.jsonl")
        result = runner.invoke(main, ["eval", str(path)])
        assert (2, "") == (result.exit_code, result.stdout)
        assert (
            f"{path}:2: hallucinated_spans[0]: text '43' is not in the response of record 'r-9'"
            in result.stderr
        )

    def test_bad_check_exits_2(self, runner: CliRunner, six: Path) -> None:
        """An unknown --check is a usage error naming the option."""
        result = runner.invoke(main, ["eval", str(six), "--check", "nope"])
        assert 2 == result.exit_code
        assert "--check" in result.stderr

    def test_workers_judge_in_batches_with_the_same_figures(
        self, runner: CliRunner, six: Path
    ) -> None:
        """--workers 2 --batch-size 2: three batches in a spawn pool, the same summary."""
        result = runner.invoke(
            main,
            [
                "eval",
                str(six),
                "--check",
                "helpers:flag_42_and_maybe",
                "--workers",
                "2",
                "--batch-size",
                "2",
            ],
        )
        assert 0 == result.exit_code, result.output
        assert (
            "summary: 6 responses (4 hallucinated), precision 0.667, recall 0.500, F1 0.571,"
            " false-alarm rate 0.500 (1/2), span precision 0.500 (1/2),"
            " numeric-span recall 0.500 (1/2), "
        ) in result.stdout
        assert "; 2 worker(s), engine process)" in result.stdout

    def test_engine_and_batch_size_with_loop_are_refused(
        self, runner: CliRunner, six: Path
    ) -> None:
        """--engine and --batch-size apply to the check's evaluation, not to --loop."""
        result = runner.invoke(main, ["eval", str(six), "--loop", "--engine", "ray"])
        assert 2 == result.exit_code
        assert "--engine and --batch-size apply without --loop only" in result.stderr

    def test_model_without_loop_is_refused(self, runner: CliRunner, six: Path) -> None:
        """--model only means something with --loop."""
        result = runner.invoke(main, ["eval", str(six), "--model", "openai"])
        assert 2 == result.exit_code
        assert "--model and --release apply to --loop only" in result.stderr


class TestEvalLoop:
    def test_loop_on_a_fake_model(
        self, runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """--loop with LocalModel replaced: summary and JSON from the fake's known fates."""
        monkeypatch.setattr(relapse.llms.local, "LocalModel", lambda **_: LoopFake())
        path = write(
            tmp_path,
            [
                {"question": "a", "passages": ["first"]},
                {"question": "b", "passages": ["refuses"]},
            ],
        )
        out = tmp_path / "loop.json"
        result = runner.invoke(
            main, ["eval", "--loop", str(path), "--max-iterations", "2", "--json", str(out)]
        )
        assert 0 == result.exit_code, result.output
        assert result.stdout.startswith(
            "summary: 2 questions, first-try grounded 0.50 (1/2), final grounded 1.00 (2/2),"
            " recovered 1 (1 as a refusal), echoed 0, mean calls 1.50"
        )
        data = json.loads(out.read_text(encoding="utf-8"))
        assert 1 == data["outcomes"]["recovered_refusal"]

    def test_missing_model_names_the_install_command(
        self, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Without the local extra: exit 2 and the pip command."""

        def unavailable(**_: object) -> None:
            raise LocalModelUnavailable("llama-cpp-python is not installed")

        monkeypatch.setattr(relapse.llms.local, "LocalModel", unavailable)
        result = runner.invoke(main, ["eval", "--loop", str(SAMPLE), "--limit", "1"])
        assert 2 == result.exit_code
        assert "pip install 'relapse[local]'" in result.stderr

    @pytest.mark.slow
    @pytest.mark.skipif(
        importlib.util.find_spec("llama_cpp") is None,
        reason="llama_cpp is not importable; pip install 'relapse[local]'",
    )
    def test_loop_on_the_real_model(self, runner: CliRunner, tmp_path: Path) -> None:
        """Two bundled dev questions on Gemma: two runs, counted tokens, consistent rates."""
        out = tmp_path / "loop.json"
        result = runner.invoke(
            main, ["eval", "--loop", str(SAMPLE), "--limit", "2", "--json", str(out)]
        )
        assert 0 == result.exit_code, result.output
        data = json.loads(out.read_text(encoding="utf-8"))
        assert 2 == data["questions"] == sum(data["outcomes"].values())
        assert all(run["tokens"] > 0 for run in data["runs"])
        assert data["final_grounded_rate"] >= data["first_try_grounded_rate"]


class FakeUsage:
    """The ``usage`` of an SDK response."""

    def __init__(self, prompt_tokens: int, completion_tokens: int) -> None:
        self.prompt_tokens = prompt_tokens
        self.completion_tokens = completion_tokens


def fake_openai_module(usage: bool) -> types.ModuleType:
    """
    A stand-in for ``relapse.llms.openai`` (eco branch): ``OpenAICompatible``,
    ``Sampling`` and ``text_of``. It answers "Fine." when the prompt holds
    "first|", else an invented number, with 10 + 2 tokens of usage.
    """
    module = types.ModuleType("relapse.llms.openai")
    made: list[dict[str, object]] = []

    class Sampling:
        def __init__(self, **options: object) -> None:
            self.options = options

    class OpenAICompatible:
        def __init__(self, **options: object) -> None:
            made.append(options)
            self.stream = options.get("stream", False)

        def create(self, prompt: str) -> object:
            text = "Fine." if "first|" in prompt else INVENTED
            if self.stream:
                # Completions chunks: the text, then the usage chunk (no choice).
                return iter(
                    [
                        types.SimpleNamespace(choices=[types.SimpleNamespace(text=text)]),
                        types.SimpleNamespace(
                            choices=[], usage=FakeUsage(10, 2) if usage else None
                        ),
                    ]
                )
            return types.SimpleNamespace(text=text, usage=FakeUsage(10, 2) if usage else None)

    module.Sampling = Sampling  # type: ignore[attr-defined]
    module.OpenAICompatible = OpenAICompatible  # type: ignore[attr-defined]
    module.text_of = lambda response: response.text  # type: ignore[attr-defined]
    module.made = made  # type: ignore[attr-defined]
    return module


#: The options that pick an OpenAI-compatible server.
OPENAI = ("--model", "openai", "--base-url", "u", "--model-name", "m")


def run_one_question(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *options: str
) -> tuple[types.ModuleType, Result, Any]:
    """
    Run ``relapse eval --loop`` on one question with ``options``, over the fake openai module.

    Returns the module (what it made), the click result (exit code 0
    asserted) and the JSON report.
    """
    module = fake_openai_module(usage=True)
    monkeypatch.setitem(sys.modules, "relapse.llms.openai", module)
    path = write(tmp_path, [{"question": "first|", "passages": ["p"]}])
    out = tmp_path / "loop.json"
    result = runner.invoke(main, ["eval", "--loop", str(path), *options, "--json", str(out)])
    assert 0 == result.exit_code, result.output
    return module, result, json.loads(out.read_text(encoding="utf-8"))


class TestEvalLoopOpenAI:
    def test_openai_model_options_and_token_counts(
        self, runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """--model openai: the client gets the URL, name, api and temperature 0; usage counts."""
        module, _, data = run_one_question(
            runner,
            tmp_path,
            monkeypatch,
            "--model",
            "openai",
            *("--base-url", "http://127.0.0.1:9/v1", "--model-name", "m", "--api", "completions"),
        )
        [options] = module.made  # type: ignore[attr-defined]
        assert ("m", "http://127.0.0.1:9/v1", "completions", {"temperature": 0.0}) == (
            options["model"],
            options["base_url"],
            options["api"],
            options["sampling"].options,  # type: ignore[attr-defined]
        )
        assert ("grounded_first_try", 12) == (data["runs"][0]["outcome"], data["runs"][0]["tokens"])

    def test_release_sentence_streams_from_the_server(
        self, runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """--model openai --release sentence: a second client with stream=True; its usage counts."""
        module, result, data = run_one_question(
            runner, tmp_path, monkeypatch, *OPENAI, "--release", "sentence"
        )
        assert [None, True] == [options.get("stream") for options in module.made]  # type: ignore[attr-defined]
        run = data["runs"][0]
        assert ("grounded_first_try", "Fine.", 12, 2) == (
            run["outcome"],
            run["answer"],
            run["tokens"],
            run["output_tokens"],
        )
        assert "output tokens 2, output tokens saved 0" in result.stdout

    def test_a_server_without_usage_has_no_token_figure(
        self, runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """No usage in the responses: tokens n/a, never a partial sum."""
        monkeypatch.setitem(sys.modules, "relapse.llms.openai", fake_openai_module(usage=False))
        path = write(tmp_path, [{"question": "first|", "passages": ["p"]}])
        result = runner.invoke(
            main,
            [
                "eval",
                "--loop",
                str(path),
                "--model",
                "openai",
                "--base-url",
                "u",
                "--model-name",
                "m",
            ],
        )
        assert 0 == result.exit_code, result.output
        assert ", mean tokens n/a," in result.stdout

    def test_missing_module_names_the_extra(
        self, runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Without relapse.llms.openai or the SDK: exit 2 naming the extra."""
        monkeypatch.setitem(sys.modules, "relapse.llms.openai", None)
        path = write(tmp_path, [{"question": "q", "passages": ["p"]}])
        result = runner.invoke(
            main,
            [
                "eval",
                "--loop",
                str(path),
                "--model",
                "openai",
                "--base-url",
                "u",
                "--model-name",
                "m",
            ],
        )
        assert 2 == result.exit_code
        assert "pip install 'relapse[openai]'" in result.stderr

    @pytest.mark.parametrize(
        ("arguments", "message"),
        [
            (["--loop", "--model", "openai"], "--model openai needs --base-url and --model-name"),
            (["--loop", "--base-url", "u"], "apply to --model openai only"),
            (["--model", "openai", "--base-url", "u", "--model-name", "m"], "apply to --loop only"),
        ],
    )
    def test_option_combinations(
        self, runner: CliRunner, six: Path, arguments: list[str], message: str
    ) -> None:
        """Options that do not go together are usage errors before any model is made."""
        result = runner.invoke(main, ["eval", str(six), *arguments])
        assert 2 == result.exit_code
        assert message in result.stderr


class StreamFake:
    """
    A streaming loop-evaluation model on a fake clock: one second before each token.

    The question's first word picks the answer: ``first`` streams
    :data:`PLAIN` (grounded); ``recovers`` streams FIRST + BAD + TAIL + REST
    (rejected at BAD while it streams), then, asked to continue, GOOD. Each
    token is a word with its space (``test_stream_release.words``); each one
    yielded counts one completion token.
    """

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.prompts: list[str] = []

    @staticmethod
    def build_prompt(question: str, chunk_texts: Sequence[str]) -> str:
        return question

    def __call__(self, prompt: str) -> str:
        raise AssertionError("release='sentence' must stream every call")

    def stream(self, prompt: str) -> Iterator[str]:
        self.prompts.append(prompt)
        retry = "You have already said" in prompt
        if prompt.split()[0] == "first":
            text = PLAIN
        else:
            text = GOOD if retry else FIRST + BAD + TAIL + REST
        for token in words(text):
            self.clock.advance(1.0)
            self.completion_tokens += 1
            yield token


#: 12 tokens; its first sentence passes once the 8th ("It ") begins the next one.
PLAIN = "It opened to traffic in May 1937. It was painted international orange."


class TestEvalLoopRelease:
    def test_release_sentence_reports_first_release_and_tokens_saved(
        self, runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """
        The figures, by hand: first release after 8 s (``first``) and 28 s (``recovers``).

        ``first``: PLAIN's first sentence is released when its 8th token
        arrives (8 s); 12 tokens. ``recovers``: FIRST (27 tokens) is released
        when BAD's first token arrives (28 s); BAD fails once TAIL's first
        token begins the next sentence, so the stream is closed after 27 + 7
        + 1 = 35 tokens; the retry, GOOD, is 7 + 43 + 7 = 57 tokens. Median
        first release (8 + 28) / 2 = 18 s; output tokens 12 + 35 + 57 = 104;
        saved: the retry did not say FIRST again, len(FIRST) = 139
        characters, 139 // 4 = 34 tokens (estimate).
        """
        clock = FakeClock()
        fake = StreamFake(clock)
        monkeypatch.setattr(relapse.llms.local, "LocalModel", lambda **_: fake)
        monkeypatch.setattr(
            relapse.evaluation,
            "evaluate_loop",
            functools.partial(relapse.evaluation.evaluate_loop, clock=clock),
        )
        path = write(
            tmp_path,
            [
                {"question": "first question", "passages": DOCS},
                {"question": "recovers question", "passages": DOCS},
            ],
        )
        out = tmp_path / "loop.json"
        result = runner.invoke(
            main,
            [
                *("eval", "--loop", str(path), "--release", "sentence"),
                *("--max-iterations", "2", "--json", str(out)),
            ],
        )
        assert 0 == result.exit_code, result.output
        assert 139 == len(FIRST)
        assert (
            'streaming (release="sentence"): median time to first release 18.000 s,'
            " output tokens 104, output tokens saved 34 (estimate: characters released"
            " before each retry / 4)"
        ) in result.stdout.splitlines()
        assert result.stdout.startswith(
            "summary: 2 questions, first-try grounded 0.50 (1/2), final grounded 1.00 (2/2),"
            " recovered 1 (0 as a refusal), echoed 0, mean calls 1.50"
        )
        data = json.loads(out.read_text(encoding="utf-8"))
        assert ("sentence", 18.0, 104, 34) == (
            data["release"],
            data["median_first_release_s"],
            data["output_tokens"],
            data["saved_output_tokens_estimate"],
        )
        first, recovers = data["runs"]
        assert (8.0, 12.0, 12, 0) == (
            first["first_release_s"],
            first["wall_s"],
            first["output_tokens"],
            first["saved_tokens_estimate"],
        )
        assert (28.0, 92.0, 92, 34) == (
            recovers["first_release_s"],
            recovers["wall_s"],
            recovers["output_tokens"],
            recovers["saved_tokens_estimate"],
        )
        # What the caller read: FIRST, then the retry after it, never BAD.
        assert FIRST + GOOD == recovers["answer"]
        assert 3 == len(fake.prompts)

    def test_release_answer_has_no_streaming_line(
        self, runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """The default release prints the usual report only; the JSON says release "answer"."""
        monkeypatch.setattr(relapse.llms.local, "LocalModel", lambda **_: LoopFake())
        path = write(tmp_path, [{"question": "a", "passages": ["first"]}])
        out = tmp_path / "loop.json"
        result = runner.invoke(main, ["eval", "--loop", str(path), "--json", str(out)])
        assert 0 == result.exit_code, result.output
        assert "streaming" not in result.stdout
        data = json.loads(out.read_text(encoding="utf-8"))
        assert ("answer", 0, 2) == (
            data["release"],
            data["saved_output_tokens_estimate"],
            data["runs"][0]["output_tokens"],
        )

    def test_a_model_that_cannot_stream_is_refused_naming_stream(
        self, runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """release='sentence' with a model lacking stream(prompt): a TypeError before any call."""
        monkeypatch.setattr(relapse.llms.local, "LocalModel", lambda **_: LoopFake())
        path = write(tmp_path, [{"question": "a", "passages": ["first"]}])
        result = runner.invoke(main, ["eval", "--loop", str(path), "--release", "sentence"])
        assert isinstance(result.exception, TypeError)
        assert "needs stream(prompt)" in str(result.exception)

    def test_release_without_loop_is_refused(self, runner: CliRunner, six: Path) -> None:
        """--release only means something with --loop."""
        result = runner.invoke(main, ["eval", str(six), "--release", "sentence"])
        assert 2 == result.exit_code
        assert "--model and --release apply to --loop only" in result.stderr
