"""
Faults: each gets its documented error (docs/serve.md, "Errors") and leaves nothing behind.

After every fault the gateway's ``/health`` must show no request in flight
and no upstream stream open, and where the upstream was streaming, the
upstream must have seen its stream closed.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import openai
import pytest

from llama_server import free_port
from serve_helpers import CHUNKS, GOOD, QUESTION, Server, ask, gateway, script

MESSAGES = [{"role": "user", "content": QUESTION}]
FIRST = "It is painted international orange."
LONG = f"{FIRST} It opened in 1937. It is long."


def client(gw: Server) -> openai.OpenAI:
    return openai.OpenAI(base_url=gw.v1, api_key="k", max_retries=0, timeout=30)


def settled(gw: Server, within_s: float = 10.0) -> dict[str, Any]:
    """``/health`` once nothing is in flight and no upstream stream is open, within ``within_s``."""
    deadline = time.monotonic() + within_s
    while True:
        health = gw.get("/health")
        if health["in_flight"] == 0 and health["upstream_streams_open"] == 0:
            return health  # type: ignore[no-any-return]
        if time.monotonic() > deadline:
            raise AssertionError(f"the gateway kept work behind: {health}")
        time.sleep(0.05)


def create(gw: Server, scripted: dict[str, Any], *, stream: bool = False, **relapse: Any) -> Any:
    return client(gw).chat.completions.create(
        model="scripted",
        messages=MESSAGES,
        stream=stream,
        extra_body=ask(CHUNKS, scripted, **relapse),
    )


def stream_until_error(gw: Server, scripted: dict[str, Any]) -> tuple[str, openai.APIError]:
    """Read a stream until the SDK raises: the text before it and the error."""
    text = ""
    try:
        for chunk in create(gw, scripted, stream=True):
            if chunk.choices:
                text += chunk.choices[0].delta.content or ""
    except openai.APIError as error:
        return text, error
    raise AssertionError(f"the stream ended without an error: {text!r}")


@pytest.fixture(scope="module")
def short(upstream: Server) -> Iterator[Server]:
    """A gateway with small limits: 0.5 s upstream timeout, 2 chunks, 3,000 bytes, 1 at once."""
    with gateway(
        upstream.v1,
        "--upstream-timeout", "0.5", "--max-chunks", "2", "--max-body-bytes", "3000",
        "--max-chunk-chars", "500", "--max-concurrent", "1", "--max-iterations", "3",
    ) as server:  # fmt: skip
        yield server


class TestUpstreamFaults:
    def test_upstream_down_is_502_upstream_unavailable(self) -> None:
        nothing = f"http://127.0.0.1:{free_port()}/v1"
        with gateway(nothing) as gw:
            for stream in (False, True):
                with pytest.raises(openai.APIStatusError) as caught:
                    create(gw, script(GOOD), stream=stream)
                assert (502, "upstream_unavailable") == (
                    caught.value.status_code,
                    caught.value.code,
                )
            with pytest.raises(openai.APIStatusError) as listing:
                client(gw).models.list()
            assert 502 == listing.value.status_code
            settled(gw)

    def test_slow_upstream_is_504_upstream_timeout(self, short: Server) -> None:
        for stream in (False, True):
            with pytest.raises(openai.APIStatusError) as caught:
                create(short, script(GOOD, delay=2), stream=stream)
            assert (504, "upstream_timeout") == (caught.value.status_code, caught.value.code)
        settled(short)

    def test_a_stream_that_stalls_midway_is_a_timeout_event(self, short: Server) -> None:
        text, error = stream_until_error(short, script(LONG, fault="stall", fault_at=7))
        assert FIRST == text
        assert "upstream_timeout" == error.code
        settled(short)

    def test_upstream_500_is_502_upstream_status(self, gw: Server) -> None:
        for stream in (False, True):
            with pytest.raises(openai.APIStatusError) as caught:
                create(gw, script(GOOD, status=500), stream=stream)
            assert (502, "upstream_status") == (caught.value.status_code, caught.value.code)
            assert "500" in caught.value.message
        settled(gw)

    def test_upstream_4xx_is_passed_on(self, gw: Server) -> None:
        with pytest.raises(openai.BadRequestError) as caught:
            create(gw, script(GOOD, status=400))
        assert "scripted failure" in caught.value.message

    def test_a_response_without_choices_is_502_upstream_malformed(self, gw: Server) -> None:
        with pytest.raises(openai.APIStatusError) as caught:
            create(gw, script(GOOD, fault="no_choices"))
        assert (502, "upstream_malformed") == (caught.value.status_code, caught.value.code)

    def test_malformed_sse_before_any_sentence_is_502(self, gw: Server, upstream: Server) -> None:
        scripted = script(LONG, fault="malformed", fault_at=2)
        with pytest.raises(openai.APIStatusError) as caught:
            create(gw, scripted, stream=True)
        assert (502, "upstream_malformed") == (caught.value.status_code, caught.value.code)
        settled(gw)

    def test_malformed_sse_midway_is_an_error_event_after_the_verified_text(
        self, gw: Server
    ) -> None:
        text, error = stream_until_error(gw, script(LONG, fault="malformed", fault_at=7))
        assert FIRST == text
        assert "upstream_malformed" == error.code
        settled(gw)

    def test_a_stream_cut_midway_is_an_error_event(self, gw: Server) -> None:
        text, error = stream_until_error(gw, script(LONG, fault="cut", fault_at=7))
        assert FIRST == text
        assert "upstream_stream_cut" == error.code
        settled(gw)

    def test_a_stream_without_done_is_cut(self, gw: Server) -> None:
        text, error = stream_until_error(gw, script(LONG, fault="no_done"))
        assert "upstream_stream_cut" == error.code
        assert LONG.startswith(text)
        settled(gw)


class TestRequestLimits:
    @pytest.mark.parametrize(
        ("relapse", "status", "code", "param"),
        [
            ({"chunks": ["a", "b", "c"]}, 400, "too_many_chunks", "relapse.chunks"),
            ({"chunks": ["x" * 501]}, 400, "chunks_too_long", "relapse.chunks"),
            ({"chunks": ["a"], "max_iterations": 4}, 400, "over_limit", "relapse.max_iterations"),
            ({"chunks": ["a"], "timeout": 301}, 400, "over_limit", "relapse.timeout"),
            ({"chunks": ["a"], "release": "word"}, 400, "invalid_value", "relapse.release"),
            ({"chunks": ["a"], "max_iteration": 2}, 400, "invalid_value", "relapse.max_iteration"),
            ({"chunks": [3]}, 400, "invalid_value", "relapse.chunks[0]"),
            ({"chunks": "a"}, 400, "invalid_value", "relapse.chunks"),
        ],
    )
    def test_a_request_over_a_limit_is_a_400_naming_the_field(
        self, short: Server, relapse: dict[str, Any], status: int, code: str, param: str
    ) -> None:
        with pytest.raises(openai.APIStatusError) as caught:
            client(short).chat.completions.create(
                model="scripted", messages=MESSAGES, extra_body={"relapse": relapse}
            )
        body = caught.value.body
        assert isinstance(body, dict)
        assert (status, code, param) == (caught.value.status_code, body["code"], body["param"])

    def test_an_oversized_body_is_413(self, short: Server) -> None:
        with pytest.raises(openai.APIStatusError) as caught:
            client(short).chat.completions.create(
                model="scripted",
                messages=[{"role": "user", "content": "x" * 4000}],
                extra_body={"relapse": {"chunks": ["a"]}},
            )
        assert (413, "request_too_large") == (caught.value.status_code, caught.value.code)

    def test_an_oversized_body_without_a_length_is_413(self, short: Server) -> None:
        """Sent chunked (no Content-Length): counted as it arrives."""

        def body() -> Iterator[bytes]:
            yield b'{"model": "scripted", "messages": [{"role": "user", "content": "'
            for _ in range(10):
                yield b"x" * 500
            yield b'"}]}'

        response = httpx.post(short.v1 + "/chat/completions", content=body(), timeout=10)
        assert (413, "request_too_large") == (
            response.status_code,
            response.json()["error"]["code"],
        )

    def test_a_body_that_is_not_json_is_400(self, gw: Server) -> None:
        response = httpx.post(gw.v1 + "/chat/completions", content=b"{nope", timeout=10)
        assert 400 == response.status_code
        assert {"message", "type", "param", "code"} == set(response.json()["error"])

    def test_one_request_past_the_concurrency_limit_is_503(self, short: Server) -> None:
        first = threading.Thread(
            target=lambda: _read_stalling(short, script(LONG, fault="stall", fault_at=7)),
        )
        first.start()
        try:
            deadline = time.monotonic() + 10
            while short.get("/health")["in_flight"] < 1:
                assert time.monotonic() < deadline
                time.sleep(0.02)
            with pytest.raises(openai.APIStatusError) as caught:
                create(short, script(GOOD))
            assert (503, "gateway_busy") == (caught.value.status_code, caught.value.code)
            assert "1" == caught.value.response.headers["retry-after"]
        finally:
            first.join(timeout=30)
        settled(short)


def _read_stalling(gw: Server, scripted: dict[str, Any]) -> None:
    """A stream that stalls midway: read until the gateway's 0.5 s upstream timeout ends it."""
    with pytest.raises(openai.APIError):
        for _ in create(gw, scripted, stream=True):
            pass


