"""
relapse.integrations.phoenix.PhoenixAnnotationExporter against a loopback HTTP server.

The server (``http.server`` in a thread, on a free loopback port) records
every request and answers as the test tells it. The bodies expected are
written out by hand from Phoenix's annotation schema (``POST
/v1/span_annotations`` with ``{"data": [{"span_id", "name",
"annotator_kind", "result": {"label", "score", "explanation"}}]}``, the span
id as 16 lowercase hex digits) and OpenInference's inline evaluation keys
(``evaluations.N.evaluation.*``). tests/e2e/test_phoenix.py posts to a real
Phoenix.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import socket
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, cast

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.id_generator import IdGenerator

import relapse
from relapse.integrations.phoenix import PhoenixAnnotationExporter
from relapse.testing import ScriptedLLM

#: The W3C trace-context example ids: the span id's leading zeros must stay.
TRACE_ID = 0x4BF92F3577B34DA6A3CE929D0E0E4736
SPAN_ID = 0x00F067AA0BA902B7
SPAN_HEX = "00f067aa0ba902b7"

FAIL = {
    "evaluations.0.evaluation.name": "relapse.default",
    "evaluations.0.evaluation.label": "fail",
    "evaluations.0.evaluation.score": 0.0,
    "evaluations.0.evaluation.annotator_kind": "CODE",
    "evaluations.0.evaluation.explanation": "FG002: 1 failing span(s)",
}
PASS = {
    "evaluations.1.evaluation.name": "judge",
    "evaluations.1.evaluation.label": "pass",
    "evaluations.1.evaluation.score": 1.0,
    "evaluations.1.evaluation.annotator_kind": "LLM",
}


@dataclass
class Request:
    method: str
    path: str
    headers: Message
    body: bytes


@dataclass
class Phoenix:
    """What the loopback server received, and how it answers."""

    base: str
    requests: list[Request] = field(default_factory=list)
    #: The status it answers with.
    status: int = 200
    #: While set, the server waits for release before it answers (a hung Phoenix).
    hang: bool = False
    #: While set, the server sends its headers, then one body byte every
    #: 50 ms until release or for 30 s (a Phoenix that trickles its reply).
    trickle: bool = False
    #: Extra headers of the answer (a Location for a redirect).
    answer_headers: dict[str, str] = field(default_factory=dict)
    release: threading.Event = field(default_factory=threading.Event)

    def bodies(self) -> list[Any]:
        return [json.loads(r.body) for r in self.requests]


@pytest.fixture
def phoenix() -> Iterator[Phoenix]:
    """A loopback HTTP server standing in for Phoenix's REST API."""
    with serve() as state:
        yield state


@contextlib.contextmanager
def serve() -> Iterator[Phoenix]:
    """Start a loopback server standing in for Phoenix; stop it on exit."""
    state: Phoenix

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            state.requests.append(Request("POST", self.path, self.headers, self.rfile.read(length)))
            if state.hang:
                state.release.wait(30)
            body = b'{"data": []}'
            try:
                self.send_response(state.status)
                self.send_header("Content-Type", "application/json")
                for name, value in state.answer_headers.items():
                    self.send_header(name, value)
                if state.trickle:
                    self.end_headers()
                    # At most 30 s, so an exporter without a deadline fails
                    # the test (reading SUCCESS) instead of hanging it.
                    for _ in range(600):
                        if state.release.wait(0.05):
                            break
                        self.wfile.write(b" ")
                        self.wfile.flush()
                    self.close_connection = True
                    return
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            except ConnectionError:
                # After a hang: the exporter timed out and closed the connection.
                self.close_connection = True

        def do_GET(self) -> None:
            state.requests.append(Request("GET", self.path, self.headers, b""))
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    state = Phoenix(base=f"http://127.0.0.1:{server.server_address[1]}")
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield state
    finally:
        state.release.set()
        server.shutdown()
        server.server_close()
        thread.join(10)


class FixedIds(IdGenerator):
    """Every span gets the W3C example ids."""

    def generate_span_id(self) -> int:
        return SPAN_ID

    def generate_trace_id(self) -> int:
        return TRACE_ID


def finished(*attribute_sets: Mapping[str, Any]) -> list[ReadableSpan]:
    """One finished span per attribute set, each with the fixed ids."""
    memory = InMemorySpanExporter()
    provider = TracerProvider(id_generator=FixedIds())
    provider.add_span_processor(SimpleSpanProcessor(memory))
    tracer = provider.get_tracer("test")
    for attributes in attribute_sets:
        with tracer.start_as_current_span("relapse.iteration", attributes=dict(attributes)):
            pass
    provider.shutdown()
    return list(memory.get_finished_spans())


