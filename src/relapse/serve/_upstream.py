"""
The upstream: one pooled httpx client per worker, and what its failures mean to the client.

Every failure of the upstream becomes a :class:`GatewayError` here, in one
place: refused or dropped connections (502 ``upstream_unavailable``), no
byte within the upstream timeout (504 ``upstream_timeout``), an error status
(the upstream's own 4xx passed on; a 5xx as 502 ``upstream_status``), a body
or event that is not the JSON it should be (502 ``upstream_malformed``), and
an event stream cut before its ``[DONE]`` (502 ``upstream_stream_cut``).
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Mapping
from typing import Any

import anyio
import httpx

from relapse.serve._errors import GatewayError, upstream_failed

#: How many characters of an upstream's error body a message quotes.
_QUOTED = 300


def _transport_error(error: httpx.HTTPError, url: str) -> GatewayError:
    if isinstance(error, httpx.TimeoutException):
        return upstream_failed(
            f"the upstream at {url} sent nothing within the gateway's upstream timeout"
            f" ({type(error).__name__})",
            "upstream_timeout",
            504,
        )
    if isinstance(error, httpx.ConnectError):
        return upstream_failed(
            f"the upstream at {url} cannot be reached: {error}", "upstream_unavailable"
        )
    return upstream_failed(
        f"the connection to the upstream at {url} broke: {type(error).__name__}: {error}",
        "upstream_stream_cut",
    )


def _status_error(status: int, content: bytes) -> GatewayError:
    """The error for an upstream's error status: its 4xx passed on, a 5xx as 502."""
    message = content.decode("utf-8", "replace")[:_QUOTED]
    kind, code, param = "upstream_error", "upstream_status", None
    try:
        body = json.loads(content)
    except ValueError:
        body = None
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, Mapping):
        message = str(error.get("message", message))[:_QUOTED]
        if status < 500:
            kind = str(error.get("type") or kind)
            code = str(error.get("code") or code)
            param = error.get("param") if isinstance(error.get("param"), str) else None
    elif isinstance(error, str):
        message = error[:_QUOTED]
    if status < 500:
        return GatewayError(status, f"the upstream refused the request: {message}", kind=kind,
                            code=code, param=param)  # fmt: skip
    return upstream_failed(f"the upstream answered {status}: {message}", "upstream_status")


def _event_json(data: str) -> dict[str, Any]:
    try:
        event = json.loads(data)
    except ValueError:
        raise upstream_failed(
            f"the upstream sent an event that is not JSON: {data[:_QUOTED]!r}", "upstream_malformed"
        ) from None
    if not isinstance(event, dict):
        raise upstream_failed(
            f"the upstream sent an event that is not a JSON object: {data[:_QUOTED]!r}",
            "upstream_malformed",
        )
    error = event.get("error")
    if error is not None:
        message = error.get("message", error) if isinstance(error, Mapping) else error
        raise upstream_failed(f"the upstream's stream reported an error: {message}")
    return event


