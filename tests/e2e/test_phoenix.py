"""
End to end against a real tracing backend: Arize Phoenix.

``phoenix serve`` runs as a subprocess on free loopback ports with its working
directory in a temp folder; ``examples/otel-collector/app.py`` exports its
trace to it with the real OTLP/HTTP exporter; the spans are read back through
Phoenix's REST API (``GET /v1/projects/{project}/spans``). The snippet of
docs/integrations/tracing-backends.md ("The verdict as a Phoenix annotation")
runs against the same Phoenix, and its iterations' verdicts are read back as
Phoenix annotations (``GET /v1/projects/{project}/span_annotations``).

Phoenix is heavy and pins its own dependencies, so it lives in its own
virtualenv. The test finds its ``phoenix`` executable through
``RELAPSE_PHOENIX_BIN``, else on ``PATH``, and is skipped when neither has it::

    python3 -m venv /work/phoenix-venv
    /work/phoenix-venv/bin/pip install arize-phoenix
    RELAPSE_PHOENIX_BIN=/work/phoenix-venv/bin/phoenix pytest tests/e2e/test_phoenix.py
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from helpers import assert_rejected_then_grounded

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "examples" / "otel-collector" / "app.py"
BACKENDS_DOC = ROOT / "docs" / "integrations" / "tracing-backends.md"
PROJECT = "relapse-e2e"
#: The project the docs' annotation snippet sends its spans to.
SNIPPET_PROJECT = "relapse-demo"
STARTUP_TIMEOUT_S = 180.0
INGEST_TIMEOUT_S = 60.0
#: Phoenix files annotations asynchronously and retries one whose span it has
#: not stored yet every 10 s: a few retries' worth.
ANNOTATION_TIMEOUT_S = 60.0


def phoenix_bin() -> str:
    configured = os.environ.get("RELAPSE_PHOENIX_BIN")
    if configured:
        if not os.access(configured, os.X_OK):
            pytest.fail(f"RELAPSE_PHOENIX_BIN={configured!r} is not an executable file")
        return configured
    found = shutil.which("phoenix")
    if found is None:
        pytest.skip(
            "Arize Phoenix not found: set RELAPSE_PHOENIX_BIN to the `phoenix` executable of a"
            " venv with `pip install arize-phoenix` (see this module's docstring)"
        )
    return found


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def verdict_of(annotation: dict[str, Any]) -> tuple[Any, ...]:
    """An annotation as Phoenix's REST API returns it: (name, kind, label, score, explanation)."""
    result = annotation["result"]
    return (
        annotation["name"],
        annotation["annotator_kind"],
        result["label"],
        result["score"],
        result["explanation"],
    )


def get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as response:
        body = response.read()
    return json.loads(body) if body[:1] in (b"{", b"[") else body.decode()


