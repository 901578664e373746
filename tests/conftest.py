"""
Shared fixtures, function-scoped and named by signal: ``spans``, ``metrics``, ``logs``, ``clock``.

Every provider is injected (``tracer_provider=spans.provider``, ...), never
made global, and shut down after its test. A local OpenAI server is shared by
the session.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from hypothesis import settings
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter, SimpleLogRecordProcessor

from helpers import CapturedLogs
from llama_server import LlamaServer
from llama_server import llama_server as start_llama_server
from property_budget import FAST
from relapse.testing import (
    CapturedMetrics,
    CapturedSpans,
    FakeClock,
    capture_metrics,
    capture_spans,
)

# Haystack reports usage to its own telemetry service unless told not to; the
# tests reach no outside host (and the examples they run inherit this). Set
# before any test module imports haystack.
os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")

# Under `bash scripts/test.sh --fast` a property test that names no example
# count runs 10, as those that name one run a tenth (tests/property_budget.py).
settings.register_profile("fast", max_examples=10)
if FAST:
    settings.load_profile("fast")


@pytest.fixture
def spans() -> Iterator[CapturedSpans]:
    """A tracer provider exporting to memory, for one test."""
    with capture_spans() as captured:
        yield captured


@pytest.fixture
def metrics() -> Iterator[CapturedMetrics]:
    """A meter provider read in memory, for one test."""
    with capture_metrics() as captured:
        yield captured


@pytest.fixture
def logs() -> Iterator[CapturedLogs]:
    """A logger provider exporting to memory, for one test."""
    exporter = InMemoryLogRecordExporter()
    provider = LoggerProvider()
    provider.add_log_record_processor(SimpleLogRecordProcessor(exporter))
    yield CapturedLogs(provider, exporter)
    provider.shutdown()


@pytest.fixture
def clock() -> FakeClock:
    """A clock at 1000.0 s that moves only when the test moves it."""
    return FakeClock(start=1000.0)


@pytest.fixture(scope="session")
def llama_server() -> Iterator[LlamaServer]:
    """One ``python -m llama_cpp.server`` with the bundled model, shared by the session."""
    with start_llama_server() as server:
        yield server


@pytest.fixture
def own_llama_server() -> Iterator[LlamaServer]:
    """A server of the test's own, for tests that kill it."""
    with start_llama_server() as server:
        yield server
