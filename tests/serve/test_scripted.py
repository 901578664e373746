"""
The real ``openai`` SDK (sync, async, streaming) against ``relapse serve`` and a scripted upstream.

Exact values: the scripted upstream answers what each test scripts and
reports usage it can count (10 prompt tokens, one completion token a word),
so every field of the ``relapse`` object is known in advance.
"""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import openai
import pytest

from serve_helpers import BAD, CHUNKS, GOOD, QUESTION, Server, ask, gateway, script

MESSAGES = [{"role": "user", "content": QUESTION}]
# Offsets, counted by hand: "It opened in " is 13 characters; the chunk's
# "The Golden Gate Bridge opened in " is 33.
BAD_1936 = [13, 17]
CHUNK_1937 = [33, 37]
FIRST = "It is painted international orange."
STREAMED_BAD = f"{FIRST} It opened in 1936. It is long."


def record(upstream: Server, scripted: dict[str, Any]) -> dict[str, Any]:
    return upstream.get(f"/record/{scripted['id']}")  # type: ignore[no-any-return]


def client(gw: Server, key: str = "client-key") -> openai.OpenAI:
    return openai.OpenAI(base_url=gw.v1, api_key=key, max_retries=0)


class TestNonStreaming:
    def test_a_rejected_answer_is_asked_again_and_the_report_says_why(
        self, gw: Server, upstream: Server
    ) -> None:
        """Recovered on the retry: the answer, every finding, the citation, usage summed."""
        scripted = script(BAD, GOOD)
        response = client(gw).chat.completions.create(
            model="scripted", messages=MESSAGES, extra_body=ask(CHUNKS, scripted)
        )
        assert GOOD == response.choices[0].message.content
        report = response.model_extra["relapse"]
        assert ("recovered", True, True, 2) == (
            report["outcome"],
            report["grounded"],
            report["checked"],
            report["iterations"],
        )
        assert [
            {
                "iteration": 1,
                "code": "FG002",
                "message": "1 date(s) not in the retrieved chunks: '1936'",
                "severity": "error",
                "spans": ["1936"],
                "offsets": [BAD_1936],
            }
        ] == report["findings"]
        assert [
            {
                "chunk_index": 0,
                "chunk_id": None,
                "kind": "date",
                "answer_offsets": [13, 17],
                "chunk_offsets": CHUNK_1937,
            }
        ] == report["citations"]
        # Two calls of 10 prompt tokens and 4 words each.
        assert {
            "prompt_tokens": 20,
            "completion_tokens": 8,
            "total_tokens": 28,
            "attempts_unreported": 0,
        } == report["usage"]
        assert (20, 8, 28) == (
            response.usage.prompt_tokens,
            response.usage.completion_tokens,
            response.usage.total_tokens,
        )
        assert [[1, False, ["FG002"]], [2, True, []]] == [
            [a["iteration"], a["grounded"], a["codes"]] for a in report["attempts"]
        ]

    def test_the_first_call_is_the_clients_request_and_a_retry_rewrites_the_last_user_message(
        self, gw: Server, upstream: Server
    ) -> None:
        scripted = script(BAD, GOOD)
        messages = [
            {"role": "system", "content": "Answer from the context."},
            {"role": "user", "content": QUESTION},
        ]
        client(gw).chat.completions.create(
            model="scripted", messages=messages, seed=5, extra_body=ask(CHUNKS, scripted)
        )
        first, second = (call["body"] for call in record(upstream, scripted)["calls"])
        assert {"model": "scripted", "messages": messages, "seed": 5, "x_script": scripted} == first
        assert messages[0] == second["messages"][0]
        retry = second["messages"][1]
        assert "user" == retry["role"]
        assert retry["content"].startswith(QUESTION)
        assert BAD in retry["content"]
        assert "1936" in retry["content"].removeprefix(QUESTION)
        # No retry sampling asked: the client's own settings again.
        assert (5, None) == (second.get("seed"), second.get("temperature"))

    def test_retry_sampling_moves_the_seed_and_sets_the_temperature(
        self, gw: Server, upstream: Server
    ) -> None:
        scripted = script(BAD, BAD, GOOD)
        client(gw).chat.completions.create(
            model="scripted",
            messages=MESSAGES,
            seed=5,
            extra_body=ask(CHUNKS, scripted, retry_sampling={"temperature": 0.7, "seed_step": 2}),
        )
        bodies = [call["body"] for call in record(upstream, scripted)["calls"]]
        assert [(5, None), (7, 0.7), (9, 0.7)] == [
            (body.get("seed"), body.get("temperature")) for body in bodies
        ]

    def test_the_clients_authorization_goes_upstream(self, gw: Server, upstream: Server) -> None:
        scripted = script(GOOD)
        client(gw, "sk-client-secret").chat.completions.create(
            model="scripted", messages=MESSAGES, extra_body=ask(CHUNKS, scripted)
        )
        assert "Bearer sk-client-secret" == record(upstream, scripted)["calls"][0]["authorization"]
        assert "sk-client-secret" not in gw.output()

    def test_without_chunks_the_answer_passes_unchecked_and_is_marked_so(self, gw: Server) -> None:
        raw = client(gw).chat.completions.with_raw_response.create(
            model="scripted", messages=MESSAGES, extra_body=ask(None, script(BAD))
        )
        response = raw.parse()
        assert BAD == response.choices[0].message.content
        report = response.model_extra["relapse"]
        assert (False, "unchecked", False) == (
            report["checked"],
            report["outcome"],
            report["grounded"],
        )
        assert {
            "prompt_tokens": 10,
            "completion_tokens": 4,
            "total_tokens": 14,
            "attempts_unreported": 0,
        } == report["usage"]
        assert ("unchecked", "false") == (
            raw.headers["x-relapse-outcome"],
            raw.headers["x-relapse-grounded"],
        )

    def test_on_exhausted_raise_is_a_422_carrying_the_report(self, gw: Server) -> None:
        with pytest.raises(openai.UnprocessableEntityError) as caught:
            client(gw).chat.completions.create(
                model="scripted",
                messages=MESSAGES,
                extra_body=ask(CHUNKS, script(BAD), max_iterations=2, on_exhausted="raise"),
            )
        body = caught.value.body
        assert isinstance(body, dict)
        assert "not_grounded" == body["code"]
        report = caught.value.response.json()["relapse"]
        assert ("exhausted", False, 2) == (
            report["outcome"],
            report["grounded"],
            report["iterations"],
        )

    def test_redact_returns_the_answer_without_its_failing_sentence(self, gw: Server) -> None:
        response = client(gw).chat.completions.create(
            model="scripted",
            messages=MESSAGES,
            extra_body=ask(
                CHUNKS, script(f"{FIRST} {BAD}"), max_iterations=1, on_exhausted="redact"
            ),
        )
        assert FIRST == response.choices[0].message.content
        report = response.model_extra["relapse"]
        assert ("redacted", False) == (report["outcome"], report["grounded"])

    def test_chunk_ids_come_back_on_the_citations(self, gw: Server) -> None:
        response = client(gw).chat.completions.create(
            model="scripted",
            messages=MESSAGES,
            extra_body=ask([{"text": CHUNKS[0], "id": "doc-7"}], script(GOOD)),
        )
        report = response.model_extra["relapse"]
        assert "grounded_first_try" == report["outcome"]
        assert [("doc-7", 0, CHUNK_1937)] == [
            (c["chunk_id"], c["chunk_index"], c["chunk_offsets"]) for c in report["citations"]
        ]

    def test_models_are_the_upstreams(self, gw: Server) -> None:
        assert ["scripted"] == [model.id for model in client(gw).models.list()]

    def test_health(self, gw: Server) -> None:
        health = gw.get("/health")
        assert ("ok", 0, 0) == (
            health["status"],
            health["in_flight"],
            health["upstream_streams_open"],
        )


