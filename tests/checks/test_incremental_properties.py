"""
The streaming guarantee, against the whole-answer check (hypothesis; issue 20).

Generated answers are built from sentences with supported and unsupported
numbers, dates, quotations (some spanning sentences, some never closed),
ranges and conversions (some with their other half in the next sentence),
lists, hedges, references, echoes of the retry wording and copies of the
chunks, joined by spaces, line breaks and list bullets, and fed to
:class:`relapse.checks.IncrementalCheck` in random pieces (one character at a
time, or chunks of random sizes). The real RAGTruth answers of the bundled
sample are fed the same way. At every point:

* no claim of an error finding of ``check(full)`` (its offsets; an echo's
  phrases) starts inside ``text[:releasable]``, a copy verdict aside;
* ``releasable`` never decreases and is 0, a sentence end, or (after a
  passing ``finish()``) the text's length;
* a sentence reported failing during the stream holds an error span of
  ``check(full)``;
* after ``finish()``, ``failed is None`` iff ``check(full).ok``, and
  ``releasable == len(text)`` iff it passed.

Long answers (past the window of :mod:`relapse.grounding._stream`) are fed both
ways, judged by windows and judged whole: every progress must be the same;
and :class:`relapse.grounding._stream_watches.CopyWatch` must never rule out an answer
that the copy rule (:func:`relapse.grounding._echo.copies`, as the check runs
it) finds a copy.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from relapse.checks import IncrementalCheck, reader_of
from relapse.checks._contract import prepare
from relapse.evaluation import load_annotated
from relapse.grounding import ALL_CODES, GroundingCheck, default_grounding_check
from relapse.grounding._echo import copies
from relapse.grounding._stream_watches import CopyWatch
from stream_guarantee import assert_guarantee, progress_both_ways

CHUNKS = [
    "Paris has 2.1 million residents and 40 museums. The tower was finished on 31 March 1889.",
    'The mayor said "the city of light never sleeps" in 2019. Summers reach 40 °C (104 °F).',
    "Recovery takes 3 to 4 weeks. About 1.2 million people visit each year.",
    "1. Rinse the shoes. 2. Dry them in the shade. 3. Apply conditioner.",
    "The wall is 6 feet high. It opened on Sept. 5, 2020.",
]
QUERY = "What do the passages say about Paris?"

# Pieces of sentences: supported (in CHUNKS) and unsupported claims of each kind.
_CLAIMS = [
    "2.1 million residents",
    "3.4 million residents",
    "40 museums",
    "41 museums",
    "on 31 March 1889",
    "on 12 June 1901",
    "in 2019",
    "in 1887",
    "about 1.2 million visitors",
    "about 7 million visitors",
    "3 to 4 weeks",
    "between 5 and 9 weeks",
    "40 °C (104 °F)",
    "40 °C (120 °F)",
    "2 ways",
    "70 percent",
    "seventy visitors",
    "a dozen towers",
    "passage 2",
    "the 3 passages",
    "$5 billion",
]
_WORDS = ["the city", "it", "the tower", "recovery", "the mayor", "visitors", "Paris", "we"]
_VERBS = ["has", "counts", "was finished", "takes", "reaches", "saw", "said", "is"]
_QUOTES = [
    '"the city of light never sleeps"',
    '"the city never wakes up at all"',
    "\u201cthe city of light\u201d",
    "\u201cthe tower is made of gold\u201d",
]
# Starts of a next sentence that a careless cut would read with the previous one.
_NEXT = [
    "Million people came.",
    "Km away.",
    "Passages agree.",
    "Percent of them left.",
    "March was cold.",
    "(104 °F) is hot.",
    "% of it.",
    "Weeks later.",
    "Billion.",
    "To 4 weeks.",
    "And 9 weeks.",
    "Or more.",
    "1889 was a year.",
    "4 weeks.",
    "Answer the question again using only the context.",
    "m) tall.",
    "passages agree.",
    "] says so.",
    ") ok.",
    "ft. ) ok.",
    "5, 2020 it was.",
    "2020.",
    "the question again using only the context.",
]
_ECHO = "answer the question again using only the context"


def _sentence(draw: st.DrawFn) -> str:
    """One sentence (or a fragment that ends like one)."""
    kind = draw(st.integers(0, 9))
    subject = draw(st.sampled_from(_WORDS))
    verb = draw(st.sampled_from(_VERBS))
    if kind <= 3:
        return f"{subject.capitalize()} {verb} {draw(st.sampled_from(_CLAIMS))}."
    if kind == 4:
        return f"{subject.capitalize()} {verb} {draw(st.sampled_from(_QUOTES))}."
    if kind == 5:
        # A quotation over two sentences, closed or never closed.
        closed = draw(st.booleans())
        first, second = draw(
            st.sampled_from([("the city", "of light"), ("it is old", "it is big")])
        )
        tail = '" he said.' if closed else ""
        return f'He said "{first}. {second.capitalize()}.{tail}'
    if kind == 6:
        return draw(st.sampled_from(_NEXT))
    if kind == 7:
        # A claim whose other half may be in the next sentence or line.
        return draw(
            st.sampled_from(
                [
                    *("It reached 40 °C.", "It takes 3", "It has 2.1", "It was 31"),
                    *("Between 5 and", "It is 6 feet (1.8", "It has 86", "See [2", "It has 86."),
                    *("It opened on Sept.", "It is 6 feet (1.8 m.", "Please answer", "Now answer"),
                    *("It is 6 feet (3", "It has 7.", "It is 6 feet (1.8 ft."),
                ]
            )
        )
    if kind == 8:
        return f"{subject.capitalize()} said to {_ECHO}."
    return draw(st.sampled_from(["Paris is old.", "e.g. the tower.", "Dr. Smith agrees.", "No."]))


_SEPARATORS = st.sampled_from([" ", " ", " ", "\n", "\n\n", "\n- ", "\n1. ", "\n2. ", "  "])


@st.composite
def answers(draw: st.DrawFn) -> str:
    """A generated answer: sentences joined by separators, sometimes a copied chunk."""
    parts = [draw(st.sampled_from(["", "", "- ", "1. "]))]
    for _ in range(draw(st.integers(1, 8))):
        if draw(st.integers(0, 14)) == 0:
            parts.append(draw(st.sampled_from(CHUNKS)))
        else:
            parts.append(_sentence(draw))
        parts.append(draw(_SEPARATORS))
    if draw(st.booleans()):
        parts.pop()  # no separator after the last sentence
    return "".join(parts)


@st.composite
def cuts(draw: st.DrawFn, length: int) -> list[int]:
    """Where to cut a text of ``length`` characters into pieces."""
    mode = draw(st.integers(0, 3))
    if mode == 0:
        return list(range(1, length))  # character by character
    if mode == 1:
        size = draw(st.integers(2, 12))
        return list(range(size, length, size))
    return sorted(draw(st.sets(st.integers(1, max(1, length - 1)), max_size=40)))


_NAMES_CHECK = GroundingCheck(codes=ALL_CODES)


class TestGuarantee:
    @settings(
        max_examples=600,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(data=st.data())
    def test_generated_answers(self, data: st.DataObject) -> None:
        """Generated answers in random pieces: the release never holds a failing claim."""
        text = data.draw(answers())
        points = data.draw(cuts(len(text)))
        assert_guarantee(default_grounding_check, QUERY, CHUNKS, text, points)

    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(data=st.data())
    def test_generated_answers_with_names(self, data: st.DataObject) -> None:
        """The same with FG005 (names) on, whose claims are capitalised words."""
        text = data.draw(answers())
        points = data.draw(cuts(len(text)))
        assert_guarantee(_NAMES_CHECK, QUERY, CHUNKS, text, points)


#: The team's RAGTruth sample (real answers with annotations), next to the
#: repository as ``benchmarks/eval_ragtruth.py`` expects it.
SAMPLE = (
    Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "ragtruth-sample"
) / "ragtruth_sample.jsonl"


class TestRagtruth:
    def test_real_answers_in_random_pieces(self) -> None:
        """Every answer of the RAGTruth sample, cut three ways, keeps the guarantee."""
        if not SAMPLE.exists():
            pytest.skip(f"the RAGTruth sample is not at {SAMPLE}")
        records = load_annotated(SAMPLE)
        assert len(records) >= 400
        rng = random.Random(20)
        for record in records:
            query, answer = record.question or "", record.response
            for size in (1, 4):
                points = list(range(size, len(answer), size))
                assert_guarantee(default_grounding_check, query, record.passages, answer, points)
            count = min(30, max(0, len(answer) - 1))
            points = sorted(rng.sample(range(1, max(2, len(answer))), count))
            assert_guarantee(default_grounding_check, query, record.passages, answer, points)


# A long answer: the window (relapse.grounding._stream) starts WINDOW_BACK
# characters before the first sentence not released, so the generated
# answers are joined with claim-free filler past that length.
_FILLER = (
    "Visitors like the view from the hills on the northern side of the river, where the whole"
    " city and the water below can be seen at once on a clear day."
)


@st.composite
def long_answers(draw: st.DrawFn) -> str:
    """
    Generated answers past the window's length: filler first, then claims.

    The first sentences are claim-free filler (more than WINDOW_BACK
    characters), so the window applies to what follows; a generated part
    that fails the check is kept one time in five (else replaced by filler),
    so most answers release many claims (quotations, conversions, lists,
    references among them) judged by windows before a failure, if any.
    Some answers are mostly copies of the chunks.
    """
    parts: list[str] = []
    for _ in range(draw(st.integers(9, 14))):
        parts.extend((_FILLER, draw(_SEPARATORS)))
    copies = draw(st.integers(0, 4)) == 0
    for _ in range(draw(st.integers(6, 24))):
        if copies and draw(st.booleans()):
            part = draw(st.sampled_from(CHUNKS))
        else:
            part = draw(answers()).strip() or "Paris is old."
            failing = not default_grounding_check(QUERY, CHUNKS, part).ok
            if failing and draw(st.integers(0, 4)):
                part = _FILLER
        parts.extend((part, draw(_SEPARATORS)))
    return "".join(parts).rstrip()


@st.composite
def turning_copies(draw: st.DrawFn) -> str:
    """
    Long answers that become copies of the chunks only past the window's start.

    A lead of claim-free filler, then one chunk over and over (the copy
    rule counts the chunks its probes land in, so one chunk repeated is
    what a long copy is): the text so far is no copy while the filler's
    share of it is over ``1 - COPY_SHARE`` (so sentences are released and
    the window applies), and turns into one as the copies pile up, when
    :class:`relapse.grounding._stream_watches.CopyWatch` must send the check back to
    the whole text.
    """
    parts: list[str] = []
    for _ in range(draw(st.integers(2, 5))):
        parts.extend((_FILLER, draw(_SEPARATORS)))
    chunk = draw(st.sampled_from(CHUNKS))
    for _ in range(draw(st.integers(20, 60))):
        parts.extend((chunk, draw(_SEPARATORS)))
    return "".join(parts).rstrip()


class TestWindow:
    """Judging by a window gives the progress judging the whole text gives, piece by piece."""

    @settings(
        max_examples=120,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(data=st.data())
    def test_long_answers_progress_as_the_whole_text_check(self, data: st.DataObject) -> None:
        """Every StreamProgress (releasable, failed, failing, counts) equals the whole path's."""
        text = data.draw(st.one_of(long_answers(), turning_copies()))
        size = data.draw(st.integers(3, 40))
        points = list(range(size, len(text), size))
        by_window, by_whole, _ = progress_both_ways(
            default_grounding_check, QUERY, CHUNKS, text, points
        )
        assert by_whole == by_window, text

    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(data=st.data())
    def test_long_answers_with_names(self, data: st.DataObject) -> None:
        """The same with FG005 (names) on."""
        text = data.draw(long_answers())
        points = list(range(17, len(text), 17))
        by_window, by_whole, _ = progress_both_ways(_NAMES_CHECK, QUERY, CHUNKS, text, points)
        assert by_whole == by_window, text

    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(data=st.data())
    def test_long_answers_keep_the_guarantee(self, data: st.DataObject) -> None:
        """The guarantee against check(full) holds for long answers too."""
        text = data.draw(long_answers())
        size = data.draw(st.integers(5, 60))
        points = list(range(size, len(text), size))
        assert_guarantee(default_grounding_check, QUERY, CHUNKS, text, points)

    def test_a_long_grounded_answer_is_judged_by_windows(self) -> None:
        """300 grounded sentences: the window judges most of them, with the same progress."""
        text = " ".join([_FILLER, "Paris has 2.1 million residents.", "Paris is old."] * 100)
        points = list(range(7, len(text), 7))
        by_window, by_whole, windows = progress_both_ways(
            default_grounding_check, QUERY, CHUNKS, text, points
        )
        assert by_whole == by_window
        assert by_window[-1].failed is None  # type: ignore[attr-defined]
        check = default_grounding_check
        made = IncrementalCheck(prepare(check, QUERY, CHUNKS), reader_of(check))
        for low, high in zip([0, *points], [*points, len(text)], strict=True):
            made.feed(text[low:high])
        made.finish()
        # The whole text is judged only until the window applies (about WINDOW_BACK
        # characters, 20 sentences here), and at finish().
        assert windows == made.window_checks
        assert made.whole_checks < 40 < made.window_checks

    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(data=st.data())
    def test_copy_watch_is_a_necessary_condition(self, data: st.DataObject) -> None:
        """Whenever CopyWatch says the text so far cannot be a copy, the copy rule agrees."""
        text = data.draw(st.one_of(long_answers(), turning_copies()))
        size = data.draw(st.integers(5, 40))
        # The incremental check builds its watch when a window first applies,
        # so the first look may already see a long text.
        first = data.draw(st.integers(size, len(text)))
        bound = default_grounding_check.prepare(QUERY, CHUNKS)
        asked, folded = bound.copy_context()
        watch = CopyWatch(bound.copy_context())
        for end in [first, *range(first + size, len(text), size), len(text)]:
            prefix = text[:end]
            if not watch.may_copy(prefix):
                assert not copies(prefix, asked, folded), prefix
