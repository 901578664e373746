r"""
The default check's own reading of a growing answer (``release="sentence"``).

:meth:`relapse.GroundingCheck.stream_reader` returns a
:class:`DefaultStreamReader`, the :class:`relapse.checks.StreamReader` that
:class:`relapse.checks.IncrementalCheck` asks about the default check's
verdicts: it knows how far the rules read, which the generic incremental
check does not.

**How far the check reads.** :func:`reach` is computed from the rules'
registry (:data:`relapse.grounding.rules.RULES`, each rule's
:attr:`~relapse.grounding.rules.Rule.reach`) and the readers' own windows
(the block memo's ``LOOK_BACK`` and ``LOOK_AHEAD``), whichever is further:
a rule whose reach grows moves the hold-back and the window with it
(:data:`READ_BEFORE`, :data:`READ_AFTER`).

**Context ahead.** The readers extend a claim, or read its unit, scale
word, range end or date after it, across spaces only: never across a line
break, nor a terminator followed by whitespace. So a sentence is judged as
soon as the next sentence begins, but: a claim-like word (a digit, a number
word, a month name) right at its terminator with a digit next
(``in Sept. 5``) waits :data:`READ_AFTER` characters past the claim-like
text chained from it (within :data:`JOIN_WINDOW`); a line ending with no
terminator whose last words could open an echo phrase waits
:data:`READ_AFTER` past its end; with FG005 on, capitals are claim-like and
chain too. A *failure* is final :data:`READ_AFTER` past its claim, or as
soon as its sentence is judged when the claim ends inside a sentence ending
in a terminator, no parenthesis or bracket open before it: the rules that
read past a sentence's end and can make a claim pass (a reference
``3\npassages``, a conversion ``(1.8 m. )``, ``[2]``) need a line break or a
closing bracket.

**Claims.** A finding's offsets are its claims, but FG004's: an echo
finding reports the line around each echoed phrase, so its claims are the
phrases inside those lines; a copy or an empty answer is a verdict on the
whole answer, located nowhere.

**The window.** Judged on the whole text fed so far at every sentence, a
stream costs time quadratic in its sentences. Every rule reads a bounded
neighbourhood of a claim, so the verdict on the claims after the released
text is the verdict on a *window* (:class:`DefaultWindow`): the text from a
sentence start :data:`WINDOW_BACK` characters or more before the first
sentence not released. A window start is taken only where nothing before it
can change what the window reads:

* it is a sentence start whose first character is a letter or a digit of
  any script, an opening parenthesis or bracket, or a markdown bullet and
  its space (no heading line, no quotation mark opens there), and whose
  previous character is white space (a no-break space too) or ends a
  sentence of a script written without spaces (``。``, ``」``): a
  quotation mark after it reads the same neighbours in the window as in the
  whole text (:func:`may_start`);
* it is at least :data:`WINDOW_BACK` characters before the first sentence
  not released: twice :data:`READ_BEFORE`, so the scanner has read a
  sentence boundary and a full look-back of text before the first claim
  that matters;
* no quotation of the whole text's pairing spans it, and no quotation mark
  before it is still undecided;
* whether the answer is a copy of the chunks or the question (FG004) is a
  verdict on the whole answer, watched from the answer's start.

**Answer-wide state.** The premise holds for a rule only while it keeps no
state across the answer; where one does, that state is carried into the
window or the window is off for the answer (issue 38: the small-ordinal rule
judged only the first 16 distinct words of the text it was given, so a
window, reading fewer of them, released a rank the whole answer flags). The
watches are :mod:`relapse.grounding._stream_watches`:

* the quotation pairing (FG003): carried, ``QuoteTracker`` decides
  the whole text's pairing, and no window starts inside a quotation or
  after an opener still undecided;
* whether the answer copies the chunks (FG004): carried, ``CopyWatch``
  watches the whole text and the window is judged without the copy rule;
* the ranks (the small-ordinal rule reads the chunks after at most
  ``MAX_SLOT_WORDS`` distinct words, the first met): the window is off for
  the answer once ``RankWatch`` has seen more words before ordinals than
  that;
* the first ``MAX_EVIDENCE`` supported claims (those the subject rule
  reads): a window is a suffix of the answer, so a claim's rank among them
  is never higher there than in the whole text, and the window reads at
  least the claims the whole text's check reads;
* ``MAX_FAILING_SPANS`` (a check stops reading there): a window verdict that
  stopped is not used;
* the verdicts kept per claim, per echo phrase and per block of a long
  answer: caches keyed by what the verdict reads, the same wherever they
  are computed.

``tests/checks/test_window_state.py`` generates long answers with each of
these across the window's edge.

The window's verdict (the check without its copy rule) is used only to say
that no claim after the released text fails. When it holds an error there,
or a verdict about the whole answer, the check runs on the whole text as
before: every verdict and every finding reported is the whole-text check's
(``tests/checks/test_incremental_properties.py`` compares the two paths).
When the answer may be a copy, the copy rule alone runs on the whole text
(a few passes in C, where the whole check costs every rule): an answer
that copies a long context keeps the window open, and releases nothing
while it is a copy.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence
from operator import itemgetter
from typing import Protocol

from relapse._read.quotation_marks import open_quotation
from relapse._read.sentences import CJK_CLOSING, CJK_STOPS
from relapse._results import GroundingFinding, GroundingResult
from relapse.checks._contract import ClaimSpans, Verdict, WindowVerdict, narrowed_finding
from relapse.grounding._codes import COPY_MESSAGE, EMPTY_MESSAGE, FG001, FG004, MESSAGES
from relapse.grounding._echo import copies, echo_hits
from relapse.grounding._findings import finding as code_finding
from relapse.grounding._index.blocks import LOOK_AHEAD, LOOK_BACK
from relapse.grounding._index.folded import FoldedChunks
from relapse.grounding._read.scan import RANGE_GAP
from relapse.grounding._read.words import SMALL_WORDS, TENS_WORDS
from relapse.grounding._stream_watches import CopyWatch, QuoteTracker, RankWatch
from relapse.grounding._values.calendar import MONTHS
from relapse.grounding.rules import RULES, Rule


def reach(rules: Iterable[Rule]) -> tuple[int, int]:
    """
    How far the check reads around a claim: ``(before, after)``, in characters.

    The furthest reach of any rule (:attr:`relapse.grounding.rules.Rule.reach`)
    and of the readers (the scanner's and the context rules' windows, which
    the block memo keeps as ``LOOK_BACK`` and ``LOOK_AHEAD``), whichever is
    further on each side.

    Args:
        rules: The rules (:data:`relapse.grounding.rules.RULES`).
    """
    reaches = [rule.reach for rule in rules]
    return (
        max([LOOK_BACK, *(before for before, _ in reaches)]),
        max([LOOK_AHEAD, *(after for _, after in reaches)]),
    )


#: Characters before and after a claim that a verdict on it reads at most:
#: :func:`reach` of the registry. A verdict on a claim is final once the text
#: reaches :data:`READ_AFTER` past it.
READ_BEFORE, READ_AFTER = reach(RULES)
#: Characters between a window's start and the first sentence not released.
WINDOW_BACK = 2 * READ_BEFORE
#: Characters after a sentence's last claim-like character searched for
#: another that may belong to the same claim (a range's second end, a
#: date's year across a line break): the scanner's longest gap inside one
#: claim (``RANGE_GAP``) with room for a unit or a month name.
JOIN_WINDOW = RANGE_GAP + 12

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
#: What may come just before a window's start besides white space.
_CJK_ENDS = frozenset(CJK_STOPS + CJK_CLOSING)
#: What a window may start with besides a letter or a digit.
_OPENING_BRACKETS = frozenset("([")
_BULLETS = frozenset("-*+\u2022")


def _claim_like() -> re.Pattern[str]:
    """The characters and words where a claim may be (see the module docstring)."""
    words = sorted(
        {*SMALL_WORDS, *TENS_WORDS, "hundred", "thousand", "million", "billion", "trillion"}
        | {"dozen", *(name.casefold() for name in MONTHS)},
        key=len,
        reverse=True,
    )
    alternation = "|".join(re.escape(word) for word in words)
    return re.compile(rf"\d|[{_QUOTE_MARKS}]|(?<![^\W_])(?i:{alternation})(?![^\W_])")


_CLAIM_LIKE = _claim_like()


class WindowedCheck(Protocol):
    """What :class:`DefaultWindow` asks of the default check bound to the call."""

    @property
    def codes(self) -> frozenset[str]:
        """The finding codes the check reports."""

    def judged(self, answer: str, *, copies: bool) -> GroundingResult:
        """The check's verdict on ``answer``; ``copies=False`` leaves the copy rule out."""

    def copy_context(self) -> tuple[str, FoldedChunks]:
        """What the copy rule reads an answer against: the question, the chunks folded."""


