r"""
Judging a streamed answer sentence by sentence, with the whole-answer check's verdicts.

:func:`incremental` binds a check to one call and returns an
:class:`IncrementalCheck`: fed the new text of a stream piece by piece, it
says how much of the text has passed (``releasable``) and stops at the first
sentence that fails. It runs the bound check on the text fed so far, and
trusts a verdict on a sentence only once no text still to come can change
it; until then the sentence is *held back*. The hold-back rules:

* **Context ahead.** The default check's readers extend a claim, or read
  its unit, scale word, range end or date after it, across spaces only: never
  across a line break, nor a terminator followed by whitespace. So a
  sentence is judged as soon as the next sentence begins, but: a claim-like
  word (a digit, a number word, a month name) right at its terminator with a
  digit next (``in Sept. 5``) waits :data:`LOOK_AHEAD` characters past the
  claim-like text chained from it (within :data:`JOIN_WINDOW`); a line
  ending with no terminator whose last words could open an echo phrase
  waits :data:`LOOK_AHEAD` past its end; with FG005 on, capitals are
  claim-like and chain too. A *failure* is final :data:`LOOK_AHEAD` past its
  claim, or as soon as its sentence is judged when the claim ends inside a
  sentence ending in a terminator, no parenthesis or bracket open before it:
  the rules that read past a sentence's end and can make a claim pass (a
  reference ``3\npassages``, a conversion ``(1.8 m. )``, ``[2]``) need a
  line break or a closing bracket. Any other incremental check is given
  :data:`LOOK_AHEAD` characters past each sentence.
* **Open quotation.** A quotation mark that opens a quotation with no closer
  yet holds everything from it: the quotation's extent, and so its verdict
  and the numbers it covers, is unknown until it closes, a paragraph breaks
  or :data:`~relapse.grounding._read.quotes.MAX_QUOTE` characters pass.
* **Answer-level verdicts.** While the text fed so far is itself a copy of
  the chunks or the question (FG004), or the check rejects it without saying
  where, nothing more is released: such a verdict is about the whole answer,
  and :meth:`IncrementalCheck.finish` judges it on the whole answer.
* **Sentence end.** A full stop ends a sentence only once the next sentence
  begins (``e.g. the`` goes on, ``3.`` may be ``3.5``), so the last sentence
  is only ever judged by :meth:`IncrementalCheck.finish`.

:meth:`IncrementalCheck.finish` runs the bound check once on the whole text,
so the final verdict is the whole-answer check's, by construction.

During the stream, the default check judges a *window* of a long answer
(:mod:`relapse.checks._window`): the text from a sentence start far enough
before the first sentence not released that nothing before it can change a
verdict after it. When the window shows no failure there, that is the
verdict; otherwise (and for any other check) the text fed so far is judged
whole, as before. So each judgement costs the text since the window's
start, not the whole answer.
"""

from __future__ import annotations

import inspect
import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import cast

from relapse._read.quotation_marks import (
    CLOSERS as _CLOSERS,
)
from relapse._read.quotation_marks import (
    DELIMITERS as _DELIMITERS,
)
from relapse._read.quotation_marks import (
    MAX_QUOTE,
    delimiters,
)
from relapse._read.quotation_marks import (
    PARAGRAPH_BREAK as _PARAGRAPH_BREAK,
)
from relapse._read.quotation_marks import (
    next_closer as _next_closer,
)
from relapse._read.sentences import (
    CJK_CLOSING,
    CJK_STOPS,
    sentence_ends,
    spans_between,
)
from relapse._results import GroundingFinding, GroundingResult
from relapse.checks._contract import Check, Verdict, _AllOf, can_judge_incrementally, prepare
from relapse.checks._window import WINDOW_BACK, CopyWatch, QuoteTracker, RankWatch, window_start
from relapse.grounding._check import (
    MAX_FAILING_SPANS,
    BoundGroundingCheck,
    GroundingCheck,
    _finding,
)
from relapse.grounding._codes import COPY_MESSAGE, EMPTY_MESSAGE, FG001, FG004, FG005, MESSAGES
from relapse.grounding._echo import copies, echo_hits
from relapse.grounding._read.words import SMALL_WORDS, TENS_WORDS
from relapse.grounding._values.calendar import MONTHS

