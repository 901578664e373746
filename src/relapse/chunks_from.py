"""
Ready-made ``chunks_of`` readers: the chunks a function retrieved, read from its result.

A function that retrieves inside itself (a LlamaIndex query engine, a
LangChain retrieval chain) returns its sources with the answer. Pass one of
these as ``chunks_of=`` and relapse checks each attempt against the chunks
that attempt returned::

    @relapse.grounded(chunks_of=relapse.chunks_from.llamaindex)
    def ask(query: str) -> Response:
        return query_engine.query(query)

With ``release="sentence"`` a ``chunks_of`` reader must know the chunks
before the stream is read, or the loop falls back to ``release="answer"``. A
reader that reads them off the unread stream object says so with a truthy
attribute ``before_stream``; :func:`llamaindex` does (a LlamaIndex streaming
response has its ``source_nodes`` before its tokens; see
:func:`relapse.integrations.llamaindex.response_stream`).

Each reader returns the chunks as the framework gives them (documents,
nodes, mappings); relapse reads their text as it reads a chunks argument.
None of them imports the framework.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from relapse._read.chunks import describe

__all__ = ["key", "langchain", "llamaindex", "sources"]


def llamaindex(result: Any) -> Any:
    """
    The ``source_nodes`` of a LlamaIndex ``Response`` (``query_engine.query(...)``).

    Args:
        result: An object with a ``source_nodes`` attribute, a list of
            ``NodeWithScore``.

    Returns:
        ``result.source_nodes``.

    Raises:
        TypeError: ``result`` has no ``source_nodes``; the message names its type.

    .. versionchanged:: 0.2.0
       Reads a stream's ``source_nodes`` before its tokens (``before_stream``),
       so ``release="sentence"`` streams a
       :func:`relapse.integrations.llamaindex.response_stream`.
    """
    nodes = getattr(result, "source_nodes", None)
    if nodes is None:
        raise TypeError(
            f"chunks_from.llamaindex reads a LlamaIndex Response's source_nodes;"
            f" the function returned {describe(result)}, which has none"
        )
    return nodes


#: A streaming response's source_nodes are there before its tokens are read.
llamaindex.before_stream = True  # type: ignore[attr-defined]


def key(name: str) -> Callable[[Any], Any]:
    """
    A reader of the chunks under ``name`` in a mapping the function returns.

    Args:
        name: The key holding the chunks, for example ``"documents"``.

    Returns:
        ``reader(result) -> result[name]``, raising TypeError naming the key,
        the result's type and, for a mapping, its keys, when ``result`` is not
        a mapping holding ``name``.

    Raises:
        TypeError: ``name`` is not a ``str``.
    """
    if not isinstance(name, str):
        raise TypeError(f"key() takes the name of a key (str), got {describe(name)}")

    def reader(result: Any) -> Any:
        if isinstance(result, Mapping) and name in result:
            return result[name]
        found = (
            f"a mapping with the keys {', '.join(map(repr, list(result)[:8]))}"
            if isinstance(result, Mapping)
            else describe(result)
        )
        raise TypeError(
            f"chunks_from reads the chunks under {name!r} of the mapping the function"
            f" returns; it returned {found}"
        )

    reader.__qualname__ = f"key({name!r})"
    return reader


#: The ``context`` documents of a LangChain retrieval chain's result
#: (``create_retrieval_chain`` returns ``{"input", "context", "answer"}``).
langchain = key("context")

#: The ``sources`` of a ``{"answer": ..., "sources": [...]}`` result.
sources = key("sources")
