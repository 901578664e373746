"""
Reading one attempt's return value: its answer text, its usage, its chunks.

The decorated function returns whatever it returns (a ``str``, an SDK
response, a dict, a stream read into a :class:`~relapse.Streamed`);
:class:`Readers` turns that into a :class:`Reply` with the user's
``answer_of``/``usage_of``/``chunks_of`` or the duck-typed defaults.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from relapse._read.answers import default_answer_of
from relapse._read.chunks import chunk_texts, describe
from relapse._read.streams import Streamed, read_stream
from relapse._read.usage import default_usage_of
from relapse._results import Usage

#: ``answer_of(response) -> str``: the text the check judges.
AnswerOf = Callable[[Any], str]
#: ``usage_of(response) -> relapse.Usage | None``: the tokens the attempt spent.
UsageOf = Callable[[Any], "Usage | None"]
#: ``chunks_of(response) -> chunks``: the chunks the function retrieved itself.
ChunksOf = Callable[[Any], Any]


@dataclass(slots=True)  # not frozen: one is built per iteration (see relapse._loop.Ask)
class Reply:
    """
    One attempt's return value, read.

    Attributes:
        response: What the function returned; a :class:`~relapse.Streamed`
            for a stream.
        answer: The text the check judges.
        usage: The tokens the attempt reported, or None.
    """

    response: Any
    answer: str
    usage: Usage | None


def _default_answer(response: Any) -> str:
    if isinstance(response, Streamed):
        return read_stream(response.pieces)[0]
    return default_answer_of(response)


def _default_usage(response: Any) -> Usage | None:
    if isinstance(response, Streamed):
        return read_stream(response.pieces)[1]
    return default_usage_of(response)


def returned(response: Any) -> Any:
    """What calling the decorated function gives back for ``response``: a stream is replayed."""
    return response.replay() if isinstance(response, Streamed) else response


@dataclass(frozen=True)
class Readers:
    """
    How the loop reads return values; fixed when decorating.

    Attributes:
        answer_of: The user's ``answer_of``, or None for
            :func:`relapse.default_answer_of` (or the stream reader).
        usage_of: The user's ``usage_of``, or None for
            :func:`relapse.default_usage_of` (or the stream reader).
        chunks_of: The user's ``chunks_of``, or None when the chunks are an
            argument.
    """

    answer_of: AnswerOf | None = None
    usage_of: UsageOf | None = None
    chunks_of: ChunksOf | None = None

    def read(self, response: Any) -> Reply:
        """
        The :class:`Reply` of ``response``.

        Raises:
            TypeError: the answer cannot be read (see
                :func:`relapse.default_answer_of`), ``answer_of`` returned a
                non-``str`` or ``usage_of`` something other than a
                :class:`relapse.Usage` or None.
            Exception: whatever the user's ``answer_of``/``usage_of`` raises.
        """
        if type(response) is str and self.answer_of is None and self.usage_of is None:
            # The common case, on every LLM call: a plain str has no usage to read.
            return Reply(response, response, None)
        answer = (self.answer_of or _default_answer)(response)
        if not isinstance(answer, str):
            raise TypeError(f"answer_of returned {describe(answer)}; expected str")
        usage = (self.usage_of or _default_usage)(response)
        if usage is not None and not isinstance(usage, Usage):
            raise TypeError(f"usage_of returned {describe(usage)}; expected relapse.Usage or None")
        return Reply(response, answer, usage)

    def streamed_usage(self, streamed: Streamed, counted: Usage | None) -> Usage | None:
        """
        The usage of a stream read piece by piece (``release="sentence"``).

        The user's ``usage_of`` reads it, as it reads a stream read whole
        (an integration counting tokens outside the pieces needs that);
        without one, ``counted``, what the pieces reported.

        Raises:
            TypeError: ``usage_of`` returned something other than a
                :class:`relapse.Usage` or None.
            Exception: whatever the user's ``usage_of`` raises.
        """
        if self.usage_of is None:
            return counted
        usage = self.usage_of(streamed)
        if usage is not None and not isinstance(usage, Usage):
            raise TypeError(f"usage_of returned {describe(usage)}; expected relapse.Usage or None")
        return usage

    def answer(self, response: Any) -> str:
        """
        The answer text of ``response``, as :meth:`read` reads it.

        Raises:
            TypeError: see :meth:`read`.
            Exception: whatever the user's ``answer_of`` raises.
        """
        return self.read(response).answer

    def salvage(self, response: Any) -> Reply:
        """
        The :class:`Reply` of a response whose call failed after it was paid for.

        A stream's pieces before it broke, or a reply the call could not read:
        read like :meth:`read`, but an answer or usage that cannot be read is
        ``""`` or None, since an error is already on its way to the caller.
        Never raises an :class:`Exception`.
        """
        try:
            answer = (self.answer_of or _default_answer)(response)
        except Exception:
            answer = ""
        try:
            usage = (self.usage_of or _default_usage)(response)
        except Exception:
            usage = None
        return Reply(
            response,
            answer if isinstance(answer, str) else "",
            usage if isinstance(usage, Usage) else None,
        )

    def chunks(self, response: Any) -> tuple[str, ...] | None:
        """
        The texts of the chunks ``chunks_of`` reads from ``response``; None without ``chunks_of``.

        Raises:
            TypeError: the chunks cannot be read; the message names
                ``chunks_of(response)``, the index and the type.
        """
        if self.chunks_of is None:
            return None
        return tuple(chunk_texts(self.chunks_of(response), "chunks_of(response)"))