def test_a_pass_and_a_fail_evaluation_are_one_post_of_two_annotations(phoenix: Phoenix) -> None:
    exporter = PhoenixAnnotationExporter(phoenix.base)
    assert SpanExportResult.SUCCESS is exporter.export(finished({**FAIL, **PASS}))

    ((request,),) = [phoenix.requests]
    assert ("POST", "/v1/span_annotations") == (request.method, request.path)
    assert ["application/json"] == request.headers.get_all("Content-Type")
    assert {
        "data": [
            {
                "span_id": SPAN_HEX,
                "name": "relapse.default",
                "annotator_kind": "CODE",
                "result": {
                    "label": "fail",
                    "score": 0.0,
                    "explanation": "FG002: 1 failing span(s)",
                },
            },
            {
                "span_id": SPAN_HEX,
                "name": "judge",
                "annotator_kind": "LLM",
                "result": {"label": "pass", "score": 1.0},
            },
        ]
    } == json.loads(request.body)


def test_a_batch_is_one_request_with_every_span_s_evaluations(phoenix: Phoenix) -> None:
    exporter = PhoenixAnnotationExporter(phoenix.base)
    assert SpanExportResult.SUCCESS is exporter.export(finished(FAIL, {}, PASS))
    assert [
        [("relapse.default", "fail"), ("judge", "pass")],
    ] == [[(a["name"], a["result"]["label"]) for a in body["data"]] for body in phoenix.bodies()]


def test_spans_without_evaluations_send_no_request(phoenix: Phoenix) -> None:
    exporter = PhoenixAnnotationExporter(phoenix.base)
    no_evaluation = finished(
        {},
        {"relapse.grounded": False, "gen_ai.evaluation.name": "relapse.default"},
        # An evaluation Phoenix would refuse the whole request for: no name,
        # a name it reserves, an annotator kind it does not know, none.
        {
            "evaluations.0.evaluation.label": "fail",
            "evaluations.0.evaluation.annotator_kind": "CODE",
        },
        {**FAIL, "evaluations.0.evaluation.name": "note"},
        {**FAIL, "evaluations.0.evaluation.annotator_kind": "ROBOT"},
        {key: value for key, value in FAIL.items() if not key.endswith("annotator_kind")},
    )
    assert SpanExportResult.SUCCESS is exporter.export(no_evaluation)
    assert SpanExportResult.SUCCESS is exporter.export([])
    assert [] == phoenix.requests


def test_a_refused_evaluation_does_not_hold_back_the_others(phoenix: Phoenix) -> None:
    exporter = PhoenixAnnotationExporter(phoenix.base)
    batch = finished({**FAIL, **PASS, "evaluations.1.evaluation.annotator_kind": "ROBOT"})
    assert SpanExportResult.SUCCESS is exporter.export(batch)
    assert [["relapse.default"]] == [[a["name"] for a in b["data"]] for b in phoenix.bodies()]


def test_a_score_that_is_not_a_finite_number_is_left_out(phoenix: Phoenix) -> None:
    # NaN is not JSON (json.dumps would write NaN, Phoenix would refuse the
    # batch); a bool is not a score.
    exporter = PhoenixAnnotationExporter(phoenix.base)
    spans = finished(
        {**FAIL, "evaluations.0.evaluation.score": float("nan")},
        {**PASS, "evaluations.1.evaluation.score": True},
    )
    assert SpanExportResult.SUCCESS is exporter.export(spans)
    (body,) = phoenix.bodies()
    assert [
        {"label": "fail", "explanation": "FG002: 1 failing span(s)"},
        {"label": "pass"},
    ] == [a["result"] for a in body["data"]]


def test_headers_are_sent_with_the_json_content_type(phoenix: Phoenix) -> None:
    exporter = PhoenixAnnotationExporter(
        phoenix.base,
        headers={"Authorization": "Bearer secret-key", "x-project-name": "p", "content-type": "x"},
    )
    assert SpanExportResult.SUCCESS is exporter.export(finished(FAIL))
    (request,) = phoenix.requests
    assert ["Bearer secret-key"] == request.headers.get_all("Authorization")
    assert ["p"] == request.headers.get_all("X-Project-Name")
    # The body is JSON whatever a header said.
    assert ["application/json"] == request.headers.get_all("Content-Type")


