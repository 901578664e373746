"""
Whether a global OpenTelemetry SDK provider is set: the no-SDK fast path's per-call test.

A :class:`~relapse._telemetry.Telemetry` built on the global providers holds
the API's proxy tracer and proxy instruments, which do nothing until a
provider is set globally and follow it from then on. relapse must follow it
too, so it asks on every call, and the question must cost next to nothing:
:func:`opentelemetry.trace.get_tracer_provider` and
:func:`opentelemetry.metrics.get_meter_provider` look up an environment
variable on every call while none is set (microseconds, more than the rest
of a no-SDK call's telemetry), so these read the module globals those
functions return, the current global provider objects, directly.

They are private names of ``opentelemetry-api`` (stable since 1.0, and what
its own test utilities reset). Should a release rename them,
:func:`can_watch` is False and relapse simply never takes the fast path:
slower, never wrong.
"""

from __future__ import annotations

from opentelemetry import trace
from opentelemetry.metrics import _internal as metrics_state

_TRACER_GLOBAL = "_TRACER_PROVIDER"
_METER_GLOBAL = "_METER_PROVIDER"
_WATCHABLE = hasattr(trace, _TRACER_GLOBAL) and hasattr(metrics_state, _METER_GLOBAL)


def can_watch() -> bool:
    """Whether this ``opentelemetry-api`` keeps its global providers where relapse reads them."""
    return _WATCHABLE


def tracing_set() -> bool:
    """Whether a global tracer provider is set (``trace.set_tracer_provider`` or its variable)."""
    return trace._TRACER_PROVIDER is not None  # private: see the module docstring


def metrics_set() -> bool:
    """Whether a global meter provider is set (``metrics.set_meter_provider`` or its variable)."""
    return metrics_state._METER_PROVIDER is not None  # private: see the module docstring
