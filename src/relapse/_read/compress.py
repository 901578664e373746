"""The opt-in, deterministic context compression of ``run(compress=True)``."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from relapse._read.chunks import chunk_texts

_WHITESPACE = re.compile(r"\s+")


def default_compress(chunks: Iterable[Any], max_chars: int = 8000) -> list[str]:
    """
    Deduplicate, whitespace-normalize and cap the chunks.

    Chunks are kept in order; a chunk whose normalized text was already seen
    is dropped, and the chunk that crosses the budget is cut at it.

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
    for raw in chunk_texts(chunks):
        text = _WHITESPACE.sub(" ", raw).strip()
        if not text or text in seen:
            continue
        seen.add(text)
        room = max_chars - total
        if room <= 0:
            break
        text = text[:room]
        out.append(text)
        total += len(text)
    return out