#: Finds the bound default check behind what ``prepare`` gave, or None.
OwnCheck = Callable[[Callable[[str], Verdict]], WindowedCheck | None]


def located(
    verdict: GroundingResult, text: str, echo_patterns: Sequence[tuple[str, re.Pattern[str]]]
) -> ClaimSpans:
    """
    Where the claims are that make ``verdict`` fail on ``text`` (see the module docstring).

    Args:
        verdict: A verdict of the default check on ``text``.
        text: The text judged.
        echo_patterns: ``(folded phrase, pattern)`` pairs of the echo phrases.
    """
    copy_prefix = COPY_MESSAGE.split("{", 1)[0]
    spans: list[tuple[int, int, int]] = []
    whole = not verdict.ok and not verdict.errors
    hits: list[tuple[int, int]] | None = None
    for index, found in enumerate(verdict.findings):
        if found.severity != "error":
            continue
        if found.code == FG004 and (
            found.message == EMPTY_MESSAGE or found.message.startswith(copy_prefix)
        ):
            whole = True
            continue
        if not found.offsets:
            whole = True
            continue
        if found.code != FG004:
            spans.extend((start, end, index) for start, end in found.offsets)
            continue
        if hits is None:
            hits = [(start, end) for _, start, end in echo_hits(text, echo_patterns)]
        for low, high in found.offsets:
            inside = [(start, end) for start, end in hits if low <= start and end <= high]
            spans.extend((start, end, index) for start, end in inside or [(low, high)])
    return ClaimSpans(tuple(spans), whole)


