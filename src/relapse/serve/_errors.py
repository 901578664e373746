"""
The gateway's errors, each an HTTP status and a body in the OpenAI error shape.

OpenAI's SDKs read ``{"error": {"message", "type", "param", "code"}}`` and
raise the status's own exception class (``openai.BadRequestError`` for 400,
``openai.APIStatusError`` for the rest), so a client sees a gateway refusal
exactly as it sees one from OpenAI. Mid-stream, when the status is already
sent, the same body goes out as one ``data:`` event, which both SDKs raise
as ``APIError``.
"""

from __future__ import annotations

from typing import Any


class GatewayError(Exception):
    """
    A request the gateway refuses or cannot complete.

    Attributes:
        status: The HTTP status (4xx: the request; 5xx: the gateway or upstream).
        kind: The error ``type`` (``"invalid_request_error"``, ``"upstream_error"``...).
        code: A stable machine-readable ``code`` (``"too_many_chunks"``...).
        param: The request field at fault (``"relapse.chunks"``), or None.
        extra: Further top-level fields of the body (the ``relapse`` report
            of a request that ended ``not_grounded``).
    """

    def __init__(
        self,
        status: int,
        message: str,
        *,
        kind: str,
        code: str,
        param: str | None = None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.kind = kind
        self.code = code
        self.param = param
        self.extra = extra or {}

    def body(self) -> dict[str, Any]:
        """The JSON body: ``{"error": {...}}`` and :attr:`extra`."""
        error = {"message": self.message, "type": self.kind, "param": self.param, "code": self.code}
        return {"error": error, **self.extra}


def invalid(message: str, param: str | None, code: str = "invalid_value") -> GatewayError:
    """A 400 naming the request field at fault."""
    return GatewayError(400, message, kind="invalid_request_error", code=code, param=param)


def upstream_failed(message: str, code: str = "upstream_error", status: int = 502) -> GatewayError:
    """A 502 (or ``status``): the upstream failed or answered what the gateway cannot read."""
    return GatewayError(status, message, kind="upstream_error", code=code)
