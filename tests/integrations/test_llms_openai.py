"""relapse.llms.openai: the OpenAI-compatible call, against llama-cpp-python's real server."""

from __future__ import annotations

import asyncio
import json
import sys
import urllib.request
from collections.abc import Sequence

import openai
import pytest
from openai.types import Completion, CompletionUsage
from openai.types.chat import ChatCompletion
from openai.types.chat.chat_completion import Choice as ChatCompletionChoice

import relapse
from helpers import forbid
from llama_server import MODEL, LlamaServer
from relapse._telemetry.attributes import RELAPSE_USAGE_INPUT_TOKENS, RELAPSE_USAGE_OUTPUT_TOKENS
from relapse.exceptions import MalformedResponseError
from relapse.llms.local import LocalModel
from relapse.llms.openai import (
    AsyncOpenAICompatible,
    OpenAICompatible,
    Sampling,
    resample,
    text_of,
)
from relapse.testing import capture_spans

BRIDGE = [
    "The Golden Gate Bridge opened to traffic on May 27, 1937. Its main span is 1,280 metres."
]
OSLO = ["Oslo is the capital of Norway. About 709,000 people lived in the city in 2023."]
#: Greedy, one line: what a base model needs to answer in the few-shot layout.
GREEDY = Sampling(temperature=0.0, max_tokens=60, stop=("\n",))


def completions(server: LlamaServer, **options: object) -> OpenAICompatible:
    return OpenAICompatible(
        base_url=server.base_url, model=MODEL, api="completions", sampling=GREEDY, **options
    )  # type: ignore[arg-type]


