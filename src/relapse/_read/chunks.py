"""Validation of the chunks argument: what the LLM and the check both see."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

#: The keys read, in this order, for the text of a chunk given as a mapping.
TEXT_KEYS: tuple[str, ...] = ("text", "page_content", "content")

#: What a chunk may be, for error messages.
EXPECTED_CHUNK = (
    "str or a mapping with a 'text', 'page_content' or 'content' key, or a document:"
    " page_content (LangChain Document), get_content() or text (LlamaIndex"
    " NodeWithScore, TextNode) or content (Haystack Document)"
)

#: What the chunks argument must be, for error messages.
_EXPECTED_CHUNKS = (
    "an iterable of str or of mappings with a 'text', 'page_content' or 'content' key,"
    " or of documents"
)


#: The keys (mappings) or attributes (documents) read, in this order, for a chunk's id.
ID_NAMES: tuple[str, ...] = ("id", "doc_id", "node_id")


_Text = TypeVar("_Text", bound="ChunkText")


class ChunkText(str):
    """
    A chunk's text that remembers the chunk's id.

    :func:`chunk_texts` returns one for a chunk that came with an id, so
    whatever judges the texts (the default check, the loop filling in
    :attr:`relapse.Evidence.chunk_id`) can name the chunk without the
    original objects. It is a ``str`` in every other respect.
    """

    chunk_id: str | None

    def __new__(cls: type[_Text], text: str, chunk_id: str | None) -> _Text:
        made = str.__new__(cls, text)
        made.chunk_id = chunk_id
        return made

    def __reduce__(self) -> tuple[object, ...]:
        # Pickled with its id (process pools); str's own reduction would drop it.
        return (ChunkText, (str(self), self.chunk_id))


def _id_value(value: object) -> str | None:
    """An id as a str: a non-empty str, or an int (not a bool); None otherwise."""
    if isinstance(value, str):
        return value or None
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None


def chunk_id_of(chunk: object) -> str | None:
    """
    The id a chunk came with, by duck typing; None when it has none.

    Read, in this order: a :class:`ChunkText`'s id; a mapping's ``id``,
    ``doc_id`` or ``node_id`` key, else its ``metadata["source"]``; a
    document's ``id``, ``doc_id`` or ``node_id`` attribute (LangChain
    ``Document.id``, LlamaIndex ``TextNode.node_id``, Haystack
    ``Document.id``), a LlamaIndex ``NodeWithScore``'s node's, else its
    ``metadata["source"]``. An id is a non-empty ``str`` or an ``int``
    (given as its decimal str). Never raises.
    """
    if isinstance(chunk, ChunkText):
        return chunk.chunk_id
    if isinstance(chunk, str):
        return None
    try:
        if isinstance(chunk, Mapping):
            for name in ID_NAMES:
                found = _id_value(chunk.get(name))
                if found is not None:
                    return found
            metadata = chunk.get("metadata")
        else:
            for holder in (chunk, getattr(chunk, "node", None)):
                for name in ID_NAMES:
                    found = _id_value(getattr(holder, name, None))
                    if found is not None:
                        return found
            metadata = getattr(chunk, "metadata", None)
        if isinstance(metadata, Mapping):
            return _id_value(metadata.get("source"))
    except Exception:  # a property that raises names no chunk
        return None
    return None


def describe(value: object) -> str:
    """Name ``value``'s type for error messages (``'NoneType'``, ``'int'``...)."""
    return type(value).__name__


def _text_field(value: object, owner: str) -> str:
    if isinstance(value, str):
        return value
    raise TypeError(f"{owner} is {describe(value)}; expected str")


