"""
The gateway tests' shared servers: one scripted upstream and one gateway in front of it.

Both are child processes on loopback, shared by the session and stopped by
process id when it ends. Tests that need other settings start their own
(:func:`servers.gateway`). Every request names a fresh script id
(:func:`script`), so tests sharing the servers never read each other's records.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from serve_helpers import Server, gateway, scripted_upstream


@pytest.fixture(scope="session")
def upstream() -> Iterator[Server]:
    """The scripted upstream, shared by the session."""
    with scripted_upstream() as server:
        yield server


@pytest.fixture(scope="session")
def gw(upstream: Server) -> Iterator[Server]:
    """``relapse serve`` in front of the scripted upstream, default settings."""
    with gateway(upstream.v1) as server:
        yield server
