"""
A retry query quotes a bounded excerpt of a rejected answer, whatever its length.

A chat model whose token limit the server ignored wrote until its context was
full; a retry quoting all of that (and every failing span) overflowed the
context of the next request. These tests pin the bounds with values computed
by hand from the wording's fixed words.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

import relapse
from contract_cases import DOCS
from helpers import decorated
from relapse import GroundingFinding, GroundingResult
from relapse.prompts import (
    MAX_QUOTED_ANSWER_CHARS,
    MAX_QUOTED_FINDINGS_CHARS,
    MAX_QUOTED_SPANS,
    _problems,
    compact_retry,
    inline,
    instruction_retry,
    quote_answer,
    retry_note,
)
from relapse.testing import ScriptedLLM, attempt_after

QUESTION = "How many buses?"  # 15 characters
CHUNK = "The depot stores 40 buses and opened in 1987."

#: The fixed words of compact_retry, counted by hand:
#: ' (' 2 + 'Your previous answer was rejected: "' 36
#: + '" states things the context does not support: ' 46
#: + '. Answer using only the context; if the context does not contain the answer, say: ' 82
#: + 'The context does not say.' 25 + ')' 1 = 192.
COMPACT_FIXED_CHARS = 192
#: The bound on compact_retry for QUESTION: 15 + 192 + 2,000 + 1,500.
COMPACT_BOUND = 15 + COMPACT_FIXED_CHARS + 2_000 + 1_500


def runaway_answer() -> str:
    """
    200,000 characters a model wrote until its context was full.

    Each 51-character sentence states a number, a date and a quotation the
    chunk does not hold, so the check fails it with over a thousand spans.
    """
    sentence = 'In 1950 it had 73 buses and was "run by the city". '
    assert 51 == len(sentence)
    answer = (sentence * (200_000 // 51 + 1))[:200_000]
    assert 200_000 == len(answer)
    return answer


class TestRunawayAnswer:
    def test_two_hundred_thousand_characters_give_a_bounded_retry(self) -> None:
        """The retry query of a 200,000-character answer is at most 3,707 characters."""
        answer = runaway_answer()
        result = relapse.default_grounding_check(QUESTION, [CHUNK], answer)
        assert not result.ok
        assert 1_000 == sum(len(f.spans) for f in result.findings)  # the check's own limit
        retry = compact_retry(attempt_after(QUESTION, answer, result.errors))
        assert 3_707 == COMPACT_BOUND
        assert len(retry) <= COMPACT_BOUND
        assert [retry] == retry.splitlines()
        # What the excerpt shows: the first failing sentences, cut, nothing else.
        quoted = retry.split('"')[1]
        assert quoted.startswith("In 1950 it had 73 buses and was 'run by the city'. In 1950")
        assert quoted.endswith("...")
        assert len(quoted) <= MAX_QUOTED_ANSWER_CHARS

    def test_the_loop_sends_the_bounded_retry(self) -> None:
        """Through the decorator, the second prompt is the bounded retry query."""
        llm = ScriptedLLM([runaway_answer(), "It stores 40 buses."])

        @relapse.grounded(chunks_arg="docs")
        def ask(query: str, docs: list[str]) -> str:
            return llm(query)

        result = ask.run(QUESTION, [CHUNK])
        assert (True, 2) == (result.grounded, result.iterations)
        assert len(llm.prompts[1]) <= COMPACT_BOUND

    def test_instruction_retry_is_bounded_too(self) -> None:
        """The multi-line wording quotes the same excerpt and the same bounded findings."""
        answer = runaway_answer()
        result = relapse.default_grounding_check(QUESTION, [CHUNK], answer)
        retry = instruction_retry(attempt_after(QUESTION, answer, result.errors))
        # Its fixed words, counted by hand: 'Question: ' 10 + '\n' 1
        # + 'Your previous answer was rejected because it is not supported by the context.\n' 78
        # + 'Previous answer: "' 18 + '"\n' 2 + 'Problems found:\n' 16 + '- ' 2 + '\n' 1
        # + 'Answer the question again using only the context. Do not repeat the'
        # + ' unsupported claims. If the context does not contain the answer, say: ' 137
        # + 'The context does not say.' 25 = 290.
        assert len(retry) <= 15 + 290 + 2_000 + 1_500

    def test_feedback_note_is_bounded(self) -> None:
        """retry_note (what a feedback parameter receives) is the bound less the question."""
        answer = runaway_answer()
        result = relapse.default_grounding_check(QUESTION, [CHUNK], answer)
        note = retry_note(attempt_after("", answer, result.errors))
        # compact_retry less the question and ' (' ... ')': 192 - 3 = 189.
        assert len(note) <= 189 + 2_000 + 1_500


class TestExcerpt:
    def test_a_short_answer_is_quoted_whole(self) -> None:
        """An answer that fits is quoted whole, exactly as before."""
        finding = relapse.GroundingFinding("FG001", "1 number(s) not in the chunks", ("4321",))
        retry = compact_retry(
            attempt_after(QUESTION, "It has 4321 seats.\nIt opened in 1987.", [finding])
        )
        assert retry == (
            'How many buses? (Your previous answer was rejected: "It has 4321 seats. It opened'
            ' in 1987." states things the context does not support: FG001: 1 number(s) not in'
            ' the chunks ["4321"]. Answer using only the context; if the context does not'
            " contain the answer, say: The context does not say.)"
        )

    def test_an_answer_of_exactly_the_limit_is_quoted_whole(self) -> None:
        """2,000 characters are the limit, not past it."""
        answer = "x" * (MAX_QUOTED_ANSWER_CHARS - 1) + "7"
        finding = relapse.GroundingFinding("FG001", "m", ("7",), ((1999, 2000),))
        assert answer == quote_answer(answer, [finding])

    def test_the_failing_sentence_with_ellipses(self) -> None:
        """Deep in a long answer, the failing span's sentence is quoted between ellipses."""
        filler = "Buses run all day. " * 200  # 3,800 characters
        answer = filler + "The depot has 999 buses. " + filler
        start = answer.index("999")
        finding = relapse.GroundingFinding("FG001", "m", ("999",), ((start, start + 3),))
        assert "... The depot has 999 buses. ..." == quote_answer(answer, [finding])

    def test_spans_without_offsets_are_found_in_the_answer(self) -> None:
        """A custom check's finding without offsets: its spans are searched for."""
        answer = "Buses run all day. " * 200 + "The depot has 999 buses. " + "Filler. " * 10
        finding = relapse.GroundingFinding("X1", "bad number", ("999",))
        assert "... The depot has 999 buses. ..." == quote_answer(answer, [finding])

    def test_two_failing_sentences_far_apart(self) -> None:
        """Two failing spans far apart: two sentences, an ellipsis before, between and after."""
        filler = "Buses run all day. " * 150
        answer = filler + "It has 12 routes. " + filler + "It opened in 1950. " + filler
        one, two = answer.index("12"), answer.index("1950")
        findings = [
            relapse.GroundingFinding("FG001", "m", ("12",), ((one, one + 2),)),
            relapse.GroundingFinding("FG002", "m", ("1950",), ((two, two + 4),)),
        ]
        assert "... It has 12 routes. ... It opened in 1950. ..." == quote_answer(answer, findings)

    def test_a_sentence_without_end_is_cut_at_the_window(self) -> None:
        """No sentence break for thousands of characters: 200 characters each side of the span."""
        answer = "a" * 3_000 + " 999 " + "b" * 3_000
        start = answer.index("999")
        finding = relapse.GroundingFinding("FG001", "m", ("999",), ((start, start + 3),))
        # 200 characters before the span (199 a's and the space), the span, 200 after.
        expected = "... " + "a" * 199 + " 999 " + "b" * 199 + " ..."
        assert expected == quote_answer(answer, [finding])
        assert 4 + 199 + 5 + 199 + 4 == len(expected)

    def test_no_locatable_span_quotes_the_start(self) -> None:
        """Findings that place nothing: the answer's first characters, as before."""
        answer = "word " * 1_000
        assert inline(answer, MAX_QUOTED_ANSWER_CHARS) == quote_answer(answer, [])
        assert 2_000 == len(quote_answer(answer, []))


