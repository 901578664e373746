"""relapse.integrations.mcp and `relapse mcp`, driven by the mcp package's own Client."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the mcp extra: pip install 'relapse[mcp]'")
from mcp import Client, StdioServerParameters

import relapse
from llama_server import free_port
from relapse._telemetry import attributes as attr
from relapse.integrations.mcp import build_server
from relapse.testing import CapturedSpans

CHUNKS = ["The Golden Gate Bridge opened on May 27, 1937.", "Its main span is 1,280 metres long."]
QUESTION = "How long is the main span?"
WRONG, RIGHT = "Its main span is 1,500 metres long.", "Its main span is 1,280 metres long."
NOTE = (
    'Your previous answer was rejected: "Its main span is 1,500 metres long." states things'
    " the context does not support: FG001: 1 number(s) not in the retrieved chunks: '1,500'"
    ' ["1,500"]. Answer using only the context; if the context does not say the answer,'
)
SRC = Path(__file__).resolve().parents[2] / "src"


def _environment() -> dict[str, str]:
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(SRC), environment.get("PYTHONPATH", "")) if p
    )
    return environment


#: `relapse mcp` as a user starts it, with this checkout's relapse.
COMMAND = [sys.executable, "-c", "from relapse.cli import main; main()", "mcp"]


def _args(answer: str, **more: Any) -> dict[str, Any]:
    return {"question": QUESTION, "chunks": CHUNKS, "answer": answer, **more}


async def _recover(client: Client) -> tuple[dict[str, Any], dict[str, Any]]:
    """A wrong first answer, then the right one under the call_id the first returned."""
    first = await client.call_tool("check_answer", _args(WRONG, input_tokens=40, output_tokens=9))
    assert not first.is_error, first
    assert first.structured_content is not None
    second = await client.call_tool(
        "check_answer",
        _args(
            RIGHT, call_id=first.structured_content["call_id"], input_tokens=95, output_tokens=11
        ),
    )
    assert not second.is_error, second
    assert second.structured_content is not None
    return first.structured_content, second.structured_content


def _assert_recovered(first: dict[str, Any], second: dict[str, Any]) -> None:
    assert False is first["grounded"]
    assert 1 == first["iteration"]
    assert [
        {
            "code": "FG001",
            "severity": "error",
            "message": "1 number(s) not in the retrieved chunks: '1,500'",
            "spans": [{"text": "1,500", "start": 17, "end": 22}],
        }
    ] == first["findings"]
    assert "1,500" == WRONG[17:22]
    assert first["retry_note"].startswith(NOTE.split(" if the context")[0])
    assert None is first["outcome"]
    assert 32 == len(first["call_id"])
    assert {
        "grounded": True,
        "iteration": 2,
        "findings": [],
        "citations": [
            {
                "claim": "1,280",
                "number": 1,
                "chunk_index": 1,
                "chunk_id": None,
                "chunk_start": 17,
                "chunk_end": 22,
            }
        ],
        "retry_note": None,
        "call_id": None,
        "outcome": "recovered",
        "answer": RIGHT,
        "answer_grounded": True,
        "input_tokens": 135,
        "output_tokens": 20,
    } == second


class TestTransports:
    async def test_stdio(self) -> None:
        """`relapse mcp` over stdio: the client lists both tools and recovers a wrong number."""
        params = StdioServerParameters(command=COMMAND[0], args=COMMAND[1:], env=_environment())
        async with Client(params) as client:
            listed = await client.list_tools()
            assert ["check_answer", "retry_note"] == sorted(t.name for t in listed.tools)
            first, second = await _recover(client)
        _assert_recovered(first, second)

    async def test_streamable_http_on_loopback(self) -> None:
        """`relapse mcp --transport http` serves /mcp on 127.0.0.1; the same recovery over HTTP."""
        port = free_port()
        with _http_server(port):
            async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                first, second = await _recover(client)
        _assert_recovered(first, second)


def _listening(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


@contextmanager
def _http_server(port: int) -> Iterator[subprocess.Popen[bytes]]:
    """`relapse mcp --transport http --port PORT`, until it listens; terminated by its pid."""
    process = subprocess.Popen(
        [*COMMAND, "--transport", "http", "--port", str(port)],
        env=_environment(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while not _listening(port):
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                _, err = process.communicate(timeout=10)
                pytest.fail(f"relapse mcp --transport http did not start: {err.decode()}")
            time.sleep(0.1)
        yield process
    finally:
        process.terminate()
        process.wait(timeout=20)


class TestTools:
    async def test_one_span_per_answer_under_one_call_span(self, spans: CapturedSpans) -> None:
        """Two answers of one call_id: one `relapse mcp` call span, two iteration spans."""
        server = build_server(max_iterations=3, tracer_provider=spans.provider)
        async with Client(server) as client:
            await _recover(client)
        (call,) = spans.named("relapse mcp")
        iterations = spans.named(attr.ITERATION_SPAN_NAME)
        assert [1, 2] == [s.attributes[attr.RELAPSE_ITERATION] for s in iterations]
        assert all(
            s.parent is not None and s.parent.span_id == call.context.span_id for s in iterations
        )
        assert "recovered" == call.attributes[attr.RELAPSE_OUTCOME]

    async def test_exhausted_returns_the_best_answer(self) -> None:
        """max_iterations=2 ends at the second answer; on_exhausted='best' picks the first."""
        server = build_server(max_iterations=2, on_exhausted="best")
        async with Client(server) as client:
            first = await client.call_tool("check_answer", _args(WRONG))
            assert first.structured_content is not None
            worse = "It is 1,500 metres long and 99 metres wide."
            second = await client.call_tool(
                "check_answer", _args(worse, call_id=first.structured_content["call_id"])
            )
        assert second.structured_content is not None
        report = second.structured_content
        assert ("exhausted", WRONG, False) == (
            report["outcome"],
            report["answer"],
            report["answer_grounded"],
        )
        assert None is report["call_id"]
        assert [["1,500", "99"]] == [[s["text"] for s in f["spans"]] for f in report["findings"]]

    async def test_a_grounded_first_answer_ends_the_call(self) -> None:
        server = build_server()
        async with Client(server) as client:
            result = await client.call_tool("check_answer", _args(RIGHT))
        assert result.structured_content is not None
        assert ("grounded_first_try", None, None) == (
            result.structured_content["outcome"],
            result.structured_content["call_id"],
            result.structured_content["retry_note"],
        )

    async def test_an_ended_call_id_is_an_error_naming_it(self) -> None:
        server = build_server()
        async with Client(server) as client:
            result = await client.call_tool("check_answer", _args(RIGHT, call_id="0" * 32))
        assert result.is_error
        assert "call_id '00000000000000000000000000000000' is no open check_answer call" in str(
            result.content
        )

    async def test_retry_note(self) -> None:
        """The note names the failing span; a grounded answer gets an empty note."""
        server = build_server()
        async with Client(server) as client:
            wrong = await client.call_tool("retry_note", _args(WRONG))
            right = await client.call_tool("retry_note", _args(RIGHT))
        assert wrong.structured_content is not None
        assert wrong.structured_content["result"].startswith(NOTE.split(" if the context")[0])
        assert {"result": ""} == right.structured_content

    async def test_the_oldest_open_call_is_ended_past_the_cap(self) -> None:
        server = build_server(max_open_calls=1)
        async with Client(server) as client:
            first = await client.call_tool("check_answer", _args(WRONG))
            await client.call_tool("check_answer", _args(WRONG))
            assert first.structured_content is not None
            again = await client.call_tool(
                "check_answer", _args(RIGHT, call_id=first.structured_content["call_id"])
            )
        assert again.is_error

    def test_bad_options_fail_when_building(self) -> None:
        with pytest.raises(ValueError, match="retrieve= cannot reach"):
            build_server(retrieve=lambda attempt: None)
        with pytest.raises(ValueError, match="max_open_calls must be >= 1, got 0"):
            build_server(max_open_calls=0)
        with pytest.raises(TypeError, match="loop= or loop options, not both"):
            build_server(loop=relapse.Loop(), max_iterations=2)


def test_missing_extra_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the mcp package, importing the module names the extra."""
    monkeypatch.setitem(sys.modules, "mcp.server.mcpserver", None)
    monkeypatch.delitem(sys.modules, "relapse.integrations.mcp")
    with pytest.raises(ImportError, match=r"pip install 'relapse\[mcp\]'"):
        import relapse.integrations.mcp  # noqa: F401
