"""
A chat-completions request body, read once: the upstream's request and relapse's options.

The ``relapse`` object is taken out of the body (the upstream never sees
it); everything else goes upstream unchanged on the first call. Every value
is checked here, against the server's :class:`~relapse.serve.Limits`,
before any upstream call is paid for; a bad one is a 400 naming the field.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from relapse.serve._config import CHUNKS_FROM, ChunksFrom, Limits
from relapse.serve._errors import invalid

#: The ``on_exhausted`` policies a request may choose (a callable cannot travel in JSON).
ON_EXHAUSTED: tuple[str, ...] = ("return", "best", "redact", "raise")
RELEASES: tuple[str, ...] = ("sentence", "answer")

#: The keys a ``relapse`` object may hold; any other is a 400 (a typo must not pass silently).
_KEYS = frozenset(
    {
        "chunks",
        "chunks_from",
        "max_iterations",
        "release",
        "on_exhausted",
        "redact_marker",
        "timeout",
        "max_total_tokens",
        "retry_sampling",
    }
)

# A context block: <context> or <context id="..."> up to </context>.
_CONTEXT_BLOCK = re.compile(r"<context(?:\s+id=\"([^\"]*)\")?\s*>(.*?)</context>", re.DOTALL)


@dataclass(frozen=True)
class RetrySampling:
    """Retries' sampling: ``temperature``, a seed moving by ``seed_step`` per iteration."""

    temperature: float
    seed_step: int


@dataclass(frozen=True)
class LoopChoice:
    """The loop options one request chose, within the limits (hashable: loops are cached)."""

    max_iterations: int
    release: Literal["answer", "sentence"]
    on_exhausted: Literal["return", "best", "raise", "redact"]
    redact_marker: str | None
    timeout: float
    max_total_tokens: int | None


@dataclass(frozen=True)
class ChatCall:
    """
    One chat-completions request as the gateway serves it.

    Attributes:
        body: The upstream request: the client's body without ``relapse``.
        stream: Whether the client asked for a stream.
        include_usage: Whether the client asked for the usage chunk
            (``stream_options.include_usage``).
        chunks: The chunks to check against (``str`` or ``{"text", "id"}``),
            or None: the request is passed through unchecked.
        query: The text of the last user message (what a retry rewrites).
        user_index: Its index in ``messages``; -1 when there is none.
        loop: The loop options.
        retry_sampling: The sampling of retries, or None (the client's own).
    """

    body: dict[str, Any]
    stream: bool
    include_usage: bool
    chunks: tuple[Any, ...] | None
    query: str
    user_index: int
    loop: LoopChoice
    retry_sampling: RetrySampling | None