class TestFindingsBound:
    def test_many_spans_are_counted_not_quoted(self) -> None:
        """Past 20 spans, the rest are counted: 'and 980 more'."""
        spans = tuple(str(1000 + i) for i in range(1_000))
        finding = relapse.GroundingFinding("FG001", "many numbers", spans)
        text = _problems([finding])
        expected_spans = ", ".join(f'"{s}"' for s in spans[:MAX_QUOTED_SPANS])
        assert f"FG001: many numbers [{expected_spans} and 980 more]" == text

    def test_many_findings_are_counted(self) -> None:
        """Findings past the budget are counted: 'and N more finding(s)'."""
        findings = [relapse.GroundingFinding(f"X{i:03}", "m" * 300) for i in range(10)]
        text = _problems(findings)
        # Each finding is 'X000: ' 6 + 300 = 306 characters, '; ' between: four fit in
        # 4 * 306 + 3 * 2 = 1,230, a fifth would make 1,538 > 1,500.
        assert text.endswith("; and 6 more finding(s)")
        assert 1_230 + len("; and 6 more finding(s)") == len(text)
        assert len(text) <= MAX_QUOTED_FINDINGS_CHARS


# Found by hostile testing of the loop's contract.
class TestRetrySize:
    def test_max_prompt_chars_caps_a_huge_answer(self) -> None:
        """A 149 KB answer with max_prompt_chars=4000 yields retry queries of at most 4000."""
        huge = " ".join(f"WRONG{i} is {i}." for i in range(12_000))[:149_000]

        def check(query: str, chunks: Sequence[str], answer: str) -> GroundingResult:
            spans = tuple(w for w in answer.split() if w.startswith("WRONG"))
            if not spans:
                return GroundingResult(ok=True)
            return GroundingResult(False, (GroundingFinding("FG001", "bad: " + answer, spans),))

        llm = ScriptedLLM([huge])
        decorated(llm, grounding_check=check, max_prompt_chars=4000)("q", DOCS)
        assert 3 == llm.calls
        assert all(len(p) <= 4000 for p in llm.prompts[1:])

    @pytest.mark.parametrize("limit", [1, 10, 60, 300])
    def test_cap_holds_for_any_query_and_wording(self, limit: int) -> None:
        """Even a query longer than the cap and a custom wording cannot exceed it."""
        llm = ScriptedLLM(["WRONG", "fine"])
        decorated(llm, max_prompt_chars=limit, rewrite=lambda a: "x" * 10_000)("q" * 500, DOCS)
        assert len(llm.prompts[1]) <= limit
