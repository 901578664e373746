"""
Answer-wide state across the window's edge (issue 38, hostile test: a failing sentence released).

Past ``WINDOW_BACK`` characters the streamed check judges a window of the
answer (:mod:`relapse.checks._window`), on the premise that every rule reads
a bounded neighbourhood of a claim. The small-ordinal rule broke it: it reads
the chunks after at most ``MAX_SLOT_WORDS`` (16) distinct words per answer,
the first met, so a window holding 16 other rank words released ``She
finished fourth.``, which the whole answer flags (its ``finished`` came
first). The generated answers here put each piece of answer-wide state the
default check keeps on both sides of the window's edge: many ranks, subjects
(the twins and trees of the subject rule), copies of the chunks, quotations,
and sentences of the lead repeated after the edge; no sentence the
whole-answer check flags is ever released, for the default check and with
every code on.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from relapse.checks._contract import prepare
from relapse.checks._incremental import IncrementalCheck, _reading
from relapse.checks._window import WINDOW_BACK, RankWatch
from relapse.grounding import ALL_CODES, GroundingCheck, default_grounding_check
from relapse.grounding._read.ordinal_slots import MAX_SLOT_WORDS
from stream_guarantee import assert_guarantee, progress_both_ways

QUERY = "How did they do?"
CHUNKS = [
    "In the 2019 race she finished 3rd and the horse placed second.",
    "The team came 5th in 2020, and the club ranked first.",
    "Monoamniotic twins occur when the split takes place after the ninth day after "
    "fertilization. Conjoined twins: When the division of the developing zygote occurs, "
    "it is within 8 days of fertilization.",
    "Twins can be either monozygotic (identical), meaning that they develop from one zygote, "
    "or dizygotic (fraternal).",
    "Grafted trees bear fruit within 3 years. "
    "Most seedling trees take longer: seedling trees bear fruit after 7 years.",
    'The mayor said "the city of light never sleeps" in 2019. Paris has 2.1 million residents.',
]
#: Words before a rank: the chunks rank after the first four.
SLOT_WORDS = (
    *("finished", "placed", "came", "ranked", "rated", "scored", "ended", "started"),
    *("stood", "rode", "ran", "swam", "jumped", "threw", "won", "lost", "went", "sailed"),
    *("drove", "flew", "climbed", "rowed", "skated", "arrived"),
)
ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "tenth")
RANKED = ("She", "The horse", "The team", "The club", "He")
SUBJECTS = (
    "Seedling trees bear fruit within 3 years.",
    "Grafted trees bear fruit within 3 years.",
    "Monozygotic (identical) twins occur within 8 days of fertilization.",
    "Conjoined twins form within 8 days of fertilization.",
)
QUOTATIONS = (
    'The mayor said "the city of light never sleeps" in 2019.',
    'The mayor said "the city never wakes up at all".',
    "The mayor said \u201cthe city of light\u201d twice.",
    'He said "the tower is made of gold. It is tall." and left.',
    'He said "it is old.',
)
NUMBERS = ("Paris has 2.1 million residents.", "Paris has 3.4 million residents.")
FILLER = (
    "Visitors like the view from the hills on the northern side of the river, where the whole"
    " city and the water below can be seen at once on a clear day."
)
SEPARATORS = st.sampled_from([" ", " ", " ", "\n", "\n\n", "\n- ", "\n1. "])

_ALL_CODES_CHECK = GroundingCheck(codes=ALL_CODES)


#: The ranks the chunks write after their words.
CHUNK_RANKS = {"finished": "third", "placed": "second", "came": "fifth", "ranked": "first"}


#: Every rank sentence :func:`_rank` may write.
RANKS = frozenset(
    f"{who} {word} {rank}." for who in RANKED for word in SLOT_WORDS for rank in ORDINALS
)


def _rank(draw: st.DrawFn, word: str) -> str:
    """A rank after ``word``: the chunks' own rank two times in three, where they write one."""
    rank = CHUNK_RANKS.get(word)
    if rank is None or not draw(st.integers(0, 2)):
        rank = draw(st.sampled_from(ORDINALS))
    return f"{draw(st.sampled_from(RANKED))} {word} {rank}."


