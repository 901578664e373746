"""examples/otel-collector: the YAML files are consistent, app.py exports the documented trace."""

from __future__ import annotations

import gzip
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue

from helpers import assert_rejected_then_grounded

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "otel-collector"
ENV_REFERENCE = re.compile(r"^\$\{(env:)?[A-Z_][A-Z0-9_]*(:-[^}]*)?\}$")


def load(name: str) -> dict[str, Any]:
    loaded = yaml.safe_load((EXAMPLE / name).read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return loaded


class TestCollectorConfig:
    def test_pipelines_name_only_defined_components(self) -> None:
        """Every receiver, processor and exporter a pipeline names is defined above it."""
        config = load("collector.yaml")
        pipelines = config["service"]["pipelines"]
        assert "traces" in pipelines
        for name, pipeline in pipelines.items():
            for kind in ("receivers", "processors", "exporters"):
                named = pipeline.get(kind, [])
                assert named or kind == "processors", (name, kind)
                assert set(named) <= set(config.get(kind) or {}), (name, kind)

    def test_required_components(self) -> None:
        """OTLP gRPC+HTTP in, batch, Jaeger over OTLP, Honeycomb over OTLP/HTTP, debug."""
        config = load("collector.yaml")
        assert {"grpc", "http"} == set(config["receivers"]["otlp"]["protocols"])
        assert "batch" in config["processors"]
        exporters = config["exporters"]
        assert "jaeger:4317" == exporters["otlp_grpc/jaeger"]["endpoint"]
        assert "https://api.honeycomb.io" == exporters["otlp_http/honeycomb"]["endpoint"]
        assert "debug" in exporters
        assert ["otlp_grpc/jaeger", "otlp_http/honeycomb", "debug"] == config["service"][
            "pipelines"
        ]["traces"]["exporters"]

    def test_no_inline_secret(self) -> None:
        """Every header value (the Honeycomb key among them) is an ${env:...} reference."""
        config = load("collector.yaml")
        headers = {
            (name, key): value
            for name, exporter in config["exporters"].items()
            for key, value in ((exporter or {}).get("headers") or {}).items()
        }
        assert ("otlp_http/honeycomb", "x-honeycomb-team") in headers
        assert "${env:HONEYCOMB_API_KEY}" == headers[("otlp_http/honeycomb", "x-honeycomb-team")]
        for value in headers.values():
            assert ENV_REFERENCE.match(str(value)), value
        text = (EXAMPLE / "collector.yaml").read_text(encoding="utf-8")
        assert not re.search(r"(?i)(api[_-]?key|token|secret)\s*:\s*[A-Za-z0-9]{8,}", text)


class TestCompose:
    def test_services(self) -> None:
        """The contrib collector with our config mounted, and Jaeger all-in-one with its UI."""
        services = load("docker-compose.yaml")["services"]
        collector, jaeger = services["collector"], services["jaeger"]
        assert collector["image"].startswith("otel/opentelemetry-collector-contrib:")
        assert any(v.startswith("./collector.yaml:") for v in collector["volumes"])
        assert {"4317:4317", "4318:4318"} <= set(collector["ports"])
        assert jaeger["image"].startswith("jaegertracing/all-in-one:")
        assert "16686:16686" in jaeger["ports"]

    def test_secrets_come_from_the_shell(self) -> None:
        """Environment values that name a key are ${VAR} references, never literals."""
        for service in load("docker-compose.yaml")["services"].values():
            for key, value in (service.get("environment") or {}).items():
                if re.search(r"KEY|TOKEN|SECRET", key):
                    assert ENV_REFERENCE.match(str(value)), (key, value)


@dataclass
class Receiver:
    """What an OTLP/HTTP receiver on loopback got."""

    endpoint: str
    requests: list[tuple[str, dict[str, str], ExportTraceServiceRequest]] = field(
        default_factory=list
    )


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    got = Receiver("")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            if self.headers.get("Content-Encoding") == "gzip":
                body = gzip.decompress(body)
            request = ExportTraceServiceRequest()
            request.ParseFromString(body)
            got.requests.append((self.path, dict(self.headers.items()), request))
            reply = ExportTraceServiceResponse().SerializeToString()
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    got.endpoint = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield got
    finally:
        server.shutdown()
        server.server_close()


def value(any_value: AnyValue) -> Any:
    kind = any_value.WhichOneof("value")
    if kind == "array_value":
        return tuple(value(v) for v in any_value.array_value.values)
    if kind is None:  # an empty array arrives as an AnyValue with nothing set
        return ()
    return getattr(any_value, kind)


def run_app(endpoint: str, **extra_env: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    env.update(OTEL_EXPORTER_OTLP_ENDPOINT=endpoint, **extra_env)
    return subprocess.run(
        [sys.executable, str(EXAMPLE / "app.py")],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


class TestApp:
    def test_exports_the_documented_trace(self, receiver: Receiver) -> None:
        """Span names, parent links, relapse.* attributes and service.name, over real OTLP/HTTP."""
        done = run_app(receiver.endpoint, OTEL_EXPORTER_OTLP_HEADERS="x-honeycomb-team=test-key")
        assert 0 == done.returncode, done.stderr
        assert "outcome: recovered after 2 iteration(s)" in done.stdout
        assert receiver.requests
        spans: list[tuple[str, dict[str, Any], Any]] = []
        for path, headers, request in receiver.requests:
            assert "/v1/traces" == path
            assert "test-key" == {k.lower(): v for k, v in headers.items()}["x-honeycomb-team"]
            for resource_spans in request.resource_spans:
                resource = {a.key: value(a.value) for a in resource_spans.resource.attributes}
                assert "relapse-example" == resource["service.name"]
                for scope_spans in resource_spans.scope_spans:
                    spans.extend((scope_spans.scope.name, resource, s) for s in scope_spans.spans)
        assert 8 == len(spans)  # root, call, 2 iterations, their 2 chats and 2 checks
        by_name: dict[str, list[Any]] = {}
        for _, _, span in sorted(spans, key=lambda s: s[2].start_time_unix_nano):
            by_name.setdefault(span.name, []).append(span)
        (root,) = by_name["answer question"]
        (call,) = by_name["relapse answer"]
        first, second = by_name["relapse.iteration"]
        chats = by_name["chat scripted-model"]
        checks = by_name["relapse.check"]
        assert b"" == root.parent_span_id
        assert root.span_id == call.parent_span_id
        assert [call.span_id] * 2 == [first.parent_span_id, second.parent_span_id]
        assert [first.span_id, second.span_id] == [c.parent_span_id for c in chats]
        assert [first.span_id, second.span_id] == [c.parent_span_id for c in checks]
        assert {root.trace_id} == {s.trace_id for _, _, s in spans}
        assert {"relapse"} == {scope for scope, _, s in spans if s.name.startswith("relapse")}

        def attributes(span: Any) -> dict[str, Any]:
            return {a.key: value(a.value) for a in span.attributes}

        assert {
            "relapse.max_iterations": 3,
            "code.function.name": "answer",
            "relapse.chunks.count": 2,
            "relapse.iterations": 2,
            "relapse.grounded": True,
            "relapse.outcome": "recovered",
            "relapse.usage.known": False,  # the scripted model reports no tokens
            "openinference.span.kind": "CHAIN",
            "langfuse.observation.type": "chain",
        } == attributes(call)
        assert_rejected_then_grounded(attributes(first), attributes(second))
        verdict = ("relapse.grounded", "relapse.findings.codes", "relapse.findings.count")
        for iteration, check in zip((first, second), checks, strict=True):
            # The check span repeats its iteration's verdict, as a guardrail.
            assert {
                "openinference.span.kind": "GUARDRAIL",
                "langfuse.observation.type": "guardrail",
                "gen_ai.evaluation.name": "relapse.default",
                **{key: attributes(iteration)[key] for key in verdict},
            } == attributes(check)
        labels = [
            [attributes(e)["gen_ai.evaluation.score.label"] for e in s.events]
            for s in (first, second)
        ]
        assert [["fail"], ["pass"]] == labels
        # Content capture is off by default: no answer text leaves the process.
        texts = [v for s in (call, first, second, *checks) for v in attributes(s).values()] + [
            v for s in (first, second) for e in s.events for v in attributes(e).values()
        ]
        assert not [t for t in texts if isinstance(t, str) and ("1933" in t or "opened" in t)]
