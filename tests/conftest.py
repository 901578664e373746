"""Shared fixtures: injected tracer providers, never global ones."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from relapse.testing import CapturedSpans, capture_spans


@pytest.fixture
def spans() -> Iterator[CapturedSpans]:
    """A tracer provider exporting to memory, for one test."""
    with capture_spans() as captured:
        yield captured
