"""Validation of the chunks argument: what the LLM and the check both see."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any


def describe(value: object) -> str:
    """Name ``value``'s type for error messages (``'NoneType'``, ``'int'``...)."""
    return type(value).__name__


def chunk_texts(chunks: Iterable[Any], argument: str = "chunks") -> list[str]:
    """
    Return the text of every chunk, in order.

    Args:
        chunks: An iterable of ``str`` or mappings with a ``"text"`` key whose
            value is a ``str``.
        argument: The argument's name, used in error messages.

    Returns:
        One string per chunk.

    Raises:
        TypeError: ``chunks`` is a single ``str``/``bytes``, ``None``, a
            mapping, not iterable, or holds an item that is neither a ``str``
            nor a mapping with a string ``"text"``; the message names the
            argument and the offending index and type.
    """
    if chunks is None or isinstance(chunks, (str, bytes, bytearray, Mapping)):
        # Iterating these "works" (characters, byte values, keys), which is
        # exactly why they must be refused: the check would see garbage.
        got = "None" if chunks is None else f"a single {describe(chunks)}"
        raise TypeError(
            f"{argument} must be an iterable of str or of mappings with a 'text' key,"
            f" got {got}" + (" (wrap it in a list: [text])" if isinstance(chunks, str) else "")
        )
    try:
        iterator = iter(chunks)
    except TypeError:
        raise TypeError(
            f"{argument} must be an iterable of str or of mappings with a 'text' key,"
            f" got {describe(chunks)}"
        ) from None
    texts: list[str] = []
    for index, chunk in enumerate(iterator):
        if isinstance(chunk, str):
            texts.append(chunk)
        elif isinstance(chunk, Mapping):
            if "text" not in chunk:
                raise TypeError(
                    f"{argument}[{index}] is a mapping without a 'text' key"
                    f" (its keys: {', '.join(map(repr, list(chunk)[:8]))});"
                    " expected str or a mapping with a str 'text' key"
                )
            text = chunk["text"]
            if not isinstance(text, str):
                raise TypeError(
                    f"{argument}[{index}] is a mapping whose 'text' is {describe(text)};"
                    " expected a mapping with a str 'text' key"
                )
            texts.append(text)
        else:
            raise TypeError(
                f"{argument}[{index}] is {describe(chunk)}; expected str or a mapping"
                " with a 'text' key"
            )
    return texts


def materialize(chunks: Any, argument: str = "chunks") -> tuple[Any, list[str]]:
    """
    Read the chunks argument once, so that every iteration sees the same chunks.

    Only a one-shot iterator (a generator, ``iter(...)``: an object that is its
    own iterator) is replaced, by a list of what it yielded; any re-iterable
    container (a list, a set, a dict view, a pandas Series, a custom result
    set) is passed on untouched, as iteration 1 promises.

    Args:
        chunks: The value the caller passed.
        argument: The argument's name, used in error messages.

    Returns:
        ``(value_to_pass, texts)``: the value to hand to the decorated function
        on every iteration and the chunk texts for the check.

    Raises:
        TypeError: see :func:`chunk_texts`.
    """
    try:
        one_shot = iter(chunks) is chunks
    except TypeError:
        one_shot = False  # not iterable: chunk_texts says so
    if not one_shot:
        return chunks, chunk_texts(chunks, argument)
    items = list(chunks)
    return items, chunk_texts(items, argument)