#: Characters after a claim that the default check's readers and rules read
#: (``relapse.grounding._index.blocks.LOOK_AHEAD``, kept equal by a test): a
#: verdict on a claim is final once the text reaches this far past it.
LOOK_AHEAD = 144
#: Characters after a sentence's last claim-like character searched for
#: another that may belong to the same claim (a range's second end, a
#: date's year across a line break): the scanner's longest gap inside one
#: claim (``RANGE_GAP``) with room for a unit or a month name.
JOIN_WINDOW = 24

_QUOTE_MARKS = '"\u201c\u201d\u201e\u00ab\u00bb\u2018\u2019\uff02'
# What may end a sentence after its last word: terminators and closers
# (those of the scripts written without spaces too).
_ENDING = ".!?\u2026:;\"'\u201d\u2019\u00bb)]}*_" + CJK_STOPS + CJK_CLOSING
_TERMINATORS = frozenset(_ENDING)
_CLOSING_MARKS = "\"'\u201d\u2019\u00bb)]}*_"
_STOPS = ".!?\u2026"
#: Characters before a failing claim searched for an open parenthesis or
#: bracket: the conversion and reference rules look this far back.
_BRACKET_WINDOW = 64


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


@dataclass(frozen=True)
class _Reading:
    """What a check's verdict on a sentence reads beyond it (see the module docstring)."""

    #: Whether every part is the default check, whose windows are known;
    #: any other incremental check is given :data:`LOOK_AHEAD` past each sentence.
    known: bool
    #: Whether a part reports FG005 (names): capitals are claim-like.
    names: bool
    #: The echo phrases of the parts, ``(folded phrase, pattern)``.
    echo_patterns: tuple[tuple[str, re.Pattern[str]], ...]
    #: Every prefix of an echo phrase (whole words), folded: a line ending in
    #: one may go on with the rest of the phrase on the next line.
    echo_prefixes: frozenset[str]
    #: Longest echo phrase prefix, in words.
    echo_words: int


def _parts(check: object) -> list[object]:
    """The checks an ``all_of`` composition is made of, recursively; ``[check]`` otherwise."""
    if isinstance(check, _AllOf):
        return [part for inner in check.checks for part in _parts(inner)]
    return [check]


def _reading(check: object) -> _Reading:
    """Describe how far ``check``'s verdicts read (its parts that are the default check)."""
    parts = _parts(check)
    grounding = [part for part in parts if isinstance(part, GroundingCheck)]
    patterns = tuple(pattern for part in grounding for pattern in part._echo_patterns)
    prefixes: set[str] = set()
    longest = 0
    for phrase, _ in patterns:
        words = phrase.split()
        longest = max(longest, len(words) - 1)
        prefixes.update(" ".join(words[:count]) for count in range(1, len(words)))
    return _Reading(
        known=len(grounding) == len(parts),
        names=any(FG005 in part.codes for part in grounding),
        echo_patterns=patterns,
        echo_prefixes=frozenset(prefixes),
        echo_words=longest,
    )


def _claim_like() -> re.Pattern[str]:
    """The characters and words where a claim of the default check may be (see the module doc)."""
    words = sorted(
        {*SMALL_WORDS, *TENS_WORDS, "hundred", "thousand", "million", "billion", "trillion"}
        | {"dozen", *(name.casefold() for name in MONTHS)},
        key=len,
        reverse=True,
    )
    alternation = "|".join(re.escape(word) for word in words)
    return re.compile(rf"\d|[{_QUOTE_MARKS}]|(?<![^\W_])(?i:{alternation})(?![^\W_])")


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
    return IncrementalCheck(bound, _reading(check))


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


@dataclass(frozen=True)
class _Claims:
    """Where a verdict's error findings are, as claims (see :func:`claim_spans`)."""

    #: ``(start, end, finding index)`` of each located claim.
    spans: tuple[tuple[int, int, int], ...]
    #: Whether an error is about the whole answer (a copy, an empty answer)
    #: or not located at all.
    whole: bool


