"""
What the caller of a streaming grounded function holds: :class:`GroundedStream`.

A decorated function that returns a stream (a generator, an OpenAI SDK
``Stream``, an async generator, an ``AsyncStream``) hands its caller a
:class:`GroundedStream` or an :class:`AsyncGroundedStream`, in both release
modes. It iterates like the stream did (sync or async, the same piece
objects), supports ``with``/``async with`` and ``close()``/``aclose()``, and
once it is done exposes the :class:`relapse.RelapseResult` and the chosen
attempt's ``response``.

With ``release="answer"`` the loop has already run when the caller gets it
and it replays the chosen attempt's pieces. With the kill switch off it
passes the function's stream through unchecked (:class:`PassedThrough`), so
code written for a grounded stream keeps working. With ``release="sentence"`` the
loop is still running: each ``next`` drives it (:func:`relapse._loop.pump`)
until the check releases the next piece, so closing the stream closes the
provider's stream being read and ends the loop.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Generator, Iterator
from types import TracebackType
from typing import Any, Generic, TypeVar

from relapse._results import RelapseResult

T = TypeVar("T")

#: What a pump yields, besides released pieces, when its first attempt's call
#: returned a stream: the caller may be handed the stream now.
STREAMING: Any = object()


def _unraisable(error: BaseException) -> RuntimeError:
    """
    An error the iteration protocol cannot carry as itself, wrapped.

    A ``StopIteration`` raised by the LLM call would end the caller's ``for``
    loop silently, as if the answer were complete: it arrives as the cause
    of a ``RuntimeError`` instead, as a generator would raise it.
    """
    wrapped = RuntimeError(f"the grounded stream's LLM call raised {type(error).__name__}")
    wrapped.__cause__ = error
    return wrapped


def _not_done(what: str) -> RuntimeError:
    return RuntimeError(
        f"the stream's {what} is known once the stream is done: iterate it to its end first"
    )


class PassedThrough:
    """
    A sync stream's pieces passed through unchecked (the kill switch is off).

    Iterated by a :class:`GroundedStream`: its end carries ``ended(pieces)``,
    the result, as a generator's return value would. :meth:`close` closes
    the stream, also before the first piece was read.
    """

    __slots__ = ("_ended", "_pieces", "_stream")

    def __init__(self, stream: Any, ended: Callable[[tuple[Any, ...]], RelapseResult]) -> None:
        self._stream = stream
        self._ended = ended
        self._pieces: list[Any] = []

    def __iter__(self) -> PassedThrough:
        return self

    def __next__(self) -> Any:
        try:
            piece = next(self._stream)
        except StopIteration:
            self.close()
            raise StopIteration(self._ended(tuple(self._pieces))) from None
        except BaseException:
            self.close()
            raise
        self._pieces.append(piece)
        return piece

    def close(self) -> None:
        """Close the stream (``close()`` when it has one)."""
        close = getattr(self._stream, "close", None)
        if callable(close):
            close()


class APassedThrough:
    """:class:`PassedThrough` for an async stream; the result goes into ``box``."""

    __slots__ = ("_box", "_ended", "_pieces", "_stream")

    def __init__(
        self,
        stream: Any,
        ended: Callable[[tuple[Any, ...]], RelapseResult],
        box: list[RelapseResult | BaseException],
    ) -> None:
        self._stream = stream
        self._ended = ended
        self._box = box
        self._pieces: list[Any] = []

    def __aiter__(self) -> APassedThrough:
        return self

    async def __anext__(self) -> Any:
        try:
            piece = await self._stream.__anext__()
        except StopAsyncIteration:
            await self.aclose()
            self._box.append(self._ended(tuple(self._pieces)))
            raise
        except BaseException:
            await self.aclose()
            raise
        self._pieces.append(piece)
        return piece

    async def aclose(self) -> None:
        """Close the stream (``aclose()``, or ``close()``), awaiting what it returns."""
        close = getattr(self._stream, "aclose", None) or getattr(self._stream, "close", None)
        if callable(close):
            closing = close()
            if inspect.isawaitable(closing):
                await closing


class GroundedStream(Generic[T]):
    """
    The stream a synchronous grounded function hands its caller.

    Iterate it (``for piece in stream``) to get the pieces the function's
    stream yielded, the same objects in the same order, once the check let
    them through. ``with stream:`` closes it on leaving the block;
    :meth:`close` stops the underlying stream (for the OpenAI SDK, ends its
    HTTP response) and the loop.

    Attributes:
        done: Whether the stream has ended (iterated to its end, or closed).

    .. versionadded:: 0.2.0
    """

    __slots__ = ("_pieces", "_result", "done")

    def __init__(
        self,
        pieces: Generator[Any, None, RelapseResult | BaseException] | Iterator[Any],
        result: RelapseResult | None = None,
    ) -> None:
        self._pieces = pieces
        self._result = result
        self.done = False

    def __iter__(self) -> GroundedStream[T]:
        return self

    def __next__(self) -> T:
        if self.done:
            raise StopIteration
        try:
            while True:
                piece = next(self._pieces)
                if piece is not STREAMING:
                    return piece  # type: ignore[no-any-return]
        except StopIteration as end:
            self.done = True
            if isinstance(end.value, BaseException):
                raise _unraisable(end.value) from end.value
            if isinstance(end.value, RelapseResult):
                self._result = end.value
            raise StopIteration from None
        except BaseException:
            self.done = True
            raise

    def close(self) -> None:
        """Stop reading: close the underlying stream and end the loop. Idempotent."""
        self.done = True
        close = getattr(self._pieces, "close", None)
        if callable(close):
            close()

    def __enter__(self) -> GroundedStream[T]:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    @property
    def result(self) -> RelapseResult:
        """
        The :class:`relapse.RelapseResult` of the call.

        Raises:
            RuntimeError: the loop has not ended yet (``release="sentence"``:
                the stream is not done), or the stream was closed before it
                ended (there is then no result).
        """
        if self._result is None:
            raise _not_done("result")
        return self._result

    @property
    def response(self) -> Any:
        """
        The chosen attempt's response: a :class:`relapse.Streamed` of its pieces.

        Raises:
            RuntimeError: as :attr:`result`.
        """
        return self.result.response


class AsyncGroundedStream(Generic[T]):
    """
    :class:`GroundedStream` for an ``async def`` or async generator function.

    ``async for piece in stream``, ``async with stream:`` and ``await
    stream.aclose()``; :attr:`result` and :attr:`response` once done.

    .. versionadded:: 0.2.0
    """

    __slots__ = ("_box", "_pieces", "done")

    def __init__(
        self,
        pieces: AsyncGenerator[Any, None] | AsyncIterator[Any],
        box: list[RelapseResult | BaseException],
    ) -> None:
        """``box`` receives the result (async generators cannot return one)."""
        self._pieces = pieces
        self._box = box
        self.done = False

    def __aiter__(self) -> AsyncGroundedStream[T]:
        return self

    async def __anext__(self) -> T:
        if self.done:
            raise StopAsyncIteration
        try:
            while True:
                piece = await self._pieces.__anext__()
                if piece is not STREAMING:
                    return piece  # type: ignore[no-any-return]
        except StopAsyncIteration:
            self.done = True
            if self._box and isinstance(self._box[0], BaseException):
                raise _unraisable(self._box[0]) from self._box[0]
            raise
        except BaseException:
            self.done = True
            raise

    async def aclose(self) -> None:
        """Stop reading: close the underlying stream and end the loop. Idempotent."""
        self.done = True
        close = getattr(self._pieces, "aclose", None)
        if callable(close):
            await close()

    async def __aenter__(self) -> AsyncGroundedStream[T]:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()

    @property
    def result(self) -> RelapseResult:
        """
        The :class:`relapse.RelapseResult` of the call.

        Raises:
            RuntimeError: as :attr:`GroundedStream.result`.
        """
        if not self._box or not isinstance(self._box[0], RelapseResult):
            raise _not_done("result")
        return self._box[0]

    @property
    def response(self) -> Any:
        """The chosen attempt's response (a :class:`relapse.Streamed`); raises as :attr:`result`."""
        return self.result.response
