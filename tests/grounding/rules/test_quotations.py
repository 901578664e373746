"""FG003: quotations must be verbatim in a chunk, after folding typography (rules/quotations.py)."""

from __future__ import annotations

import pytest

from grounding_texts import MEMO
from grounding_verdicts import codes_and_spans, quoted, verdict
from relapse.grounding import GroundingCheck, default_grounding_check


# from test_quotes.py
class TestFolding:
    @pytest.mark.parametrize(
        "quotation",
        [
            "THE PLAN — REVIEWED TWICE — WAS APPROVED",
            "the plan -- reviewed twice -- was approved",
            "the plan\u2013reviewed twice\u2013was approved",
            "the   plan — reviewed\ntwice — was approved",
            "the plan — reviewed twice — was approved by the board",
            "the plan — reviewed twice — was approved… by the board.",
            "the plan — reviewed twice — was approved . . . by the board,",
        ],
    )
    def test_typography_is_folded(self, quotation: str) -> None:
        """Case, whitespace, quote glyphs, dashes and ellipses do not matter."""
        assert () == quoted(MEMO, f"The memo says \u201c{quotation}\u201d.")

    def test_ellipsis_in_the_answer_marks_omitted_text(self) -> None:
        """``“the plan … by the board”`` is supported: each piece is in the chunk."""
        assert () == quoted(MEMO, "It said \u201cthe plan \u2026 by the board\u201d.")
        assert ("the plan ... by the council",) == quoted(
            MEMO, "It said \u201cthe plan ... by the council\u201d."
        )

    def test_ellipsis_in_the_chunk(self) -> None:
        """A chunk's ``without… Representation`` holds ``without Representation``."""
        chunk = "Chants like No Taxation without… Representation spread."
        answer = 'The slogan "No Taxation without Representation" spread.'
        assert () == quoted(chunk, answer)

    def test_quotation_does_not_span_two_chunks(self) -> None:
        """The end of one chunk and the start of the next are not one quotation."""
        answer = 'It said "the first part the second part".'
        assert ("the first part the second part",) == quoted(
            ["It ends with the first part", "the second part begins here"], answer
        )


# from test_quotes.py
class TestNotClaims:
    def test_quotation_of_the_question(self) -> None:
        """A quotation of the question is supported."""
        answer = 'Here is the answer to the question "How to fold a quilt": fold it twice.'
        assert () == quoted("Fold it twice.", answer, "how to fold a quilt")

    def test_restated_question(self) -> None:
        """A quotation introduced as the question restates it, even paraphrased."""
        answer = 'The answer to the question "What does the color of urine mean?" is: many things.'
        assert () == quoted("Urine color varies.", answer, "color of urin meaning")

    def test_refusal_instruction(self) -> None:
        """A quotation of the prompt's refusal instruction is not a claim."""
        answer = 'I would answer "Unable to answer based on given passages."'
        assert () == quoted("Nothing relevant.", answer)

    def test_refusal_phrases_are_configurable(self) -> None:
        """``refusal_phrases`` replaces the refusals that are not claims."""
        check = GroundingCheck(refusal_phrases=("no idea at all",))
        result = check("", ["Nothing."], 'I say "no idea at all, sorry".')
        assert result.ok
        result = check("", ["Nothing."], 'I say "Unable to answer based on given passages".')
        assert ["FG003"] == [f.code for f in result.findings]

    def test_numbers_inside_a_supported_quotation_are_not_rechecked(self) -> None:
        """A verbatim quotation covers its digits."""
        chunk = "The sign read: open 24 hours, 7 days a week."
        assert default_grounding_check("", [chunk], 'The sign read "open 24 hours, 7 days".').ok

    def test_numbers_inside_an_unsupported_quotation_are_one_finding(self) -> None:
        """An unsupported quotation is FG003 once, not also FG001 for its digits."""
        result = default_grounding_check("", ["Nothing."], 'It read "open 25 hours a day".')
        assert [("FG003", ("open 25 hours a day",))] == [(f.code, f.spans) for f in result.findings]


# from test_quotes.py
class TestOffsets:
    def test_quotation_span_and_offsets(self) -> None:
        """The span is the quotation's text without delimiters, at its offsets."""
        answer = "He wrote \u00ab\u00a0la paix est signée\u00a0\u00bb hier."
        result = default_grounding_check("", ["Rien."], answer)
        (finding,) = result.findings
        assert ("la paix est signée",) == finding.spans
        ((start, end),) = finding.offsets
        assert "la paix est signée" == answer[start:end]


