"""Sentences, and judging a streamed answer sentence by sentence (issue 20, the check side)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

import relapse
from relapse._read.quotation_marks import open_quotation
from relapse._read.sentences import sentence_ends
from relapse.checks import (
    IncrementalCheck,
    LLMJudge,
    StreamProgress,
    all_of,
    can_judge_incrementally,
    incremental,
)
from relapse.checks._incremental import GENERIC_REACH
from relapse.grounding import default_grounding_check, sentence_spans
from relapse.grounding._stream import READ_AFTER

CHUNKS = ["Paris has 2.1 million residents. The city was founded in 1998 by the Parisii."]
QUERY = "How many people live in Paris?"


def texts(text: str) -> list[str]:
    """The sentences of ``text``, as strings."""
    return [text[start:end] for start, end in sentence_spans(text)]


def feed_all(check: IncrementalCheck, text: str, size: int) -> list[StreamProgress]:
    """Feed ``text`` in pieces of ``size`` characters: the progress after each, to a failure."""
    progress = []
    for at in range(0, len(text), size):
        progress.append(check.feed(text[at : at + size]))
        if progress[-1].failed is not None:
            break
    return progress


def bound(check: object = default_grounding_check) -> IncrementalCheck:
    made = incremental(check, QUERY, CHUNKS)  # type: ignore[arg-type]
    assert made is not None
    return made


class TestSentenceSpans:
    def test_abbreviations_decimals_and_questions(self) -> None:
        """``Dr.``, ``e.g.`` and ``3.5`` end nothing; ``?`` and a line break do."""
        text = "Dr. Smith paid $3.5 million, e.g. in 2019. Was it enough?\n- Yes."
        assert [
            "Dr. Smith paid $3.5 million, e.g. in 2019.",
            "Was it enough?",
            "- Yes.",
        ] == texts(text)

    def test_offsets(self) -> None:
        """Spans leave out the whitespace between sentences."""
        text = "  One.   Two!\n\n Three "
        assert [(2, 2 + 4), (9, 9 + 4), (16, 16 + 5)] == sentence_spans(text)

    def test_closing_quotes_and_brackets_stay_with_their_sentence(self) -> None:
        """The closers after a full stop belong to the sentence it ends."""
        text = 'He said "It is done." (See the map.) **Bold.** Next.'
        assert ['He said "It is done."', "(See the map.)", "**Bold.**", "Next."] == texts(text)

    def test_ellipsis(self) -> None:
        """An ellipsis before a capital ends a sentence; before a lowercase word it does not."""
        assert ["It went on... and on.", "Then…", "It stopped."] == texts(
            "It went on... and on. Then… It stopped."
        )

    def test_list_markers(self) -> None:
        """A line- or sentence-leading ``1.`` is a marker; ``It has 4.`` ends a sentence."""
        text = "Steps: rinse it. 1. Rinse\n2. Dry\na. Fold\nIt has 4. Then stop."
        assert ["Steps: rinse it.", "1. Rinse", "2. Dry", "a. Fold", "It has 4.", "Then stop."] == (
            texts(text)
        )

    def test_initials_titles_and_numbers(self) -> None:
        """``J. Smith``, ``Mrs. Dalloway`` and ``No. 5`` go on; ``the answer is no.`` ends."""
        text = "J. Smith met Mrs. Dalloway at No. 5 Main Street. The answer is no. So it goes."
        assert [
            "J. Smith met Mrs. Dalloway at No. 5 Main Street.",
            "The answer is no.",
            "So it goes.",
        ] == texts(text)

    def test_whitespace_only(self) -> None:
        """A text of whitespace has no sentence."""
        assert [] == sentence_spans(" \n\t ")

    def test_not_a_str(self) -> None:
        """A non-str text is refused, naming the argument."""
        with pytest.raises(TypeError, match="text must be a str"):
            sentence_spans(b"x")  # type: ignore[arg-type]

    def test_growing_text_waits_for_the_next_sentence(self) -> None:
        """A full stop at the end of a growing text is undecided until the next sentence begins."""
        # Undecided: the search resumes at the full stop.
        assert ([], 2) == sentence_ends("Dr. ", final=False)
        assert ([], 2) == sentence_ends("It. ", final=False)
        # Decided: the search resumes at the end (no terminator is growing there).
        assert ([3], 6) == sentence_ends("It. He", final=False)
        assert ([], 8) == sentence_ends("e.g. the", final=False)
        # A line break decides at once.
        assert ([3], 4) == sentence_ends("Yes\n", final=False)

    def test_bad_start(self) -> None:
        """A start outside the text is refused, naming the argument."""
        with pytest.raises(ValueError, match=r"start must be within 0\.\.2"):
            sentence_ends("ab", 3)


class TestCanJudgeIncrementally:
    def test_default_check(self) -> None:
        """The default check declares it."""
        assert can_judge_incrementally(default_grounding_check)
        assert default_grounding_check.incremental

    def test_judge_does_not(self) -> None:
        """An LLM judge needs the whole answer, and so does a composition holding one."""
        judge = LLMJudge(lambda prompt: "SUPPORTED")
        assert not can_judge_incrementally(judge)
        assert not can_judge_incrementally(default_grounding_check & judge)
        assert incremental(judge, QUERY, CHUNKS) is None

    def test_composition_of_incremental_checks(self) -> None:
        """``all_of`` and ``&`` of incremental checks are incremental."""
        assert can_judge_incrementally(all_of(default_grounding_check, default_grounding_check))

    def test_plain_function(self) -> None:
        """A plain function is not, unless it says so; an async one never is."""

        def check(query: str, chunks: Sequence[str], answer: str) -> relapse.GroundingResult:
            return relapse.GroundingResult(ok=True)

        async def async_check(
            query: str, chunks: Sequence[str], answer: str
        ) -> relapse.GroundingResult:
            return relapse.GroundingResult(ok=True)

        assert not can_judge_incrementally(check)
        check.incremental = True  # type: ignore[attr-defined]
        assert can_judge_incrementally(check)
        async_check.incremental = True  # type: ignore[attr-defined]
        assert not can_judge_incrementally(async_check)
        assert incremental(async_check, QUERY, CHUNKS) is None


class TestIncrementalCheck:
    def test_sentence_without_claims_released_when_the_next_begins(self) -> None:
        """A sentence with no claim-like text is released once the next sentence starts."""
        check = bound()
        assert 0 == check.feed("Paris is a city. ").releasable
        progress = check.feed("It")
        assert (len("Paris is a city."), 1, 1) == (
            progress.releasable,
            progress.sentences_released,
            progress.sentences_checked,
        )

    def test_sentence_with_a_number_released_when_the_next_begins(self) -> None:
        """Readers stop at a terminator: a supported number's sentence goes as the next begins."""
        first = "Paris has 2.1 million residents."
        check = bound()
        assert 0 == check.feed(first + " ").releasable
        assert len(first) == check.feed("It").releasable

    def test_number_at_the_full_stop_before_a_digit_waits(self) -> None:
        """``in 1998.`` then ``5``: the claim may go on, so READ_AFTER past the ``5`` is awaited."""
        first = "It was founded in 1998."
        text = first + " 5 of them" + " are old" * 30
        # The claim-like text chains from "1998" to the "5" after it.
        ready = len(first + " 5") + READ_AFTER
        check = bound()
        assert 0 == check.feed(text[: ready - 1]).releasable
        assert len(first) == check.feed(text[ready - 1]).releasable

    def test_unsupported_number_stops_the_stream(self) -> None:
        """An unsupported number fails its sentence once its context is known: nothing released."""
        first = "Paris has 40 offices."
        rest = " It is a city" + " of art" * 30 + "."
        check = bound()
        progress = feed_all(check, first + rest, 4)[-1]
        assert progress.failed is not None
        assert (0, len(first)) == progress.failing
        assert 0 == progress.releasable
        (finding,) = progress.failed.findings
        assert ("FG001", ("40",), ((10, 12),)) == (finding.code, finding.spans, finding.offsets)
        with pytest.raises(RuntimeError, match="after a sentence failed"):
            check.feed("x")

    def test_finish_is_the_whole_answer_verdict(self) -> None:
        """finish() reports the whole-answer verdict and the first failing sentence not released."""
        answer = "Paris is a city. It has 40 offices."
        check = bound()
        feed_all(check, answer, 3)
        progress = check.finish()
        whole = default_grounding_check(QUERY, CHUNKS, answer)
        assert whole == progress.failed
        assert (len("Paris is a city. "), len(answer)) == progress.failing
        assert len("Paris is a city.") == progress.releasable
        assert progress == check.finish()

    def test_open_quotation_holds_the_release(self) -> None:
        """Text after an opening quotation mark with no closer yet is held back."""
        check = bound()
        check.feed('It is a city. He said "the city is old. It')
        assert len("It is a city.") == check.feed(" is").releasable
        assert len('It is a city. He said "') - 1 == open_quotation(check.text)

    def test_failing_quotation_spanning_sentences_is_never_released(self) -> None:
        """A quotation over two sentences that is not in the chunks fails its first sentence."""
        answer = 'It is a city. He said "the city is old. It is very old." Then he left.'
        check = bound()
        feed_all(check, answer, 5)
        progress = check.finish()
        assert progress.failed is not None
        assert ("FG003",) == tuple(finding.code for finding in progress.failed.findings)
        assert len("It is a city.") == progress.releasable
        assert (len("It is a city. "), len('It is a city. He said "the city is old.')) == (
            progress.failing
        )

    def test_empty_text(self) -> None:
        """An empty stream fails (FG004) with nothing released."""
        progress = bound().finish()
        assert progress.failed is not None
        assert ("FG004", 0, (0, 0)) == (
            progress.failed.findings[0].code,
            progress.releasable,
            progress.failing,
        )

    def test_bad_input(self) -> None:
        """A non-str piece is refused; so is feeding after finish()."""
        check = bound()
        with pytest.raises(TypeError, match="text must be a str"):
            check.feed(3)  # type: ignore[arg-type]
        check.finish()
        with pytest.raises(RuntimeError, match=r"after finish\(\)"):
            check.feed("x")

    def test_plain_incremental_function(self) -> None:
        """A user check that declares itself incremental is judged on the text fed so far."""
        seen: list[str] = []

        def check(query: str, chunks: Sequence[str], answer: str) -> relapse.GroundingResult:
            seen.append(answer)
            return relapse.GroundingResult(ok="bad" not in answer)

        check.incremental = True  # type: ignore[attr-defined]
        made = incremental(check, QUERY, CHUNKS)
        assert made is not None
        # Its windows are unknown: a sentence is judged GENERIC_REACH (144)
        # characters past its end.
        assert 144 == GENERIC_REACH
        assert (0, 0) == (made.feed("Fine. " + "X" * (GENERIC_REACH - 2)).releasable, len(seen))
        assert (len("Fine."), 1) == (made.feed("X").releasable, len(seen))
        progress = made.finish()
        assert (None, len(seen[-1])) == (progress.failed, progress.releasable)

    def test_echo_claims_are_the_phrases(self) -> None:
        """An echo finding's claims are its phrases, not the whole line it reports."""
        phrase = "answer the question again using only the context"
        answer = f"Paris is a city. Now {phrase}."
        verdict = default_grounding_check(QUERY, CHUNKS, answer)
        (finding,) = verdict.findings
        assert ("FG004", ((0, len(answer)),)) == (finding.code, finding.offsets)
        at = len("Paris is a city. Now ")
        claims = default_grounding_check.stream_reader().claims(verdict, answer)
        assert (((at, at + len(phrase), 0),), False) == claims
