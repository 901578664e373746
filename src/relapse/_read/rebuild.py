"""
A response with its answer text replaced: what ``on_exhausted="redact"`` returns.

The redacted answer must reach the caller in the function's own type. The
shapes relapse reads (:data:`relapse._read.answers.SHAPES`) are rebuilt on a
deep copy, by setting the one field the answer was read from; the copy is
then read back with the loop's own reader, and only a copy that reads as
the new text is returned. Everything else (an OpenAI Responses object or a
message whose text is in several parts, which could be cut anywhere; a
frozen object; a custom ``answer_of``'s shape it cannot find) cannot be
rebuilt, and :func:`rebuilt` says so with None.

:func:`led` does the same for one piece of a stream: the piece's text with a
lead (the space that joins a retry's continuation to the released text, see
:mod:`relapse._release`) before it.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, MutableMapping
from typing import Any

from relapse._read.shapes import ANSWER_KEYS, MAX_DEPTH, first_item, member

__all__ = ["led", "rebuilt"]


def _set(value: object, name: str, text: str) -> bool:
    """Set ``value[name]`` or ``value.name`` to ``text`` when it holds a str now."""
    if isinstance(value, MutableMapping):
        if isinstance(value.get(name), str):
            value[name] = text
            return True
        return False
    if isinstance(value, Mapping) or not isinstance(getattr(value, name, None), str):
        return False
    try:
        setattr(value, name, text)
    except Exception:  # a frozen dataclass, a read-only property, a validating model
        return False
    return True


def _single_text_part(content: object, text: str) -> bool:
    """Replace the text of a content list that holds exactly one text part."""
    if not isinstance(content, list):
        return False
    texts = [part for part in content if member(part, "type") in ("text", "output_text")]
    strings = [index for index, part in enumerate(content) if isinstance(part, str)]
    if len(texts) + len(strings) != 1:
        return False
    if strings:
        content[strings[0]] = text
        return True
    return _set(texts[0], "text", text)


def _replace(value: object, text: str, depth: int = 0) -> bool:
    """Set the answer field of ``value`` (a deep copy) to ``text``, in the readers' order."""
    message = member(first_item(value, "choices"), "message")
    if message is not None:
        content = member(message, "content")
        if content is None:
            return _set(message, "refusal", text)
        return _set(message, "content", text) or _single_text_part(content, text)
    choice = first_item(value, "choices")
    if choice is not None and _set(choice, "text", text):
        return True
    if isinstance(member(value, "output_text"), str):
        # OpenAI Responses: output_text joins the output_text parts; one can be set.
        items = member(value, "output")
        parts = [
            part
            for item in (items if isinstance(items, list) else ())
            for part in (member(item, "content") or ())
            if member(part, "type") == "output_text"
        ]
        return len(parts) == 1 and _set(parts[0], "text", text)
    content = member(value, "content")
    if isinstance(content, list):
        return _single_text_part(content, text)
    if not isinstance(value, Mapping) and content is not None:
        return _set(value, "content", text)
    if not isinstance(value, Mapping):
        return _set(value, "response", text) or _set(value, "text", text)
    for key in ANSWER_KEYS:
        if key in value:
            if _set(value, key, text):
                return True
            inner = value[key]
            return depth < MAX_DEPTH and inner is not None and _replace(inner, text, depth + 1)
    return False


def rebuilt(response: object, text: str, read: Callable[[object], str]) -> Any | None:
    """
    A copy of ``response`` whose answer is ``text``, or None when it cannot be made.

    Args:
        response: What the function returned for the redacted attempt.
        text: The redacted answer.
        read: The loop's answer reader (``answer_of``, or the default); the
            copy is returned only when it reads as ``text``.

    Returns:
        ``text`` for a ``str``; a rebuilt deep copy for a dict, an OpenAI
        Chat Completion, Completion or Responses object of one text part,
        an Anthropic or LangChain message of one text part, a LlamaIndex
        ``Response``, an object with a ``text`` (and their JSON forms);
        None otherwise. Never raises.
    """
    if isinstance(response, str):
        return text
    try:
        copied = copy.deepcopy(response)
        if not _replace(copied, text):
            return None
        return copied if read(copied) == text else None
    except Exception:  # an object that cannot be copied or read back is not rebuilt
        return None


def _lead(piece: object, lead: str) -> bool:
    """Put ``lead`` before the text of ``piece`` (a deep copy), in the field the reader reads."""
    choice = first_item(piece, "choices")
    if choice is not None:
        # OpenAI Chat Completions chunks carry delta.content, Completions chunks text.
        delta = member(choice, "delta")
        content = member(delta, "content")
        if isinstance(content, str):
            return _set(delta, "content", lead + content)
        text = member(choice, "text")
        return isinstance(text, str) and _set(choice, "text", lead + text)
    delta = member(piece, "delta")
    if isinstance(delta, str):
        return _set(piece, "delta", lead + delta)  # an OpenAI Responses text delta
    text = member(delta, "text")
    if isinstance(text, str):
        return _set(delta, "text", lead + text)  # an Anthropic text delta
    content = member(piece, "content")
    if isinstance(content, str):
        return _set(piece, "content", lead + content)  # a LangChain message chunk
    texts = (
        [part for part in content if isinstance(part, str) or isinstance(member(part, "text"), str)]
        if isinstance(content, list)
        else []
    )
    if not texts:
        return False
    # The first text part of a chunk whose content is a list of parts.
    first = texts[0]
    if isinstance(first, str):
        assert isinstance(content, list)
        content[content.index(first)] = lead + first
        return True
    return _set(first, "text", lead + member(first, "text"))


def led(piece: object, lead: str, read: Callable[[object], str]) -> Any | None:
    """
    A copy of the stream piece ``piece`` whose text is ``lead`` then its own, or None.

    Args:
        piece: One piece of a stream (see :func:`relapse._read.streams.read_piece`).
        lead: The text to put before the piece's text (a space).
        read: Reads one piece's text; the copy is returned only when it reads
            as ``lead`` followed by what ``piece`` reads as.

    Returns:
        ``lead + piece`` for a ``str``; a rebuilt deep copy for an OpenAI Chat
        Completions or Completions chunk, an OpenAI Responses text delta, an
        Anthropic text delta, a LangChain message chunk (its ``content``, or
        the first text part of a list); None for anything else (a frozen
        object, a shape read by a custom reader). Never raises.
    """
    if isinstance(piece, str):
        return lead + piece
    try:
        before = read(piece)
        copied = copy.deepcopy(piece)
        if not _lead(copied, lead):
            return None
        return copied if read(copied) == lead + before else None
    except Exception:  # a piece that cannot be copied or read back is not rebuilt
        return None
