"""
Streamed answers: read a stream to its end, then replay it.

The check needs the whole answer, so relapse consumes a stream the decorated
function returns before checking it, and hands the caller an iterator of the
same kind (sync or async) that replays the chosen attempt's pieces. Streaming
code keeps working; what it loses is the early first token (the trade-off is
documented in the README).

Consuming (:func:`collect`, :func:`acollect`) is kept apart from reading
(:func:`read_stream`), so a piece relapse cannot read never costs the rest of
a paid stream: every piece is collected first.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from relapse._read.shapes import first_item, member, text_parts
from relapse._read.usage import token_counts
from relapse._results import Usage

StreamKind = Literal["sync", "async"]

#: What :func:`read_stream` accepts, for error messages.
STREAM_SHAPES = (
    "str, OpenAI Chat Completions or Completions chunks, OpenAI Responses stream events,"
    " Anthropic stream events, or LangChain message chunks"
)


def stream_kind(value: object) -> StreamKind | None:
    """
    Whether ``value`` is a stream: ``"sync"``, ``"async"`` or None.

    A stream is an iterator (``__next__``: generators, the OpenAI SDK's
    ``Stream``) or an async iterator (``__anext__``: async generators,
    ``AsyncStream``). Re-iterable containers (lists, pydantic models, which
    define ``__iter__`` only) are values, not streams.
    """
    if isinstance(value, (str, bytes, bytearray, Mapping)):
        return None
    if isinstance(value, AsyncIterator):
        return "async"
    if isinstance(value, Iterator):
        return "sync"
    return None


def collect(stream: Iterator[Any], into: list[Any] | None = None) -> tuple[Any, ...]:
    """
    Every piece of ``stream``, in order, reading it to the end.

    The stream is closed afterwards (``close()`` when it has one), also when
    reading it raises; the exception propagates unchanged.

    Args:
        stream: The iterator to read.
        into: A list each piece is appended to as it is read, so that the
            caller still has the pieces read before the stream raised.
    """
    pieces = [] if into is None else into
    try:
        for piece in stream:
            pieces.append(piece)
        return tuple(pieces)
    finally:
        close = getattr(stream, "close", None)
        if callable(close):
            close()


async def acollect(stream: AsyncIterator[Any], into: list[Any] | None = None) -> tuple[Any, ...]:
    """:func:`collect` for an async iterator (closed with ``aclose()`` or ``close()``)."""
    pieces = [] if into is None else into
    try:
        async for piece in stream:
            pieces.append(piece)
        return tuple(pieces)
    finally:
        close = getattr(stream, "aclose", None) or getattr(stream, "close", None)
        if callable(close):
            closing = close()
            if inspect.isawaitable(closing):
                await closing


def replay(pieces: Sequence[Any]) -> Iterator[Any]:
    """A fresh iterator over ``pieces``."""
    return iter(tuple(pieces))


async def areplay(pieces: Sequence[Any]) -> AsyncIterator[Any]:
    """A fresh async iterator over ``pieces``."""
    for piece in tuple(pieces):
        yield piece


class Tally:
    """The text and token counts read so far from a stream's pieces (see :func:`read_piece`)."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.input: int | None = None
        self.output: int | None = None

    def report(self, usage: object) -> None:
        """A cumulative usage report: each count it states replaces the previous one."""
        given, made = token_counts(usage)
        if given is not None:
            self.input = given
        if made is not None:
            self.output = made

    def increment(self, usage: object) -> None:
        """An incremental usage report (LangChain chunks): its counts add up."""
        given, made = token_counts(usage)
        if given is not None:
            self.input = (self.input or 0) + given
        if made is not None:
            self.output = (self.output or 0) + made

    def usage(self) -> Usage | None:
        if self.input is None and self.output is None:
            return None
        return Usage(self.input or 0, self.output or 0)


def _openai_chunk(tally: Tally, chunk: object) -> None:
    # Chat chunks carry delta.content, Completions chunks text; with
    # stream_options={"include_usage": True} the last chunk has no choice and
    # the usage of the whole stream.
    choice = first_item(chunk, "choices")
    text = member(member(choice, "delta"), "content")
    if not isinstance(text, str):
        text = member(choice, "text")
    if isinstance(text, str):
        tally.parts.append(text)
    tally.report(member(chunk, "usage"))


def _responses_text(tally: Tally, event: object) -> None:
    delta = member(event, "delta")
    if isinstance(delta, str):
        tally.parts.append(delta)


def _responses_done(tally: Tally, event: object) -> None:
    tally.report(member(member(event, "response"), "usage"))


def _anthropic_start(tally: Tally, event: object) -> None:
    tally.report(member(member(event, "message"), "usage"))


def _anthropic_text(tally: Tally, event: object) -> None:
    delta = member(event, "delta")
    text = member(delta, "text")
    if member(delta, "type") == "text_delta" and isinstance(text, str):
        tally.parts.append(text)


def _anthropic_delta(tally: Tally, event: object) -> None:
    # message_delta usage counts are cumulative for the whole message.
    tally.report(member(event, "usage"))


#: Readers of the typed events that carry text or usage; events of any other
#: ``type`` (``response.created``, ``content_block_start``, ``ping``...)
#: carry neither and are passed over.
_EVENTS: dict[str, Callable[[Tally, object], None]] = {
    "response.output_text.delta": _responses_text,
    "response.completed": _responses_done,
    "response.incomplete": _responses_done,
    "response.failed": _responses_done,
    "message_start": _anthropic_start,
    "content_block_delta": _anthropic_text,
    "message_delta": _anthropic_delta,
}