class DefaultStreamReader:
    """
    The default check's :class:`relapse.checks.StreamReader` (see the module docstring).

    Built by :meth:`relapse.GroundingCheck.stream_reader`.

    Args:
        echo_patterns: The check's echo phrases, ``(folded phrase, pattern)``.
        names: Whether the check reports FG005 (names): capitals are claim-like.
        own: Finds the bound default check behind what ``prepare`` gave
            (its plain ``check``), for :meth:`window`; None otherwise.
        failing_cap: The check's cap on failing spans (``MAX_FAILING_SPANS``):
            a window verdict with that many may have stopped reading.
    """

    __slots__ = (
        "_echo_patterns",
        "_echo_prefixes",
        "_echo_words",
        "_failing_cap",
        "_names",
        "_own",
    )

    #: See :attr:`relapse.checks.StreamReader.reach`: :data:`READ_AFTER`.
    reach = READ_AFTER

    def __init__(
        self,
        echo_patterns: Sequence[tuple[str, re.Pattern[str]]],
        *,
        names: bool,
        own: OwnCheck,
        failing_cap: int,
    ) -> None:
        self._echo_patterns = tuple(echo_patterns)
        self._names = names
        self._own = own
        self._failing_cap = failing_cap
        prefixes: set[str] = set()
        longest = 0
        for phrase, _ in self._echo_patterns:
            words = phrase.split()
            longest = max(longest, len(words) - 1)
            prefixes.update(" ".join(words[:count]) for count in range(1, len(words)))
        # Every prefix of an echo phrase (whole words), folded: a line ending
        # in one may go on with the rest of the phrase on the next line.
        self._echo_prefixes = frozenset(prefixes)
        self._echo_words = longest

    def final_from(self, text: str, start: int, end: int) -> int | None:
        """
        The text length from which the verdict on ``text[start:end]`` is final, or None yet.

        See the module docstring: the sentence's end, but after a claim-like
        word right at its terminator when a digit follows, after a line that
        may go on with an echo phrase, and with FG005 on: then
        :data:`READ_AFTER` past the last claim-like character, chained
        through the claim-like characters within :data:`JOIN_WINDOW` after it.
        """
        length = len(text)
        if self._may_echo_on(text, start, end):
            return end + READ_AFTER
        last = self._last_claim_like(text, start, end)
        if last is None:
            return end
        if not self._names:
            after = end
            while after < length and text[after].isspace():
                after += 1
            if text[last:end].strip(_ENDING) or not text[after : after + 1].isdecimal():
                return end
        while True:
            if last + JOIN_WINDOW > length:
                return None  # what follows the claim is not known yet
            claim_like = _CLAIM_LIKE.search(text, last, last + JOIN_WINDOW)
            window = text[last : last + JOIN_WINDOW]
            names = self._names and any(char.isupper() for char in window)
            if claim_like is None and not names:
                return last + READ_AFTER
            last = last + JOIN_WINDOW if claim_like is None else max(claim_like.end(), last + 1)

    def _last_claim_like(self, text: str, start: int, end: int) -> int | None:
        """The end of the last claim-like character or word in ``text[start:end]``, or None."""
        last = None
        for match in _CLAIM_LIKE.finditer(text, start, end):
            last = match.end()
        if self._names:
            for at in range(end - 1, start - 1, -1):
                if text[at].isupper():
                    last = max(last or 0, at + 1)
                    break
        return last

    def _may_echo_on(self, text: str, start: int, end: int) -> bool:
        """Tell whether a line ending without a terminator ends with the start of an echo phrase."""
        if text[end - 1] in _TERMINATORS or not self._echo_prefixes:
            return False  # a phrase never runs on past a terminator
        words = " ".join(text[start:end].casefold().split()).split()
        tail = words[-self._echo_words :]
        return any(" ".join(tail[at:]) in self._echo_prefixes for at in range(len(tail)))

    def fails_for_good(self, text: str, sentence: tuple[int, int], claim_start: int) -> bool:
        r"""
        Tell whether a failing claim from ``claim_start``, inside a sentence judged, fails for good.

        When the sentence ends in a terminator (not a bare line break, which
        ``3\npassages`` or a conversion's unit may cross) and no parenthesis
        or bracket is open before the claim: the rules that read past a
        sentence's end and can make a failing claim pass (a reference,
        ``(104 °F)``, ``[2]``) need one of those.
        """
        low, high = sentence
        if text[low:high].rstrip(_CLOSING_MARKS)[-1:] not in _STOPS:
            return False
        before = text[min(low, max(0, claim_start - _BRACKET_WINDOW)) : claim_start]
        return before.count("(") <= before.count(")") and before.count("[") <= before.count("]")

    def held_from(self, text: str) -> int | None:
        """An open quotation (:func:`relapse._read.quotation_marks.open_quotation`)."""
        return open_quotation(text)

    def claims(self, verdict: GroundingResult, text: str) -> ClaimSpans:
        """Where the claims are that make ``verdict`` fail on ``text`` (:func:`located`)."""
        return located(verdict, text, self._echo_patterns)

    def narrowed(
        self, finding: GroundingFinding, text: str, offsets: Sequence[tuple[int, int]]
    ) -> GroundingFinding:
        """The finding on the claims at ``offsets`` only, its message worded for them."""
        if finding.code in MESSAGES:
            return code_finding(finding.code, text, list(offsets))
        return narrowed_finding(finding, text, offsets)

    def window(self, bound: Callable[[str], Verdict]) -> DefaultWindow | None:
        """
        A :class:`DefaultWindow` for one attempt, when ``bound`` is the default check's ``check``.

        Its verdicts without the copy rule are what a window needs; any other
        callable (a composition, a wrapper) is judged whole.
        """
        owner = self._own(bound)
        return None if owner is None else DefaultWindow(owner, self, self._failing_cap)