def test_an_endpoint_with_a_root_path_keeps_it(phoenix: Phoenix) -> None:
    exporter = PhoenixAnnotationExporter(phoenix.base + "/phoenix/")
    assert phoenix.base + "/phoenix/v1/span_annotations" == exporter.url
    assert SpanExportResult.SUCCESS is exporter.export(finished(FAIL))
    assert ["/phoenix/v1/span_annotations"] == [r.path for r in phoenix.requests]


@pytest.mark.parametrize("status", [400, 404, 422, 500, 503])
def test_an_http_error_is_a_failure_not_an_exception(
    phoenix: Phoenix, status: int, caplog: pytest.LogCaptureFixture
) -> None:
    phoenix.status = status
    exporter = PhoenixAnnotationExporter(phoenix.base)
    with caplog.at_level(logging.WARNING, logger="relapse.telemetry"):
        assert SpanExportResult.FAILURE is exporter.export(finished(FAIL, PASS))
    assert 1 == len(phoenix.requests)
    (record,) = caplog.records
    assert f"Phoenix refused 2 annotation(s) at {exporter.url}: HTTP {status}" in record.message
    assert record.exc_info is None


def test_a_hung_phoenix_is_a_failure_after_the_timeout(
    phoenix: Phoenix, caplog: pytest.LogCaptureFixture
) -> None:
    # The server answers only once the test releases it, after export
    # returned: export can only have returned through its timeout.
    phoenix.hang = True
    exporter = PhoenixAnnotationExporter(phoenix.base, timeout=0.2)
    with caplog.at_level(logging.WARNING, logger="relapse.telemetry"):
        assert SpanExportResult.FAILURE is exporter.export(finished(FAIL))
    phoenix.release.set()
    (record,) = caplog.records
    assert record.message.startswith(f"could not post annotations to {exporter.url}: ")
    assert "timed out" in record.message


def test_a_trickled_reply_is_cut_off_at_the_whole_export_s_timeout(
    phoenix: Phoenix, caplog: pytest.LogCaptureFixture
) -> None:
    # Each read gets a byte well within the timeout, and the reply never
    # ends until the test releases it after export returned: export can
    # only have returned through a deadline on the export as a whole.
    phoenix.trickle = True
    exporter = PhoenixAnnotationExporter(phoenix.base, timeout=0.5)
    with caplog.at_level(logging.WARNING, logger="relapse.telemetry"):
        result = exporter.export(finished(FAIL))
    phoenix.release.set()
    assert SpanExportResult.FAILURE is result
    (record,) = caplog.records
    assert f"could not post annotations to {exporter.url}: timed out after 0.5 s" == record.message


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_a_redirect_is_not_followed_and_is_a_failure(
    status: int, caplog: pytest.LogCaptureFixture
) -> None:
    """The annotations and the authorization go to the configured host only."""
    with serve() as phoenix, serve() as elsewhere:
        target = elsewhere.base + "/v1/span_annotations"
        phoenix.status = status
        phoenix.answer_headers = {"Location": target}
        exporter = PhoenixAnnotationExporter(phoenix.base, headers={"authorization": "Bearer s3"})
        with caplog.at_level(logging.WARNING, logger="relapse.telemetry"):
            assert SpanExportResult.FAILURE is exporter.export(finished(FAIL))
        assert [] == elsewhere.requests
        assert ["POST"] == [r.method for r in phoenix.requests]
        (record,) = caplog.records
        assert f"with HTTP {status} " in record.message
        assert f"a redirect to {target}; not followed" in record.message


def test_no_phoenix_listening_is_a_failure(caplog: pytest.LogCaptureFixture) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    # Nothing listens on the port once the socket is closed.
    exporter = PhoenixAnnotationExporter(f"http://127.0.0.1:{port}", timeout=5)
    with caplog.at_level(logging.WARNING, logger="relapse.telemetry"):
        assert SpanExportResult.FAILURE is exporter.export(finished(FAIL))
    (record,) = caplog.records
    assert record.message.startswith(f"could not post annotations to {exporter.url}: ")
    assert record.exc_info is None


def test_a_span_that_cannot_be_read_is_a_failure(
    phoenix: Phoenix, caplog: pytest.LogCaptureFixture
) -> None:
    class Unreadable:
        @property
        def context(self) -> object:
            raise RuntimeError("broken span")

        attributes = FAIL

    exporter = PhoenixAnnotationExporter(phoenix.base)
    with caplog.at_level(logging.WARNING, logger="relapse.telemetry"):
        result = exporter.export([cast(ReadableSpan, Unreadable()), *finished(PASS)])
    assert SpanExportResult.FAILURE is result
    assert [] == phoenix.requests
    (record,) = caplog.records
    assert record.exc_info is not None
    assert "broken span" == str(record.exc_info[1])


