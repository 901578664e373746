"""
With content capture off, no byte of the answer, the chunks or the query leaves the process.

A property test plants a random marker in every text input (the query, the
chunks, every answer, the judge's listed claims), runs a grounded call that
fails and recovers, and searches everything exported (spans with their
attributes, events and statuses, metric points, log records) for the marker.
"""

from __future__ import annotations

import string

from hypothesis import given, settings
from hypothesis import strategies as st
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter, SimpleLogRecordProcessor

import relapse
from property_budget import examples
from relapse.checks import LLMJudge, all_of
from relapse.testing import ScriptedLLM, capture_metrics, capture_spans

MARKERS = st.text(alphabet=string.ascii_letters, min_size=16, max_size=24)


@settings(max_examples=examples(25), deadline=None)
@given(marker=MARKERS, via_logs=st.booleans(), newline=st.booleans())
def test_no_marker_in_any_exported_telemetry(marker: str, via_logs: bool, newline: bool) -> None:
    """Failing spans over 60 chars, newlines and judge claims: the marker never leaks."""
    query = f"How many buses does {marker} store?"
    chunks = [f"The {marker} depot stores 40 buses.", f"{marker} opened in 1932."]
    # A quotation over 60 characters holding the marker, and numbers that fail.
    wrong = (
        f'It stores 41 buses; the manager said "{marker} keeps exactly forty one buses'
        f' in the north hall of the depot" in 1931.'
        + ("\nSecond line " + marker if newline else "")
    )
    fixed = f"The {marker} depot stores 40 buses."
    judge_replies = iter([f"UNSUPPORTED\n{marker} keeps exactly forty one buses", "SUPPORTED"])
    check = all_of(
        relapse.default_grounding_check,
        LLMJudge(lambda prompt: next(judge_replies)),
        short_circuit=False,
    )
    log_exporter = InMemoryLogRecordExporter()
    loggers = LoggerProvider()
    loggers.add_log_record_processor(SimpleLogRecordProcessor(log_exporter))
    try:
        with capture_spans() as spans, capture_metrics() as meters:
            result = relapse.run(
                query,
                chunks,
                call_llm=ScriptedLLM([wrong, fixed]),
                grounding_check=check,
                capture_content=False,
                tracer_provider=spans.provider,
                meter_provider=meters.provider,
                logger_provider=loggers if via_logs else None,
            )
            exported = [s.to_json() for s in spans.spans]
            metrics = meters.reader.get_metrics_data()
            exported.append(metrics.to_json() if metrics is not None else "")
        exported.extend(r.to_json() for r in log_exporter.get_finished_logs())
    finally:
        loggers.shutdown()
    assert (True, 2) == (result.grounded, result.iterations)
    # The findings did quote the marker: it is the telemetry that must not.
    assert any(marker in f.message for f in result.transcript[0].findings)
    assert len(exported) >= 4
    assert [] == [text for text in exported if marker in text]