def _raw_request(gw: Server, body: dict[str, Any]) -> socket.socket:
    """Send a chat request over a raw socket (so that the test can drop the connection)."""
    payload = json.dumps(body).encode()
    port = int(gw.url.rsplit(":", 1)[1])
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall(
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/json\r\nContent-Length: "
        + str(len(payload)).encode()
        + b"\r\n\r\n"
        + payload
    )
    return sock


class TestDisconnect:
    def test_a_client_leaving_mid_stream_cancels_the_upstream_stream(
        self, gw: Server, upstream: Server
    ) -> None:
        """The upstream sees its stream closed, and the gateway keeps nothing behind."""
        scripted = script(LONG, fault="hang", fault_at=7)
        body = {"model": "scripted", "messages": MESSAGES, "stream": True, **ask(CHUNKS, scripted)}
        sock = _raw_request(gw, body)
        received = b""
        while FIRST.split()[-1].encode() not in received:
            part = sock.recv(65536)
            assert part, received
            received += part
        assert gw.get("/health")["upstream_streams_open"] >= 1
        sock.close()
        settled(gw)
        deadline = time.monotonic() + 10
        while not upstream.get(f"/record/{scripted['id']}")["streams"][0]["closed_early"]:
            assert time.monotonic() < deadline, "the upstream stream was never closed"
            time.sleep(0.05)

    def test_a_client_leaving_while_the_gateway_waits_cancels_the_request(self, gw: Server) -> None:
        """Nothing was sent yet (the upstream is slow): the request still ends at once."""
        body = {"model": "scripted", "messages": MESSAGES, **ask(CHUNKS, script(GOOD, delay=20))}
        sock = _raw_request(gw, body)
        deadline = time.monotonic() + 10
        while gw.get("/health")["in_flight"] < 1:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        sock.close()
        began = time.monotonic()
        settled(gw, within_s=5)
        assert time.monotonic() - began < 5


class TestShutdown:
    def test_sigterm_drains_a_stream_in_flight(self, upstream: Server) -> None:
        """The stream under way completes, [DONE] and report included; then the process ends."""
        with gateway(upstream.v1) as gw:
            scripted = script(LONG, pace=0.15)
            stream = create(gw, scripted, stream=True)
            chunks = iter(stream)
            first = next(chunks)
            os.kill(gw.process.pid, signal.SIGTERM)
            rest = list(chunks)
            text = "".join(c.choices[0].delta.content or "" for c in [first, *rest] if c.choices)
            assert LONG == text
            assert "grounded_first_try" == rest[-1].model_extra["relapse"]["outcome"]
            # uvicorn ends by re-raising the signal once it drained and shut down.
            assert -signal.SIGTERM == gw.process.wait(timeout=30)
            assert "Application shutdown complete" in gw.output()
