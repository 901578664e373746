"""
The gateway's telemetry: the library's spans, one trace per request, no secrets, no content.

In process: the gateway app and the scripted upstream app talk through
httpx's ASGI transport, and the spans go to an in-memory provider.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
from opentelemetry.trace import format_trace_id

import scripted_upstream
from relapse.serve import ServeConfig, create_app
from relapse.testing import CapturedSpans
from serve_helpers import BAD, CHUNKS, GOOD, QUESTION, ask, script

SECRET = "sk-very-secret-client-key"


def _gateway(spans: CapturedSpans, **config: Any) -> httpx.AsyncClient:
    app = create_app(
        ServeConfig("http://upstream.test/v1", **config),
        tracer_provider=spans.provider,
        transport=httpx.ASGITransport(app=scripted_upstream.app),
    )
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://gw.test")


async def _post(client: httpx.AsyncClient, body: dict[str, Any], **headers: str) -> httpx.Response:
    return await client.post(
        "/v1/chat/completions",
        json=body,
        headers={"authorization": f"Bearer {SECRET}", **headers},
    )


def _attribute_text(spans: CapturedSpans) -> str:
    everything = []
    for span in spans.spans:
        everything.append(json.dumps(dict(span.attributes or {}), default=str))
        everything.extend(json.dumps(dict(e.attributes or {}), default=str) for e in span.events)
    return "\n".join(everything)


async def test_one_trace_per_request_with_the_librarys_spans(spans: CapturedSpans) -> None:
    body = {
        "model": "scripted",
        "messages": [{"role": "user", "content": QUESTION}],
        **ask(CHUNKS, script(BAD, GOOD)),
    }
    async with _gateway(spans) as client:
        for _ in range(2):
            response = await _post(client, body | {"x_script": script(BAD, GOOD)})
            assert "recovered" == response.json()["relapse"]["outcome"]
    calls = spans.named("relapse serve.chat_completions")
    assert 2 == len(calls)
    traces = {span.context.trace_id for span in spans.spans}
    assert {call.context.trace_id for call in calls} == traces
    for call in calls:
        # Each call span is the root of its trace, with an iteration span per attempt.
        assert call.parent is None
        children = [s for s in spans.spans if s.parent and s.parent.span_id == call.context.span_id]
        assert 2 == len([s for s in children if s.name == "relapse.iteration"])


async def test_no_authorization_and_no_content_on_the_spans(spans: CapturedSpans) -> None:
    secret_question = "What did the vault code 4471 open?"
    body = {
        "model": "scripted",
        "messages": [{"role": "user", "content": secret_question}],
        **ask(CHUNKS, script(BAD, GOOD)),
    }
    async with _gateway(spans) as client:
        await _post(client, body)
        await _post(client, body | {"stream": True, "x_script": script(BAD, GOOD)})
    text = _attribute_text(spans)
    assert spans.spans
    for secret in (SECRET, "4471", "vault", "1936", "bridge"):
        assert secret not in text


async def test_content_capture_is_an_opt_in(spans: CapturedSpans) -> None:
    body = {
        "model": "scripted",
        "messages": [{"role": "user", "content": QUESTION}],
        **ask(CHUNKS, script(BAD, GOOD)),
    }
    async with _gateway(spans, capture_content=True) as client:
        await _post(client, body)
    text = _attribute_text(spans)
    assert "1936" in text
    assert SECRET not in text


async def test_a_callers_traceparent_makes_the_call_span_its_child(spans: CapturedSpans) -> None:
    trace_id = "4bf92f3577b34da6a3ce929d0e0e4736"
    body = {
        "model": "scripted",
        "messages": [{"role": "user", "content": QUESTION}],
        **ask(CHUNKS, script(GOOD)),
    }
    async with _gateway(spans) as client:
        await _post(client, body, traceparent=f"00-{trace_id}-00f067aa0ba902b7-01")
    (call,) = spans.named("relapse serve.chat_completions")
    assert trace_id == format_trace_id(call.context.trace_id)
    assert call.parent is not None
    assert 0x00F067AA0BA902B7 == call.parent.span_id
