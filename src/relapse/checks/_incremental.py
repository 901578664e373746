r"""
Judging a streamed answer sentence by sentence, with the whole-answer check's verdicts.

:func:`incremental` binds a check to one call and returns an
:class:`IncrementalCheck`: fed the new text of a stream piece by piece, it
says how much of the text has passed (``releasable``) and stops at the first
sentence that fails. It runs the bound check on the text fed so far, and
trusts a verdict on a sentence only once no text still to come can change
it; until then the sentence is *held back*. How far a check's verdicts read
is the check's to say: a check that supplies a
:class:`~relapse.checks.StreamReader` (``stream_reader()``, the default check
does: :mod:`relapse.grounding._stream`) is asked; any other is read by
:class:`GenericReader`. The hold-back rules:

* **Context ahead.** A sentence is judged once the reader says its verdict
  is final (:meth:`~relapse.checks.StreamReader.final_from`): for a check
  that supplies no reader, :data:`GENERIC_REACH` characters past its end. A
  *failure* is final :attr:`~relapse.checks.StreamReader.reach` characters
  past its claim, or sooner when the reader says nothing after its sentence
  can rescue it (:meth:`~relapse.checks.StreamReader.fails_for_good`).
* **Open quotation.** A quotation mark that opens a quotation with no closer
  yet holds everything from it (:meth:`~relapse.checks.StreamReader.held_from`;
  for a check with no reader, :func:`relapse._read.quotation_marks.open_quotation`):
  the quotation's extent, and so its verdict and the numbers it covers, is
  unknown until it closes.
* **Answer-level verdicts.** While the check's verdict on the text fed so
  far is about the whole answer (the default check's copy, FG004), or the
  check rejects it without saying where, nothing more is released: such a
  verdict is about the whole answer, and :meth:`IncrementalCheck.finish`
  judges it on the whole answer.
* **Sentence end.** A full stop ends a sentence only once the next sentence
  begins (``e.g. the`` goes on, ``3.`` may be ``3.5``), so the last sentence
  is only ever judged by :meth:`IncrementalCheck.finish`.

:meth:`IncrementalCheck.finish` runs the bound check once on the whole text,
so the final verdict is the whole-answer check's, by construction.

During the stream, a reader may judge a *window* of a long answer
(:meth:`~relapse.checks.StreamReader.window`; the default check's is the text
from a sentence start far enough before the first sentence not released that
nothing before it can change a verdict after it). When the window shows no
failure there, that is the verdict; otherwise (and for any other check) the
text fed so far is judged whole. So each judgement costs the text since the
window's start, not the whole answer.

A composition (:func:`relapse.checks.all_of`, ``&``) is read by its parts'
readers (:func:`reader_of`): its verdict's claims are where the parts that
supply a reader locate them (every finding is theirs to read, as a lone
check's); a sentence's verdict is final when every part's is, a part with no
reader given :data:`GENERIC_REACH`; it judges no window.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import cast

from relapse._read.quotation_marks import open_quotation
from relapse._read.sentences import sentence_ends, spans_between
from relapse._results import GroundingFinding, GroundingResult
from relapse.checks._contract import (
    Check,
    ClaimSpans,
    StreamReader,
    StreamWindow,
    Verdict,
    WindowVerdict,
    _AllOf,
    can_judge_incrementally,
    narrowed_finding,
    prepare,
)

#: Characters past a sentence's end (or past a failing claim) after which the
#: verdict of a check that supplies no :class:`~relapse.checks.StreamReader`
#: is taken as final: the reach of the default check's rules when readers
#: were introduced, kept fixed for every other check.
GENERIC_REACH = 144


@dataclass(frozen=True)
class StreamProgress:
    """
    How far a streamed answer has been judged.

    Attributes:
        releasable: Characters of the text fed so far, from its start, that
            have passed the check and may be released; never decreases.
            Always a sentence's end, or the text's length after a passing
            :meth:`IncrementalCheck.finish`.
        failed: Set once a sentence fails: the verdict whose error findings
            name it (during the stream, the findings on that sentence; after
            :meth:`IncrementalCheck.finish`, the whole-answer verdict).
        failing: ``(start, end)`` offsets of the first failing sentence in the
            text fed, or None.
        sentences_checked: Sentences judged so far.
        sentences_released: Sentences wholly inside ``releasable``.
    """

    releasable: int
    failed: GroundingResult | None
    failing: tuple[int, int] | None
    sentences_checked: int
    sentences_released: int


def located_claims(verdict: GroundingResult) -> ClaimSpans:
    """
    Where a verdict's error findings are, by their offsets alone.

    A finding without offsets, or a rejection without an error finding, is
    about the whole answer (``whole``).
    """
    spans: list[tuple[int, int, int]] = []
    whole = not verdict.ok and not verdict.errors
    for index, finding in enumerate(verdict.findings):
        if finding.severity != "error":
            continue
        if not finding.offsets:
            whole = True
            continue
        spans.extend((start, end, index) for start, end in finding.offsets)
    return ClaimSpans(tuple(spans), whole)


class GenericReader:
    """
    How the verdicts of a check that supplies no :class:`~relapse.checks.StreamReader` are read.

    Nothing is known of how far its verdicts read, so a sentence's verdict is
    taken as final :data:`GENERIC_REACH` characters past its end, a failure
    that far past its claim; its failing claims are its error findings'
    offsets; an open quotation holds the text; it judges no window.
    """

    __slots__ = ()

    #: See :attr:`relapse.checks.StreamReader.reach`.
    reach = GENERIC_REACH

    def final_from(self, text: str, start: int, end: int) -> int | None:
        """:data:`GENERIC_REACH` past the sentence's end."""
        return end + GENERIC_REACH

    def fails_for_good(self, text: str, sentence: tuple[int, int], claim_start: int) -> bool:
        """Never before :data:`GENERIC_REACH` passes."""
        return False

    def held_from(self, text: str) -> int | None:
        """An open quotation (:func:`relapse._read.quotation_marks.open_quotation`)."""
        return open_quotation(text)

    def claims(self, verdict: GroundingResult, text: str) -> ClaimSpans:
        """The error findings' offsets (:func:`located_claims`)."""
        return located_claims(verdict)

    def narrowed(
        self, finding: GroundingFinding, text: str, offsets: Sequence[tuple[int, int]]
    ) -> GroundingFinding:
        """The finding's spans at ``offsets``, its message unchanged."""
        return narrowed_finding(finding, text, offsets)

    def window(self, bound: Callable[[str], Verdict]) -> StreamWindow | None:
        """None: a window needs to know how far the verdicts read."""
        return None