class Upstream:
    """
    The upstream's ``/chat/completions`` and ``/models``, over one pooled client.

    Args:
        base_url: The upstream's API root (``http://127.0.0.1:8000/v1``).
        timeout_s: Seconds allowed to connect, and between two bytes.
        transport: An httpx transport to use instead of the network (tests).

    Attributes:
        open_streams: Upstream streams open right now (a leak shows here).
    """

    def __init__(
        self, base_url: str, timeout_s: float, transport: httpx.AsyncBaseTransport | None = None
    ) -> None:
        self.base_url = base_url
        self.open_streams = 0
        self._client = httpx.AsyncClient(
            base_url=base_url,
            timeout=httpx.Timeout(timeout_s),
            # The gateway's own concurrency limit bounds the connections.
            limits=httpx.Limits(max_connections=None, max_keepalive_connections=32),
            transport=transport,
        )

    async def aclose(self) -> None:
        """Close the pooled connections."""
        await self._client.aclose()

    async def models(self, headers: Mapping[str, str]) -> tuple[int, bytes, str]:
        """
        ``GET /models`` passed through: ``(status, body, content type)``.

        Raises:
            GatewayError: the upstream cannot be reached or timed out.
        """
        try:
            response = await self._client.get("/models", headers=dict(headers))
        except httpx.HTTPError as error:
            raise _transport_error(error, self.base_url) from None
        kind = response.headers.get("content-type", "application/json")
        return response.status_code, response.content, kind

    async def complete(self, body: Mapping[str, Any], headers: Mapping[str, str]) -> dict[str, Any]:
        """
        One non-streaming chat completion: the upstream's JSON object.

        Raises:
            GatewayError: see the module docstring.
        """
        try:
            response = await self._client.post(
                "/chat/completions", json=body, headers=dict(headers)
            )
        except httpx.HTTPError as error:
            raise _transport_error(error, self.base_url) from None
        if response.status_code >= 400:
            raise _status_error(response.status_code, response.content)
        try:
            parsed = response.json()
        except ValueError:
            parsed = None
        if not isinstance(parsed, dict):
            raise upstream_failed(
                f"the upstream's response is not a JSON object: {response.text[:_QUOTED]!r}",
                "upstream_malformed",
            )
        return parsed

    async def stream(self, body: Mapping[str, Any], headers: Mapping[str, str]) -> _Events:
        """
        Open a streaming chat completion: its events (chunk objects), unread.

        The request is sent and its status read here; the events are read
        as the returned iterator is. Closing the iterator (``aclose()``)
        closes the upstream response: the upstream stops generating.

        Raises:
            GatewayError: here, for a connection or status failure; from the
                iterator, for a malformed event, an error event, a cut stream
                or a timeout midway.
        """
        request = self._client.build_request(
            "POST", "/chat/completions", json=body, headers=dict(headers)
        )
        try:
            response = await self._client.send(request, stream=True)
        except httpx.HTTPError as error:
            raise _transport_error(error, self.base_url) from None
        if response.status_code >= 400:
            with anyio.CancelScope(shield=True):
                try:
                    content = await response.aread()
                except httpx.HTTPError:
                    content = b""
                finally:
                    await response.aclose()
            raise _status_error(response.status_code, content)
        return _Events(self, response)


class _Events:
    """
    An upstream event stream: its chunk objects, and ``aclose()`` closing the response.

    A class rather than a bare async generator so that closing it closes the
    HTTP response even when it was never read (an unstarted generator's
    ``finally`` never runs).
    """

    def __init__(self, upstream: Upstream, response: httpx.Response) -> None:
        self._upstream = upstream
        self._response = response
        self._events = self._read()
        self._open = True
        upstream.open_streams += 1

    def __aiter__(self) -> _Events:
        return self

    async def __anext__(self) -> dict[str, Any]:
        try:
            return await self._events.__anext__()
        except BaseException:
            await self.aclose()
            raise

    async def aclose(self) -> None:
        """Close the upstream response (the upstream stops generating). Idempotent."""
        if not self._open:
            return
        self._open = False
        self._upstream.open_streams -= 1
        # Shielded: a client that left cancels the request, and the upstream
        # connection must still be closed, not left to the pool half read.
        with anyio.CancelScope(shield=True):
            try:
                await self._events.aclose()
            finally:
                await self._response.aclose()

    async def _read(self) -> AsyncGenerator[dict[str, Any], None]:
        url = self._upstream.base_url
        try:
            data: list[str] = []
            async for line in self._response.aiter_lines():
                if line.startswith("data:"):
                    data.append(line[5:].removeprefix(" "))
                    continue
                if line or not data:
                    continue  # another field (event:, id:, a comment), or a stray blank line
                payload, data = "\n".join(data), []
                if payload.strip() == "[DONE]":
                    return
                yield _event_json(payload)
            if data and "\n".join(data).strip() == "[DONE]":
                return
            raise upstream_failed(
                "the upstream's stream ended before its [DONE]: it was cut midway",
                "upstream_stream_cut",
            )
        except httpx.HTTPError as error:
            raise _transport_error(error, url) from None