def read_piece(tally: Tally, index: int, piece: object) -> None:
    """
    Add the text and usage of stream item ``index``, ``piece``, to ``tally``.

    Raises:
        TypeError: as :func:`read_stream`.
    """
    if isinstance(piece, str):
        tally.parts.append(piece)
        return
    if member(piece, "choices") is not None:
        _openai_chunk(tally, piece)
        return
    kind = member(piece, "type")
    reader = _EVENTS.get(kind) if isinstance(kind, str) else None
    if reader is not None:
        reader(tally, piece)
        return
    parts = text_parts(member(piece, "content"))
    if parts is not None:
        tally.parts.extend(parts)
        tally.increment(member(piece, "usage_metadata"))
        return
    if not isinstance(kind, str):
        raise TypeError(
            f"stream item {index} is {type(piece).__name__}; expected {STREAM_SHAPES};"
            " pass answer_of=callable(pieces) -> str to read other streams"
        )


def read_stream(pieces: Sequence[Any]) -> tuple[str, Usage | None]:
    """
    The answer text and the token usage of a collected stream.

    Args:
        pieces: What :func:`collect` returned. Each piece is a ``str``; an
            OpenAI Chat Completions chunk (``choices[0].delta.content``) or
            Completions chunk (``choices[0].text``), whose final chunk may
            carry ``usage``; an OpenAI Responses event
            (``response.output_text.delta``; usage from
            ``response.completed``); an Anthropic event (``content_block_delta``
            text deltas; usage from ``message_start`` and ``message_delta``);
            or a LangChain message chunk (``content``; ``usage_metadata``
            added up). Other typed events (``type`` set) carry neither.

    Returns:
        ``(text, usage)``: the text pieces joined, and the usage the stream
        reported (None when it reported none).

    Raises:
        TypeError: a piece is none of these; the message names its index and type.
    """
    tally = Tally()
    for index, piece in enumerate(pieces):
        read_piece(tally, index, piece)
    return "".join(tally.parts), tally.usage()


@dataclass(frozen=True)
class Streamed:
    """
    A stream the decorated function returned, read to its end.

    It is the ``response`` of the attempt (in :class:`relapse.IterationRecord`
    and :class:`relapse.RelapseResult`) and what ``answer_of``, ``usage_of``
    and ``chunks_of`` receive; calling the decorated function returns
    :meth:`replay` of the chosen attempt's.

    Attributes:
        kind: ``"sync"`` or ``"async"``: the kind of iterator the function
            returned, and so the kind :meth:`replay` returns.
        pieces: Every piece the stream yielded, in order, as it yielded them.
    """

    kind: StreamKind
    pieces: tuple[Any, ...]

    def replay(self) -> Iterator[Any] | AsyncIterator[Any]:
        """A fresh iterator of this stream's kind over its pieces."""
        return replay(self.pieces) if self.kind == "sync" else areplay(self.pieces)


class BrokenStream(Exception):  # noqa: N818 (a carrier between two functions, not an error type)
    """
    A stream that raised after yielding some pieces (a connection reset midway).

    :func:`settle` and :func:`asettle` raise it; the loop's drivers catch it,
    record ``partial`` (the pieces were paid for) and raise ``error``, the
    stream's own exception, unchanged. It never reaches the caller.

    Attributes:
        error: What the stream raised.
        partial: The pieces it yielded before, as a :class:`Streamed`.
    """

    def __init__(self, error: BaseException, partial: Streamed) -> None:
        super().__init__(error, partial)
        self.error = error
        self.partial = partial


def settle(value: Any) -> Any:
    """
    What a synchronous call returned, made readable: a sync stream is read into a :class:`Streamed`.

    Raises:
        TypeError: ``value`` is an async stream or a coroutine, which a
            synchronous call cannot have read or awaited; the message says to
            make the function ``async def``. A coroutine is closed first.
        BrokenStream: the stream raised after yielding at least one piece
            (a stream raising before its first piece raises its own error).
    """
    if type(value) is str:
        return value  # the common case, on every LLM call
    if inspect.iscoroutine(value):
        value.close()  # never awaited: close it so Python does not warn
        raise TypeError(
            "the LLM call returned coroutine (a sync function returning a coroutine: define it"
            " with async def, or mark a wrapper with inspect.markcoroutinefunction, so relapse"
            " awaits it)"
        )
    kind = stream_kind(value)
    if kind is None:
        return value
    if kind == "async":
        raise TypeError(
            f"the function returned an async iterator ({type(value).__name__}) but is not"
            " async def; relapse cannot read it without an event loop: make it async def"
        )
    read: list[Any] = []
    try:
        return Streamed(kind, collect(value, read))
    except BaseException as error:
        if not read:
            raise  # like a call that raised: nothing shows it was paid for
        raise BrokenStream(error, Streamed(kind, tuple(read))) from None


async def asettle(value: Any) -> Any:
    """
    What an asynchronous call returned, made readable.

    An awaitable (the coroutine of an ``async def``) is awaited first; a sync
    or async stream (what an async generator function returns) is then read
    into a :class:`Streamed`; anything else is returned as it is.

    Raises:
        BrokenStream: as :func:`settle`.
    """
    if inspect.isawaitable(value):
        value = await value
    kind = stream_kind(value)
    if kind == "async":
        read: list[Any] = []
        try:
            return Streamed(kind, await acollect(value, read))
        except BaseException as error:
            if not read:
                raise
            raise BrokenStream(error, Streamed(kind, tuple(read))) from None
    return settle(value)
