"""
Answer-wide state across the window's edge (issue 38, hostile test: a failing sentence released).

Past ``WINDOW_BACK`` characters the streamed check judges a window of the
answer (:mod:`relapse.grounding._stream`), on the premise that every rule reads
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

from relapse.checks import IncrementalCheck, reader_of
from relapse.checks._contract import prepare
from relapse.grounding import ALL_CODES, GroundingCheck, default_grounding_check
from relapse.grounding._read.ordinal_slots import MAX_SLOT_WORDS
from relapse.grounding._stream import WINDOW_BACK
from relapse.grounding._stream_watches import RankWatch
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
        made = IncrementalCheck(prepare(check, QUERY, CHUNKS), reader_of(check))
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


# Windows that never opened (issue 38): a window started only at a sentence
# that began with an ASCII letter or digit after an ASCII space, so a
# markdown list, a Chinese answer, parenthesised sentences and text after a
# no-break space were judged whole at every sentence (quadratic).
ZH_CHUNKS = ["北京有2154万人口。上海有2487万人口。长城长21196公里。"]
_ZH = st.sampled_from(
    [
        *("北京有2154万人口。", "上海有2487万人口。", "长城长21196公里。", "北京有3000万人口。"),
        *("他说：「北京很大。」", "这是一个很长的句子，没有数字！", "你去过吗？", "是的．"),
    ]
)
_LINES = st.sampled_from(
    [
        *("- Paris has 2.1 million residents.", "* It has 40 museums.", "1. Rinse the shoes."),
        *(
            "(See the map.)",
            "Paris\u00a0is old.",
            "- It has 41 museums.",
            "+ The wall is 6 feet high.",
        ),
    ]
)
_LINE_SEPARATORS = st.sampled_from(["\n", "\n", " ", "\u00a0", "\n\n"])
_LIST_CHUNKS = [
    "Paris has 2.1 million residents and 40 museums. 1. Rinse the shoes.",
    "The wall is 6 feet high.",
]


@st.composite
def chinese_answers(draw: st.DrawFn) -> str:
    """Chinese sentences with no space between them, past the window's length."""
    count = draw(st.integers(WINDOW_BACK // 9, WINDOW_BACK // 6))
    return "".join(draw(_ZH) for _ in range(count))


@st.composite
def list_answers(draw: st.DrawFn) -> str:
    """Markdown list lines, parenthesised sentences, no-break spaces, past the window's length."""
    parts: list[str] = []
    for _ in range(draw(st.integers(WINDOW_BACK // 25, WINDOW_BACK // 15))):
        parts.extend((draw(_LINES), draw(_LINE_SEPARATORS)))
    return "".join(parts).rstrip()


class TestWindowsThatOpen:
    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(data=st.data())
    def test_chinese_answers_progress_as_the_whole_text(self, data: st.DataObject) -> None:
        """Judged by windows or whole, every StreamProgress of a Chinese answer is the same."""
        text = data.draw(chinese_answers())
        size = data.draw(st.integers(1, 9))
        points = [*range(size, len(text), size)]
        by_window, by_whole, _ = progress_both_ways(
            default_grounding_check, QUERY, ZH_CHUNKS, text, points
        )
        assert by_whole == by_window, text
        assert_guarantee(default_grounding_check, QUERY, ZH_CHUNKS, text, points)

    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(data=st.data())
    def test_lists_progress_as_the_whole_text(self, data: st.DataObject) -> None:
        """The same for lists, parenthesised sentences and no-break spaces."""
        text = data.draw(list_answers())
        size = data.draw(st.integers(3, 30))
        points = [*range(size, len(text), size)]
        by_window, by_whole, _ = progress_both_ways(
            default_grounding_check, QUERY, _LIST_CHUNKS, text, points
        )
        assert by_whole == by_window, text
        assert_guarantee(default_grounding_check, QUERY, _LIST_CHUNKS, text, points)

    def _counts(self, chunks: list[str], text: str, size: int) -> tuple[int, int]:
        check = default_grounding_check
        made = IncrementalCheck(prepare(check, QUERY, chunks), reader_of(check))
        for at in range(0, len(text), size):
            assert made.feed(text[at : at + size]).failed is None
        assert made.finish().failed is None
        return made.whole_checks, made.window_checks

    def test_a_long_list_is_judged_by_windows(self) -> None:
        """400 list lines (``- ``, ``* ``): whole checks only until the window applies."""
        lines = ["- Paris has 2.1 million residents.", "* It has 40 museums."] * 200
        whole, windows = self._counts(_LIST_CHUNKS, "\n".join(lines), 7)
        # Lines of 34 and 20 characters and a line break: about 49 lines fill
        # WINDOW_BACK (1,328 characters), each judged whole once it is final.
        assert whole < 60 < 300 < windows

    def test_a_long_chinese_answer_is_judged_by_windows(self) -> None:
        """600 Chinese sentences of 11 and 10 characters: whole checks only at the start."""
        text = "北京有2154万人口。上海有2487万人口。" * 300
        whole, windows = self._counts(ZH_CHUNKS, text, 2)
        # WINDOW_BACK / 10.5 characters: about 127 sentences before a window applies.
        assert whole < 140 < 400 < windows

    def test_parenthesised_sentences_and_no_break_spaces_open_windows(self) -> None:
        """``(See the map.)`` after a space and a sentence after a no-break space start windows."""
        text = "\u00a0".join(
            ["(Paris has 2.1 million residents.)", "The wall is 6 feet high."] * 100
        )
        whole, windows = self._counts([*_LIST_CHUNKS, "See the map."], text, 7)
        assert whole < 60 < 100 < windows

    def test_a_long_copy_of_the_chunks_keeps_the_window_open(self) -> None:
        """A copy of a 20 KB context: the copy rule alone reads the whole text, not every rule."""
        sentence = (
            "The committee met on the third floor of the old building and discussed the plans"
            " for the new library, which had been delayed for several years because of the cost. "
        )
        context = (sentence * 125).rstrip()  # 125 sentences of 164 characters, less a space
        assert 20_499 == len(context)
        check = default_grounding_check
        made = IncrementalCheck(prepare(check, QUERY, [context]), reader_of(check))
        for at in range(0, len(context), 8):
            assert made.feed(context[at : at + 8]).failed is None
        progress = made.finish()
        assert progress.failed is not None
        assert ("FG004",) == tuple(finding.code for finding in progress.failed.errors)
        # A piece of the chunk is a copy from 80% of its length on (16,399.2
        # characters). Sentence k ends at 164 k - 1 and is judged once the
        # next one begins, at 164 k: sentence 100 (ending at 16,399) is
        # judged when the text holds 16,401, a copy; 99 sentences are released.
        assert 99 * 164 - 1 == progress.releasable
        # 164 characters a sentence: 8 fill WINDOW_BACK; whole checks before
        # the window applies, windows for the other 117 sentences.
        assert made.whole_checks < 15 < 100 < made.window_checks
