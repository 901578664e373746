"""The installed distribution's version, read once."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    VERSION = version("relapse")
except PackageNotFoundError:  # running from a source tree that was never installed
    VERSION = "0+unknown"
