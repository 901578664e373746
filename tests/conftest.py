"""Shared fixtures: injected tracer providers (never global ones), a local OpenAI server."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from llama_server import LlamaServer
from llama_server import llama_server as start_llama_server
from relapse.testing import CapturedSpans, capture_spans


@pytest.fixture
def spans() -> Iterator[CapturedSpans]:
    """A tracer provider exporting to memory, for one test."""
    with capture_spans() as captured:
        yield captured


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
