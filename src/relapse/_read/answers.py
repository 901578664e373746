"""
The answer text of whatever an LLM-calling function returns (``answer_of``).

The grounding check reads text; functions return strings, SDK response
objects or dictionaries. :func:`default_answer_of` recognises the common
shapes by duck typing (no SDK is imported), in the order of :data:`SHAPES`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from relapse._read.shapes import ANSWER_KEYS, first_item, member, nested, part_types, text_parts

_ANSWER_OF_HINT = "pass answer_of=callable(result) -> str"


def _chat_completion(result: object) -> str | None:
    message = member(first_item(result, "choices"), "message")
    if message is None:
        return None
    content = member(message, "content")
    if isinstance(content, str):
        return content
    refusal = member(message, "refusal")
    if content is None and isinstance(refusal, str):
        # The model declined; its refusal text is the answer to check.
        return refusal
    parts = text_parts(content)
    if parts:
        return "".join(parts)
    tools = member(message, "tool_calls")
    why = " (the model called a tool)" if tools else ""
    raise TypeError(
        f"{type(result).__name__}.choices[0].message.content is"
        f" {type(content).__name__}{why}, not text; {_ANSWER_OF_HINT}"
    )


def _completion(result: object) -> str | None:
    text = member(first_item(result, "choices"), "text")
    return text if isinstance(text, str) else None


def _responses(result: object) -> str | None:
    text = member(result, "output_text")
    return text if isinstance(text, str) else None


def _message_content(result: object) -> str | None:
    content = member(result, "content")
    if isinstance(result, Mapping) and isinstance(content, str):
        return None  # a plain {"content": ...} mapping: read as a mapping below
    parts = text_parts(content)
    if parts is None:
        return None
    if not parts and not isinstance(content, str):
        raise TypeError(
            f"{type(result).__name__}.content holds no text part"
            f" (its parts: {part_types(content)}); {_ANSWER_OF_HINT}"
        )
    return "".join(parts)


def _llamaindex_response(result: object) -> str | None:
    if isinstance(result, Mapping) or not hasattr(result, "response"):
        return None
    text = member(result, "response")
    if isinstance(text, str):
        return text
    if text is None and hasattr(result, "source_nodes"):
        raise TypeError(
            f"{type(result).__name__}.response is None (the query engine produced no"
            f" answer); {_ANSWER_OF_HINT}"
        )
    return None


def _text_attribute(result: object) -> str | None:
    if isinstance(result, Mapping):
        return None
    text = member(result, "text")
    return text if isinstance(text, str) else None


#: ``(description, reader)``: each reader returns the text, None when
#: ``result`` is not of its shape, or raises TypeError when it is but holds
#: no text (a tool call, an empty query-engine response).
SHAPES: tuple[tuple[str, Callable[[object], str | None]], ...] = (
    ("str", lambda result: result if isinstance(result, str) else None),
    ("OpenAI Chat Completions choices[0].message.content", _chat_completion),
    ("OpenAI Completions choices[0].text", _completion),
    ("OpenAI Responses output_text", _responses),
    ("Anthropic Message or LangChain message content (str or text parts)", _message_content),
    ("LlamaIndex Response.response", _llamaindex_response),
    ("an object with a str text (Google GenAI, LlamaIndex CompletionResponse)", _text_attribute),
)


def _tried() -> str:
    return "; ".join(description for description, _ in SHAPES) + (
        "; a mapping with one of " + ", ".join(map(repr, ANSWER_KEYS))
    )


def _read(result: object) -> str | None:
    for _, reader in SHAPES:
        text = reader(result)
        if text is not None:
            return text
    return None


def default_answer_of(result: Any) -> str:
    """
    The answer text of an LLM-calling function's return value.

    Recognised by duck typing, with no SDK imported, in this order: ``str``;
    an OpenAI Chat Completion (``choices[0].message.content``, or its
    ``refusal`` when the content is None); an OpenAI Completion
    (``choices[0].text``); an OpenAI Responses object (``output_text``); an
    Anthropic ``Message`` or a LangChain message (``content``, a ``str`` or a
    list of text parts, joined; tool-call, image and reasoning parts are
    passed over); a LlamaIndex ``Response`` (``response``); an object with a
    ``str`` ``text``; a mapping with one of the keys ``answer``, ``output``,
    ``text``, ``content``, ``result`` (first present wins; its value is read
    by these same rules, so ``{"answer": <ChatCompletion>}`` works). The
    OpenAI and Anthropic shapes are also read from their JSON form
    (``model_dump()``).

    Args:
        result: What the decorated function returned.

    Returns:
        The text the grounding check judges.

    Raises:
        TypeError: ``result`` is none of these shapes, or is one that holds no
            text (a tool call, a message of tool-use blocks only); the message
            names the type and the shapes tried, and says to pass
            ``answer_of=``.
    """
    text = nested(result, _read)
    if text is None:
        raise TypeError(
            f"cannot read the answer text of a {type(result).__name__}; relapse reads:"
            f" {_tried()}; {_ANSWER_OF_HINT}"
        )
    return text
