"""
``relapse serve``: an OpenAI-compatible gateway that grounds every answer.

Point any OpenAI client at it (``base_url=http://gateway/v1``), pass the
chunks in the request's ``relapse`` object, and the gateway drives the
library's own loop against the upstream: it checks each answer, re-asks
with the findings, streams only verified sentences, and returns the
upstream's response with a ``relapse`` object beside it. See
``docs/serve.md``. Needs the ``serve`` extra: ``pip install 'relapse[serve]'``.

.. versionadded:: 0.2.0
"""

from __future__ import annotations

import logging
import os

from starlette.applications import Starlette

from relapse.serve._app import create_app
from relapse.serve._config import Limits, ServeConfig

__all__ = ["Limits", "ServeConfig", "app_from_env", "create_app"]

logger = logging.getLogger("relapse.serve")


def _tracing_from_env() -> None:
    """
    Export spans and metrics over OTLP when ``OTEL_EXPORTER_OTLP_ENDPOINT`` is set (``otel`` extra).

    Each worker process sets its own provider; without the variable the
    global provider stays the API's no-op one and the loop pays nothing.
    """
    if not os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT"):
        return
    try:
        from opentelemetry import metrics, trace
        from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError:
        logger.warning(
            "OTEL_EXPORTER_OTLP_ENDPOINT is set but the OpenTelemetry SDK is missing;"
            " no spans are exported (pip install 'relapse[serve,otel]')"
        )
        return
    resource = Resource.create(
        {"service.name": os.environ.get("OTEL_SERVICE_NAME", "relapse-serve")}
    )
    provider = TracerProvider(resource=resource)
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)
    reader = PeriodicExportingMetricReader(OTLPMetricExporter())
    metrics.set_meter_provider(MeterProvider(resource=resource, metric_readers=[reader]))


def app_from_env() -> Starlette:
    """
    The gateway configured by the ``RELAPSE_SERVE_*`` environment variables.

    The application factory each ``uvicorn --workers N`` worker imports
    (``uvicorn --factory relapse.serve:app_from_env``); ``relapse serve``
    sets the variables from its options. See :meth:`ServeConfig.from_env`.

    Raises:
        ValueError: ``RELAPSE_SERVE_UPSTREAM`` is missing or a variable is malformed.
    """
    config = ServeConfig.from_env()
    _tracing_from_env()
    return create_app(config)
