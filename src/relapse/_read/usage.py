"""
Reading token usage (:class:`relapse.Usage`) from LLM responses (``usage_of``).

Providers report tokens under different names (OpenAI Chat/Completions
``prompt_tokens``/``completion_tokens``, OpenAI Responses and Anthropic
``input_tokens``/``output_tokens``, LangChain ``usage_metadata``);
:func:`default_usage_of` reads them all by duck typing, with no SDK imported.
"""

from __future__ import annotations

from typing import Any

from relapse._read.shapes import count, member, nested
from relapse._results import Usage

#: Anthropic reports prompt-cache reads and writes apart from ``input_tokens``;
#: its documentation gives the prompt's total as their sum with ``input_tokens``.
_ANTHROPIC_CACHE_FIELDS = ("cache_creation_input_tokens", "cache_read_input_tokens")


def token_counts(report: object) -> tuple[int | None, int | None]:
    """
    ``(input, output)`` tokens of one usage report; None for what it does not state.

    Args:
        report: An object or mapping with ``input_tokens``/``output_tokens``
            (Anthropic, OpenAI Responses, LangChain ``usage_metadata``) or
            ``prompt_tokens``/``completion_tokens`` (OpenAI Chat and
            Completions); Anthropic's cache fields are added to the input.
    """
    if report is None:
        return None, None
    given = count(member(report, "input_tokens"))
    if given is None:
        given = count(member(report, "prompt_tokens"))
    if given is not None:
        given += sum(count(member(report, name)) or 0 for name in _ANTHROPIC_CACHE_FIELDS)
    made = count(member(report, "output_tokens"))
    if made is None:
        made = count(member(report, "completion_tokens"))
    return given, made


def usage_from(report: object) -> Usage | None:
    """The :class:`Usage` of one usage report (see :func:`token_counts`); None if it states none."""
    given, made = token_counts(report)
    if given is None and made is None:
        return None
    return Usage(given or 0, made or 0)


def _read(result: object) -> Usage | None:
    for name in ("usage", "usage_metadata"):
        found = usage_from(member(result, name))
        if found is not None:
            return found
    return None


def default_usage_of(result: Any) -> Usage | None:
    """
    The tokens an LLM-calling function's return value reports, if any.

    Read by duck typing, with no SDK imported, from ``result.usage`` (OpenAI
    Chat Completions and Completions: ``prompt_tokens``/``completion_tokens``;
    OpenAI Responses and Anthropic ``Message``: ``input_tokens``/
    ``output_tokens``, plus Anthropic's ``cache_creation_input_tokens`` and
    ``cache_read_input_tokens`` in the input) or ``result.usage_metadata``
    (LangChain messages), from objects or their JSON form; in a mapping
    without either, from the value under its answer key (``{"answer":
    <ChatCompletion>}``). A stream's final usage event is read by the stream
    reader, not here.

    Args:
        result: What the decorated function returned.

    Returns:
        The :class:`Usage`, or None when ``result`` reports none (a ``str``,
        a LlamaIndex ``Response``, a response without usage). Never raises on
        an unknown shape: usage is a report, not a requirement.
    """
    return nested(result, _read)