def poll(read: Callable[[], list[Any]], count: int, timeout_s: float) -> list[Any]:
    """``read()`` until it returns ``count`` items or ``timeout_s`` pass; its last result."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            items = read()
        except urllib.error.HTTPError as error:  # 404 until the project exists
            if error.code != 404:
                raise
            items = []
        if len(items) >= count or time.monotonic() > deadline:
            return items
        time.sleep(0.5)


@pytest.fixture(scope="module")
def phoenix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """
    A running ``phoenix serve`` for the module's tests (each in a project of
    its own); yields its base URL and always terminates it.
    """
    tmp_path = tmp_path_factory.mktemp("phoenix")
    executable = phoenix_bin()
    port, grpc_port = free_port(), free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PHOENIX_", "OTEL_"))}
    env.update(
        PHOENIX_HOST="127.0.0.1",
        PHOENIX_PORT=str(port),
        PHOENIX_GRPC_PORT=str(grpc_port),
        PHOENIX_WORKING_DIR=str(tmp_path / "phoenix"),
        PHOENIX_TELEMETRY_ENABLED="false",
    )
    log = (tmp_path / "phoenix.log").open("w")
    server = subprocess.Popen(
        [executable, "serve"], env=env, stdout=log, stderr=subprocess.STDOUT, cwd=tmp_path
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while True:
            if server.poll() is not None:
                pytest.fail(f"phoenix serve exited with {server.returncode}:\n{_tail(tmp_path)}")
            try:
                if get(base + "/healthz") == "OK":
                    break
            except (urllib.error.URLError, OSError):
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"phoenix not ready in {STARTUP_TIMEOUT_S:.0f} s:\n{_tail(tmp_path)}")
            time.sleep(0.5)
        yield base
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=30)
        log.close()


def _tail(tmp_path: Path) -> str:
    return (tmp_path / "phoenix.log").read_text(errors="replace")[-3000:]


def test_app_trace_in_phoenix(phoenix: str) -> None:
    """app.py's trace arrives in Phoenix with the documented tree, parent ids and attributes."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    env.update(
        OTEL_EXPORTER_OTLP_ENDPOINT=phoenix,
        OTEL_EXPORTER_OTLP_HEADERS=f"x-project-name={PROJECT}",
    )
    done = subprocess.run(
        [sys.executable, str(APP)], env=env, capture_output=True, text=True, timeout=120,
        check=False,
    )  # fmt: skip
    assert 0 == done.returncode, done.stderr
    match = re.search(r"trace id: ([0-9a-f]{32})", done.stdout)
    assert match, done.stdout
    trace_id = match.group(1)

    url = f"{phoenix}/v1/projects/{PROJECT}/spans?trace_id={trace_id}&limit=100"
    deadline = time.monotonic() + INGEST_TIMEOUT_S
    spans: list[dict[str, Any]] = []
    while time.monotonic() < deadline:
        try:
            spans = get(url)["data"]
        except urllib.error.HTTPError as error:  # 404 until the project exists
            if error.code != 404:
                raise
        if len(spans) >= 8:
            break
        time.sleep(0.5)
    # root, call, 2 iterations, their 2 chats and 2 checks
    assert 8 == len(spans), spans

    spans.sort(key=lambda s: s["start_time"])
    by_name: dict[str, list[dict[str, Any]]] = {}
    for span in spans:
        assert trace_id == span["context"]["trace_id"]
        by_name.setdefault(span["name"], []).append(span)
    (root,) = by_name["answer question"]
    (call,) = by_name["relapse answer"]
    first, second = by_name["relapse.iteration"]
    chats = by_name["chat scripted-model"]
    checks = by_name["relapse.check"]

    def span_id(span: dict[str, Any]) -> str:
        value: str = span["context"]["span_id"]
        return value

    assert root["parent_id"] is None
    assert span_id(root) == call["parent_id"]
    assert [span_id(call)] * 2 == [first["parent_id"], second["parent_id"]]
    assert [span_id(first), span_id(second)] == [c["parent_id"] for c in chats]
    assert [span_id(first), span_id(second)] == [c["parent_id"] for c in checks]

    assert {
        "relapse.max_iterations": 3,
        "relapse.iterations": 2,
        "relapse.grounded": True,
        "relapse.outcome": "recovered",
        "relapse.usage.known": False,  # the scripted model reports no tokens
        "relapse.chunks.count": 2,
        "code.function.name": "answer",
        "langfuse.observation.type": "chain",
    } == call["attributes"]
    # Phoenix reads openinference.span.kind into the span's kind (the attribute
    # itself is not repeated among the attributes): the call and iteration
    # spans render as chains and the checks as guardrails; Phoenix reads the
    # provider's chat spans (gen_ai.* names) as LLM spans, and the
    # application's own span stays unknown.
    assert ["CHAIN"] * 3 == [s["span_kind"] for s in (call, first, second)]
    assert ["GUARDRAIL"] * 2 == [s["span_kind"] for s in checks]
    assert ["UNKNOWN", "LLM", "LLM"] == [s["span_kind"] for s in (root, *chats)]
    assert_rejected_then_grounded(first["attributes"], second["attributes"])
    # The inline evaluation (OpenInference evaluations.N.*) comes back on each iteration.
    inline = ("name", "label", "score", "annotator_kind")
    assert [("relapse.default", "fail", 0.0, "CODE"), ("relapse.default", "pass", 1.0, "CODE")] == [
        tuple(s["attributes"][f"evaluations.0.evaluation.{key}"] for key in inline)
        for s in (first, second)
    ]
    verdict = ("relapse.grounded", "relapse.findings.codes", "relapse.findings.count")
    for iteration, check in zip((first, second), checks, strict=True):
        # Each check span repeats its iteration's verdict.
        assert {
            "gen_ai.evaluation.name": "relapse.default",
            "langfuse.observation.type": "guardrail",
            **{key: iteration["attributes"][key] for key in verdict},
        } == check["attributes"]
    assert [["fail"], ["pass"]] == [
        [e["attributes"]["gen_ai.evaluation.score.label"] for e in s["events"]]
        for s in (first, second)
    ]

    # Phoenix keeps the inline evaluation as span attributes and makes none of
    # its own annotations from it on ingest (hence PhoenixAnnotationExporter,
    # tested below). Posting the same body by hand for spans already stored,
    # as docs/integrations/tracing-backends.md says ("The verdict as a Phoenix
    # annotation"), makes one per iteration through Phoenix's annotation API.
    annotations_url = f"{phoenix}/v1/projects/{PROJECT}/span_annotations?" + "&".join(
        f"span_ids={span_id(s)}" for s in (first, second)
    )
    assert [] == get(annotations_url)["data"]
    prefix = "evaluations.0.evaluation."
    annotations = [
        {
            "span_id": span["context"]["span_id"],
            "name": attributes[prefix + "name"],
            "annotator_kind": attributes[prefix + "annotator_kind"],
            "result": {
                "label": attributes[prefix + "label"],
                "score": attributes[prefix + "score"],
                "explanation": attributes.get(prefix + "explanation"),
            },
        }
        for span in spans
        if prefix + "label" in (attributes := span["attributes"])
    ]
    request = urllib.request.Request(
        f"{phoenix}/v1/span_annotations?sync=true",
        data=json.dumps({"data": annotations}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        assert 2 == len(json.loads(response.read())["data"])
    # Content capture is off here: the explanation is codes and counts only.
    assert {
        span_id(first): ("relapse.default", "CODE", "fail", 0.0, "FG002: 1 failing span(s)"),
        span_id(second): ("relapse.default", "CODE", "pass", 1.0, None),
    } == {a["span_id"]: verdict_of(a) for a in get(annotations_url)["data"]}


def test_the_docs_snippet_makes_each_verdict_a_phoenix_annotation(
    phoenix: str, tmp_path: Path
) -> None:
    """PhoenixAnnotationExporter, as the docs install it: one annotation per iteration span."""
    section = BACKENDS_DOC.read_text("utf-8").split("\n## The verdict as a Phoenix annotation\n")[1]
    match = re.search(r"```python\n(.*?)```", section.split("\n## ", 1)[0], re.S)
    assert match is not None, "no python block in the docs' section"
    snippet = tmp_path / "snippet.py"
    snippet.write_text(match.group(1), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "PHOENIX_"))}
    env["PHOENIX_COLLECTOR_ENDPOINT"] = phoenix
    done = subprocess.run(
        [sys.executable, str(snippet)], env=env, capture_output=True, text=True, timeout=120,
        check=False,
    )  # fmt: skip
    assert 0 == done.returncode, done.stderr
    assert "recovered 2\n" == done.stdout
    # Neither exporter failed (a failure is a warning on stderr, not an exit status).
    assert "" == done.stderr

    spans_url = f"{phoenix}/v1/projects/{SNIPPET_PROJECT}/spans?limit=100"
    spans = poll(lambda: get(spans_url)["data"], 5, INGEST_TIMEOUT_S)
    # call, 2 iterations and their 2 checks: the snippet's model has no span.
    assert 5 == len(spans), spans
    iterations = sorted(
        (s for s in spans if s["name"] == "relapse.iteration"), key=lambda s: s["start_time"]
    )
    ids = [s["context"]["span_id"] for s in iterations]
    assert 2 == len(ids)

    annotations_url = f"{phoenix}/v1/projects/{SNIPPET_PROJECT}/span_annotations?" + "&".join(
        f"span_ids={span_id}" for span_id in ids
    )
    annotations = poll(lambda: get(annotations_url)["data"], 2, ANNOTATION_TIMEOUT_S)
    # Content capture is off: the explanation is codes and counts only.
    assert {
        ids[0]: ("relapse.default", "CODE", "fail", 0.0, "FG002: 1 failing span(s)", "API"),
        ids[1]: ("relapse.default", "CODE", "pass", 1.0, None, "API"),
    } == {a["span_id"]: (*verdict_of(a), a["source"]) for a in annotations}