#: The reader of every check that supplies none.
GENERIC_READER = GenericReader()


class ComposedReader:
    """
    The reader of a composition: its parts' readers (see the module docstring).

    Args:
        readers: The readers the parts supply, in order (at least one).
        complete: Whether every part supplies one; a part that does not is
            read as :class:`GenericReader` reads it.
    """

    __slots__ = ("_complete", "_readers", "reach")

    def __init__(self, readers: Sequence[StreamReader], *, complete: bool) -> None:
        self._readers = tuple(readers)
        self._complete = complete
        reaches = [reader.reach for reader in self._readers]
        self.reach = max(reaches if complete else [*reaches, GENERIC_REACH])

    def final_from(self, text: str, start: int, end: int) -> int | None:
        """The latest of the parts' (None while one does not know yet)."""
        if not self._complete:
            return end + self.reach
        latest = end
        for reader in self._readers:
            at = reader.final_from(text, start, end)
            if at is None:
                return None
            latest = max(latest, at)
        return latest

    def fails_for_good(self, text: str, sentence: tuple[int, int], claim_start: int) -> bool:
        """When every part says so."""
        return self._complete and all(
            reader.fails_for_good(text, sentence, claim_start) for reader in self._readers
        )

    def held_from(self, text: str) -> int | None:
        """The earliest hold of any part."""
        held = [at for reader in self._readers if (at := reader.held_from(text)) is not None]
        if not self._complete and (at := open_quotation(text)) is not None:
            held.append(at)
        return min(held, default=None)

    def claims(self, verdict: GroundingResult, text: str) -> ClaimSpans:
        """Every claim a part's reader locates; about the whole answer when one says so."""
        found = [reader.claims(verdict, text) for reader in self._readers]
        spans = dict.fromkeys(span for claims in found for span in claims.spans)
        return ClaimSpans(tuple(spans), any(claims.whole for claims in found))

    def narrowed(
        self, finding: GroundingFinding, text: str, offsets: Sequence[tuple[int, int]]
    ) -> GroundingFinding:
        """As the first part's reader narrows it."""
        return self._readers[0].narrowed(finding, text, offsets)

    def window(self, bound: Callable[[str], Verdict]) -> StreamWindow | None:
        """None: a composition is judged whole."""
        return None


