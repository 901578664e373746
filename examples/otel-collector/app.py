"""
One grounded call, exported over OTLP/HTTP: a model that hallucinates, then corrects.

Run with a collector (or Jaeger, Honeycomb, Phoenix) listening for OTLP/HTTP::

    python examples/otel-collector/app.py

The exporter reads the standard variables: ``OTEL_EXPORTER_OTLP_ENDPOINT``
(default ``http://localhost:4318``; ``/v1/traces`` is appended),
``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` (used as is),
``OTEL_EXPORTER_OTLP_HEADERS`` (for example ``x-honeycomb-team=<key>``),
``OTEL_EXPORTER_OTLP_TIMEOUT`` and ``OTEL_EXPORTER_OTLP_COMPRESSION``.
``OTEL_SERVICE_NAME`` overrides the service name ``relapse-example``.

The model is scripted (no network, no weights): its first answer states a
year the context does not contain, relapse's default check flags it, and the
second answer, to relapse's retry prompt, is grounded. The trace is::

    answer question
    └── relapse answer
        ├── relapse.iteration  (relapse.iteration=1, relapse.grounded=false)
        │   ├── chat scripted-model
        │   └── relapse.check  (GUARDRAIL, relapse.grounded=false)
        └── relapse.iteration  (relapse.iteration=2, relapse.grounded=true)
            ├── chat scripted-model
            └── relapse.check  (GUARDRAIL, relapse.grounded=true)

relapse never sets a global provider: the provider is passed to
``@relapse.grounded`` explicitly. Exits 0 once the endpoint accepted every
span, 1 if the flush timed out or the endpoint refused or was unreachable.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import SERVICE_NAME, Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExportResult

import relapse
from relapse.testing import ScriptedLLM

DOCS = [
    "The Golden Gate Bridge opened to traffic on 27 May 1937.",
    "Its main span is 1280 metres long; it was the longest suspension span until 1964.",
]
QUESTION = "When did the Golden Gate Bridge open?"
#: The scripted model: a wrong year first, the right one when re-asked.
MODEL = ScriptedLLM(["It opened in 1933.", "It opened on 27 May 1937."])
FLUSH_TIMEOUT_MS = 10_000

provider = TracerProvider(
    resource=Resource.create({SERVICE_NAME: os.environ.get("OTEL_SERVICE_NAME", "relapse-example")})
)


class CheckedExporter(OTLPSpanExporter):
    """The OTLP/HTTP exporter, remembering whether any export failed."""

    failed = False

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        result = super().export(spans)
        if result is not SpanExportResult.SUCCESS:
            self.failed = True
        return result


# With no arguments the exporter reads the OTEL_EXPORTER_OTLP_* variables.
exporter = CheckedExporter()
provider.add_span_processor(BatchSpanProcessor(exporter))
tracer = provider.get_tracer("relapse-example")


@relapse.grounded(chunks_arg="docs", tracer_provider=provider)
def answer(query: str, docs: list[str]) -> str:
    """Ask the (scripted) model; its span nests under relapse's iteration span."""
    prompt = "Context:\n" + "\n".join(docs) + f"\nQuestion: {query}\nAnswer:"
    with tracer.start_as_current_span("chat scripted-model") as span:
        span.set_attribute("gen_ai.operation.name", "chat")
        span.set_attribute("gen_ai.request.model", "scripted-model")
        return MODEL(prompt)


def main() -> int:
    """Answer one question inside an application span, print the outcome, flush, shut down."""
    try:
        with tracer.start_as_current_span("answer question") as root:
            result = answer.run(QUESTION, DOCS)
            trace_id = root.get_span_context().trace_id
        for record in result.transcript:
            codes = ",".join(sorted({f.code for f in record.findings})) or "-"
            print(f"iteration {record.iteration}: {record.answer!r} findings={codes}")
        print(f"outcome: {result.outcome} after {result.iterations} iteration(s)")
        print(f"trace id: {trace_id:032x}")
        flushed = provider.force_flush(FLUSH_TIMEOUT_MS)
    finally:
        provider.shutdown()
    if not flushed or exporter.failed:
        endpoint = os.environ.get(
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
            os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT", "http://localhost:4318"),
        )
        print(f"error: the spans were not exported; is an OTLP/HTTP receiver at {endpoint}?")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