class DefaultWindow:
    """
    One attempt's window over a long answer (the :class:`relapse.checks.StreamWindow`).

    Args:
        owner: The default check bound to the call.
        reader: Its reader, which locates the window verdict's claims.
        failing_cap: A verdict with this many failing spans may have stopped reading.

    Attributes:
        checks: How many times a window was judged.
    """

    __slots__ = (
        "_copies",
        "_copy_rule",
        "_failing_cap",
        "_owner",
        "_quotes",
        "_ranks",
        "_reader",
        "_start",
        "checks",
    )

    def __init__(self, owner: WindowedCheck, reader: DefaultStreamReader, failing_cap: int) -> None:
        self._owner = owner
        self._reader = reader
        self._failing_cap = failing_cap
        self._quotes = QuoteTracker()
        # Built when a window first applies: CopyWatch folds every chunk, a
        # cost a short answer (judged whole throughout) need not pay.
        self._copy_rule = FG004 in owner.codes
        self._copies: CopyWatch | None = None
        # The small-ordinal rule's words are answer-wide state (FG001's words pass).
        self._ranks = RankWatch() if FG001 in owner.codes else None
        self._start = 0
        self.checks = 0

    def judge(
        self, text: str, sentences: Sequence[tuple[int, int]], first: int
    ) -> WindowVerdict | None:
        """
        Judge the text after the first ``first`` sentences by a window, when one applies.

        Returns:
            A verdict holding no failing claim (or, when the copy rule run
            alone on the whole text finds a copy, only that verdict about the
            whole answer), or None: no window applies, or the whole text must
            be judged (a failure there, a verdict about the whole answer).
        """
        released = sentences[first][0]
        if released <= WINDOW_BACK:
            # No window starts before the text's start: a short answer never
            # needs the quotation pairing (the tracker catches up from where
            # it stopped, here the start, when a window may apply).
            return None
        if self._ranks is not None:
            self._ranks.update(text)
            if self._ranks.saturated:
                return None  # the ranks rule's words are the whole answer's
        self._quotes.update(text)
        self._start = window_start(text, sentences, released, self._quotes, self._start)
        start = self._start
        if not start:
            return None
        may_copy = False
        if self._copy_rule:
            if self._copies is None:
                self._copies = CopyWatch(self._owner.copy_context())
            may_copy = self._copies.may_copy(text)
        window = text[start:]
        verdict = self._owner.judged(window, copies=False)
        self.checks += 1
        if sum(len(found.offsets) for found in verdict.errors) >= self._failing_cap:
            return None  # the window's check may have stopped reading before its end
        claims = self._reader.claims(verdict, window)
        if claims.whole or any(end > released - start for _, end, _ in claims.spans):
            return None  # a failure after the released text: judged on the whole text
        held = self._reader.held_from(window)
        at = None if held is None else held + start
        if may_copy and copies(text, *self._owner.copy_context()):
            # The copy rule alone on the whole text (the other rules' verdicts
            # after the released text are the window's): a copy releases nothing.
            return WindowVerdict(ClaimSpans((), True), at)
        return WindowVerdict(ClaimSpans((), False), at)