def _parts(check: object) -> list[object]:
    """The checks an ``all_of`` composition is made of, recursively; ``[check]`` otherwise."""
    if isinstance(check, _AllOf):
        return [part for inner in check.checks for part in _parts(inner)]
    return [check]


def _own_reader(check: object) -> StreamReader | None:
    supply = getattr(check, "stream_reader", None)
    return cast("StreamReader", supply()) if callable(supply) else None


def reader_of(check: object) -> StreamReader:
    """
    The reader of ``check``'s verdicts on a growing answer.

    Returns:
        The check's own (``check.stream_reader()``,
        :class:`~relapse.checks.ReadsItsStream`); for a composition, a
        :class:`ComposedReader` of its parts' when one supplies one; else
        :data:`GENERIC_READER`.
    """
    parts = _parts(check)
    if len(parts) == 1:
        return _own_reader(parts[0]) or GENERIC_READER
    readers = [reader for part in parts if (reader := _own_reader(part)) is not None]
    if not readers:
        return GENERIC_READER
    return ComposedReader(readers, complete=len(readers) == len(parts))


def incremental(check: Check, query: str, chunks: Sequence[str]) -> IncrementalCheck | None:
    """
    Bind ``check`` to one call, to judge one streamed answer.

    Args:
        check: The loop's check.
        query: The user's question.
        chunks: The chunk texts.

    Returns:
        An :class:`IncrementalCheck` for one attempt (or what the check's own
        ``stream(query, chunks)`` returns, fed the same way: a
        :func:`relapse.checks.cascade`'s), or None when the check
        cannot judge text incrementally (:func:`can_judge_incrementally`;
        then ``release="sentence"`` falls back to ``"answer"``).

    Raises:
        TypeError: from the check's ``prepare`` (a bad ``query`` or ``chunks``).
    """
    if not can_judge_incrementally(check):
        return None
    stream = getattr(check, "stream", None)
    if callable(stream):
        # A check with its own streaming form (a cascade): fed the same way.
        return cast("IncrementalCheck", stream(query, chunks))
    bound = prepare(check, query, chunks)
    if inspect.iscoroutinefunction(bound):
        return None
    return IncrementalCheck(bound, reader_of(check))


def _verdict(bound: Callable[[str], Verdict], text: str) -> GroundingResult:
    """
    Run the bound check on ``text``.

    Raises:
        TypeError: the check returned an awaitable (it is async after all) or
            no :class:`relapse.GroundingResult`.
    """
    verdict = bound(text)
    if inspect.isawaitable(verdict):
        close = getattr(verdict, "close", None)
        if callable(close):
            close()  # never awaited: close it so Python does not warn
        raise TypeError("an incremental check returned an awaitable; async checks are not")
    if not isinstance(verdict, GroundingResult):
        raise TypeError(
            f"a check returned {type(verdict).__name__}; expected relapse.GroundingResult"
        )
    return verdict