def test_after_shutdown_nothing_is_sent(phoenix: Phoenix) -> None:
    exporter = PhoenixAnnotationExporter(phoenix.base)
    assert exporter.force_flush() is True
    exporter.shutdown()
    assert SpanExportResult.FAILURE is exporter.export(finished(FAIL))
    assert [] == phoenix.requests


def test_relapse_s_iteration_spans_each_become_one_annotation(phoenix: Phoenix) -> None:
    """A recovered call: one rejected iteration (FG002, a year not in the docs), one grounded."""
    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    provider.add_span_processor(SimpleSpanProcessor(PhoenixAnnotationExporter(phoenix.base)))
    model = ScriptedLLM(["It opened in 1933.", "It opened on 27 May 1937."])

    @relapse.grounded(chunks_arg="docs", tracer_provider=provider)
    def answer(query: str, docs: list[str]) -> str:
        return model(query)

    result = answer.run("When did the bridge open?", ["The bridge opened on 27 May 1937."])
    provider.shutdown()
    assert ("recovered", 2) == (result.outcome, result.iterations)

    iterations = [s for s in memory.get_finished_spans() if s.name == "relapse.iteration"]
    # One request per iteration span (SimpleSpanProcessor exports each span
    # as it ends); the call and check spans carry no evaluation.
    assert [
        {
            "data": [
                {
                    "span_id": format(iterations[0].context.span_id, "016x"),
                    "name": "relapse.default",
                    "annotator_kind": "CODE",
                    # Content capture is off: codes and counts only.
                    "result": {
                        "label": "fail",
                        "score": 0.0,
                        "explanation": "FG002: 1 failing span(s)",
                    },
                }
            ]
        },
        {
            "data": [
                {
                    "span_id": format(iterations[1].context.span_id, "016x"),
                    "name": "relapse.default",
                    "annotator_kind": "CODE",
                    "result": {"label": "pass", "score": 1.0},
                }
            ]
        },
    ] == phoenix.bodies()


@pytest.mark.parametrize(
    "endpoint",
    [
        "localhost:6006",  # no scheme: urllib reads "localhost" as one
        "ftp://localhost:6006",
        "http://",
        "http://:6006",
        "http://localhost:99999",
        "http://localhost:port",
        "http://user:secret@localhost:6006",
        "http://localhost:6006/?project=p",
        "http://localhost:6006/#top",
        "http://localhost:6006/v1/traces",
        "http://localhost:6006/v1/span_annotations",
        "http://localhost:6006/phoenix/v1",
        "",
    ],
)
def test_an_endpoint_that_is_not_a_base_address_is_a_value_error(endpoint: str) -> None:
    with pytest.raises(ValueError, match=r"^endpoint .*" + re.escape(repr(endpoint))):
        PhoenixAnnotationExporter(endpoint)


def test_an_endpoint_that_is_not_a_str_is_a_type_error() -> None:
    with pytest.raises(TypeError, match=r"^endpoint must be a str, got bytes$"):
        PhoenixAnnotationExporter(b"http://localhost:6006")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("timeout", "error"),
    [
        (0, ValueError),
        (-1.0, ValueError),
        (float("nan"), ValueError),
        (float("inf"), ValueError),
        (True, TypeError),
        ("10", TypeError),
    ],
)
def test_a_bad_timeout_names_the_argument(timeout: object, error: type[Exception]) -> None:
    with pytest.raises(error, match=r"^timeout "):
        PhoenixAnnotationExporter(timeout=timeout)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("headers", "error"),
    [
        ([("Authorization", "Bearer k")], TypeError),
        ({"Authorization": b"Bearer k"}, TypeError),
        ({"x-a\r\nx-b": "v"}, ValueError),
        ({"x-a": "v\r\nx-b: w"}, ValueError),
        ({"x a": "v"}, ValueError),
        ({"x-a:": "v"}, ValueError),
        ({"": "v"}, ValueError),
    ],
)
def test_bad_headers_name_the_argument(headers: object, error: type[Exception]) -> None:
    with pytest.raises(error, match=r"^headers "):
        PhoenixAnnotationExporter(headers=headers)  # type: ignore[arg-type]