def claim_spans(
    verdict: GroundingResult, text: str, echo_patterns: Iterable[tuple[str, re.Pattern[str]]] = ()
) -> tuple[list[tuple[int, int]], bool]:
    """
    Where the claims are that make ``verdict`` fail on ``text``.

    A finding's offsets are its claims, but FG004's: an echo finding reports
    the line around each echoed phrase, so its claims are the phrases and
    finding codes inside those lines (the whole line when none of
    ``echo_patterns`` is found there); a copy or an empty answer is a verdict
    on the whole answer, located nowhere.

    Args:
        verdict: A verdict on ``text``.
        text: The text judged.
        echo_patterns: ``(folded phrase, pattern)`` pairs of the echo phrases.

    Returns:
        ``(spans, whole)``: the claims' ``(start, end)`` offsets, sorted, and
        whether an error is about the whole answer or carries no offsets.
    """
    claims = _claims(verdict, text, tuple(echo_patterns))
    return sorted({(start, end) for start, end, _ in claims.spans}), claims.whole


def _claims(
    verdict: GroundingResult, text: str, echo_patterns: tuple[tuple[str, re.Pattern[str]], ...]
) -> _Claims:
    copy_prefix = COPY_MESSAGE.split("{", 1)[0]
    spans: list[tuple[int, int, int]] = []
    whole = not verdict.ok and not verdict.errors
    hits: list[tuple[int, int]] | None = None
    for index, finding in enumerate(verdict.findings):
        if finding.severity != "error":
            continue
        if finding.code == FG004 and (
            finding.message == EMPTY_MESSAGE or finding.message.startswith(copy_prefix)
        ):
            whole = True
            continue
        if not finding.offsets:
            whole = True
            continue
        if finding.code != FG004:
            spans.extend((start, end, index) for start, end in finding.offsets)
            continue
        if hits is None:
            hits = [(start, end) for _, start, end in echo_hits(text, echo_patterns)]
        for low, high in finding.offsets:
            inside = [(start, end) for start, end in hits if low <= start and end <= high]
            spans.extend((start, end, index) for start, end in inside or [(low, high)])
    return _Claims(tuple(spans), whole)


