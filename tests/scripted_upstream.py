"""
A scripted OpenAI-compatible upstream: a tiny Starlette app on loopback.

Each request carries its script in an extra body field the gateway passes
through unchanged, ``"x_script": {"id": ..., "answers": [...], ...}``; the
n-th request of one ``id`` answers ``answers[n]`` (the last one again past
the end). Usage is exact: ``prompt_tokens`` 10 and ``completion_tokens`` the
answer's word count. What each request carried and how each stream ended is
kept per id, for the tests to read at ``GET /record/{id}``.

Script keys besides ``id`` and ``answers``:

* ``status``: answer every request with this error status (OpenAI's error body);
* ``delay``: seconds to wait before answering;
* ``pace``: seconds between two stream events (default 0.002);
* ``fault``: ``"malformed"`` (an event that is not JSON after ``fault_at``
  words, default 2), ``"cut"`` (the connection dropped there), ``"hang"``
  (keep-alive comments from there on, until the reader leaves), ``"stall"``
  (silence there for a minute), ``"no_done"``
  (every word, no ``[DONE]``), ``"no_choices"`` (a non-streaming body without
  choices).

The model ``scripted-retry`` needs no script (for example clients that send
none): see :data:`RETRY_ANSWERS`.

Run: ``python -m uvicorn scripted_upstream:app --app-dir tests/serve --port P``.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import AsyncIterator
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

RECORDS: dict[str, dict[str, Any]] = {}

#: The model that needs no script: its first answer holds a date no chunk
#: about the bridge holds (1936); asked again with that date quoted, it answers right.
RETRYING = "scripted-retry"
RETRY_ANSWERS = (
    "It is painted international orange. It opened in 1936. It is long.",
    "It opened in 1937.",
)


def _record(script_id: str) -> dict[str, Any]:
    return RECORDS.setdefault(script_id, {"calls": [], "streams": []})


def words(text: str) -> list[str]:
    """``text`` as stream tokens: each word with the white space before it."""
    return re.findall(r"\s*\S+", text)


def usage(answer: str) -> dict[str, int]:
    completion = len(answer.split())
    return {"prompt_tokens": 10, "completion_tokens": completion, "total_tokens": 10 + completion}


def _chunk(call_id: str, delta: dict[str, Any], finish: str | None = None) -> bytes:
    body = {
        "id": call_id,
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": "scripted",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return b"data: " + json.dumps(body).encode() + b"\n\n"


async def chat(request: Request) -> Response:
    body = await request.json()
    script = body.get("x_script") or {}
    script_id = str(script.get("id", "default"))
    record = _record(script_id)
    record["calls"].append({"body": body, "authorization": request.headers.get("authorization")})
    index = len(record["calls"]) - 1
    answers = script.get("answers") or ["The bridge opened in 1937."]
    answer = answers[min(index, len(answers) - 1)]
    if body.get("model") == RETRYING and not script:
        # No script (a client that cannot add fields): wrong first, right once
        # the retry quotes the wrong date.
        asked = (body.get("messages") or [{}])[-1].get("content") or ""
        answer = RETRY_ANSWERS[1] if "1936" in asked else RETRY_ANSWERS[0]
    if script.get("delay"):
        await asyncio.sleep(float(script["delay"]))
    if script.get("status"):
        error = {"message": "scripted failure", "type": "server_error", "code": None}
        return JSONResponse({"error": error}, status_code=int(script["status"]))
    call_id = f"chatcmpl-{script_id}-{index}"
    if not body.get("stream"):
        if script.get("fault") == "no_choices":
            return JSONResponse({"id": call_id, "object": "chat.completion", "choices": []})
        return JSONResponse(
            {
                "id": call_id,
                "object": "chat.completion",
                "created": 1700000000,
                "model": "scripted",
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": answer},
                        "finish_reason": "stop",
                    }
                ],
                "usage": usage(answer),
            }
        )
    fault = script.get("fault")
    fault_at = int(script.get("fault_at", 2))
    pace = float(script.get("pace", 0.002))
    include_usage = (body.get("stream_options") or {}).get("include_usage") is True
    state = {"sent": 0, "finished": False, "closed_early": False, "started": time.time()}
    record["streams"].append(state)

    async def events() -> AsyncIterator[bytes]:
        try:
            yield _chunk(call_id, {"role": "assistant", "content": ""})
            for number, word in enumerate(words(answer)):
                if number == fault_at and fault == "malformed":
                    yield b"data: {this is not json\n\n"
                if number == fault_at and fault == "cut":
                    raise RuntimeError("scripted cut")
                if number == fault_at and fault == "stall":
                    await asyncio.sleep(60)
                if number == fault_at and fault == "hang":
                    while True:
                        yield b": keep-alive\n\n"
                        await asyncio.sleep(0.05)
                await asyncio.sleep(pace)
                yield _chunk(call_id, {"content": word})
                state["sent"] += 1
            yield _chunk(call_id, {}, "stop")
            if include_usage:
                last = {
                    "id": call_id,
                    "object": "chat.completion.chunk",
                    "created": 1700000000,
                    "model": "scripted",
                    "choices": [],
                    "usage": usage(answer),
                }
                yield b"data: " + json.dumps(last).encode() + b"\n\n"
            if fault != "no_done":
                yield b"data: [DONE]\n\n"
            state["finished"] = True
        finally:
            state["closed_early"] = not state["finished"]

    return StreamingResponse(events(), media_type="text/event-stream")


async def models(request: Request) -> Response:
    listing = {
        "object": "list",
        "data": [{"id": "scripted", "object": "model", "owned_by": "tests"}],
    }
    return JSONResponse(
        listing, headers={"x-upstream-saw-auth": str("authorization" in request.headers)}
    )


async def record(request: Request) -> Response:
    return JSONResponse(RECORDS.get(request.path_params["script_id"], {"calls": [], "streams": []}))


app = Starlette(
    routes=[
        Route("/v1/chat/completions", chat, methods=["POST"]),
        Route("/v1/models", models, methods=["GET"]),
        Route("/record/{script_id}", record, methods=["GET"]),
    ]
)