def message_text(content: object) -> str | None:
    """A message's text: a ``str`` content, or its text parts joined; None when it has none."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            part["text"]
            for part in content
            if isinstance(part, Mapping)
            and part.get("type") == "text"
            and isinstance(part.get("text"), str)
        ]
        return "".join(parts) if parts else None
    return None


def _number(
    value: object, name: str, *, low: float, high: float | None, whole: bool
) -> int | float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise invalid(f"{name} must be a number, got {value!r}", name)
    if whole and not isinstance(value, int):
        raise invalid(f"{name} must be an integer, got {value!r}", name)
    if value < low or (high is not None and value > high):
        bound = f"between {low:g} and {high:g}" if high is not None else f">= {low:g}"
        raise invalid(
            f"{name} must be {bound} (the server's limit), got {value!r}",
            name,
            "over_limit" if high is not None and value > high else "invalid_value",
        )
    return value


def _chunks(given: object, limits: Limits) -> tuple[Any, ...]:
    if not isinstance(given, list):
        raise invalid(
            f"relapse.chunks must be a list of strings or {{text, id}} objects,"
            f" got {type(given).__name__}",
            "relapse.chunks",
        )
    if len(given) > limits.max_chunks:
        raise invalid(
            f"relapse.chunks holds {len(given)} chunks; this server takes at most"
            f" {limits.max_chunks}",
            "relapse.chunks",
            "too_many_chunks",
        )
    total = 0
    chunks: list[Any] = []
    for index, chunk in enumerate(given):
        if isinstance(chunk, Mapping):
            text, chunk_id = chunk.get("text"), chunk.get("id")
            if not isinstance(text, str) or not (
                chunk_id is None or isinstance(chunk_id, str | int)
            ):
                raise invalid(
                    f"relapse.chunks[{index}] must have a string text and an optional string"
                    f" or integer id",
                    f"relapse.chunks[{index}]",
                )
            chunks.append({"text": text} if chunk_id is None else {"text": text, "id": chunk_id})
        elif isinstance(chunk, str):
            text = chunk
            chunks.append(chunk)
        else:
            raise invalid(
                f"relapse.chunks[{index}] must be a string or a {{text, id}} object,"
                f" got {type(chunk).__name__}",
                f"relapse.chunks[{index}]",
            )
        total += len(text)
    if total > limits.max_chunk_chars:
        raise invalid(
            f"relapse.chunks hold {total} characters; this server takes at most"
            f" {limits.max_chunk_chars}",
            "relapse.chunks",
            "chunks_too_long",
        )
    return tuple(chunks)


def chunks_in_messages(messages: list[Any], where: ChunksFrom) -> list[Any]:
    """
    The chunks the messages carry, read the opt-in way ``where`` names.

    ``"tool"``: each ``tool`` message's text is a chunk, its ``tool_call_id``
    its id. ``"context"``: each ``<context>...</context>`` (or
    ``<context id="...">``) block in a system or user message is a chunk.
    """
    found: list[Any] = []
    for message in messages:
        if not isinstance(message, Mapping):
            continue
        text = message_text(message.get("content"))
        if text is None:
            continue
        role = message.get("role")
        if where == "tool" and role == "tool":
            call_id = message.get("tool_call_id")
            found.append({"text": text, "id": call_id} if isinstance(call_id, str) else text)
        elif where == "context" and role in ("system", "user", "developer"):
            for match in _CONTEXT_BLOCK.finditer(text):
                block = match.group(2).strip()
                found.append(block if match.group(1) is None else {"text": block, "id": match[1]})
    return found


def _retry_sampling(given: object) -> RetrySampling | None:
    if given is None:
        return None
    if not isinstance(given, Mapping) or set(given) - {"temperature", "seed_step"}:
        raise invalid(
            "relapse.retry_sampling must be an object with temperature and optionally seed_step",
            "relapse.retry_sampling",
        )
    temperature = _number(
        given.get("temperature"), "relapse.retry_sampling.temperature", low=0, high=2, whole=False
    )
    step = _number(
        given.get("seed_step", 1), "relapse.retry_sampling.seed_step", low=0, high=None, whole=True
    )
    return RetrySampling(float(temperature), int(step))


def _last_user(messages: list[Any]) -> tuple[int, str]:
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if isinstance(message, Mapping) and message.get("role") == "user":
            text = message_text(message.get("content"))
            if text is not None:
                return index, text
    return -1, ""


def read_call(body: object, limits: Limits, chunks_from: str) -> ChatCall:
    """
    The :class:`ChatCall` of a parsed request body.

    Args:
        body: The parsed JSON body.
        limits: The server's limits.
        chunks_from: Where to read chunks when the ``relapse`` object has
            none (the server's setting or the request's header).

    Raises:
        GatewayError: 400 naming the field that is missing, malformed or over
            a limit.
    """
    if not isinstance(body, dict):
        raise invalid("the request body must be a JSON object", None)
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise invalid("messages must be a non-empty list of messages", "messages")
    options = body.pop("relapse", None)
    if options is None:
        options = {}
    if not isinstance(options, Mapping):
        raise invalid("relapse must be an object", "relapse")
    unknown = sorted(set(options) - _KEYS)
    if unknown:
        raise invalid(
            f"relapse has unknown keys {unknown}; known: {sorted(_KEYS)}", f"relapse.{unknown[0]}"
        )
    where = options.get("chunks_from", chunks_from)
    if where not in CHUNKS_FROM:
        raise invalid(
            f"relapse.chunks_from must be one of {list(CHUNKS_FROM)}, got {where!r}",
            "relapse.chunks_from",
        )
    given = options.get("chunks")
    if given is None and where != "none":
        given = chunks_in_messages(messages, where) or None
    chunks = None if given is None else _chunks(given, limits)
    stream = body.get("stream", False)
    if not isinstance(stream, bool):
        raise invalid(f"stream must be a boolean, got {stream!r}", "stream")
    stream_options = body.get("stream_options")
    include_usage = (
        isinstance(stream_options, Mapping) and stream_options.get("include_usage") is True
    )
    user_index, query = _last_user(messages)
    if chunks is not None:
        if user_index < 0:
            raise invalid(
                "a checked request needs a user message with text: its last one is the"
                " question a retry rewrites",
                "messages",
            )
        if body.get("n", 1) != 1:
            raise invalid("n must be 1 when relapse checks the answer", "n")
    release = options.get("release", "sentence" if stream else "answer")
    if release not in RELEASES:
        raise invalid(
            f"relapse.release must be one of {list(RELEASES)}, got {release!r}", "relapse.release"
        )
    on_exhausted = options.get("on_exhausted", "return")
    if on_exhausted not in ON_EXHAUSTED:
        raise invalid(
            f"relapse.on_exhausted must be one of {list(ON_EXHAUSTED)}, got {on_exhausted!r}",
            "relapse.on_exhausted",
        )
    marker = options.get("redact_marker")
    if marker is not None and not isinstance(marker, str):
        raise invalid("relapse.redact_marker must be a string or null", "relapse.redact_marker")
    iterations = _number(
        options.get("max_iterations", min(3, limits.max_iterations)),
        "relapse.max_iterations",
        low=1,
        high=limits.max_iterations,
        whole=True,
    )
    timeout = _number(
        options.get("timeout", limits.max_timeout_s),
        "relapse.timeout",
        low=0.001,
        high=limits.max_timeout_s,
        whole=False,
    )
    tokens = options.get("max_total_tokens", limits.max_total_tokens)
    if tokens is not None:
        tokens = _number(
            tokens, "relapse.max_total_tokens", low=1, high=limits.max_total_tokens, whole=True
        )
    loop = LoopChoice(int(iterations), release, on_exhausted, marker, float(timeout), tokens)
    return ChatCall(
        body,
        stream,
        include_usage,
        chunks,
        query,
        user_index,
        loop,
        _retry_sampling(options.get("retry_sampling")),
    )
