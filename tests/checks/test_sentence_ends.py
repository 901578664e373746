"""
Where sentences end: scripts written without spaces, initials, and a growing text (issue 38).

Found by hostile testing: ``。！？`` never ended a sentence, so a Chinese or
Japanese answer was one sentence (sentence release sent nothing early and
redaction removed the whole answer for one bad number), and each piece of a
stream walked back to the last white space, a quadratic cost on text
without spaces; ``The U.S. Senate`` was cut after ``U.S.``. Every expected
cut below is worked out by hand.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from relapse._read.sentences import sentence_ends
from relapse.grounding import sentence_spans


def texts(text: str) -> list[str]:
    """The sentences of ``text``, as strings."""
    return [text[start:end] for start, end in sentence_spans(text)]


class TestScriptsWithoutSpaces:
    def test_chinese_terminators_end_sentences_with_no_space_after(self) -> None:
        """``。``, ``！`` and ``？`` end a sentence; the next starts right after."""
        text = "北京是中国的首都。上海是最大的城市！你去过吗？是的。"
        assert ["北京是中国的首都。", "上海是最大的城市！", "你去过吗？", "是的。"] == texts(text)
        # Offsets: 9 characters, then 9, 5 and 3.
        assert [(0, 9), (9, 18), (18, 23), (23, 26)] == sentence_spans(text)

    def test_japanese_with_closing_brackets(self) -> None:
        """A corner bracket after ``。`` belongs to the sentence it closes."""
        text = "彼は「行きます。」と言った。雨が降った。"
        assert ["彼は「行きます。」", "と言った。", "雨が降った。"] == texts(text)

    def test_full_width_and_half_width_stops(self) -> None:
        """The full-width ``．`` and the half-width ``｡`` end sentences too."""
        assert ["一．", "二｡", "三"] == texts("一．二｡三")

    def test_a_full_width_point_between_digits_is_a_decimal_point(self) -> None:
        """``３５．５万`` is 35.5 ten-thousands: no cut inside it."""
        assert ["人口为３５．５万。", "下一句"] == texts("人口为３５．５万。下一句")

    def test_a_growing_text_waits_for_the_character_after_a_terminator(self) -> None:
        """A closing bracket may still follow ``。`` at the end: the search resumes at it."""
        assert ([], 2) == sentence_ends("北京。", final=False)
        assert ([3], 4) == sentence_ends("北京。上", final=False)
        assert ([4], 5) == sentence_ends("北京。」上", final=False)
        assert ([3], 3) == sentence_ends("北京。", final=True)

    def test_the_search_resumes_at_the_end_of_text_without_spaces(self) -> None:
        """No terminator grows at the end: nothing before it is searched again."""
        text = "北京是中国的首都有两千多万人口"
        assert ([], len(text)) == sentence_ends(text, final=False)


class TestInitials:
    def test_initials_before_a_name_go_on(self) -> None:
        """``The U.S. Senate`` and ``5 p.m. Eastern time`` are one sentence each."""
        assert ["The U.S. Senate voted.", "It passed."] == texts(
            "The U.S. Senate voted. It passed."
        )
        assert ["We met at 5 p.m. Eastern time.", "Then we left."] == texts(
            "We met at 5 p.m. Eastern time. Then we left."
        )

    def test_initials_before_a_word_a_sentence_opens_with_end_it(self) -> None:
        """``in the U.S. The vote`` ends at ``U.S.``: a reader reads ``The`` as a new sentence."""
        assert ["He lived in the U.S.", "The vote was close."] == texts(
            "He lived in the U.S. The vote was close."
        )

    def test_a_growing_text_waits_for_the_whole_next_word(self) -> None:
        """``U.S. S`` may become ``U.S. She`` (an end) or ``U.S. Senate`` (none): undecided."""
        # The search resumes at the full stop after "U.S", offset 7.
        assert ([], 7) == sentence_ends("The U.S. Sen", final=False)
        assert ([], 16) == sentence_ends("The U.S. Senate ", final=False)
        assert ([8], 13) == sentence_ends("The U.S. She ", final=False)


_PIECES = st.sampled_from(
    [
        *("北京是首都", "。", "！", "？", "」", "３．５", "．", "｡", "上海"),
        *("The U.S.", " Senate", " The", " She", " voted.", " e.g. the", " Dr.", " Smith"),
        *(" 1. Rinse", "\n", "\n- Item", " It has 4.", ' "Yes."', " (See.)", "...", " so"),
    ]
)


class TestGrowingText:
    @settings(max_examples=400, deadline=None)
    @given(parts=st.lists(_PIECES, max_size=20), data=st.data())
    def test_fed_in_pieces_the_ends_are_the_whole_texts(
        self, parts: list[str], data: st.DataObject
    ) -> None:
        """Resumed piece by piece (as a stream is), the ends found are those of the whole text."""
        text = "".join(parts)
        cuts = sorted(data.draw(st.sets(st.integers(1, max(1, len(text))), max_size=12)))
        ends: list[int] = []
        resume = 0
        for cut in [*cuts, len(text)]:
            found, resume = sentence_ends(text[:cut], resume, final=False)
            ends.extend(found)
        found, _ = sentence_ends(text, resume, final=True)
        ends.extend(found)
        assert sentence_ends(text)[0] == ends
