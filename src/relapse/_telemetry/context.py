"""
The one guard that keeps telemetry harmless, and span activation.

Every interaction relapse has with an OpenTelemetry SDK (starting, setting,
ending spans; recording metrics; emitting log records; a user's ``redact``)
runs inside a :class:`Harmless` block: a processor, exporter or provider that
raises, or was shut down, is logged on the ``relapse.telemetry`` logger and
otherwise ignored, so telemetry never changes what the decorated function
returns or raises.

Each guard is built once, at import, and names what it protects; entering
and leaving one allocates nothing, so the no-SDK path stays as cheap as the
``try``/``except`` blocks it replaces (``benchmarks/bench_overhead.py``).
"""

from __future__ import annotations

import contextlib
import logging
from typing import TYPE_CHECKING, Literal

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import INVALID_SPAN, Span

if TYPE_CHECKING:
    from contextvars import Token
    from types import TracebackType

    from opentelemetry.context.context import Context

#: The logger every guarded failure goes to (debug level, unless the guard says otherwise).
log = logging.getLogger("relapse.telemetry")


class Harmless:
    """
    A reusable ``with`` block that logs an :class:`Exception` raised inside it and swallows it.

    ``with guard: ...`` runs the body; if the body raises an ``Exception``,
    the guard logs ``"relapse: <what>"`` with the traceback on the
    ``relapse.telemetry`` logger at ``level`` and execution continues after
    the block. A :class:`BaseException` that is not an ``Exception``
    (``KeyboardInterrupt``, ``SystemExit``, ``asyncio.CancelledError``,
    ``GeneratorExit``) propagates: stopping the program or a task is not a
    telemetry failure.

    Stateless, so one instance serves every thread and task at once and is
    built once per call site, at import (no allocation per use).

    Args:
        what: What failed, as a phrase completing "relapse: ..."
            (``"could not end the call span"``).
        level: The logging level of the record (``logging.DEBUG`` unless the
            failure is the user's own code, such as ``redact``).

    Raises:
        ValueError: ``what`` is empty.
    """

    __slots__ = ("level", "what")

    def __init__(self, what: str, level: int = logging.DEBUG) -> None:
        if not what:
            raise ValueError("Harmless(what=...) must name what it guards, got an empty string")
        self.what = what
        self.level = level

    def __repr__(self) -> str:
        return f"Harmless({self.what!r}, level={logging.getLevelName(self.level)})"

    def __enter__(self) -> None:
        return None

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool:
        if exc_type is None or not issubclass(exc_type, Exception):
            return False
        log.log(self.level, "relapse: %s", self.what, exc_info=exc)
        return True


_ACTIVATING = Harmless("could not activate a span")
_DEACTIVATING = Harmless("could not deactivate a span")


class _Activation:
    """Context manager making one span current (see :func:`active`)."""

    __slots__ = ("_span", "_token")

    def __init__(self, span: Span) -> None:
        self._span = span
        self._token: Token[Context] | None = None

    def __enter__(self) -> None:
        span = self._span
        with _ACTIVATING:
            if trace.get_current_span() is not span:
                self._token = otel_context.attach(trace.set_span_in_context(span))

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> Literal[False]:
        token = self._token
        if token is not None:
            self._token = None
            with _DEACTIVATING:
                otel_context.detach(token)
        return False


#: What :func:`active` returns for ``INVALID_SPAN``: one shared do-nothing
#: context manager, so the no-SDK path allocates nothing per call.
_NOT_ACTIVATED: contextlib.AbstractContextManager[None] = contextlib.nullcontext()


def active(span: Span) -> contextlib.AbstractContextManager[None]:
    """
    Make ``span`` the current span while the LLM is called (or the check runs).

    Use it as ``with active(span): ...``.

    Spans the caller's own code starts inside (for example a provider's
    instrumentation) then become its children. Entering does nothing when
    ``span`` is ``INVALID_SPAN`` or already current (the no-SDK case), and
    never raises; exceptions from the body propagate unchanged.
    """
    if span is INVALID_SPAN:
        return _NOT_ACTIVATED
    return _Activation(span)
