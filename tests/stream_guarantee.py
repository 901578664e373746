"""
The streaming guarantee, asserted: what the stream property tests share.

:func:`assert_guarantee` feeds a text to :class:`relapse.checks.IncrementalCheck`
in pieces and checks every progress against the whole-answer check;
:func:`progress_both_ways` feeds it judged by windows and judged whole.
"""

from __future__ import annotations

from collections.abc import Sequence

import relapse
from relapse.checks import IncrementalCheck, incremental, reader_of
from relapse.checks._contract import prepare
from relapse.grounding import GroundingCheck, sentence_spans


def assert_guarantee(
    check: relapse.GroundingCheck | object,
    query: str,
    chunks: Sequence[str],
    text: str,
    points: list[int],
) -> None:
    """
    Feed ``text`` cut at ``points`` and assert the guarantee against ``check(full)``.

    * no claim of an error finding of ``check(full)`` (its offsets; an
      echo's phrases) starts inside ``text[:releasable]``;
    * ``releasable`` never decreases and is 0, a sentence end, or (after a
      passing ``finish()``) the text's length;
    * a sentence reported failing during the stream holds an error span of
      ``check(full)``;
    * after ``finish()``, ``failed is None`` iff ``check(full).ok``, and
      ``releasable == len(text)`` iff it passed.
    """
    whole = check(query, chunks, text)  # type: ignore[operator]
    assert isinstance(whole, relapse.GroundingResult)
    claims = sorted({(start, end) for start, end, _ in reader_of(check).claims(whole, text).spans})
    reported = [span for finding in whole.errors for span in finding.offsets]
    ends = {end for _, end in sentence_spans(text)}
    made = incremental(check, query, chunks)  # type: ignore[arg-type]
    assert made is not None
    released = 0
    pieces = [text[low:high] for low, high in zip([0, *points], [*points, len(text)], strict=True)]
    for piece in pieces:
        progress = made.feed(piece)
        assert released <= progress.releasable, "releasable decreased"
        released = progress.releasable
        assert released == 0 or released in ends, (text, released)
        assert not [span for span in claims if span[0] < released], (text, released, claims)
        if progress.failed is not None:
            assert not whole.ok
            start, end = progress.failing or (0, 0)
            assert any(low < end and start < high for low, high in reported), (text, start, end)
            return
    progress = made.finish()
    assert released <= progress.releasable
    assert (progress.failed is None) == whole.ok, (text, whole)
    assert (progress.releasable == len(text)) == (whole.ok or not text), (text, progress)
    if not whole.ok:
        assert not [span for span in claims if span[0] < progress.releasable], text


def progress_both_ways(
    check: GroundingCheck, query: str, chunks: Sequence[str], text: str, points: list[int]
) -> tuple[list[object], list[object], int]:
    """The progress after each piece, judged by windows and judged whole; window checks made."""
    runs: list[list[object]] = []
    windows = 0
    for window in (True, False):
        made = IncrementalCheck(prepare(check, query, chunks), reader_of(check), window=window)
        seen: list[object] = []
        pieces = zip([0, *points], [*points, len(text)], strict=True)
        for low, high in pieces:
            progress = made.feed(text[low:high])
            seen.append(progress)
            if progress.failed is not None:
                break
        else:
            seen.append(made.finish())
        runs.append(seen)
        windows = windows or made.window_checks
    return runs[0], runs[1], windows
