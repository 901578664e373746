"""
Duck-typed reading of SDK objects and of their JSON forms, with no SDK imported.

The OpenAI, Anthropic, LangChain and LlamaIndex objects relapse reads are
pydantic models or dataclasses whose JSON form (``model_dump()``, a raw HTTP
body) has the same names as keys. :func:`member` reads a name from either, so
every reader in relapse handles the object and the dictionary alike.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

T = TypeVar("T")

#: The keys read, in this order, from a mapping returned by the function.
ANSWER_KEYS: tuple[str, ...] = ("answer", "output", "text", "content", "result")

#: How deep :func:`nested` follows a mapping's answer key into a value that is
#: itself a response (``{"answer": <ChatCompletion>}``).
MAX_DEPTH = 4

#: ``type`` values of content parts that hold answer text: ``"text"``
#: (Anthropic, LangChain, OpenAI Chat) and ``"output_text"`` (OpenAI Responses).
TEXT_PART_TYPES = frozenset({"text", "output_text"})


def member(value: object, name: str) -> Any:
    """``value[name]`` for a mapping, ``value.name`` otherwise; None when absent."""
    if isinstance(value, Mapping):
        return value.get(name)
    return getattr(value, name, None)


def first_item(value: object, name: str) -> Any:
    """The first item of the non-empty list ``member(value, name)``; None otherwise."""
    items = member(value, name)
    if isinstance(items, Sequence) and not isinstance(items, (str, bytes)) and items:
        return items[0]
    return None


def count(value: object) -> int | None:
    """``value`` when it is a token count (an ``int``, not a ``bool``, >= 0); None otherwise."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return None


def text_parts(content: object) -> tuple[str, ...] | None:
    """
    The text parts of a message's ``content``.

    Args:
        content: A ``str``, or a list whose items are ``str`` or parts with
            ``type`` ``"text"``/``"output_text"`` and a ``str`` ``text``
            (objects or mappings); parts of other types (tool calls, images,
            reasoning) are not answer text and are passed over.

    Returns:
        The text pieces in order (one for a ``str``), or None when ``content``
        is neither a ``str`` nor a list.
    """
    if isinstance(content, str):
        return (content,)
    if not isinstance(content, Sequence) or isinstance(content, (bytes, bytearray)):
        return None
    parts: list[str] = []
    for part in content:
        if isinstance(part, str):
            parts.append(part)
            continue
        text = member(part, "text")
        if member(part, "type") in TEXT_PART_TYPES and isinstance(text, str):
            parts.append(text)
    return tuple(parts)


def part_types(content: Sequence[Any]) -> str:
    """The ``type`` of each part of ``content``, comma-separated, for error messages."""
    return ", ".join(str(member(part, "type")) for part in content) or "none"


def wrapped_answer(result: object) -> Any:
    """The value under the first of :data:`ANSWER_KEYS` in a mapping; None otherwise."""
    if isinstance(result, Mapping):
        for key in ANSWER_KEYS:
            if key in result:
                return result[key]
    return None


def nested(result: object, read: Callable[[object], T | None]) -> T | None:
    """
    ``read(result)``, else ``read`` of the value under ``result``'s answer key, and so on.

    Lets every reader handle ``{"answer": <response>, "sources": [...]}`` as
    the response itself, down to :data:`MAX_DEPTH` levels.
    """
    for _ in range(MAX_DEPTH + 1):
        found = read(result)
        if found is not None:
            return found
        result = wrapped_answer(result)
        if result is None:
            return None
    return None
