"""
``release="sentence"``: read one attempt's stream piece by piece, releasing what passed.

:func:`read_released` is a sub-generator of the loop (:func:`relapse._loop.steps`
delegates to it with ``yield from``): it asks its driver for the next piece
(:class:`Pull`), feeds the piece's text to the attempt's
:class:`~relapse.checks._incremental.IncrementalCheck`, asks the driver to
hand the caller every piece whose text has wholly passed (:class:`Release`),
and at the first failing sentence asks it to close the stream
(:class:`Close`) and stops reading. The decisions are made here once; the
sync and async drivers only do the I/O.

The text checked is the whole answer the caller reads: the prefix released
by earlier attempts, then this attempt's continuation. A continuation that
starts by repeating the prefix (models often restart their answer) has the
repeat recognised and dropped: it is neither fed to the check again nor
released twice. A piece that straddles the end of the repeat is released as
a copy of its own type holding only what follows the repeat
(:func:`relapse._read.rebuild.edited`: a ``str`` is sliced, an SDK chunk or a
LangChain message chunk copied with its text cut); a piece that cannot be
rebuilt (a frozen object) is released whole, and its whole text is
checked and recorded: the caller then reads that part of the repeat again,
and so does the recorded answer, never one without the other.

A continuation is joined to the prefix as one text: when the prefix ends
with no white space (the space of a stream whose tokens carry it in front,
``" It"``, belonged to the failing sentence's first token) and the
continuation's first text begins a word (:func:`joins`), one space is put
between them. It is checked and recorded with the text, and reaches the
caller in the first piece released after the prefix (:func:`relapse._read.rebuild.edited`):
a ``str`` piece is prefixed; an SDK chunk or a LangChain message chunk is
a copy whose text is prefixed; a piece that cannot be rebuilt that way is
released unchanged (the caller's text then lacks the space, the recorded
answer has it).
"""

from __future__ import annotations

import time
import unicodedata
from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

from opentelemetry.trace import Span

from relapse._read.quotation_marks import is_cjk
from relapse._read.rebuild import edited
from relapse._read.sentences import CJK_CLOSING, CJK_STOPS
from relapse._read.streams import Streamed, StreamKind, Tally, read_piece
from relapse._results import GroundingResult, Usage
from relapse._state import Attempt
from relapse._telemetry import attributes as attr

#: Why :func:`read_released` stopped reading a stream before its end.
STOP_FAILED = attr.STOP_FAILED_SENTENCE


@dataclass(frozen=True)
class Pull:
    """A request to the driver: the next piece of ``stream``, or :data:`END`."""

    stream: Any
    kind: StreamKind
    span: Span
    attempt: Attempt


@dataclass(frozen=True)
class Release:
    """A request to the driver: hand ``pieces`` to the caller, in order."""

    pieces: tuple[Any, ...]


@dataclass(frozen=True)
class Close:
    """A request to the driver: close ``stream`` (``close()`` or ``aclose()``)."""

    stream: Any
    kind: StreamKind


class _End:
    __slots__ = ()

    def __repr__(self) -> str:
        return "END"


#: What the driver sends for a :class:`Pull` once the stream is exhausted.
END: Any = _End()


@dataclass(frozen=True)
class Released:
    """
    One attempt's stream as :func:`read_released` read it.

    Attributes:
        streamed: Every piece read, as a :class:`~relapse.Streamed` (the
            attempt's ``response``).
        text: The text checked: the prefix, then the continuation (a repeat
            of the prefix dropped); cut after the failing sentence.
        verdict: The check's verdict on ``text``; None when the stream broke
            (``error`` is set).
        released: The text of this attempt released to the caller.
        usage: The tokens the stream reported, or None (a stream stopped
            early never reaches its usage report).
        stopped: :data:`STOP_FAILED` when reading stopped at a failing
            sentence, else None.
        read_chars: Characters of continuation the stream had produced when
            it was stopped (or ended).
        sentences_checked: Sentences the check judged.
        sentences_released: Sentences wholly released (the prefix's included).
        first_release_s: ``perf_counter()`` when this attempt first released
            a piece with text, or None.
        check_s: Seconds spent in the check, all feeds together.
        error: What the stream raised midway, what reading a piece raised
            (a provider event relapse cannot read) or what the check raised;
            None when nothing did. ``streamed`` then holds every piece read,
            the failing one included: they were paid for.
    """

    streamed: Streamed
    text: str
    verdict: GroundingResult | None
    released: str
    usage: Usage | None
    stopped: str | None
    read_chars: int
    sentences_checked: int
    sentences_released: int
    first_release_s: float | None
    check_s: float = 0.0
    error: BaseException | None = None