def window_start(
    text: str,
    spans: Sequence[tuple[int, int]],
    released: int,
    quotes: QuoteTracker,
    previous: int,
) -> int:
    """
    The latest sentence start a window may begin at (see the module docstring), or ``previous``.

    Args:
        text: The text fed so far.
        spans: The ``(start, end)`` of every sentence confirmed so far, in order.
        released: Where the first sentence not released starts.
        quotes: The text's quotation pairing, updated.
        previous: The window start chosen before (0: none), still valid.

    Returns:
        A window start ``>= previous``.
    """
    limit = released - WINDOW_BACK
    undecided = quotes.first_undecided()
    if undecided is not None:
        limit = min(limit, undecided)
    if limit <= previous:
        return previous
    at = bisect_right(spans, limit, key=itemgetter(0)) - 1
    # A few candidates back, not more: the previous start stays valid.
    for index in range(at, max(-1, at - 8), -1):
        start = spans[index][0]
        if start <= previous:
            break
        if may_start(text, start) and not quotes.spans(start):
            return start
    return previous


def may_start(text: str, start: int) -> bool:
    """
    Tell whether a window may begin at the sentence start ``start > 0`` (see the module docstring).

    Its first character is a letter or digit of any script, an opening
    parenthesis or bracket, or a markdown bullet (``-``, ``*``, ``+``, ``•``)
    with a space after it; the character before it is white space (a
    no-break space too) or a terminator or closing mark of the scripts
    written without spaces (``。``, ``」``).
    """
    before = text[start - 1]
    if not (before.isspace() or before in _CJK_ENDS):
        return False
    char = text[start]
    if char.isalnum() or char in _OPENING_BRACKETS:
        return True
    return char in _BULLETS and text[start + 1 : start + 2] == " "
