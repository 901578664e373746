"""
The chunks of one streamed response, in OpenAI's chunk format, across attempts.

A checked stream is made of several upstream streams (one per attempt), each
cut where a sentence failed. The client must see one completion: every chunk
carries the first attempt's ``id``, ``created`` and ``model``; the upstream's
``finish_reason`` and usage chunks are held back, and the stream ends with
one finish chunk and the ``relapse`` object:

* without ``stream_options.include_usage``: the finish chunk
  (``choices[0].finish_reason``) carries ``relapse``;
* with it: the finish chunk, then a chunk with no choices, the ``usage``
  summed over the attempts, and ``relapse``, as OpenAI's usage chunk comes last.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Mapping
from typing import Any

_USAGE_NAMES = ("prompt_tokens", "completion_tokens", "total_tokens")


def _has_delta(choice: Mapping[str, Any]) -> bool:
    delta = choice.get("delta")
    if not isinstance(delta, Mapping):
        return False
    return any(value not in (None, "") for value in delta.values())


class ChunkShaper:
    """
    Shapes the pieces one streamed response releases into its chunks.

    Args:
        include_usage: Whether the client asked for the usage chunk.
    """

    def __init__(self, include_usage: bool) -> None:
        self.include_usage = include_usage
        self.id: str | None = None
        self.created: int | None = None
        self.model: str | None = None
        #: The last ``finish_reason`` an upstream chunk gave.
        self.finish_reason: str | None = None

    def _identity(self, piece: Mapping[str, Any] | None) -> None:
        if self.id is not None:
            return
        given = piece or {}
        chunk_id = given.get("id")
        self.id = chunk_id if isinstance(chunk_id, str) else f"chatcmpl-{uuid.uuid4().hex}"
        created = given.get("created")
        self.created = created if isinstance(created, int) else int(time.time())
        model = given.get("model")
        self.model = model if isinstance(model, str) else ""

    def _chunk(self, choices: list[Any]) -> dict[str, Any]:
        self._identity(None)
        return {
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
            "choices": choices,
        }

    def shape(self, piece: object) -> dict[str, Any] | None:
        """
        The chunk to send for ``piece`` (an upstream chunk object or a text), or None.

        None for a piece with nothing to show: a usage chunk (no choices) or
        a chunk whose only news was its ``finish_reason``.
        """
        if isinstance(piece, str):
            if not piece:
                return None
            return self._chunk([{"index": 0, "delta": {"content": piece}, "finish_reason": None}])
        if not isinstance(piece, Mapping):
            return None
        self._identity(piece)
        choices = piece.get("choices")
        if not isinstance(choices, list) or not choices:
            return None
        kept = []
        for choice in choices:
            if not isinstance(choice, Mapping):
                continue
            reason = choice.get("finish_reason")
            if isinstance(reason, str):
                self.finish_reason = reason
            if _has_delta(choice):
                kept.append({**choice, "finish_reason": None})
        if not kept:
            return None
        chunk = {key: value for key, value in piece.items() if key != "usage"}
        chunk.update(id=self.id, created=self.created, model=self.model, choices=kept)
        return chunk

    def finish(
        self, relapse: dict[str, Any], usage: Mapping[str, Any] | None
    ) -> list[dict[str, Any]]:
        """The closing chunks: the finish chunk and, with usage asked for, the usage chunk."""
        done = self._chunk(
            [{"index": 0, "delta": {}, "finish_reason": self.finish_reason or "stop"}]
        )
        if not self.include_usage:
            done["relapse"] = relapse
            return [done]
        last = self._chunk([])
        last["usage"] = None if usage is None else {name: usage[name] for name in _USAGE_NAMES}
        last["relapse"] = relapse
        return [done, last]
