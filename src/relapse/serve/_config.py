"""
The gateway's settings: where the upstream is, the limits, the keys.

Every setting has one spelling on the command line (``relapse serve``) and
one environment variable (``RELAPSE_SERVE_*``), because ``uvicorn --workers N``
starts each worker by importing :func:`relapse.serve.app_from_env` in a fresh
process: the environment is how the settings reach every worker.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Literal

#: Where the gateway may read chunks from when a request carries none:
#: ``"none"`` (never), ``"tool"`` (each ``tool`` message is a chunk),
#: ``"context"`` (each ``<context>...</context>`` block of a system or user message).
ChunksFrom = Literal["none", "tool", "context"]
CHUNKS_FROM: tuple[str, ...] = ("none", "tool", "context")

_ENV_PREFIX = "RELAPSE_SERVE_"


@dataclass(frozen=True)
class Limits:
    """
    What one request may ask of the gateway; past each, a clear 4xx or 5xx.

    Attributes:
        max_body_bytes: Largest request body, in bytes (413 past it).
        max_chunks: Most chunks one request may carry (400 past it).
        max_chunk_chars: Most characters all its chunks may hold together (400).
        max_concurrent: Requests one worker serves at once; one more is
            refused with 503 at once, never queued.
        upstream_timeout_s: Seconds the upstream may take to connect, or
            between two bytes it sends (504 past it).
        max_iterations: The largest ``relapse.max_iterations`` a request may ask.
        max_timeout_s: The largest ``relapse.timeout`` (seconds); also the
            loop budget of a request that sets none.
        max_total_tokens: The largest ``relapse.max_total_tokens``; None: no cap.
    """

    max_body_bytes: int = 1_048_576
    max_chunks: int = 256
    max_chunk_chars: int = 400_000
    max_concurrent: int = 64
    upstream_timeout_s: float = 60.0
    max_iterations: int = 5
    max_timeout_s: float = 300.0
    max_total_tokens: int | None = None

    def __post_init__(self) -> None:
        for item in fields(self):
            value = getattr(self, item.name)
            if value is None and item.name == "max_total_tokens":
                continue
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise TypeError(f"Limits.{item.name} must be a number, got {value!r}")
            if not (math.isfinite(value) and value > 0):
                raise ValueError(f"Limits.{item.name} must be > 0, got {value!r}")
            if item.type == "int" and not isinstance(value, int):
                raise TypeError(f"Limits.{item.name} must be an int, got {value!r}")


@dataclass(frozen=True)
class ServeConfig:
    """
    Everything a gateway worker needs, validated once.

    Attributes:
        upstream: The upstream's API root, ``http://host:port/v1``: requests
            go to ``{upstream}/chat/completions`` and ``{upstream}/models``.
        limits: The per-request limits (:class:`Limits`).
        api_keys: Keys a client must present as ``Authorization: Bearer KEY``;
            empty: the gateway is open and the client's ``Authorization``
            goes to the upstream unchanged.
        upstream_api_key: The key the gateway sends upstream when
            ``api_keys`` is set (the client's header then authenticates it to
            the gateway and is not forwarded); None sends none.
        chunks_from: Where to read chunks from the messages when a request's
            ``relapse`` object carries none (see :data:`ChunksFrom`); a
            request may choose with ``relapse.chunks_from`` or the
            ``X-Relapse-Chunks-From`` header.
        capture_content: Put prompts and answers on the spans (off by default).

    Raises:
        TypeError, ValueError: a setting of the wrong type or out of range,
            named in the message.
    """

    upstream: str
    limits: Limits = field(default_factory=Limits)
    api_keys: frozenset[str] = frozenset()
    upstream_api_key: str | None = field(default=None, repr=False)
    chunks_from: ChunksFrom = "none"
    capture_content: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.upstream, str) or not self.upstream.startswith(
            ("http://", "https://")
        ):
            raise ValueError(
                f"upstream must be an http:// or https:// URL (the API root, like"
                f" http://127.0.0.1:8000/v1), got {self.upstream!r}"
            )
        object.__setattr__(self, "upstream", self.upstream.rstrip("/"))
        if not isinstance(self.limits, Limits):
            raise TypeError(f"limits must be relapse.serve.Limits, got {self.limits!r}")
        if any(not isinstance(key, str) or not key for key in self.api_keys):
            raise ValueError("api_keys must be non-empty strings")
        if self.chunks_from not in CHUNKS_FROM:
            raise ValueError(f"chunks_from must be one of {CHUNKS_FROM}, got {self.chunks_from!r}")

    def to_env(self) -> dict[str, str]:
        """The environment variables :meth:`from_env` reads this configuration back from."""
        env = {
            f"{_ENV_PREFIX}UPSTREAM": self.upstream,
            f"{_ENV_PREFIX}CHUNKS_FROM": self.chunks_from,
            f"{_ENV_PREFIX}CAPTURE_CONTENT": "1" if self.capture_content else "0",
            f"{_ENV_PREFIX}API_KEYS": ",".join(sorted(self.api_keys)),
        }
        if self.upstream_api_key is not None:
            env[f"{_ENV_PREFIX}UPSTREAM_API_KEY"] = self.upstream_api_key
        for item in fields(self.limits):
            value = getattr(self.limits, item.name)
            env[f"{_ENV_PREFIX}{item.name.upper()}"] = "" if value is None else str(value)
        return env

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> ServeConfig:
        """
        The configuration the ``RELAPSE_SERVE_*`` variables of ``env`` describe.

        Args:
            env: The variables; ``os.environ`` when None.

        Raises:
            ValueError: ``RELAPSE_SERVE_UPSTREAM`` is missing, or a variable
                does not parse (the message names it).
        """
        source = os.environ if env is None else env
        upstream = source.get(f"{_ENV_PREFIX}UPSTREAM")
        if not upstream:
            raise ValueError(f"{_ENV_PREFIX}UPSTREAM is not set: the upstream's API root URL")
        limits: dict[str, int | float | None] = {}
        for item in fields(Limits):
            name = f"{_ENV_PREFIX}{item.name.upper()}"
            raw = source.get(name)
            if raw is None:
                continue
            if raw == "" and item.name == "max_total_tokens":
                limits[item.name] = None
                continue
            try:
                limits[item.name] = float(raw) if item.type == "float" else int(raw)
            except ValueError:
                raise ValueError(f"{name} must be a number, got {raw!r}") from None
        keys = frozenset(k.strip() for k in source.get(f"{_ENV_PREFIX}API_KEYS", "").split(","))
        return cls(
            upstream,
            Limits(**limits),  # type: ignore[arg-type]
            keys - {""},
            source.get(f"{_ENV_PREFIX}UPSTREAM_API_KEY") or None,
            source.get(f"{_ENV_PREFIX}CHUNKS_FROM", "none"),  # type: ignore[arg-type]
            source.get(f"{_ENV_PREFIX}CAPTURE_CONTENT", "0") in ("1", "true", "yes", "on"),
        )
