"""FG003: quotations must be verbatim in a chunk, after folding typography."""

from __future__ import annotations

import pytest

from grounding_verdicts import codes_and_spans, verdict
from relapse.grounding import GroundingCheck, default_grounding_check

MEMO = "The memo said: the plan — reviewed twice — was approved... by the board."


def quoted(chunks: str | list[str], answer: str, query: str = "") -> tuple[str, ...]:
    """Return the spans the default check flags under FG003."""
    texts = [chunks] if isinstance(chunks, str) else chunks
    result = default_grounding_check(query, texts, answer)
    return next((f.spans for f in result.findings if f.code == "FG003"), ())


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


class TestOffsets:
    def test_quotation_span_and_offsets(self) -> None:
        """The span is the quotation's text without delimiters, at its offsets."""
        answer = "He wrote \u00ab\u00a0la paix est signée\u00a0\u00bb hier."
        result = default_grounding_check("", ["Rien."], answer)
        (finding,) = result.findings
        assert ("la paix est signée",) == finding.spans
        ((start, end),) = finding.offsets
        assert "la paix est signée" == answer[start:end]


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
