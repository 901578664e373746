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

:func:`edited` does the same for one piece of a stream: the piece's text
with its start cut (a repeat of the text already released) and a lead before
it (the space that joins a retry's continuation to the released text, see
:mod:`relapse._stream.release`). :func:`carrying` and :func:`restreamed` make a
piece, or a stream's pieces, of a stream's own type carrying another text:
what a caller reading SDK chunks gets for a redacted answer or a retry that
returned a plain value.
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Callable, Mapping, MutableMapping, Sequence
from typing import Any

from relapse._read.shapes import ANSWER_KEYS, MAX_DEPTH, TEXT_PART_TYPES, first_item, member

__all__ = ["carrying", "edited", "rebuilt", "restreamed"]


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


def _edit_parts(content: list[Any], cut: int, lead: str) -> bool:
    """
    Drop the first ``cut`` characters of a content list's text parts, ``lead`` before the rest.

    The text parts are those :func:`relapse._read.shapes.text_parts` reads.
    The cut runs across them in order (a part wholly cut keeps an empty
    text); ``lead`` goes to the first part with text left, or the first.
    """
    at = [
        index
        for index, part in enumerate(content)
        if isinstance(part, str)
        or (member(part, "type") in TEXT_PART_TYPES and isinstance(member(part, "text"), str))
    ]
    if not at:
        return False
    texts: list[str] = [
        content[index] if isinstance(content[index], str) else member(content[index], "text")
        for index in at
    ]
    left = cut
    for index, text in enumerate(texts):
        taken = min(left, len(text))
        texts[index], left = text[taken:], left - taken
    first = next((index for index, text in enumerate(texts) if text), 0)
    texts[first] = lead + texts[first]
    for index, text in zip(at, texts, strict=True):
        if isinstance(content[index], str):
            content[index] = text
        elif not _set(content[index], "text", text):
            return False
    return True


def _edit(piece: object, cut: int, lead: str) -> bool:
    """Drop the first ``cut`` characters of ``piece``'s text (a deep copy); ``lead`` goes before."""
    choice = first_item(piece, "choices")
    if choice is not None:
        # OpenAI Chat Completions chunks carry delta.content, Completions chunks text.
        delta = member(choice, "delta")
        content = member(delta, "content")
        if isinstance(content, str):
            return _set(delta, "content", lead + content[cut:])
        text = member(choice, "text")
        return isinstance(text, str) and _set(choice, "text", lead + text[cut:])
    delta = member(piece, "delta")
    if isinstance(delta, str):
        return _set(piece, "delta", lead + delta[cut:])  # an OpenAI Responses text delta
    text = member(delta, "text")
    if isinstance(text, str):
        return _set(delta, "text", lead + text[cut:])  # an Anthropic text delta
    content = member(piece, "content")
    if isinstance(content, str):
        return _set(piece, "content", lead + content[cut:])  # a LangChain message chunk
    # A chunk whose content is a list of parts.
    return isinstance(content, list) and _edit_parts(content, cut, lead)


def _forget_usage(piece: object) -> None:
    """Clear the usage a copied piece carries: it was the original's, counted with it."""
    for name in ("usage", "usage_metadata"):
        if isinstance(piece, MutableMapping):
            if piece.get(name) is not None:
                piece[name] = None
        elif getattr(piece, name, None) is not None:
            with contextlib.suppress(Exception):
                setattr(piece, name, None)


def edited(
    piece: object, read: Callable[[object], str], *, cut: int = 0, lead: str = ""
) -> Any | None:
    """
    A copy of the stream piece ``piece`` whose text is ``lead`` then its own from ``cut`` on.

    Args:
        piece: One piece of a stream (see :func:`relapse._read.streams.read_piece`).
        read: Reads one piece's text; the copy is returned only when it reads
            as ``lead + read(piece)[cut:]``.
        cut: How many characters of the piece's text to drop from its start
            (the end of a repeat of the released text, see :mod:`relapse._stream.release`).
        lead: The text to put before what is kept (the space that joins a
            retry's continuation to the released text, or a whole new text).

    Returns:
        ``lead + piece[cut:]`` for a ``str``; a rebuilt deep copy for an
        OpenAI Chat Completions or Completions chunk, an OpenAI Responses
        text delta, an Anthropic text delta, a LangChain message chunk (its
        ``content``, or its text parts in order); None for anything else (a
        frozen object, a shape read by a custom reader). Never raises.
    """
    if isinstance(piece, str):
        return lead + piece[cut:]
    try:
        want = lead + read(piece)[cut:]
        copied = copy.deepcopy(piece)
        if not _edit(copied, cut, lead):
            return None
        return copied if read(copied) == want else None
    except Exception:  # a piece that cannot be copied or read back is not rebuilt
        return None


def carrying(pieces: Sequence[Any], text: str, read: Callable[[object], str]) -> Any:
    """
    A piece of the same type as ``pieces``' first text piece, carrying ``text`` instead.

    What relapse releases when the text it must hand over did not come as
    pieces of the caller's stream: a retry that returned a plain value, a
    callable ``on_exhausted``'s text, a redacted answer. Its usage, if any,
    is cleared (it was the original piece's).

    Args:
        pieces: A stream's pieces, as the provider sent them.
        text: The text the new piece must read as.
        read: Reads one piece's text.

    Returns:
        A rebuilt copy of the first piece with text (see :func:`edited`), or
        ``text`` itself when that piece is a ``str``, cannot be rebuilt, or
        there is none. Never raises.
    """
    for piece in pieces:
        try:
            own = read(piece)
        except Exception:  # a piece relapse cannot read is no model
            return text
        if not own:
            continue
        if isinstance(piece, str):
            return text
        made = edited(piece, read, cut=len(own), lead=text)
        if made is None:
            return text
        _forget_usage(made)  # edited() read it back as ``text``; usage is no text
        return made
    return text


def restreamed(pieces: Sequence[Any], text: str, read: Callable[[object], str]) -> tuple[Any, ...]:
    """
    The pieces of a stream like ``pieces`` whose text is ``text`` (a redacted answer, a handler's).

    The pieces before the first that carries text (a role chunk, a
    ``message_start`` event) are kept as they are; then one piece of the
    same type carrying ``text`` (:func:`carrying`). What came after the text
    is not kept: a closing event may repeat the whole original text
    (OpenAI Responses' ``response.completed``).

    Returns:
        ``(text,)`` when the text pieces are ``str`` or cannot be rebuilt;
        else the leading pieces and the rebuilt piece. Never raises.
    """
    lead: list[Any] = []
    for piece in pieces:
        if isinstance(piece, str):
            break
        try:
            if read(piece):
                break
        except Exception:
            break
        lead.append(piece)
    made = carrying(pieces, text, read)
    if isinstance(made, str):
        return (text,)
    return (*lead, made)
