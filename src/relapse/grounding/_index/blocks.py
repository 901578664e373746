"""
The digit claims of an answer and their verdicts, each distinct block of a long answer judged once.

An answer of hundreds of kilobytes is generated or hostile, and such text
repeats itself: ``"7 7 7 ..."``, a table pasted twice, one sentence over and
over. Each of its claims costs the scanner and the rules some microseconds
of Python, so a megabyte of claims costs seconds, though most of them are
the same claim in the same surroundings.

Every rule that reads a claim, and every reader of the scanner, looks at
most :data:`LOOK_BACK` characters before it and :data:`LOOK_AHEAD` after
it; the scanner carries a :class:`ScanState` from one match to the next. So
the claims found in a block of the answer, and their verdicts, depend only
on the block's text with a margin each side and on the state the scan
enters it with. A long answer is cut into blocks of :data:`BLOCK`
characters; a block met again with the same text, margins and state gets
the result computed the first time, moved to its offset. A result is
remembered only when everything read for it lay within its margins
(:func:`_self_contained`); a block with a claim longer than that is
computed wherever it occurs. Results are kept for one answer only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from relapse.grounding._read.claims import Claim
from relapse.grounding._read.context import CONTEXT_AFTER, CONTEXT_BEFORE, INLINE_MARKER_WINDOW
from relapse.grounding._read.normalize import needs_rewrite
from relapse.grounding._read.numbers import TOKEN_WINDOW
from relapse.grounding._read.scan import RANGE_GAP, START, ScanState, scan, scan_block
from relapse.grounding._values.calendar import MONTH_WINDOW
from relapse.grounding._values.units import UNIT_WINDOW

#: A claim that failed: its code, start and end offsets.
Failing = tuple[str, int, int]

#: A claim the chunks support at a place: its code, start and end offsets,
#: and what supports it (the judge's own record, carried unchanged).
Supported = tuple[str, int, int, object]

#: Judges claims of the answer: returns the ones that fail, with their codes,
#: and the ones a chunk supports, with what supports them.
Judge = Callable[[list[Claim]], tuple[list[Failing], list[Supported]]]

#: Answers shorter than this many characters are judged in one pass.
BLOCKS_FROM = 65_536
#: Characters per block.
BLOCK = 2_048
#: Characters of margin on each side of a block that its result may depend on.
MARGIN = 1_024
#: Characters before a claim that a reader or a rule reads: the longest
#: window of the context rules (the inline enumeration's look-back), with
#: room for the few characters a regex looks behind.
LOOK_BACK = max(INLINE_MARKER_WINDOW, CONTEXT_BEFORE, MONTH_WINDOW, TOKEN_WINDOW, RANGE_GAP) + 64
#: Characters after a claim (or after a match) that a reader, a rule or the
#: scanner's look-ahead reads.
LOOK_AHEAD = max(CONTEXT_AFTER, UNIT_WINDOW, MONTH_WINDOW) + 64


class JudgedClaims(NamedTuple):
    """The digit claims of an answer: the failing ones, the supported ones, where every claim is."""

    #: The claims that failed, as (code, start, end); a code the judge skips never fails.
    failing: list[Failing]
    #: Every claim's span, as pieces of (shift, spans): add the shift to each.
    pieces: list[tuple[int, tuple[tuple[int, int], ...]]]
    #: The claims a chunk supports, as (code, start, end, support), in answer order.
    supported: list[Supported]

    def spans(self) -> list[tuple[int, int]]:
        """Return the (start, end) of every claim, in answer order."""
        return [
            (start + offset, end + offset) for offset, spans in self.pieces for start, end in spans
        ]


class _Block(NamedTuple):
    """What a block gave, at the offset it was first computed at."""

    begin: int
    spans: tuple[tuple[int, int], ...]
    failing: list[Failing]
    supported: list[Supported]
    exit: ScanState


def judge_claims(
    answer: str,
    judge: Judge,
    *,
    until: int | None = None,
    enough: int | None = None,
    keep: Callable[[Failing], bool] | None = None,
    most_supported: int | None = None,
) -> JudgedClaims:
    """
    Find the digit claims of ``answer`` and judge them, each distinct block of a long one once.

    Gives what ``judge(scan(answer))`` gives, filtered by ``keep``; answers of
    :data:`BLOCKS_FROM` characters or more with nothing to rewrite (see
    :func:`relapse.grounding._read.normalize.needs_rewrite`) are scanned and judged by blocks,
    and stop early as ``until`` and ``enough`` allow.

    Args:
        answer: The answer.
        judge: Called with consecutive runs of claims; returns the failing
            ones. Its verdict on a claim must depend only on the claim and
            the answer within :data:`LOOK_BACK` and :data:`LOOK_AHEAD` of it.
        until: Claims starting at or after this offset may be left unread.
        enough: Once more than this many claims failed (and were kept),
            the rest of the answer may be left unread.
        keep: Which failing claims count; None keeps all.
        most_supported: Once this many supported claims are listed, the
            blocks' next ones may be left out (a long answer's evidence is
            capped; moving them costs time).

    Returns:
        The failing claims (every one that starts before where the reading
        stopped, maybe more), the supported ones, and every claim read's
        span, in answer order.
    """
    length = len(answer)
    read_until = length if until is None else until
    most = length if enough is None else enough
    if length < BLOCKS_FROM or needs_rewrite(answer):
        claims = scan(answer)
        failing, supported = judge(claims)
        if keep is not None:
            failing = [claim for claim in failing if keep(claim)]
        return JudgedClaims(failing, [(0, tuple((c.start, c.end) for c in claims))], supported)
    known: dict[tuple[object, ...], _Block] = {}
    failing = []
    supported = []
    pieces: list[tuple[int, tuple[tuple[int, int], ...]]] = []
    state = START
    for begin in range(0, length, BLOCK):
        if begin >= read_until or len(failing) > most:
            break
        stop = min(begin + BLOCK, length)
        low = max(0, begin - MARGIN)
        high = min(length, stop + MARGIN)
        key = (answer[low:high], begin - low, stop - begin, _entry(state, begin))
        block = known.get(key)
        if block is None:
            block = _judge_block(answer, judge, state, begin, stop)
            if _self_contained(block, low, high, length):
                known[key] = block
        shift = begin - block.begin
        found = block.failing
        if shift:
            found = [(code, start + shift, end + shift) for code, start, end in found]
        failing.extend(found if keep is None else filter(keep, found))
        held = block.supported
        if most_supported is None or len(supported) < most_supported:
            if shift:
                held = [(code, start + shift, end + shift, by) for code, start, end, by in held]
            supported.extend(held)
        pieces.append((shift, block.spans))
        state = _moved(block.exit, shift)
    return JudgedClaims(failing, pieces, supported)


def _judge_block(answer: str, judge: Judge, state: ScanState, begin: int, stop: int) -> _Block:
    """Scan and judge the block from ``begin`` (scanned from ``state``) to ``stop``."""
    claims, exit_state = scan_block(answer, state, stop)
    if stop == len(answer) and exit_state.pending is not None:
        claims.append(exit_state.pending)
        exit_state = exit_state._replace(pending=None)
    spans = tuple((claim.start, claim.end) for claim in claims)
    failing, supported = judge(claims)
    return _Block(begin, spans, failing, supported, exit_state)


def _self_contained(block: _Block, low: int, high: int, length: int) -> bool:
    """Tell whether scanning and judging ``block`` read nothing outside ``answer[low:high]``."""
    spans = block.spans  # in order, without overlaps
    if low > 0 and spans and spans[0][0] - LOOK_BACK < low:
        return False
    if high == length:
        return True  # the text ends within the margin: nothing after it to read
    # The scan searched up to the next match and read every match and claim
    # it met (resume is past the last), with a look-ahead after each.
    limit = high - LOOK_AHEAD
    exit_state = block.exit
    pending = exit_state.pending
    return (
        exit_state.search <= limit
        and exit_state.resume <= limit
        and (not spans or spans[-1][1] <= limit)
        and (pending is None or pending.end <= limit)
    )


def _entry(state: ScanState, begin: int) -> tuple[object, ...]:
    """
    Return the part of ``state`` that a scan from it depends on, relative to ``begin``.

    A scan reads ``resume`` and ``glued`` only against matches starting at
    ``search`` or later: earlier values act as ``search`` and ``search -
    MONTH_WINDOW`` do.
    """
    search, pending, resume, glued = _moved(state, -begin)
    return (search, pending, max(resume, search), max(glued, search - MONTH_WINDOW))


def _moved(state: ScanState, offset: int) -> ScanState:
    """Return ``state`` with its offsets moved by ``offset``."""
    search, pending, resume, glued = state
    if pending is not None:
        pending = pending._replace(start=pending.start + offset, end=pending.end + offset)
    return ScanState(search + offset, pending, resume + offset, glued + offset)