def _other(draw: st.DrawFn) -> str:
    """One sentence holding other answer-wide state: a subject, a quotation, a copy, a number."""
    kind = draw(st.integers(0, 3))
    if kind == 0:
        return draw(st.sampled_from(SUBJECTS))
    if kind == 1:
        return draw(st.sampled_from(QUOTATIONS))
    if kind == 2:
        return draw(st.sampled_from(CHUNKS))
    return draw(st.sampled_from(NUMBERS))


def _part(draw: st.DrawFn, ranks: list[str]) -> str:
    """The next rank of ``ranks`` (taken from it) two times in three, else another sentence."""
    if ranks and draw(st.integers(0, 2)):
        return _rank(draw, ranks.pop())
    return _other(draw)


def _words(draw: st.DrawFn, *, last: bool) -> list[str]:
    """
    Words to rank after, in the order :func:`_part` pops them (the chunks' words first or last).

    Some of the others, in a drawn order, and the words the chunks rank
    after, in a drawn order, popped before them or (``last``) after them.
    """
    ranked = draw(st.permutations(sorted(CHUNK_RANKS)))
    others = [word for word in SLOT_WORDS if word not in CHUNK_RANKS]
    # As many as the rule reads and one more are drawn as often as fewer.
    count = draw(st.sampled_from([0, 5, 10, 14, 15, 16, 17, 18, len(others)]))
    others = draw(st.permutations(others))[:count]
    return [*ranked, *others] if last else [*others, *ranked]


def _fails(part: str) -> bool:
    return not default_grounding_check(QUERY, CHUNKS, part).ok


@st.composite
def edge_answers(draw: st.DrawFn) -> str:
    """
    A lead of stateful sentences, claim-free filler past the window's length, then a tail.

    The lead ranks after the words the chunks rank after, then after up to
    every other word of :data:`SLOT_WORDS` once, in a drawn order, among
    other sentences; a lead sentence that fails on its own is dropped (it
    would stop the stream before the edge). The tail ranks after other
    words again, then after the chunks' words, among repeats of lead
    sentences and other sentences, keeping every rank that fails: a rank the
    whole answer judges (its word came early) after many other words past
    the edge.
    """
    # Popped from the end: the words the chunks rank after come first.
    ranks = _words(draw, last=False)
    lead: list[str] = []
    for _ in range(2 * len(ranks) + draw(st.integers(0, 8))):
        part = _part(draw, ranks)
        if not _fails(part):
            lead.append(part)
    parts: list[str] = []
    for part in lead:
        parts.extend((part, draw(SEPARATORS)))
    for _ in range(draw(st.integers(9, 12))):
        parts.extend((FILLER, draw(SEPARATORS)))
    ranks = _words(draw, last=True)
    for _ in range(2 * len(ranks) + draw(st.integers(0, 8))):
        if lead and not draw(st.integers(0, 3)):
            part = draw(st.sampled_from(lead))
        else:
            part = _part(draw, ranks)
            if _fails(part) and part not in RANKS and draw(st.integers(0, 3)):
                continue  # else it would stop most streams before the ranks
        parts.extend((part, draw(SEPARATORS)))
    parts.append(FILLER)
    return "".join(parts)


_SETTINGS = settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


class TestAcrossTheEdge:
    @_SETTINGS
    @given(data=st.data())
    def test_no_flagged_sentence_is_released(self, data: st.DataObject) -> None:
        """The default check: nothing the whole answer flags is released, in any pieces."""
        text = data.draw(edge_answers())
        size = data.draw(st.integers(3, 40))
        assert_guarantee(
            default_grounding_check, QUERY, CHUNKS, text, [*range(size, len(text), size)]
        )

    @_SETTINGS
    @given(data=st.data())
    def test_no_flagged_sentence_is_released_with_every_code(self, data: st.DataObject) -> None:
        """The same with every code on (FG005's names too)."""
        text = data.draw(edge_answers())
        size = data.draw(st.integers(3, 40))
        assert_guarantee(_ALL_CODES_CHECK, QUERY, CHUNKS, text, [*range(size, len(text), size)])

    @_SETTINGS
    @given(data=st.data())
    def test_windows_progress_as_the_whole_text(self, data: st.DataObject) -> None:
        """Judged by windows or whole, every StreamProgress is the same."""
        text = data.draw(edge_answers())
        size = data.draw(st.integers(3, 40))
        points = [*range(size, len(text), size)]
        by_window, by_whole, _ = progress_both_ways(
            default_grounding_check, QUERY, CHUNKS, text, points
        )
        assert by_whole == by_window, text