def open_quotation(text: str) -> int | None:
    """
    Where a quotation opens in ``text`` that may still close in text to come.

    The pairing is :func:`relapse.grounding._read.quotes.find_quotations`'s: a
    quotation mark that opens (its neighbours known: the last character's
    role is not) and finds no closer yet, with no paragraph break after it
    and fewer than ``MAX_QUOTE`` characters since, holds the text from it.

    Args:
        text: The text fed so far (not complete).

    Returns:
        The offset of the opening mark, or None.
    """
    last = len(text) - 1
    # A mark at the very end opens or closes depending on what follows: hold it as an opener.
    pending = last if last >= 0 and _DELIMITERS.match(text, last) else None
    openers, closers = delimiters(text, max(last, 0))
    if not openers:
        return pending
    breaks = [match.start() for match in _PARAGRAPH_BREAK.finditer(text)]
    resume = 0
    for index, char in openers:
        if index < resume:
            continue
        close = _next_closer(closers, _CLOSERS[char], index)
        next_break = bisect_right(breaks, index)
        if close is None:
            if next_break == len(breaks) and len(text) - index <= MAX_QUOTE:
                return index
            continue
        if close - index > MAX_QUOTE or (next_break < len(breaks) and breaks[next_break] < close):
            continue
        resume = close + 1
    return pending


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
        reading: What its verdicts read beyond a sentence (from the check).
        window: Judge a long answer by a window when ``bound`` is the
            default check (:mod:`relapse.checks._window`); False judges the
            whole text fed so far every time (the two give the same
            progress: the property tests compare them).

    Attributes:
        whole_checks: How many times the check ran on the whole text fed so
            far (``finish()`` included).
        window_checks: How many times it ran on a window instead.
    """

    __slots__ = (
        "_bound",
        "_checked",
        "_claim_like",
        "_copies",
        "_copy_rule",
        "_failed",
        "_failing",
        "_finished",
        "_judged_at",
        "_owner",
        "_quotes",
        "_ranks",
        "_reading",
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
        "window_checks",
    )

    def __init__(
        self,
        bound: Callable[[str], Verdict],
        reading: _Reading | None = None,
        *,
        window: bool = True,
    ) -> None:
        self._bound = bound
        # The window needs the default check's own verdicts (without its copy
        # rule): ``bound`` must be BoundGroundingCheck.check itself.
        owner = getattr(bound, "__self__", None)
        default = getattr(bound, "__func__", None) is BoundGroundingCheck.check
        self._owner = (
            owner if window and default and isinstance(owner, BoundGroundingCheck) else None
        )
        self._quotes = QuoteTracker() if self._owner is not None else None
        # Built when a window first applies: CopyWatch folds every chunk, a
        # cost a short answer (judged whole throughout) need not pay.
        self._copy_rule = self._owner is not None and FG004 in self._owner.codes
        self._copies: CopyWatch | None = None
        # The small-ordinal rule's words are answer-wide state (FG001's words pass).
        self._ranks = (
            RankWatch() if self._owner is not None and FG001 in self._owner.codes else None
        )
        self._window = 0
        self.whole_checks = 0
        self.window_checks = 0
        if reading is None:
            reading = _Reading(
                known=False, names=False, echo_patterns=(), echo_prefixes=frozenset(), echo_words=0
            )
        self._reading = reading
        self._claim_like = _claim_like() if self._reading.known else None
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
                    at = self._ready_at[index] = self._final_from(index, length)
                if at is not None and at <= length:
                    self._ready[index] = True
            count += self._ready[index]
        self._checked = max(self._checked, self._released + count)
        return self._released + count

    def _final_from(self, index: int, length: int) -> int | None:
        """
        The text length from which sentence ``index``'s verdict is final, or None if unknown yet.

        The sentence's end is confirmed (the next sentence began). See the
        module docstring: that is final for the default check, but after a
        claim-like word right at its terminator when a digit follows, after a
        line that may go on with an echo phrase, and with FG005 on: then
        :data:`LOOK_AHEAD` past the last claim-like character, chained through
        the claim-like characters within :data:`JOIN_WINDOW` after it. Any
        other incremental check is given :data:`LOOK_AHEAD` past the end.
        """
        start, end = self._spans[index]
        text = self._text
        if self._claim_like is None:
            return end + LOOK_AHEAD
        if self._may_echo_on(start, end):
            return end + LOOK_AHEAD
        last = self._last_claim_like(start, end)
        if last is None:
            return end
        if not self._reading.names:
            after = end
            while after < length and text[after].isspace():
                after += 1
            if text[last:end].strip(_ENDING) or not text[after : after + 1].isdecimal():
                return end
        while True:
            if last + JOIN_WINDOW > length:
                return None  # what follows the claim is not known yet
            claim_like = self._claim_like.search(text, last, last + JOIN_WINDOW)
            window = text[last : last + JOIN_WINDOW]
            names = self._reading.names and any(char.isupper() for char in window)
            if claim_like is None and not names:
                return last + LOOK_AHEAD
            last = last + JOIN_WINDOW if claim_like is None else max(claim_like.end(), last + 1)

    def _last_claim_like(self, start: int, end: int) -> int | None:
        """The end of the last claim-like character or word in ``text[start:end]``, or None."""
        assert self._claim_like is not None
        text = self._text
        last = None
        for match in self._claim_like.finditer(text, start, end):
            last = match.end()
        if self._reading.names:
            for at in range(end - 1, start - 1, -1):
                if text[at].isupper():
                    last = max(last or 0, at + 1)
                    break
        return last

    def _may_echo_on(self, start: int, end: int) -> bool:
        """Tell whether a line ending without a terminator ends with the start of an echo phrase."""
        text = self._text
        if text[end - 1] in _TERMINATORS or not self._reading.echo_prefixes:
            return False  # a phrase never runs on past a terminator
        words = " ".join(text[start:end].casefold().split()).split()
        tail = words[-self._reading.echo_words :]
        return any(" ".join(tail[at:]) in self._reading.echo_prefixes for at in range(len(tail)))

    def _windowed(self) -> tuple[_Claims, int | None] | None:
        """
        The claims and the open quotation after the released text, judged on a window.

        Returns:
            ``(claims, held)`` when the window shows that nothing after the
            released text fails (claims then holds none; or, when the copy
            rule run alone on the whole text finds a copy, only that verdict
            about the whole answer), or None: no window applies, or the
            whole text must be judged (a failure there, a verdict about the
            whole answer).
        """
        if self._owner is None or self._quotes is None:
            return None
        text = self._text
        # The window judges the text after what is known to pass: after the
        # released text, or past it while the answer may be a copy.
        known = max(self._released, self._verified)
        if known >= len(self._spans):
            return None
        first = self._spans[known][0]
        if first <= WINDOW_BACK:
            # No window starts before the text's start: a short answer never
            # needs the quotation pairing (the tracker catches up from where
            # it stopped, here the start, when a window may apply).
            return None
        if self._ranks is not None:
            self._ranks.update(text)
            if self._ranks.saturated:
                return None  # the ranks rule's words are the whole answer's
        self._quotes.update(text)
        self._window = window_start(text, self._spans, first, self._quotes, self._window)
        start = self._window
        if not start:
            return None
        may_copy = False
        if self._copy_rule:
            if self._copies is None:
                self._copies = CopyWatch(self._owner)
            may_copy = self._copies.may_copy(text)
        window = text[start:]
        verdict = self._owner.judged(window, copies=False)
        self.window_checks += 1
        if sum(len(finding.offsets) for finding in verdict.errors) >= MAX_FAILING_SPANS:
            return None  # the window's check may have stopped reading before its end
        claims = _claims(verdict, window, self._reading.echo_patterns)
        if claims.whole or any(end > first - start for _, end, _ in claims.spans):
            return None  # a failure after the released text: judged on the whole text
        held = open_quotation(window)
        at = None if held is None else held + start
        if may_copy and copies(text, *self._owner.copy_context()):
            # The copy rule alone on the whole text (the other rules' verdicts
            # after the released text are the window's): a copy releases nothing.
            return _Claims((), True), at
        return _Claims((), False), at

    def _judge(self) -> None:
        """Run the check on the text fed so far: release what passed, stop at what failed."""
        text = self._text
        length = len(text)
        windowed = self._windowed()
        verdict = GroundingResult(ok=True)
        if windowed is None:
            verdict = _verdict(self._bound, text)
            self.whole_checks += 1
            claims = _claims(verdict, text, self._reading.echo_patterns)
            held = open_quotation(text)
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
                at = min(span[1] for span in here) + LOOK_AHEAD
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
        r"""
        Tell whether a failing claim at ``start:end`` in sentence ``index`` fails for good.

        Once the text reaches :data:`LOOK_AHEAD` past it, always. Sooner, once
        its sentence is final, when the claim ends inside it, the sentence
        ends in a terminator (not a bare line break, which ``3\npassages``
        or a conversion's unit may cross) and no parenthesis or bracket is
        open before the claim: the rules that read past a sentence's end and
        can make a failing claim pass (a reference, ``(104 °F)``, ``[2]``)
        need one of those.
        """
        if end + LOOK_AHEAD <= length:
            return True
        low, high = self._spans[index]
        if not self._ready[index] or end > high or self._claim_like is None:
            return False
        text = self._text
        if text[low:high].rstrip(_CLOSING_MARKS)[-1:] not in _STOPS:
            return False
        before = text[min(low, max(0, start - _BRACKET_WINDOW)) : start]
        return before.count("(") <= before.count(")") and before.count("[") <= before.count("]")

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
            elif finding.code in MESSAGES:
                findings.append(_finding(finding.code, self._text, kept))
            else:
                findings.append(
                    GroundingFinding(
                        finding.code,
                        finding.message,
                        tuple(self._text[low:high] for low, high in kept),
                        tuple(kept),
                        finding.severity,
                    )
                )
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
        claims = _claims(verdict, text, self._reading.echo_patterns)
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