#: What joins a continuation to a prefix ending with no white space.
JOIN = " "
#: Unicode categories of a first character that begins a word: letters,
#: numbers, currency signs, opening brackets and quotation marks.
_WORD_CATEGORIES = ("L", "N", "Sc", "Ps", "Pi")
#: Sentence ends of the scripts written without spaces: no space follows them.
_NO_SPACE_AFTER = frozenset(CJK_STOPS + CJK_CLOSING)
#: Other punctuation that opens what follows rather than ending what precedes.
_OPENING = frozenset('"*#@\u00bf\u00a1')


def joins(prefix: str, continuation: str) -> bool:
    """
    Tell whether ``continuation`` needs a space after ``prefix`` to read as one text.

    Args:
        prefix: The text released so far.
        continuation: The first text released after it (non-empty).

    Returns:
        True when the prefix is not empty and ends with no white space, and
        the continuation begins with a word: a letter, a digit, a currency
        sign, an opening bracket or quotation mark. A continuation beginning
        with white space, or with punctuation that attaches to what precedes
        (``,``, ``.``, ``)``, ``%``, a closing quotation mark), is joined as
        it is; so is one after a sentence end of Chinese or Japanese
        (``。``, ``」``) or a Han or kana character before another.
    """
    if not prefix or prefix[-1].isspace() or not continuation:
        return False
    first = continuation[0]
    if prefix[-1] in _NO_SPACE_AFTER or (is_cjk(prefix[-1]) and is_cjk(first)):
        return False  # Chinese and Japanese put no space between sentences or words
    return first in _OPENING or unicodedata.category(first).startswith(_WORD_CATEGORIES)


def piece_text(piece: object) -> str:
    """The text one stream piece carries (see :func:`relapse._read.streams.read_piece`)."""
    tally = Tally()
    read_piece(tally, 0, piece)
    return "".join(tally.parts)


class _Repeat:
    """
    Recognises a continuation that starts by repeating the released prefix.

    Until the continuation (leading white space ignored) either covers the
    whole prefix or departs from it, nothing is decided and its text is held;
    then :meth:`take` yields how many characters of the raw continuation are
    the repeat (0 when it is none).
    """

    __slots__ = ("decided", "raw", "skip", "spaced", "target", "trimming")

    def __init__(self, prefix: str) -> None:
        self.target = prefix.strip()
        #: A prefix ending in white space takes none more from the continuation.
        self.spaced = prefix[-1:].isspace()
        self.raw = ""
        self.skip = 0
        self.decided = False
        #: Decided, but only white space followed the skipped text so far:
        #: white space still to come is skipped too.
        self.trimming = False

    def add(self, text: str) -> None:
        """Add the next raw continuation text; decide when it is decidable."""
        self.raw += text
        if self.decided:
            if self.trimming:
                # The white space after a repeat may come in pieces of its
                # own (a token " ", or " It"): it would double the prefix's.
                self._trim()
            return
        body = self.raw.lstrip()
        if not body:
            return  # white space only: nothing to decide on yet
        lead = len(self.raw) - len(body)
        if self.target and body.startswith(self.target):
            self._decide(lead + len(self.target))
        elif not self.target.startswith(body):
            self._decide(lead if self.spaced else 0)

    def _decide(self, skip: int) -> None:
        self.decided = True
        self.skip = skip
        if self.spaced:
            # The white space after a repeat (or leading a continuation) would double the prefix's.
            self.trimming = True
            self._trim()

    def _trim(self) -> None:
        rest = self.raw[self.skip :]
        body = rest.lstrip()
        self.skip += len(rest) - len(body)
        self.trimming = not body

    def end(self) -> None:
        """The stream ended undecided: what came was a part of the prefix, dropped."""
        if not self.decided:
            self.skip, self.decided = len(self.raw), True