def _document_text(chunk: object, where: str) -> str | None:
    """The text of a framework document, by duck typing; None when ``chunk`` is none."""
    kind = describe(chunk)
    if hasattr(chunk, "page_content"):
        return _text_field(chunk.page_content, f"{where} is a {kind} whose page_content")
    get_content = getattr(chunk, "get_content", None)
    if callable(get_content):
        # LlamaIndex: the text without metadata (the default MetadataMode.NONE).
        return _text_field(get_content(), f"{where} is a {kind} whose get_content()")
    for name in ("text", "content"):
        if hasattr(chunk, name):
            return _text_field(getattr(chunk, name), f"{where} is a {kind} whose {name}")
    return None


def chunk_text(chunk: object, where: str = "chunk") -> str:
    """
    The text of one chunk as retrievers and frameworks give it.

    Read by duck typing, with no framework imported: a ``str``; a mapping's
    first key of ``text``, ``page_content``, ``content``; a LangChain
    ``Document``'s ``page_content``; a LlamaIndex ``NodeWithScore`` or
    ``TextNode``'s ``get_content()`` (its text, without metadata); an
    object's ``text``; a Haystack ``Document``'s ``content``.

    Args:
        chunk: One retrieved chunk.
        where: How error messages name it, for example ``"docs[3]"``.

    Returns:
        The chunk's text.

    Raises:
        TypeError: ``chunk`` is none of these, or the field read is not a
            ``str`` (a Haystack ``Document`` holding no text); the message
            names ``where``, the type and what was expected.
    """
    if isinstance(chunk, str):
        return chunk
    if isinstance(chunk, Mapping):
        for key in TEXT_KEYS:
            if key in chunk:
                return _text_field(chunk[key], f"{where} is a mapping whose {key!r}")
        raise TypeError(
            f"{where} is a mapping without a 'text', 'page_content' or 'content' key"
            f" (its keys: {', '.join(map(repr, list(chunk)[:8]))}); expected {EXPECTED_CHUNK}"
        )
    text = _document_text(chunk, where)
    if text is None:
        raise TypeError(f"{where} is {describe(chunk)}; expected {EXPECTED_CHUNK}")
    return text


def _is_document(value: object) -> bool:
    """A LangChain or LlamaIndex document (iterable, as pydantic models are), not a container."""
    return hasattr(value, "page_content") or callable(getattr(value, "get_content", None))


def chunk_texts(chunks: Iterable[Any], argument: str = "chunks") -> list[str]:
    """
    Return the text of every chunk, in order.

    Args:
        chunks: An iterable of chunks, each read by :func:`chunk_text`.
        argument: The argument's name, used in error messages.

    Returns:
        One string per chunk; a chunk that came with an id (see
        :func:`chunk_id_of`) gives a :class:`ChunkText` carrying it.

    Raises:
        TypeError: ``chunks`` is a single ``str``/``bytes``, ``None``, a
            mapping, a single document, not iterable, or holds an item
            :func:`chunk_text` cannot read; the message names the argument
            and the offending index and type.
    """
    single = isinstance(chunks, (str, bytes, bytearray, Mapping)) or _is_document(chunks)
    if chunks is None or single:
        # Iterating these "works" (characters, byte values, keys, a pydantic
        # model's fields), which is exactly why they must be refused: the
        # check would see garbage.
        got = "None" if chunks is None else f"a single {describe(chunks)}"
        hint = " (wrap it in a list: [text])" if isinstance(chunks, str) else ""
        if _is_document(chunks):
            hint = " (wrap it in a list: [document])"
        raise TypeError(f"{argument} must be {_EXPECTED_CHUNKS}, got {got}{hint}")
    try:
        iterator = iter(chunks)
    except TypeError:
        raise TypeError(f"{argument} must be {_EXPECTED_CHUNKS}, got {describe(chunks)}") from None
    texts = list(iterator)
    for index, chunk in enumerate(texts):
        # Most chunks are already text; only the others pay for reading and
        # for the name an error message would give them.
        if type(chunk) is not str:
            text = chunk_text(chunk, f"{argument}[{index}]")
            found = chunk_id_of(chunk)
            texts[index] = text if found is None else ChunkText(text, found)
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
