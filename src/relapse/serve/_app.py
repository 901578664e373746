"""
The gateway's HTTP side: routes, keys, limits, streams, disconnects, shutdown.

``POST /v1/chat/completions`` is a plain ASGI endpoint rather than a
Starlette request handler because it must watch the connection while it
works: a client that disconnects cancels the request at once (the upstream
call is closed, the loop ends, its spans say so), whether the gateway was
waiting on the upstream, checking, or sending. Starlette's own streaming
response notices a disconnect only when it next sends, which during a
retry can be many seconds later.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import logging
import os
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Mapping
from typing import Any

import anyio
import httpx
from opentelemetry import context as otel_context
from opentelemetry import propagate
from opentelemetry.metrics import MeterProvider
from opentelemetry.trace import TracerProvider
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import Message, Receive, Scope, Send

from relapse.serve._config import CHUNKS_FROM, ServeConfig
from relapse.serve._errors import GatewayError, invalid
from relapse.serve._gateway import Gateway
from relapse.serve._request import ChatCall, read_call
from relapse.serve._upstream import Upstream

logger = logging.getLogger("relapse.serve")

#: The request headers passed upstream besides ``Authorization`` (OpenAI's account headers).
_FORWARDED = ("openai-organization", "openai-project")


class _DisconnectedError(Exception):
    """The client left before its request body arrived."""


def _headers(scope: Scope) -> dict[str, str]:
    return {
        key.decode("latin-1").lower(): value.decode("latin-1") for key, value in scope["headers"]
    }


async def _send_json(send: Send, status: int, body: Mapping[str, Any], **headers: str) -> None:
    raw = [(b"content-type", b"application/json")]
    raw += [(key.replace("_", "-").encode(), value.encode()) for key, value in headers.items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": json.dumps(body).encode()})


def _event(data: Mapping[str, Any]) -> bytes:
    return b"data: " + json.dumps(data, separators=(",", ":")).encode() + b"\n\n"


class Service:
    """
    The per-worker state: the settings, the upstream client, the gateway, the counters.

    Attributes:
        in_flight: Chat requests being served right now.
    """

    def __init__(
        self,
        config: ServeConfig,
        tracer_provider: TracerProvider | None,
        meter_provider: MeterProvider | None,
        transport: httpx.AsyncBaseTransport | None,
    ) -> None:
        self.config = config
        self.upstream = Upstream(config.upstream, config.limits.upstream_timeout_s, transport)
        self.gateway = Gateway(config, self.upstream, tracer_provider, meter_provider)
        self.in_flight = 0

    def authorized(self, headers: Mapping[str, str]) -> dict[str, str]:
        """
        The headers to send upstream, once the client is allowed in.

        Without gateway keys the client's ``Authorization`` goes upstream
        unchanged; with them it must name one of the keys, and the upstream
        gets the server's own upstream key instead.

        Raises:
            GatewayError: 401 ``invalid_api_key``.
        """
        forwarded = {name: headers[name] for name in _FORWARDED if name in headers}
        given = headers.get("authorization")
        if not self.config.api_keys:
            if given is not None:
                forwarded["authorization"] = given
            return forwarded
        scheme, _, key = (given or "").partition(" ")
        matched = False
        for allowed in self.config.api_keys:
            # Every key compared, in constant time: no timing tells which one nearly matched.
            matched |= hmac.compare_digest(key.strip().encode(), allowed.encode())
        if scheme.lower() != "bearer" or not matched:
            raise GatewayError(
                401,
                "this gateway needs an API key: send Authorization: Bearer <key>",
                kind="invalid_request_error",
                code="invalid_api_key",
            )
        if self.config.upstream_api_key is not None:
            forwarded["authorization"] = f"Bearer {self.config.upstream_api_key}"
        return forwarded


async def _read_body(receive: Receive, limit: int, declared: str | None) -> bytes:
    too_large = GatewayError(
        413,
        f"the request body is larger than this server's limit of {limit} bytes",
        kind="invalid_request_error",
        code="request_too_large",
    )
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise too_large
    parts: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise _DisconnectedError
        part = message.get("body", b"")
        size += len(part)
        if size > limit:
            raise too_large
        parts.append(part)
        if not message.get("more_body", False):
            return b"".join(parts)


async def _watching(
    receive: Receive, work: Callable[[], Awaitable[None]], state: Mapping[str, Any]
) -> bool:
    """
    Run ``work`` until it ends or the client disconnects, whichever comes first.

    ``state["sent"]`` is set once the response is wholly sent: the server
    reports a disconnect after that too, which is no client leaving early.

    Returns:
        True when the client disconnected before its response was sent
        (``work`` was cancelled).
    """
    left = False
    async with anyio.create_task_group() as group:

        async def watch() -> None:
            nonlocal left
            while True:
                message: Message = await receive()
                if message["type"] == "http.disconnect":
                    left = not state.get("sent", False)
                    group.cancel_scope.cancel()
                    return

        group.start_soon(watch)
        try:
            await work()
        finally:
            group.cancel_scope.cancel()
    return left


class ChatEndpoint:
    """``POST /v1/chat/completions``: limits, keys, then the gateway, watching the connection."""

    def __init__(self, service: Callable[[], Service]) -> None:
        self._service = service

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        service = self._service()
        limits = service.config.limits
        headers = _headers(scope)
        began = time.perf_counter()
        status = 200
        outcome = "-"
        if service.in_flight >= limits.max_concurrent:
            error = GatewayError(
                503,
                f"this worker is serving its limit of {limits.max_concurrent} requests;"
                " retry shortly",
                kind="server_error",
                code="gateway_busy",
            )
            await _send_json(send, error.status, error.body(), retry_after="1")
            logger.info("chat completion refused: %s", error.code)
            return
        service.in_flight += 1
        try:
            upstream_headers = service.authorized(headers)
            raw = await _read_body(receive, limits.max_body_bytes, headers.get("content-length"))
            try:
                body = json.loads(raw)
            except ValueError:
                raise invalid("the request body is not valid JSON", None) from None
            chunks_from = headers.get("x-relapse-chunks-from", service.config.chunks_from)
            if chunks_from not in CHUNKS_FROM:
                raise invalid(
                    f"X-Relapse-Chunks-From must be one of {list(CHUNKS_FROM)},"
                    f" got {chunks_from!r}",
                    "X-Relapse-Chunks-From",
                )
            call = read_call(body, limits, chunks_from)
            token = otel_context.attach(propagate.extract(headers))
            try:
                state: dict[str, Any] = {}

                async def tracked(message: Message) -> None:
                    await send(message)
                    if message["type"] == "http.response.body" and not message.get("more_body"):
                        state["sent"] = True

                if call.stream:
                    work = self._stream(service, call, upstream_headers, tracked, state)
                else:
                    work = self._complete(service, call, upstream_headers, tracked, state)
                left = await _watching(receive, lambda: work, state)
            finally:
                otel_context.detach(token)
            status = 499 if left else state.get("status", 200)
            outcome = "client_disconnected" if left else state.get("outcome", "-")
        except _DisconnectedError:
            status, outcome = 499, "client_disconnected"
        except GatewayError as error:
            status, outcome = error.status, error.code
            await _send_json(send, error.status, error.body())
        finally:
            service.in_flight -= 1
            logger.info(
                "chat completion %s %s in %.3f s", status, outcome, time.perf_counter() - began
            )

    async def _complete(
        self,
        service: Service,
        call: ChatCall,
        headers: Mapping[str, str],
        send: Send,
        state: dict[str, Any],
    ) -> None:
        try:
            response = await service.gateway.complete(call, headers)
        except GatewayError as error:
            state.update(status=error.status, outcome=error.code)
            await _send_json(send, error.status, error.body())
            return
        except Exception as error:
            await self._internal(send, state, error)
            return
        relapse = response["relapse"]
        state.update(outcome=relapse["outcome"])
        await _send_json(
            send,
            200,
            response,
            x_relapse_outcome=relapse["outcome"],
            x_relapse_grounded=str(relapse["grounded"]).lower(),
        )

    async def _internal(self, send: Send, state: dict[str, Any], error: Exception) -> None:
        logger.error("chat completion failed: %s", type(error).__name__, exc_info=error)
        failure = GatewayError(
            500,
            f"the gateway failed: {type(error).__name__}",
            kind="server_error",
            code="internal_error",
        )
        state.update(status=500, outcome=failure.code)
        await _send_json(send, 500, failure.body())

    async def _stream(
        self,
        service: Service,
        call: ChatCall,
        headers: Mapping[str, str],
        send: Send,
        state: dict[str, Any],
    ) -> None:
        chunks: AsyncGenerator[dict[str, Any], None] = service.gateway.stream(call, headers)
        try:
            try:
                # Nothing is sent before the first chunk passed: a failure
                # before it is a plain HTTP error status.
                first = await chunks.__anext__()
            except GatewayError as error:
                state.update(status=error.status, outcome=error.code)
                await _send_json(send, error.status, error.body())
                return
            except Exception as error:
                await self._internal(send, state, error)
                return
            await send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [
                        (b"content-type", b"text/event-stream; charset=utf-8"),
                        (b"cache-control", b"no-cache"),
                        (b"x-accel-buffering", b"no"),
                    ],
                }
            )
            last = first
            await send({"type": "http.response.body", "body": _event(first), "more_body": True})
            try:
                async for chunk in chunks:
                    last = chunk
                    await send(
                        {"type": "http.response.body", "body": _event(chunk), "more_body": True}
                    )
                ending = b"data: [DONE]\n\n"
                state.update(outcome=last.get("relapse", {}).get("outcome", "-"))
            except GatewayError as error:
                # The status is sent: the error goes as an event, which the SDKs raise.
                state.update(outcome=error.code)
                ending = _event(error.body())
            except Exception as error:
                logger.exception("chat completion stream failed", exc_info=error)
                state.update(outcome="internal_error")
                ending = _event(
                    GatewayError(
                        500,
                        f"the gateway failed: {type(error).__name__}",
                        kind="server_error",
                        code="internal_error",
                    ).body()
                )
            await send({"type": "http.response.body", "body": ending, "more_body": False})
        finally:
            with anyio.CancelScope(shield=True):
                await chunks.aclose()


def create_app(
    config: ServeConfig,
    *,
    tracer_provider: TracerProvider | None = None,
    meter_provider: MeterProvider | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
) -> Starlette:
    """
    The gateway as an ASGI application (Starlette).

    Routes: ``POST /v1/chat/completions``, ``GET /v1/models`` (the
    upstream's, passed through), ``GET /health``. The upstream client is
    opened when the application starts and closed when it stops, after the
    server drained the requests in flight.

    Args:
        config: The settings (:class:`relapse.serve.ServeConfig`).
        tracer_provider: Spans go here; None: the global provider.
        meter_provider: Metrics go here; None: the global provider.
        transport: An httpx transport for the upstream instead of the network (tests).

    Returns:
        The Starlette application.
    """
    holder: list[Service] = []

    def service() -> Service:
        if not holder:
            holder.append(Service(config, tracer_provider, meter_provider, transport))
        return holder[0]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        service()
        yield
        await holder[0].upstream.aclose()

    async def models(request: Request) -> Response:
        current = service()
        try:
            headers = current.authorized(_headers(request.scope))
            status, content, kind = await current.upstream.models(headers)
        except GatewayError as error:
            return JSONResponse(error.body(), status_code=error.status)
        return Response(content, status_code=status, media_type=kind)

    async def health(request: Request) -> Response:
        current = service()
        return JSONResponse(
            {
                "status": "ok",
                # Which worker answered: N workers share one port.
                "pid": os.getpid(),
                "in_flight": current.in_flight,
                "upstream_streams_open": current.upstream.open_streams,
            }
        )

    return Starlette(
        routes=[
            Route("/v1/chat/completions", ChatEndpoint(service), methods=["POST"]),
            Route("/v1/models", models, methods=["GET"]),
            Route("/health", health, methods=["GET"]),
        ],
        lifespan=lifespan,
    )