class TestChunksFromMessages:
    """The opt-in second way: chunks read from the messages, for clients that cannot add fields."""

    def test_tool_messages_by_header(self, gw: Server, upstream: Server) -> None:
        messages = [
            {"role": "user", "content": QUESTION},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "search", "arguments": "{}"},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": CHUNKS[0]},
        ]
        response = openai.OpenAI(
            base_url=gw.v1,
            api_key="k",
            max_retries=0,
            default_headers={"X-Relapse-Chunks-From": "tool"},
        ).chat.completions.create(
            model="scripted", messages=messages, extra_body={"x_script": script(BAD, GOOD)}
        )
        report = response.model_extra["relapse"]
        assert ("recovered", ["call_1"]) == (
            report["outcome"],
            [c["chunk_id"] for c in report["citations"]],
        )

    def test_context_blocks_by_option(self, gw: Server) -> None:
        messages = [
            {"role": "system", "content": f'<context id="doc-9">{CHUNKS[0]}</context>'},
            {"role": "user", "content": QUESTION},
        ]
        response = client(gw).chat.completions.create(
            model="scripted",
            messages=messages,
            extra_body={"relapse": {"chunks_from": "context"}, "x_script": script(BAD, GOOD)},
        )
        report = response.model_extra["relapse"]
        assert ("recovered", ["doc-9"]) == (
            report["outcome"],
            [c["chunk_id"] for c in report["citations"]],
        )

    def test_not_read_unless_asked(self, gw: Server) -> None:
        messages = [
            {"role": "system", "content": f"<context>{CHUNKS[0]}</context>"},
            {"role": "user", "content": QUESTION},
        ]
        response = client(gw).chat.completions.create(
            model="scripted", messages=messages, extra_body={"x_script": script(BAD)}
        )
        assert "unchecked" == response.model_extra["relapse"]["outcome"]