class IncrementalCheck:
    """
    One streamed answer, judged sentence by sentence as its text arrives.

    Built by :func:`incremental`, one per attempt (one LLM call); not
    thread-safe, not reusable. Feed it each piece's new text with
    :meth:`feed`; at the end of the stream call :meth:`finish`. The
    guarantee, against the whole-answer check ``check(full)`` on the full
    text (proved by ``tests/checks/test_incremental_properties.py``):

    * no claim of an error finding of ``check(full)`` lies (even in part)
      inside ``text[:releasable]`` at any point, a verdict about the whole
      answer (a copy, FG004) aside, which :meth:`finish` reports;
    * a sentence reported failing during the stream holds a span of an error
      finding of ``check(full)``;
    * after :meth:`finish`, ``failed is None`` iff ``check(full).ok``, and
      ``releasable == len(text)`` iff it passed (an empty text aside: it
      fails with nothing to release).

    Args:
        bound: The check bound to the call: ``answer -> GroundingResult``.
        reader: How its verdicts read a growing answer (:func:`reader_of`
            the check); None reads them generically (:class:`GenericReader`).
        window: Judge a long answer by a window when the reader gives one
            for ``bound`` (the default check's reader does); False judges
            the whole text fed so far every time (the two give the same
            progress: the property tests compare them).

    Attributes:
        whole_checks: How many times the check ran on the whole text fed so
            far (``finish()`` included).
        window_checks: How many times it ran on a window instead.
    """

    __slots__ = (
        "_bound",
        "_checked",
        "_failed",
        "_failing",
        "_finished",
        "_judged_at",
        "_reader",
        "_ready",
        "_ready_at",
        "_recheck_at",
        "_releasable",
        "_released",
        "_resume",
        "_sentence_start",
        "_spans",
        "_text",
        "_verified",
        "_window",
        "whole_checks",
    )

    def __init__(
        self,
        bound: Callable[[str], Verdict],
        reader: StreamReader | None = None,
        *,
        window: bool = True,
    ) -> None:
        self._bound = bound
        self._reader = GENERIC_READER if reader is None else reader
        self._window = self._reader.window(bound) if window else None
        self.whole_checks = 0
        self._text = ""
        # Sentence cutting, resumed where the last search stopped.
        self._resume = 0
        self._sentence_start = 0
        self._spans: list[tuple[int, int]] = []
        # Per confirmed sentence: the text length from which its verdict is final.
        self._ready_at: list[int | None] = []
        self._ready: list[bool] = []
        self._released = 0
        # Sentences known to pass, from the first: more than the released
        # while the text so far is a copy (which releases nothing).
        self._verified = 0
        self._releasable = 0
        self._checked = 0
        self._failed: GroundingResult | None = None
        self._failing: tuple[int, int] | None = None
        self._finished = False
        # Sentences ready at the last check, and the sentences confirmed then.
        self._judged_at = (0, 0)
        # The text length at which a failure seen but not yet final becomes final.
        self._recheck_at: int | None = None

    @property
    def text(self) -> str:
        """The text fed so far."""
        return self._text

    @property
    def window_checks(self) -> int:
        """How many times the check ran on a window of the text instead of the whole."""
        return 0 if self._window is None else self._window.checks

    def _progress(self) -> StreamProgress:
        return StreamProgress(
            self._releasable, self._failed, self._failing, self._checked, self._released
        )

    def feed(self, text: str) -> StreamProgress:
        """
        Add the new characters of the stream and judge what they complete.

        Args:
            text: The characters since the last call (not the whole text).

        Returns:
            The progress after them.

        Raises:
            TypeError: ``text`` is not a ``str``, or the check returned no
                :class:`relapse.GroundingResult`.
            RuntimeError: a sentence already failed, or :meth:`finish` was called.
        """
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        if self._finished:
            raise RuntimeError("feed() after finish()")
        if self._failed is not None:
            raise RuntimeError("feed() after a sentence failed: the stream must stop there")
        if not text:
            return self._progress()

        self._text += text
        full = self._text
        ends, self._resume = sentence_ends(full, self._resume, final=False)
        if ends:
            for span in spans_between(full, self._sentence_start, ends):
                self._spans.append(span)
                self._ready_at.append(None)
                self._ready.append(False)
            self._sentence_start = ends[-1]
        ready = self._update_ready(len(full))
        recheck = self._recheck_at is not None and len(full) >= self._recheck_at
        if (
            recheck
            or ready > self._judged_at[0]
            or (ready > self._released and len(self._spans) > self._judged_at[1])
        ):
            self._judge()
        return self._progress()

    def _update_ready(self, length: int) -> int:
        """Mark the sentences whose verdict is final at ``length``; return how many are."""
        # The sentences known to pass are ready: while a copy releases
        # nothing, they are not walked again at every piece.
        known = max(self._released, self._verified)
        count = known - self._released
        for index in range(known, len(self._spans)):
            if not self._ready[index]:
                at = self._ready_at[index]
                if at is None:
                    at = self._ready_at[index] = self._final_from(index)
                if at is not None and at <= length:
                    self._ready[index] = True
            count += self._ready[index]
        self._checked = max(self._checked, self._released + count)
        return self._released + count

    def _final_from(self, index: int) -> int | None:
        """The text length from which sentence ``index``'s verdict is final; None: unknown yet."""
        start, end = self._spans[index]
        return self._reader.final_from(self._text, start, end)

    def _windowed(self) -> WindowVerdict | None:
        """
        The claims and the held text after the released text, judged on a window.

        Returns:
            ``(claims, held)`` when the reader's window shows that nothing
            after the released text fails, or None: no window applies, or
            the whole text must be judged.
        """
        if self._window is None:
            return None
        # The window judges the text after what is known to pass: after the
        # released text, or past it while the answer may be a copy.
        known = max(self._released, self._verified)
        if known >= len(self._spans):
            return None
        return self._window.judge(self._text, self._spans, known)

    def _judge(self) -> None:
        """Run the check on the text fed so far: release what passed, stop at what failed."""
        text = self._text
        length = len(text)
        windowed = self._windowed()
        verdict = GroundingResult(ok=True)
        if windowed is None:
            verdict = _verdict(self._bound, text)
            self.whole_checks += 1
            claims = self._reader.claims(verdict, text)
            held = self._reader.held_from(text)
        else:
            claims, held = windowed
        self._judged_at = (self._checked, len(self._spans))
        self._recheck_at = None
        releasing = not claims.whole
        passing = True  # the sentences so far pass (released or not)
        first = self._released
        sentences = self._spans[first:]
        overlapping = [
            [span for span in claims.spans if span[0] < end and start < span[1]]
            for start, end in sentences
        ]
        decided = {
            span
            for offset, here in enumerate(overlapping)
            for span in here
            if self._decided(first + offset, span[0], span[1], length)
        }
        for offset, here in enumerate(overlapping):
            index = first + offset
            if decided.intersection(here):
                # The first sentence holding a failure that is final.
                self._fail(index, verdict, here)
                return
            if here:
                # Judge again once the first of these failures is final.
                at = min(span[1] for span in here) + self._reader.reach
                self._recheck_at = at if self._recheck_at is None else min(self._recheck_at, at)
            end = sentences[offset][1]
            passing = passing and self._ready[index] and not here and (held is None or end <= held)
            if passing:
                self._verified = max(self._verified, index + 1)
            releasing = releasing and passing
            if releasing:
                self._released = index + 1
                self._releasable = end

    def _decided(self, index: int, start: int, end: int, length: int) -> bool:
        """
        Tell whether a failing claim at ``start:end`` in sentence ``index`` fails for good.

        Once the text reaches the reader's reach past it, always. Sooner, once
        its sentence is final and the claim ends inside it, when the reader
        says nothing after the sentence can rescue it.
        """
        if end + self._reader.reach <= length:
            return True
        low, high = self._spans[index]
        if not self._ready[index] or end > high:
            return False
        return self._reader.fails_for_good(self._text, (low, high), start)

    def _fail(self, index: int, verdict: GroundingResult, here: list[tuple[int, int, int]]) -> None:
        """Stop at sentence ``index``: its findings, restricted to its claims, are the verdict."""
        start, end = self._spans[index]
        findings: list[GroundingFinding] = []
        for number in sorted({span[2] for span in here}):
            finding = verdict.findings[number]
            kept = [
                (low, high)
                for low, high in finding.offsets
                if any(low <= span[0] and span[1] <= high for span in here if span[2] == number)
            ]
            if len(kept) == len(finding.offsets):
                findings.append(finding)
            else:
                findings.append(self._reader.narrowed(finding, self._text, kept))
        self._failed = GroundingResult(ok=False, findings=tuple(findings))
        self._failing = (start, end)
        self._checked = max(self._checked, index + 1)

    def finish(self) -> StreamProgress:
        """
        End of the stream: judge the whole text with the check, once.

        Returns:
            The final progress: ``failed`` is the whole-answer verdict when it
            fails (``failing`` its first failing sentence not released, or
            the first one not released when the verdict is about the whole
            answer), else None and ``releasable == len(text)``. After a
            failing sentence stopped the stream, the progress unchanged.

        Raises:
            TypeError: the check returned no :class:`relapse.GroundingResult`.
        """
        if self._failed is not None or self._finished:
            return self._progress()

        self._finished = True
        text = self._text
        ends, _ = sentence_ends(text, self._resume, final=True)
        for span in spans_between(text, self._sentence_start, [*ends, len(text)]):
            self._spans.append(span)
            self._ready_at.append(len(text))
            self._ready.append(True)
        verdict = _verdict(self._bound, text)
        self.whole_checks += 1
        self._checked = len(self._spans)
        if verdict.ok:
            self._released = len(self._spans)
            self._releasable = len(text)
            return self._progress()
        claims = self._reader.claims(verdict, text)
        self._failed = verdict
        rest = self._spans[self._released :]
        failing = next(
            (
                (start, end)
                for start, end in rest
                if any(low < end and start < high for low, high, _ in claims.spans)
            ),
            rest[0] if rest else (self._releasable, len(text)),
        )
        self._failing = failing
        return self._progress()