# from test_quotes.py
class TestWordBoundariesPastManyNearMisses:
    """Past MAX_WORD_MISSES occurrences inside longer words, a regex search decides."""

    def test_an_occurrence_after_many_near_misses_is_found(self) -> None:
        from relapse.grounding._read.quotes import MAX_WORD_MISSES, occurs_as_words

        near_misses = " ".join(["she is guilty"] * (MAX_WORD_MISSES + 5))
        assert occurs_as_words(near_misses + " and he is guilty.", "he is guilty")
        assert not occurs_as_words(near_misses + ".", "he is guilty")

    def test_the_check_agrees(self) -> None:
        chunk = "Witnesses: " + "; ".join(["she is guilty of fraud"] * 40) + "."
        assert not default_grounding_check("q", [chunk], 'He said "he is guilty of fraud".').ok
        chunk += " The judge: he is guilty of fraud."
        assert default_grounding_check("q", [chunk], 'He said "he is guilty of fraud".').ok


# from test_quotes.py
# The kinds of issue 12.
class TestQuotationsMatchWholeWords:
    @pytest.mark.parametrize(
        ("chunk", "answer", "span"),
        [
            (
                "She is guilty of fraud.",
                'He said "he is guilty of fraud".',
                "he is guilty of fraud",
            ),
            (
                "It is illegal under state law.",
                'It is "legal under state law".',
                "legal under state law",
            ),
            (
                "15 million users joined.",
                'It says "5 million users joined".',
                "5 million users joined",
            ),
            ("the rebuilt town hall", 'the "built town hall"', "built town hall"),
        ],
    )
    def test_a_quotation_inside_a_longer_word_is_not_supported(
        self, chunk: str, answer: str, span: str
    ) -> None:
        """The quotation's first or last word is part of a longer word in the chunk: FG003."""
        assert [("FG003", (span,))] == verdict([chunk], answer)

    def test_whole_words_still_match_after_folding(self) -> None:
        """Case, quote glyphs and edge punctuation are still folded; word edges are kept."""
        assert [] == verdict(
            ["Then SHE said: he is guilty of fraud!"], "It said “He is guilty of fraud.”"
        )


# from test_quotes.py
# The kinds of issue 12.
class TestQuotesNeverHideNumbers:
    def test_numbers_in_a_refusal_quotation_are_checked(self) -> None:
        """The refusal exempts the quotation from FG003, not its number and year."""
        answer = 'It said "I don\'t know, but 5 million people died in 1944"'
        assert [("FG001", ("5 million",)), ("FG002", ("1944",))] == verdict(
            ["Nothing here."], answer
        )

    def test_numbers_in_a_supported_quotation_are_checked(self) -> None:
        """A quotation found in a chunk holds only the chunk's numbers: nothing to flag."""
        assert [] == verdict(
            ["He said the toll was 5 million in 1944."], 'He said "the toll was 5 million in 1944".'
        )

    def test_numbers_in_a_quotation_restating_the_question_are_checked(self) -> None:
        """``the question "did 7 die in 1950"``: the question holds 7 and 1950, so they pass;
        a question that does not hold them leaves them claims."""
        answer = 'To the question "did 7 people die in 1950?" the answer is yes.'
        assert [] == verdict(["Nothing."], answer, query="did 7 people die in 1950?")
        assert [("FG001", ("7",)), ("FG002", ("1950",))] == verdict(
            ["Nothing."], answer, query="who died?"
        )

    def test_without_fg003_a_quotation_hides_nothing(self) -> None:
        """With quotations not reported, the numbers inside one are still FG001 and FG002."""
        check = GroundingCheck(codes=frozenset({"FG001", "FG002"}))
        result = check("", ["Nothing."], 'He wrote "5 ships sank in 1944".')
        assert [("FG001", ("5",)), ("FG002", ("1944",))] == codes_and_spans(result)

    def test_a_failing_quotation_still_covers_its_numbers(self) -> None:
        """An unsupported quotation is one FG003 finding; its digits are not listed again."""
        assert [("FG003", ("5 ships sank in 1944",))] == verdict(
            ["Nothing."], 'He wrote "5 ships sank in 1944".'
        )