def read_released(
    inc: Any,
    stream: Any,
    kind: StreamKind,
    prefix: str,
    span: Span,
    attempt: Attempt,
    whole: Any,
) -> Generator[Pull | Release | Close, object, Released]:
    """
    Read ``stream`` to its end or its first failing sentence, releasing what passed.

    Args:
        inc: The attempt's ``IncrementalCheck`` (fresh).
        stream: The stream the call returned, unread.
        kind: ``"sync"`` or ``"async"``.
        prefix: The text released by earlier attempts (empty on iteration 1),
            fed to the check first: prefix and continuation are checked as one
            answer.
        span: The iteration span (current while the driver reads).
        attempt: The iteration's attempt (current while the driver reads).
        whole: ``whole(text) -> GroundingResult``, the whole-answer check:
            the verdict recorded for an answer that passed (with its warnings).

    Returns:
        The :class:`Released` account of the attempt.
    """
    tally = Tally()
    pieces: list[Any] = []
    #: Pieces read but not yet released: (piece, where in ``text`` its text
    #: ends without its trailing white space, where it ends).
    pending: list[tuple[Any, int, int]] = []
    #: Pieces held while the repeat is undecided, with their raw text.
    held: list[tuple[Any, str]] = []
    repeat = _Repeat(prefix)
    text = prefix
    released_to = len(prefix)
    first: float | None = None
    progress = inc.feed(prefix) if prefix else None
    raw_seen = 0

    check_s = 0.0

    def feed(piece: Any, fresh: str) -> Any:
        nonlocal text, check_s
        text += fresh
        # White space at a piece's end carries no claim: the piece is
        # releasable once the text before it has passed (its own text
        # stripped, not the whole text: that would copy it at every piece).
        kept = fresh.rstrip()
        pending.append((piece, len(text) - len(fresh) + len(kept), len(text)))
        if not fresh:
            return progress
        began = time.perf_counter()
        fed = inc.feed(fresh)
        check_s += time.perf_counter() - began
        return fed

    def releasable(upto: int) -> Release | None:
        nonlocal released_to, first
        count = 0
        while count < len(pending) and pending[count][1] <= upto:
            count += 1
        if not count:
            return None
        out = tuple(piece for piece, _, _ in pending[:count])
        end = pending[count - 1][2]
        if first is None and end > released_to:
            first = time.perf_counter()
        released_to = max(released_to, end)
        del pending[:count]
        return Release(out)

    #: Whether the continuation's first text is still to come (see :func:`joins`).
    joining = bool(prefix) and not prefix[-1].isspace()

    def flush_held() -> None:
        # Feed the held pieces now that the repeat is decided.
        nonlocal progress, raw_seen, joining
        for piece, raw in held:
            start, raw_seen = raw_seen, raw_seen + len(raw)
            if raw_seen <= repeat.skip:
                continue  # wholly inside the repeat: never released again
            kept, fresh = _continued(piece, raw, max(0, repeat.skip - start), joining)
            joining = joining and not fresh
            progress = feed(kept, fresh)
        held.clear()

    def _continued(piece: Any, raw: str, cut: int, first: bool) -> tuple[Any, str]:
        """
        The piece to release and the text it adds: the repeat cut off, the joining space led.

        A piece straddling the end of the repeat is released as a copy of
        its own type without the repeat (:func:`edited`); one that cannot be
        cut is released whole, its whole text counted, so the caller reads
        what is checked and recorded. The joining space reaches the caller
        when the piece can carry it; it is checked and recorded in any case.
        """
        made = edited(piece, piece_text, cut=cut) if cut else piece
        if made is None:
            cut, made = 0, piece
        fresh = raw[cut:]
        if first and fresh and joins(prefix, fresh):
            led = edited(made, piece_text, lead=JOIN)
            return (made if led is None else led), JOIN + fresh
        return made, fresh

    error: BaseException | None = None
    failed = False
    index = 0
    while True:
        got = yield Pull(stream, kind, span, attempt)
        if got is END:
            break
        if isinstance(got, Broken):
            error = got.error
            break
        pieces.append(got)
        try:
            before = len(tally.parts)
            read_piece(tally, index, got)
            index += 1
            raw = "".join(tally.parts[before:])
            repeat.add(raw)
            held.append((got, raw))
            if not repeat.decided:
                continue
            flush_held()
        except BaseException as raised:
            # A piece relapse cannot read, or a check that raised: the
            # pieces read so far were paid for, and are kept with the error.
            error = raised
            yield Close(stream, kind)
            break
        if progress is None:
            continue
        out = releasable(progress.releasable)
        if out is not None:
            yield out
        if progress.failed is not None:
            failed = True
            yield Close(stream, kind)
            break
    verdict: GroundingResult | None = None
    if error is None and not failed:
        try:
            repeat.end()
            flush_held()
            began = time.perf_counter()
            progress = inc.finish()
            # A check whose stream judged the whole answer says so (a cascade's
            # "passed"): judging it again would pay a judge twice.
            verdict = progress.failed or getattr(progress, "passed", None) or whole(text)
            check_s += time.perf_counter() - began
        except BaseException as raised:
            error = raised
    streamed = Streamed(kind, tuple(pieces))
    read_chars = len(repeat.raw)
    if error is not None:
        return Released(
            streamed,
            text,
            None,
            text[len(prefix) : released_to],
            tally.usage(),
            None,
            read_chars,
            0 if progress is None else progress.sentences_checked,
            0 if progress is None else progress.sentences_released,
            first,
            check_s,
            error,
        )
    if not failed:
        assert verdict is not None  # set with progress when nothing raised
        assert progress is not None
        if verdict.ok and progress.releasable >= len(text):
            out = releasable(len(text))
            if out is not None:
                yield out
    else:
        assert progress is not None  # failed is set from a progress
        assert progress.failed is not None
        verdict = progress.failed
        if progress.failing is not None:
            text = text[: progress.failing[1]]
    return Released(
        streamed,
        text,
        verdict,
        text[len(prefix) : released_to],
        tally.usage(),
        STOP_FAILED if failed else None,
        read_chars,
        progress.sentences_checked,
        progress.sentences_released,
        first,
        check_s,
    )


@dataclass(frozen=True)
class Broken:
    """What a driver sends for a :class:`Pull` whose stream raised ``error``."""

    error: BaseException