class TestArguments:
    """Bad arguments fail when the client is built, before any request."""

    @pytest.mark.parametrize(
        ("options", "error", "words"),
        [
            ({"model": ""}, TypeError, "model must be a non-empty str"),
            ({"model": "m", "api": "responses"}, ValueError, "api must be 'chat' or 'completions'"),
            ({"model": "m", "sampling": {"temperature": 0}}, TypeError, "sampling must be"),
            ({"model": "m", "system": 3}, TypeError, "system must be a str"),
            ({"model": "m", "base_url": 8000}, TypeError, "base_url must be a str"),
        ],
    )
    def test_bad_option_named(self, options: dict[str, object], error: type, words: str) -> None:
        """Each bad option raises an error that names it."""
        with pytest.raises(error, match=words):
            OpenAICompatible(**options)  # type: ignore[arg-type]

    @pytest.mark.parametrize(
        ("options", "words"),
        [
            ({"temperature": "hot"}, "temperature must be a number"),
            ({"max_tokens": 0}, "max_tokens must be >= 1"),
            ({"seed": 1.5}, "seed must be an int"),
            ({"stop": "\n"}, "stop must be a tuple of str"),
        ],
    )
    def test_bad_sampling_named(self, options: dict[str, object], words: str) -> None:
        """Sampling validates each option when built."""
        with pytest.raises((TypeError, ValueError), match=words):
            Sampling(**options)  # type: ignore[arg-type]

    def test_non_str_prompt_refused_before_the_request(self) -> None:
        """A non-str prompt is a TypeError; the unreachable server is never contacted."""
        llm = OpenAICompatible(model="m", base_url="http://127.0.0.1:9/v1", max_retries=0)
        with pytest.raises(TypeError, match="prompt must be str, got list"):
            llm(["hi"])  # type: ignore[arg-type]

    @pytest.mark.parametrize("cls", [OpenAICompatible, AsyncOpenAICompatible])
    @pytest.mark.parametrize(
        ("option", "value"),
        [("base_url", "http://127.0.0.1:8000/v1"), ("api_key", "k"), ("timeout", 5.0),
         ("max_retries", 0)],
    )  # fmt: skip
    def test_client_options_with_a_client_are_refused(
        self, cls: type, option: str, value: object
    ) -> None:
        """A given client has its own options: passing one too is a TypeError naming both."""
        with pytest.raises(TypeError, match=rf"^{option}= and client= conflict"):
            cls(model="m", client=ScriptedChat(), **{option: value})

    def test_missing_sdk_names_the_extra(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Without the openai package, building a client names the install command."""
        monkeypatch.setitem(sys.modules, "openai", None)
        with pytest.raises(ImportError, match=r"pip install 'relapse\[openai\]'"):
            OpenAICompatible(model="m")


class TestRequestShape:
    def test_sampling_options_sent_as_sdk_arguments(self) -> None:
        """Only the options set are sent; stop goes as a list."""
        assert {"temperature": 0.5, "stop": ["\n"]} == Sampling(
            temperature=0.5, stop=("\n",)
        ).options()
        assert {} == Sampling().options()

    def test_text_of_chat_and_completion(self) -> None:
        """The answer text of both response types, stripped; a None content reads as ''."""
        reply = chat(" It is 5. ")
        completion = Completion.model_validate(
            {
                "id": "c",
                "object": "text_completion",
                "created": 0,
                "model": "m",
                "choices": [{"index": 0, "finish_reason": "stop", "text": " It is 6.\n"}],
            }
        )
        empty = chat(None)
        assert ["It is 5.", "It is 6.", ""] == [text_of(r) for r in (reply, completion, empty)]

    def test_no_choices_is_an_error(self) -> None:
        """A response without choices is refused, naming its type."""
        with pytest.raises(ValueError, match="the Completion has no choices"):
            text_of(
                Completion.model_validate(
                    {"id": "c", "object": "text_completion", "created": 0, "model": "m",
                     "choices": []}
                )
            )  # fmt: skip


def chat(content: object, prompt: int = 0, completion: int = 0) -> ChatCompletion:
    """A real SDK ChatCompletion whose message content is ``content`` (any shape), with usage."""
    response = ChatCompletion.model_validate(
        {
            "id": "c",
            "object": "chat.completion",
            "created": 0,
            "model": "m",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": "placeholder"},
                }
            ],
            **(
                {
                    "usage": {
                        "prompt_tokens": prompt,
                        "completion_tokens": completion,
                        "total_tokens": prompt + completion,
                    }
                }
                if prompt
                else {}
            ),
        }
    )
    # The SDK keeps what a server sends without validating it; so does this.
    response.choices[0].message.content = content  # type: ignore[assignment]
    return response


def malformed(choices: object, prompt: int = 7, completion: int = 2) -> ChatCompletion:
    """A ChatCompletion as the SDK builds it from a server's odd reply: any ``choices``."""
    usage = CompletionUsage(
        prompt_tokens=prompt, completion_tokens=completion, total_tokens=prompt + completion
    )
    return ChatCompletion.model_construct(
        id="c", object="chat.completion", created=0, model="m", choices=choices, usage=usage
    )


class ScriptedChat:
    """Stands in for ``openai.OpenAI``: ``chat.completions.create`` returns the next response."""

    def __init__(self, *responses: object) -> None:
        self.chat = self
        self.completions = self
        self.responses = list(responses)

    def create(self, **arguments: object) -> object:
        return self.responses.pop(0)


class AsyncScriptedChat(ScriptedChat):
    """Stands in for ``openai.AsyncOpenAI``."""

    async def create(self, **arguments: object) -> object:  # type: ignore[override]
        return self.responses.pop(0)


class TestUnusualReplies:
    def test_text_parts_content_is_read(self) -> None:
        """A content list of text parts (as some servers send) is joined, then stripped."""
        parts = [
            {"type": "text", "text": " It is "},
            {"type": "image_url"},
            {"type": "text", "text": "5. "},
        ]
        assert "It is 5." == text_of(chat(parts))

    def test_refusal_is_the_answer(self) -> None:
        """A refusal is read as default_answer_of reads it: the refusal text."""
        refused = chat(None)
        refused.choices[0].message.refusal = "I can't help with that."
        assert "I can't help with that." == text_of(refused)

    @pytest.mark.parametrize(
        ("choices", "words"),
        [
            ([ChatCompletionChoice.model_construct(index=0, finish_reason="stop")],
             r"^the ChatCompletion's choices\[0\] has neither a message nor a text"),
            ({"0": "x"}, r"^the ChatCompletion's choices is dict, expected a list"),
            ("abc", r"^the ChatCompletion's choices is str, expected a list"),
            ([], r"^the ChatCompletion has no choices"),
            (None, r"^the ChatCompletion has no choices"),
        ],
    )  # fmt: skip
    def test_malformed_reply_names_what_is_missing(self, choices: object, words: str) -> None:
        """A reply with no usable choice is a MalformedResponseError (a ValueError) carrying it."""
        response = malformed(choices)
        with pytest.raises(MalformedResponseError, match=words) as caught:
            text_of(response)
        assert isinstance(caught.value, ValueError)
        assert response is caught.value.response

    @pytest.mark.parametrize(
        "choices",
        [[ChatCompletionChoice.model_construct(index=0, finish_reason="stop")], {"0": "x"}, []],
    )
    def test_malformed_reply_is_kept_on_the_transcript(self, choices: object) -> None:
        """Through relapse.run: the error propagates, the paid response and usage are recorded."""
        response = malformed(choices, prompt=7, completion=2)
        llm = OpenAICompatible(model="m", client=ScriptedChat(response))  # type: ignore[arg-type]
        with pytest.raises(MalformedResponseError) as caught:
            relapse.run("How many?", ["There are 5."], call_llm=llm)
        (record,) = caught.value.relapse_transcript  # type: ignore[attr-defined]
        assert (response, "", False, relapse.Usage(7, 2)) == (
            record.response,
            record.answer,
            record.grounded,
            record.usage,
        )


class TestUsageThroughRun:
    def test_call_returns_a_str_carrying_the_response(self) -> None:
        """llm(prompt) is still the answer text, a str; it also carries the response and usage."""
        response = chat(" It is 5. ", prompt=12, completion=3)
        llm = OpenAICompatible(model="m", client=ScriptedChat(response))  # type: ignore[arg-type]
        text = llm("How many?")
        assert isinstance(text, str)
        assert ("It is 5.", response, relapse.Usage(12, 3)) == (text, text.response, text.usage)

    def test_run_sums_the_usage_of_every_response(self) -> None:
        """relapse.run(call_llm=OpenAICompatible(...)): result.usage is the responses' sum."""
        client = ScriptedChat(
            chat("It is 7.", prompt=12, completion=3), chat("It is 5.", prompt=20, completion=4)
        )
        llm = OpenAICompatible(model="m", client=client)  # type: ignore[arg-type]
        result = relapse.run("How many?", ["There are 5."], call_llm=llm)
        assert ("It is 5.", 2) == (result.answer, result.iterations)
        assert [relapse.Usage(12, 3), relapse.Usage(20, 4)] == [r.usage for r in result.transcript]
        # 12 + 20 prompt tokens, 3 + 4 completion tokens.
        assert relapse.Usage(32, 7) == result.usage

    async def test_arun_sums_the_usage_of_every_response(self) -> None:
        """The same with AsyncOpenAICompatible and relapse.arun."""
        client = AsyncScriptedChat(
            chat("It is 7.", prompt=12, completion=3), chat("It is 5.", prompt=20, completion=4)
        )
        llm = AsyncOpenAICompatible(model="m", client=client)  # type: ignore[arg-type]
        result = await relapse.arun("How many?", ["There are 5."], call_llm=llm)
        assert (2, relapse.Usage(32, 7)) == (result.iterations, result.usage)


class RecordingCompletions:
    """Stands in for ``client.completions``: records each request, answers from a script."""

    def __init__(self, answers: Sequence[str]) -> None:
        self.answers = list(answers)
        self.requests: list[dict[str, object]] = []

    def create(self, **arguments: object) -> Completion:
        self.requests.append(arguments)
        text = self.answers[min(len(self.requests), len(self.answers)) - 1]
        return Completion.model_validate(
            {"id": "c", "object": "text_completion", "created": 0, "model": "m",
             "choices": [{"index": 0, "finish_reason": "stop", "text": text}]}
        )  # fmt: skip


class RecordingClient:
    def __init__(self, answers: Sequence[str]) -> None:
        self.completions = RecordingCompletions(answers)


class AsyncRecordingClient:
    """Stands in for ``openai.AsyncOpenAI``: answers by the prompt's question, records requests."""

    def __init__(self, wrong_first: dict[str, str], right: dict[str, str]) -> None:
        self.completions = self
        self.wrong_first, self.right = wrong_first, right
        self.requests: list[dict[str, object]] = []

    async def create(self, **arguments: object) -> Completion:
        self.requests.append(arguments)
        await asyncio.sleep(0)  # let the other task run in between
        prompt = str(arguments["prompt"])
        key = next(k for k in self.right if k in prompt)
        retry = "rejected" in prompt
        text = self.right[key] if retry else self.wrong_first[key]
        return Completion.model_validate(
            {"id": "c", "object": "text_completion", "created": 0, "model": "m",
             "choices": [{"index": 0, "finish_reason": "stop", "text": text}]}
        )  # fmt: skip


class TestOnRetry:
    async def test_concurrent_tasks_each_see_their_own_attempt(self) -> None:
        """Two arun calls in concurrent tasks: each retry gets its own iteration's sampling."""
        client = AsyncRecordingClient(
            wrong_first={"Oslo": "It has 5 people.", "Rome": "It has 7 people."},
            right={"Oslo": "It has 709,000 people.", "Rome": "It has 2.8 million people."},
        )
        llm = AsyncOpenAICompatible(
            model="m", api="completions", sampling=Sampling(seed=100), on_retry=resample(0.8),
            client=client,  # type: ignore[arg-type]
        )  # fmt: skip
        oslo, rome = await asyncio.gather(
            relapse.arun("Oslo?", ["Oslo has 709,000 people."], call_llm=llm),
            relapse.arun("Rome?", ["Rome has 2.8 million people."], call_llm=llm),
        )
        assert [(True, 2)] * 2 == [(r.grounded, r.iterations) for r in (oslo, rome)]
        # (question, temperature sent, seed sent) of every request, in a stable order.
        sent = sorted(
            (
                next(k for k in ("Oslo", "Rome") if k in str(r["prompt"])),
                str(r.get("temperature", "unset")),
                r["seed"],
            )
            for r in client.requests
        )
        assert [
            ("Oslo", "0.8", 101),
            ("Oslo", "unset", 100),
            ("Rome", "0.8", 101),
            ("Rome", "unset", 100),
        ] == sent

    def test_resample_on_retries_only(self) -> None:
        """Iteration 1 sends the configured sampling; retries resample(0.9) with moving seeds."""
        client = RecordingClient(["It is 7.", "It is 8.", "It is 5."])
        llm = OpenAICompatible(
            model="m",
            api="completions",
            sampling=Sampling(temperature=0.0, seed=7),
            on_retry=resample(0.9),
            client=client,  # type: ignore[arg-type]
        )
        result = relapse.run("How many?", ["There are 5."], call_llm=llm, max_iterations=3)
        assert ("It is 5.", 3) == (result.answer, result.iterations)
        assert [(0.0, 7), (0.9, 8), (0.9, 9)] == [
            (r["temperature"], r["seed"]) for r in client.completions.requests
        ]

    def test_inside_a_decorated_function(self) -> None:
        """create() inside @grounded reads the attempt too; outside a loop nothing changes."""
        client = RecordingClient(["Rome.", "Paris."])
        llm = OpenAICompatible(
            model="m",
            api="completions",
            on_retry=resample(0.5, seed_step=10),
            client=client,  # type: ignore[arg-type]
        )

        @relapse.grounded(chunks_arg="docs", grounding_check=forbid("Rome"))
        def answer(query: str, docs: list[str]) -> str:
            return llm(query)

        assert "Paris." == answer("Capital?", ["Paris is the capital."])
        llm("outside")
        assert [{}, {"temperature": 0.5, "seed": 10}, {}] == [
            {k: v for k, v in r.items() if k in ("temperature", "seed")}
            for r in client.completions.requests
        ]

    def test_on_retry_must_return_sampling(self) -> None:
        """An on_retry returning something else is a TypeError naming what it returned."""
        client = RecordingClient(["It is 7."])
        llm = OpenAICompatible(
            model="m",
            api="completions",
            on_retry=lambda a, s: {"temperature": 1},
            client=client,  # type: ignore[arg-type]
        )
        with pytest.raises(TypeError, match="on_retry returned dict; expected Sampling"):
            relapse.run("How many?", ["There are 5."], call_llm=llm)

    def test_negative_temperature_refused(self) -> None:
        with pytest.raises(ValueError, match="temperature must be >= 0"):
            resample(-0.1)


@pytest.mark.slow
class TestLocalServer:
    """End to end: the real SDK against ``python -m llama_cpp.server`` and the bundled model."""

    def test_run_grounded_answer(self, llama_server: LlamaServer) -> None:
        """relapse.run with the client as call_llm: the model reads the date off the chunk."""
        llm = completions(llama_server)
        result = relapse.run(
            "When did the Golden Gate Bridge open?",
            BRIDGE,
            call_llm=llm,
            build_prompt=LocalModel.build_prompt,
        )
        assert (True, "grounded_first_try") == (result.grounded, result.outcome)
        assert "1937" in result.answer

    def test_usage_read_from_the_response(self, llama_server: LlamaServer) -> None:
        """create() returns the SDK's Completion; its usage counts what the server tokenised."""
        llm = completions(llama_server)
        prompt = "Once upon a time"
        response = llm.create(prompt, max_tokens=5, stop=None)
        assert isinstance(response, Completion)
        request = urllib.request.Request(
            llama_server.base_url.removesuffix("/v1") + "/extras/tokenize/count",
            data=json.dumps({"input": prompt, "model": MODEL}).encode(),
            headers={"content-type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=30) as reply:
            prompt_tokens = json.loads(reply.read())["count"]
        usage = response.usage
        assert usage is not None
        # Cut by max_tokens, so exactly 5 tokens were generated.
        assert "length" == response.choices[0].finish_reason
        assert (prompt_tokens, 5, prompt_tokens + 5) == (
            usage.prompt_tokens,
            usage.completion_tokens,
            usage.total_tokens,
        )

    def test_decorated_function_returns_the_sdk_response(self, llama_server: LlamaServer) -> None:
        """@grounded around llm.create: the caller gets the Completion; tokens add up."""
        llm = completions(llama_server)

        @relapse.grounded(chunks_arg="docs", grounding_check=forbid("1937"), max_iterations=2)
        def answer(question: str, docs: list[str]) -> Completion:
            return llm.create(LocalModel.build_prompt(question, docs))  # type: ignore[no-any-return]

        result = answer.run("When did the Golden Gate Bridge open?", BRIDGE)
        assert isinstance(result.response, Completion)
        assert 2 == len(result.transcript)
        usages = [r.response.usage for r in result.transcript]
        assert [(u.prompt_tokens, u.completion_tokens) for u in usages] == [
            (r.usage.input_tokens, r.usage.output_tokens) for r in result.transcript
        ]
        assert result.usage is not None
        assert sum(u.total_tokens for u in usages) == result.usage.total_tokens
        # The retry prompt quotes the rejected answer, so it is longer.
        assert usages[1].prompt_tokens > usages[0].prompt_tokens

    async def test_async_decorated_function_tokens_in_result_and_spans(
        self, llama_server: LlamaServer
    ) -> None:
        """async @grounded around the async SDK: each attempt's tokens on its record and span."""
        llm = AsyncOpenAICompatible(
            base_url=llama_server.base_url, model=MODEL, api="completions", sampling=GREEDY
        )
        with capture_spans() as captured:

            @relapse.grounded(
                chunks_arg="docs",
                grounding_check=forbid("1937"),
                max_iterations=2,
                tracer_provider=captured.provider,
            )
            async def answer(question: str, docs: list[str]) -> Completion:
                return await llm.create(LocalModel.build_prompt(question, docs))  # type: ignore[no-any-return]

            returned = await answer("When did the Golden Gate Bridge open?", BRIDGE)
            result = await answer.run("When did the Golden Gate Bridge open?", BRIDGE)

            assert isinstance(returned, Completion)
            usages = [r.response.usage for r in result.transcript]
            assert 2 == len(usages)
            assert [(u.prompt_tokens, u.completion_tokens) for u in usages] == [
                (r.usage.input_tokens, r.usage.output_tokens) for r in result.transcript
            ]
            # The second call's spans: its two iteration spans and their parent.
            iterations = captured.named("relapse.iteration")[-2:]
            assert [(u.prompt_tokens, u.completion_tokens) for u in usages] == [
                (
                    span.attributes[RELAPSE_USAGE_INPUT_TOKENS],
                    span.attributes[RELAPSE_USAGE_OUTPUT_TOKENS],
                )
                for span in iterations
                if span.attributes is not None
            ]
            parent_id = iterations[0].parent.span_id if iterations[0].parent else None
            (call,) = [s for s in captured.spans if s.context.span_id == parent_id]
            assert call.attributes is not None
            assert (
                sum(u.prompt_tokens for u in usages),
                sum(u.completion_tokens for u in usages),
            ) == (
                call.attributes[RELAPSE_USAGE_INPUT_TOKENS],
                call.attributes[RELAPSE_USAGE_OUTPUT_TOKENS],
            )

    async def test_arun_concurrent_calls(self, llama_server: LlamaServer) -> None:
        """Three arun calls gathered at once each get the answer to their own question."""
        llm = AsyncOpenAICompatible(
            base_url=llama_server.base_url, model=MODEL, api="completions", sampling=GREEDY
        )
        questions = [
            ("When did the Golden Gate Bridge open?", BRIDGE, "1937"),
            ("How many people live in Oslo?", OSLO, "709,000"),
            ("How long is the main span of the Golden Gate Bridge?", BRIDGE, "1,280"),
        ]
        results = await asyncio.gather(
            *(
                relapse.arun(q, chunks, call_llm=llm, build_prompt=LocalModel.build_prompt)
                for q, chunks, _ in questions
            )
        )
        assert [True] * 3 == [r.grounded for r in results]
        assert [True] * 3 == [
            e in r.answer for (_, _, e), r in zip(questions, results, strict=True)
        ]

    def test_server_down_mid_loop(self, own_llama_server: LlamaServer) -> None:
        """The server dies after iteration 1: the SDK's own error propagates with the transcript."""
        # A generous timeout: on a loaded machine iteration 1 alone can take a minute.
        llm = completions(own_llama_server, max_retries=0, timeout=600.0)

        def reject_then_kill(
            query: str, chunks: Sequence[str], answer: str
        ) -> relapse.GroundingResult:
            own_llama_server.kill()
            finding = relapse.GroundingFinding("FG001", "rejected by the test", (answer,))
            return relapse.GroundingResult(ok=False, findings=(finding,))

        with pytest.raises(openai.APIConnectionError) as raised:
            relapse.run(
                "When did the Golden Gate Bridge open?",
                BRIDGE,
                call_llm=llm,
                build_prompt=LocalModel.build_prompt,
                grounding_check=reject_then_kill,
            )
        assert openai.APIConnectionError is type(raised.value)
        (record,) = raised.value.relapse_transcript  # type: ignore[attr-defined]
        assert (1, False) == (record.iteration, record.grounded)
        assert "1937" in record.answer
