"""The opt-in, deterministic context compression of ``run(compress=True)``."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from relapse._read.chunks import ChunkText, chunk_id_of, chunk_texts

_WORDS = re.compile(r"\S+")


class CompressedChunk(ChunkText):
    """
    A compressed chunk's text that knows where it came from in the caller's chunks.

    The loop names the caller's chunks in :class:`relapse.Evidence`, never
    the compressed list the caller did not see: :meth:`source_span` maps an
    offset range of this text back to the original chunk's text.

    Attributes:
        chunk_id: The original chunk's id, or None.
        source_index: The original chunk's index in the chunks passed.
    """

    source_index: int
    _offsets: tuple[int, ...]

    def __new__(
        cls, text: str, chunk_id: str | None, source_index: int, offsets: tuple[int, ...]
    ) -> CompressedChunk:
        made = super().__new__(cls, text, chunk_id)
        made.source_index = source_index
        # offsets[i] is the original offset of this text's character i;
        # offsets[len(text)] is just past the original of the last one.
        made._offsets = offsets
        return made

    def __reduce__(self) -> tuple[object, ...]:
        return (
            CompressedChunk,
            (str(self), self.chunk_id, self.source_index, self._offsets),
        )

    def source_span(self, start: int, end: int) -> tuple[int, int]:
        """
        ``(start, end)`` of this text as offsets in the original chunk's text.

        The span runs from the original of the first character to just past
        the original of the last one, so whitespace the compression
        collapsed inside it is included, as the chunk writes it.

        Raises:
            ValueError: not ``0 <= start <= end <= len(self)``.
        """
        if not 0 <= start <= end <= len(self):
            raise ValueError(f"span ({start}, {end}) is outside a text of {len(self)} characters")
        if start == end:
            return self._offsets[start], self._offsets[start]
        return self._offsets[start], self._offsets[end - 1] + 1


def _normalized(raw: str) -> tuple[str, list[int]]:
    """``raw`` with each run of white space one space, stripped; and each character's origin."""
    parts: list[str] = []
    origins: list[int] = []
    previous_end = -1
    for match in _WORDS.finditer(raw):
        if parts:
            parts.append(" ")
            origins.append(previous_end)
        parts.append(match.group())
        origins.extend(range(match.start(), match.end()))
        previous_end = match.end()
    return "".join(parts), origins


def default_compress(chunks: Iterable[Any], max_chars: int = 8000) -> list[str]:
    """
    Deduplicate, whitespace-normalize and cap the chunks.

    Chunks are kept in order; a chunk whose normalized text was already seen
    is dropped, and the chunk that crosses the budget is cut at it. Each
    text returned is a :class:`CompressedChunk`, a ``str`` that keeps the
    original chunk's index, id and offsets, so evidence found in it names
    the chunk the caller passed.

    Args:
        chunks: ``str`` items or mappings with a ``"text"`` key.
        max_chars: The budget for the total length of the result, in
            characters; at least 0.

    Returns:
        The compressed chunk texts; their lengths add up to at most
        ``max_chars`` characters.

    Raises:
        TypeError: ``chunks`` is not an iterable of chunks.
        ValueError: ``max_chars`` is negative.
    """
    if max_chars < 0:
        raise ValueError(f"max_chars must be >= 0, got {max_chars}")
    seen: set[str] = set()
    out: list[str] = []
    total = 0
    for index, raw in enumerate(chunk_texts(chunks)):
        text, origins = _normalized(raw)
        if not text or text in seen:
            continue
        seen.add(text)
        room = max_chars - total
        if room <= 0:
            break
        text = text[:room]
        del origins[len(text) :]
        origins.append(origins[-1] + 1)
        out.append(CompressedChunk(text, chunk_id_of(raw), index, tuple(origins)))
        total += len(text)
    return out
