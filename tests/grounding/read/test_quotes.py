"""Quotations found by their delimiters: every pair of quotation marks, in every script."""

from __future__ import annotations

import pytest

from grounding_texts import MEMO
from grounding_verdicts import PASSES, failing_spans, flagged, quoted
from relapse.grounding import GroundingCheck


# from test_numbers.py
# The kinds of issue 12.
class TestFormats:
    @pytest.mark.parametrize(
        "answer",
        [
            'He said \u201cthe plan was rejected" by all.',
            'He said "the plan was rejected\u201d by all.',
        ],
    )
    def test_mismatched_quote_glyphs_open_and_close_a_quotation(self, answer: str) -> None:
        """A curly opener closed by a straight quote (or the reverse) is a quotation to check."""
        assert ("the plan was rejected",) == failing_spans("The plan was approved.", answer)
        assert () == failing_spans("Then the plan was rejected by all.", answer)


# from test_quantities.py (issue 21)
class TestOtherScripts:
    def test_cjk_corner_quotes_are_quotations(self) -> None:
        answer = "The memo said \u300cthe plan was rejected\u300d today."
        assert flagged("The plan was approved.", answer) == (("FG003", ("the plan was rejected",)),)
        assert flagged("Finally the plan was rejected.", answer) == PASSES
        white = "The memo said \u300ethe plan was rejected\u300f today."
        assert flagged("The plan was approved.", white) == (("FG003", ("the plan was rejected",)),)

    def test_quotations_in_chinese_and_japanese(self) -> None:
        """No spaces between words: the quotation is found inside a sentence, and counted."""
        answer = "報告は「計画は否決された」という。"
        assert flagged("委員会によると計画は否決された。", answer) == PASSES
        assert flagged("計画は承認された。", answer) == (("FG003", ("計画は否決された",)),)


# from test_quantity_writings.py (issue 21)
class TestCornerBracketForms:
    """The vertical (``﹁…﹂``, ``﹃…﹄``) and half-width (``｢…｣``) corner brackets quote too."""

    CHUNK = "The minister said the plan would be reviewed next year."

    @pytest.mark.parametrize(
        ("opener", "closer"), [("\ufe41", "\ufe42"), ("\ufe43", "\ufe44"), ("\uff62", "\uff63")]
    )
    def test_quotations(self, opener: str, closer: str) -> None:
        wrong = f"He said {opener}the plan would be scrapped next year{closer}."
        assert flagged(self.CHUNK, wrong) == (("FG003", ("the plan would be scrapped next year",)),)
        right = f"He said {opener}the plan would be reviewed next year{closer}."
        assert flagged(self.CHUNK, right) == PASSES


# from test_quotes.py
class TestDelimiters:
    @pytest.mark.parametrize(
        ("opening", "closing"),
        [
            ('"', '"'),
            ("\u201c", "\u201d"),
            ("\u00ab", "\u00bb"),
            ("\u00ab\u00a0", "\u00a0\u00bb"),
            ("\u00ab\u202f", "\u202f\u00bb"),
            ("\u201e", "\u201c"),
            ("\u2018", "\u2019"),
        ],
    )
    def test_each_delimiter_is_read(self, opening: str, closing: str) -> None:
        """Straight, curly, guillemets (with French spaces), German and single curly."""
        answer = f"The memo said {opening}the plan was rejected{closing} on Monday."
        assert ("the plan was rejected",) == quoted(MEMO, answer)

    def test_supported_quotation(self) -> None:
        """A quotation verbatim in a chunk is supported."""
        assert () == quoted(MEMO, "The memo said it \u201cwas approved by the board\u201d.")

    def test_apostrophes_are_not_delimiters(self) -> None:
        """The sentence with ``board's``, ``auditors'`` and ``CEO’s`` holds no quotation."""
        answer = "the board's approval followed the auditors' review of the CEO’s memo"
        assert () == quoted("Nothing relevant.", answer)

    def test_apostrophes_inside_a_single_quotation(self) -> None:
        """``‘the CEO’s memo’`` is one quotation whose text holds an apostrophe."""
        assert ("the CEO’s memo was leaked",) == quoted(
            "Nothing relevant.", "He called it \u2018the CEO’s memo was leaked\u2019 today."
        )

    def test_inch_marks_are_not_delimiters(self) -> None:
        """``24" wide and 36" tall`` contains no quotation."""
        assert () == quoted("Nothing relevant.", 'The frame is 24" wide and 36" tall.')

    def test_inch_and_foot_marks(self) -> None:
        """``a 4" layer`` and ``5' 10"`` are measures, not quotations."""
        answer = 'Spread a 4" layer of gravel; he is 5\' 10" tall and "very proud" of it.'
        assert ("very proud",) == quoted("Spread gravel.", answer)

    def test_elision_is_not_an_opening_quote(self) -> None:
        """``‘90s`` is an elision, not a quotation."""
        assert () == quoted("Nothing relevant.", "In the \u201890s music was loud, people said.")

    def test_unclosed_quotation_is_no_quotation(self) -> None:
        """An opening quote with no closing one is not a quotation."""
        assert () == quoted("Nothing relevant.", 'He said "the plan was rejected and left.')

    def test_quotation_does_not_cross_a_paragraph(self) -> None:
        """A quotation ends in its paragraph."""
        answer = 'He said "the plan\n\nwas rejected" later.'
        assert () == quoted("Nothing relevant.", answer)

    def test_single_word_quotation_is_not_checked(self) -> None:
        """Scare quotes around one word are emphasis, not a citation."""
        assert () == quoted("Nothing relevant.", 'Being "toned" means low body fat.')

    def test_minimum_words_is_configurable(self) -> None:
        """``GroundingCheck(min_quote_words=1)`` also checks one-word quotations."""
        result = GroundingCheck(min_quote_words=1)("", ["Nothing."], 'Being "toned" is fine.')
        assert [("FG003", ("toned",))] == [(f.code, f.spans) for f in result.findings]