def streamed(stream: Any) -> tuple[str, list[Any]]:
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    return text, chunks


class TestStreaming:
    def test_only_verified_sentences_reach_the_client(self, gw: Server, upstream: Server) -> None:
        """The failing sentence and its tail never come; the retry continues after the first."""
        scripted = script(STREAMED_BAD, "It opened in 1937.")
        text, chunks = streamed(
            client(gw).chat.completions.create(
                model="scripted",
                messages=MESSAGES,
                stream=True,
                stream_options={"include_usage": True},
                extra_body=ask(CHUNKS, scripted),
            )
        )
        assert f"{FIRST} It opened in 1937." == text
        finish, last = chunks[-2], chunks[-1]
        assert "stop" == finish.choices[0].finish_reason
        assert [] == last.choices
        # One completion: every chunk has the first attempt's id.
        assert {f"chatcmpl-{scripted['id']}-0"} == {c.id for c in chunks}
        report = last.model_extra["relapse"]
        assert ("recovered", True, 2) == (
            report["outcome"],
            report["grounded"],
            report["iterations"],
        )
        checked = f"{FIRST} It opened in 1936."
        start = checked.index("1936")
        assert [(1, "FG002", ["1936"], [[start, start + 4]])] == [
            (f["iteration"], f["code"], f["spans"], f["offsets"]) for f in report["findings"]
        ]
        at = text.index("1937")
        assert {("date", (at, at + 4), 0, tuple(CHUNK_1937))} <= {
            (c["kind"], tuple(c["answer_offsets"]), c["chunk_index"], tuple(c["chunk_offsets"]))
            for c in report["citations"]
        }
        # The first attempt was closed at its failing sentence, before its
        # usage chunk: only the retry's 10 + 4 tokens were reported.
        assert (10, 4, 14) == (
            last.usage.prompt_tokens,
            last.usage.completion_tokens,
            last.usage.total_tokens,
        )
        assert 1 == report["usage"]["attempts_unreported"]
        assert [False, True] == [a["grounded"] for a in report["attempts"]]
        # The gateway asked upstream for the usage chunk on every attempt.
        calls = record(upstream, scripted)["calls"]
        assert [True, True] == [c["body"]["stream_options"]["include_usage"] for c in calls]

    def test_without_include_usage_the_finish_chunk_carries_the_report(self, gw: Server) -> None:
        text, chunks = streamed(
            client(gw).chat.completions.create(
                model="scripted",
                messages=MESSAGES,
                stream=True,
                extra_body=ask(CHUNKS, script(GOOD)),
            )
        )
        assert GOOD == text
        last = chunks[-1]
        assert "stop" == last.choices[0].finish_reason
        assert "grounded_first_try" == last.model_extra["relapse"]["outcome"]
        assert all(c.choices for c in chunks)

    def test_release_answer_sends_the_checked_answer_whole(self, gw: Server) -> None:
        text, chunks = streamed(
            client(gw).chat.completions.create(
                model="scripted",
                messages=MESSAGES,
                stream=True,
                extra_body=ask(CHUNKS, script(STREAMED_BAD, GOOD), release="answer"),
            )
        )
        assert GOOD == text
        assert "recovered" == chunks[-1].model_extra["relapse"]["outcome"]

    def test_exhausted_streams_only_the_verified_prefix(self, gw: Server) -> None:
        text, chunks = streamed(
            client(gw).chat.completions.create(
                model="scripted",
                messages=MESSAGES,
                stream=True,
                extra_body=ask(CHUNKS, script(STREAMED_BAD), max_iterations=2),
            )
        )
        assert FIRST == text.strip()
        report = chunks[-1].model_extra["relapse"]
        assert ("exhausted", False, 2) == (
            report["outcome"],
            report["grounded"],
            report["iterations"],
        )

    def test_without_chunks_the_stream_passes_unchecked(self, gw: Server) -> None:
        text, chunks = streamed(
            client(gw).chat.completions.create(
                model="scripted",
                messages=MESSAGES,
                stream=True,
                stream_options={"include_usage": True},
                extra_body=ask(None, script(STREAMED_BAD)),
            )
        )
        assert STREAMED_BAD == text
        last = chunks[-1]
        assert ("unchecked", False) == (
            last.model_extra["relapse"]["outcome"],
            last.model_extra["relapse"]["checked"],
        )
        assert (10, 12) == (last.usage.prompt_tokens, last.usage.completion_tokens)

    def test_the_wire_format_is_server_sent_events_ending_with_done(self, gw: Server) -> None:
        """Read without an SDK: every event a JSON chunk, then ``data: [DONE]``."""
        body = {
            "model": "scripted",
            "messages": MESSAGES,
            "stream": True,
            **ask(CHUNKS, script(GOOD)),
        }
        request = urllib.request.Request(
            gw.v1 + "/chat/completions",
            data=json.dumps(body).encode(),
            headers={"content-type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            assert response.headers["content-type"].startswith("text/event-stream")
            raw = response.read().decode()
        events = [block for block in raw.split("\n\n") if block]
        assert "data: [DONE]" == events[-1]
        chunks = [json.loads(event.removeprefix("data: ")) for event in events[:-1]]
        assert all(c["object"] == "chat.completion.chunk" for c in chunks)
        assert GOOD == "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks)


class TestAsync:
    async def test_async_client_non_streaming(self, gw: Server) -> None:
        async with openai.AsyncOpenAI(base_url=gw.v1, api_key="k", max_retries=0) as aclient:
            response = await aclient.chat.completions.create(
                model="scripted", messages=MESSAGES, extra_body=ask(CHUNKS, script(BAD, GOOD))
            )
        assert (GOOD, "recovered") == (
            response.choices[0].message.content,
            response.model_extra["relapse"]["outcome"],
        )

    async def test_async_client_streaming(self, gw: Server) -> None:
        async with openai.AsyncOpenAI(base_url=gw.v1, api_key="k", max_retries=0) as aclient:
            stream = await aclient.chat.completions.create(
                model="scripted",
                messages=MESSAGES,
                stream=True,
                extra_body=ask(CHUNKS, script(STREAMED_BAD, "It opened in 1937.")),
            )
            chunks = [chunk async for chunk in stream]
        text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
        assert f"{FIRST} It opened in 1937." == text
        assert "recovered" == chunks[-1].model_extra["relapse"]["outcome"]


class TestGatewayKeys:
    def test_keys_guard_the_gateway_and_the_upstream_gets_the_servers_own(
        self, upstream: Server
    ) -> None:
        env = {
            "RELAPSE_SERVE_API_KEYS": "gk-one,gk-two",
            "RELAPSE_SERVE_UPSTREAM_API_KEY": "up-sec",
        }
        with gateway(upstream.v1, env=env) as keyed:
            with pytest.raises(openai.AuthenticationError) as caught:
                client(keyed, "wrong").chat.completions.create(
                    model="scripted", messages=MESSAGES, extra_body=ask(CHUNKS, script(GOOD))
                )
            assert "invalid_api_key" == caught.value.code
            with pytest.raises(openai.AuthenticationError):
                client(keyed, "wrong").models.list()
            scripted = script(GOOD)
            response = client(keyed, "gk-two").chat.completions.create(
                model="scripted", messages=MESSAGES, extra_body=ask(CHUNKS, scripted)
            )
            assert "grounded_first_try" == response.model_extra["relapse"]["outcome"]
            assert "Bearer up-sec" == record(upstream, scripted)["calls"][0]["authorization"]
            log = keyed.output()
        for secret in ("gk-one", "gk-two", "up-sec", "wrong"):
            assert secret not in log