#: 16 rank words the chunks do not rank after, each once: with ``finished``
#: before them, 17 distinct words, one more than the rule reads.
_OTHER_RANKS = " ".join(f"The team {word} second." for word in SLOT_WORDS[4:20])
#: The issue's shape: ``finished`` first (with the chunks' own rank), 16
#: other words, filler past the window, the 16 again, then the wrong rank.
ISSUE_ANSWER = " ".join(
    [
        *("She finished third.", _OTHER_RANKS, *[FILLER] * 10, _OTHER_RANKS),
        *("She finished fourth.", "That is all.", FILLER),
    ]
)


class TestTheIssuesAnswer:
    def test_the_rank_the_whole_answer_flags_is_not_released(self) -> None:
        """``She finished fourth.`` fails: the stream stops there, having released up to it."""
        assert len(SLOT_WORDS[4:20]) == MAX_SLOT_WORDS
        whole = default_grounding_check(QUERY, CHUNKS, ISSUE_ANSWER)
        assert [("FG001", ("fourth",))] == [(f.code, f.spans) for f in whole.findings]
        check = default_grounding_check
        made = IncrementalCheck(prepare(check, QUERY, CHUNKS), _reading(check))
        failing = ISSUE_ANSWER.index("She finished fourth.")
        assert failing > WINDOW_BACK
        for at in range(0, len(ISSUE_ANSWER), 5):
            progress = made.feed(ISSUE_ANSWER[at : at + 5])
            if progress.failed is not None:
                break
        # Released: everything before the failing sentence but its space.
        assert failing - 1 == progress.releasable
        assert (failing, failing + len("She finished fourth.")) == progress.failing


class TestRankWatch:
    def test_counts_distinct_words_before_ordinals(self) -> None:
        """``finished`` twice counts once; a function word (``the``) and no word count nothing."""
        watch = RankWatch()
        text = "She finished third. He finished fourth. The third one. Fourth, we rest. "
        watch.update(text)
        assert not watch.saturated
        text += " ".join(f"It {word} first." for word in SLOT_WORDS[1:MAX_SLOT_WORDS]) + " "
        watch.update(text)
        assert not watch.saturated  # finished and 15 more: 16 words
        text += f"It {SLOT_WORDS[MAX_SLOT_WORDS]} first. "
        watch.update(text)
        assert watch.saturated

    def test_an_ordinal_at_the_end_waits_for_the_next_character(self) -> None:
        """``fourth`` at the end may be ``fourths``: read once a character follows it."""
        words = " ".join(f"It {word} first." for word in SLOT_WORDS[:MAX_SLOT_WORDS])
        watch = RankWatch()
        text = f"{words} It {SLOT_WORDS[MAX_SLOT_WORDS]} fourth"
        watch.update(text)
        assert not watch.saturated
        watch.update(text + ".")
        assert watch.saturated

    def test_pieces_read_as_the_whole(self) -> None:
        """Fed a character at a time, the watch saturates at the same character as the text read."""
        words = " ".join(f"It {word} first." for word in SLOT_WORDS[: MAX_SLOT_WORDS + 1])
        watch = RankWatch()
        saturated_at = None
        for end in range(1, len(words) + 1):
            watch.update(words[:end])
            if watch.saturated:
                saturated_at = end
                break
        # The 17th "first" is read once the "." after it is there.
        assert len(words) == saturated_at
