"""The gateway's settings and the request's ``relapse`` object, read without a server."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import pytest

from llama_server import free_port
from relapse.serve import Limits, ServeConfig
from relapse.serve._errors import GatewayError
from relapse.serve._gateway import upstream_body
from relapse.serve._request import RetrySampling, chunks_in_messages, read_call

QUESTION = "When did the bridge open?"


def body(**relapse: Any) -> dict[str, Any]:
    return {
        "model": "m",
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": QUESTION},
        ],
        "relapse": relapse,
    }


class TestServeConfig:
    def test_the_environment_carries_every_setting_to_the_workers(self) -> None:
        config = ServeConfig(
            "http://127.0.0.1:8000/v1/",
            Limits(max_chunks=3, upstream_timeout_s=2.5, max_total_tokens=900),
            frozenset({"k1", "k2"}),
            "up",
            "tool",
            True,
        )
        assert "http://127.0.0.1:8000/v1" == config.upstream
        assert config == ServeConfig.from_env(config.to_env())

    def test_no_token_cap_round_trips(self) -> None:
        config = ServeConfig("http://u/v1")
        assert config == ServeConfig.from_env(config.to_env())

    @pytest.mark.parametrize(
        ("build", "kind", "named"),
        [
            (lambda: ServeConfig("127.0.0.1:8000"), ValueError, "upstream"),
            (lambda: ServeConfig("http://u", chunks_from="all"), ValueError, "chunks_from"),
            (lambda: Limits(max_chunks=0), ValueError, "max_chunks"),
            (lambda: Limits(max_chunks=2.5), TypeError, "max_chunks"),
            (lambda: Limits(upstream_timeout_s=True), TypeError, "upstream_timeout_s"),
            (lambda: ServeConfig.from_env({}), ValueError, "RELAPSE_SERVE_UPSTREAM"),
            (
                lambda: ServeConfig.from_env(
                    {"RELAPSE_SERVE_UPSTREAM": "http://u", "RELAPSE_SERVE_MAX_CHUNKS": "many"}
                ),
                ValueError,
                "RELAPSE_SERVE_MAX_CHUNKS",
            ),
        ],
    )
    def test_a_bad_setting_names_itself(
        self, build: Any, kind: type[Exception], named: str
    ) -> None:
        with pytest.raises(kind, match=named):
            build()


class TestReadCall:
    def test_defaults_and_the_relapse_object_taken_out(self) -> None:
        call = read_call(body(chunks=["a"]), Limits(), "none")
        assert "relapse" not in call.body
        assert (("a",), QUESTION, 1, False) == (
            call.chunks,
            call.query,
            call.user_index,
            call.stream,
        )
        assert (3, "answer", "return", 300.0, None) == (
            call.loop.max_iterations,
            call.loop.release,
            call.loop.on_exhausted,
            call.loop.timeout,
            call.loop.max_total_tokens,
        )

    def test_a_stream_releases_sentences_by_default(self) -> None:
        given = body(chunks=["a"]) | {"stream": True, "stream_options": {"include_usage": True}}
        call = read_call(given, Limits(), "none")
        assert ("sentence", True) == (call.loop.release, call.include_usage)

    def test_no_chunks_is_unchecked(self) -> None:
        assert read_call(body(), Limits(), "none").chunks is None

    def test_chunks_keep_their_ids(self) -> None:
        call = read_call(body(chunks=[{"text": "a", "id": 7}, "b"]), Limits(), "none")
        assert ({"text": "a", "id": 7}, "b") == call.chunks

    def test_the_servers_token_cap_is_the_default_and_the_ceiling(self) -> None:
        limits = Limits(max_total_tokens=500)
        assert 500 == read_call(body(chunks=["a"]), limits, "none").loop.max_total_tokens
        assert (
            200
            == read_call(
                body(chunks=["a"], max_total_tokens=200), limits, "none"
            ).loop.max_total_tokens
        )
        with pytest.raises(GatewayError) as caught:
            read_call(body(chunks=["a"], max_total_tokens=501), limits, "none")
        assert (400, "over_limit", "relapse.max_total_tokens") == (
            caught.value.status,
            caught.value.code,
            caught.value.param,
        )

    @pytest.mark.parametrize(
        ("given", "param"),
        [
            ({"messages": []}, "messages"),
            (
                {"messages": [{"role": "system", "content": "x"}], "relapse": {"chunks": ["a"]}},
                "messages",
            ),
            ({"messages": [{"role": "user", "content": "q"}], "relapse": []}, "relapse"),
            ({"messages": [{"role": "user", "content": "q"}], "stream": "yes"}, "stream"),
            (
                {
                    "messages": [{"role": "user", "content": "q"}],
                    "n": 2,
                    "relapse": {"chunks": ["a"]},
                },
                "n",
            ),
        ],
    )
    def test_a_malformed_request_is_a_400_naming_the_field(
        self, given: dict[str, Any], param: str
    ) -> None:
        with pytest.raises(GatewayError) as caught:
            read_call(given, Limits(), "none")
        assert (400, param) == (caught.value.status, caught.value.param)
        assert {"message", "type", "param", "code"} == set(caught.value.body()["error"])


class TestChunksFromMessages:
    def test_tool_messages(self) -> None:
        messages = [
            {"role": "user", "content": "q"},
            {"role": "tool", "tool_call_id": "call_1", "content": "one"},
            {"role": "tool", "content": [{"type": "text", "text": "two"}]},
        ]
        assert [{"text": "one", "id": "call_1"}, "two"] == chunks_in_messages(messages, "tool")

    def test_context_blocks(self) -> None:
        messages = [
            {
                "role": "system",
                "content": '<context id="d1">\none\n</context> and <context>two</context>',
            },
            {"role": "assistant", "content": "<context>not read</context>"},
            {"role": "user", "content": "q <context>three</context>"},
        ]
        assert [{"text": "one", "id": "d1"}, "two", "three"] == chunks_in_messages(
            messages, "context"
        )

    def test_header_or_option_chooses(self) -> None:
        given = {"messages": [{"role": "user", "content": "q <context>c</context>"}]}
        assert ("c",) == read_call(dict(given), Limits(), "context").chunks
        assert read_call(dict(given), Limits(), "none").chunks is None


class TestUpstreamBody:
    def test_the_first_call_is_the_clients_body_and_a_retry_rewrites_the_last_user_message(
        self,
    ) -> None:
        given = body(chunks=["a"], retry_sampling={"temperature": 0.5, "seed_step": 3})
        given["seed"] = 11
        call = read_call(given, Limits(), "none")
        assert RetrySampling(0.5, 3) == call.retry_sampling
        assert call.body == upstream_body(call, QUESTION, 1)
        retry = upstream_body(call, "retry note", 3)
        assert {"role": "user", "content": "retry note"} == retry["messages"][1]
        assert call.body["messages"][0] == retry["messages"][0]
        assert (0.5, 11 + 3 * 2) == (retry["temperature"], retry["seed"])
        # The client's body is never changed in place.
        assert QUESTION == call.body["messages"][1]["content"]

    def test_a_stream_asks_for_the_usage_chunk(self) -> None:
        call = read_call(body(chunks=["a"]) | {"stream": True}, Limits(), "none")
        assert {"include_usage": True} == upstream_body(call, QUESTION, 1)["stream_options"]


class TestAppFromEnv:
    def test_the_workers_factory_reads_the_environment_and_exports_over_otlp(self) -> None:
        """In a fresh process, as a uvicorn worker: the settings, and OTLP providers when asked."""
        program = (
            "from opentelemetry import metrics, trace\n"
            "from opentelemetry.sdk.metrics import MeterProvider\n"
            "from opentelemetry.sdk.trace import TracerProvider\n"
            "from relapse.serve import app_from_env\n"
            "app = app_from_env()\n"
            "print(isinstance(trace.get_tracer_provider(), TracerProvider),"
            " isinstance(metrics.get_meter_provider(), MeterProvider))\n"
        )
        env = {
            **os.environ,
            "RELAPSE_SERVE_UPSTREAM": "http://127.0.0.1:9/v1",
            "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{free_port()}",
        }
        done = subprocess.run(
            [sys.executable, "-c", program], env=env, capture_output=True, text=True, timeout=120,
            check=False,
        )  # fmt: skip
        assert 0 == done.returncode, done.stderr
        assert "True True" == done.stdout.strip()

    def test_without_an_upstream_the_factory_names_the_variable(self) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("RELAPSE_SERVE_")}
        done = subprocess.run(
            [sys.executable, "-c", "from relapse.serve import app_from_env; app_from_env()"],
            env=env, capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        assert 0 != done.returncode
        assert "RELAPSE_SERVE_UPSTREAM is not set" in done.stderr
