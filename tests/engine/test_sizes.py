"""
Huge inputs give the right verdicts and well-formed prompts.

These tests assert values only. How the time grows with size is measured by
``benchmarks/bench_hostile.py``, not here: timing asserts are flaky on shared
machines, while a quadratic check would still make these tests visibly slow.
"""

from __future__ import annotations

import relapse
from relapse.prompts import (
    MAX_QUOTED_ANSWER_CHARS,
    compact_retry,
    context_prompt,
    inline,
    parse_context_prompt,
)
from relapse.testing import ScriptedLLM, attempt_after

MB = 1_000_000

SENTENCE = "The depot stores 40 buses and opened in 1987. "
CHUNK = "The depot stores 40 buses and opened in 1987."


def check(chunks: list[str], answer: str) -> relapse.GroundingResult:
    """The default check on a fixed question."""
    return relapse.default_grounding_check("How many buses?", chunks, answer)


def failing_spans(result: relapse.GroundingResult) -> list[str]:
    """Every failing span of every finding, in order."""
    return [span for finding in result.findings for span in finding.spans]


class TestHugeAnswer:
    def test_one_megabyte_of_supported_claims_is_grounded(self) -> None:
        """A 1 MB answer repeating supported numbers passes."""
        answer = SENTENCE * (MB // len(SENTENCE))
        assert len(answer) >= MB - len(SENTENCE)
        result = check([CHUNK], answer)
        assert (True, ()) == (result.ok, result.findings)

    def test_one_unsupported_number_at_the_end_of_a_megabyte_is_found(self) -> None:
        """The only bad number, at the very end of 1 MB, is the only failing span."""
        answer = SENTENCE * (MB // len(SENTENCE)) + "It has 4321 seats."
        result = check([CHUNK], answer)
        assert not result.ok
        assert ["4321"] == failing_spans(result)

    def test_loop_quotes_at_most_the_cap_of_a_huge_answer(self) -> None:
        """The retry query quotes a capped prefix of a 1 MB answer, on one line."""
        answer = "It has 4321 seats. " + SENTENCE * (MB // len(SENTENCE))
        llm = ScriptedLLM([answer, "It stores 40 buses."])

        @relapse.grounded(chunks_arg="docs")
        def ask(query: str, docs: list[str]) -> str:
            return llm(query)

        result = ask.run("How many buses?", [CHUNK])
        assert (True, 2) == (result.grounded, result.iterations)
        retry = llm.prompts[1]
        assert [retry] == retry.splitlines()
        quoted = retry.split('"')[1]
        assert len(quoted) <= MAX_QUOTED_ANSWER_CHARS  # the cut may drop a trailing space
        assert quoted.endswith("...")

    def test_inline_of_a_megabyte_respects_the_limit(self) -> None:
        """inline folds 1 MB of line-broken text to one line within the limit."""
        text = "line\n" * (MB // 5)
        folded = inline(text, 100)
        assert 100 == len(folded)
        assert "line line" == folded[:9]


class TestManyChunks:
    COUNT = 10_000

    def chunks(self) -> list[str]:
        """10,000 chunks; only the last one holds 987654."""
        chunks = [f"Chunk {i} mentions nothing countable." for i in range(self.COUNT - 1)]
        chunks.append("The archive holds 987654 letters.")
        return chunks

    def test_number_only_in_the_last_chunk_is_supported(self) -> None:
        """A number found only in chunk 10,000 is grounded."""
        result = check(self.chunks(), "The archive holds 987654 letters.")
        assert (True, ()) == (result.ok, result.findings)

    def test_number_in_no_chunk_is_flagged(self) -> None:
        """A number found in none of 10,000 chunks is flagged."""
        result = check(self.chunks(), "The archive holds 987655 letters.")
        assert ["987655"] == failing_spans(result)

    def test_context_prompt_holds_every_chunk_exactly(self) -> None:
        """The prompt for 10,000 chunks parses back into exactly those chunks."""
        chunks = self.chunks()
        sections = parse_context_prompt(context_prompt("q", chunks))
        assert "\n\n".join(f"[chunk {i}] {c}" for i, c in enumerate(chunks, 1)) == (
            sections.context
        )

    def test_run_over_ten_thousand_chunks(self) -> None:
        """run() with 10,000 chunks recovers from a hallucinated number."""
        llm = ScriptedLLM(["It holds 987655 letters.", "It holds 987654 letters."])
        result = relapse.run("How many letters?", self.chunks(), call_llm=llm)
        assert (True, 2, "recovered") == (result.grounded, result.iterations, result.outcome)


class TestLongNumbers:
    DIGITS = "7" * 5000

    def test_five_thousand_digit_number_in_the_chunks_is_supported(self) -> None:
        """A 5,000-digit number found in the chunks passes (no int() digit limit error)."""
        result = check([f"The key is {self.DIGITS}."], f"The key is {self.DIGITS}.")
        assert (True, ()) == (result.ok, result.findings)

    def test_five_thousand_digit_number_not_in_the_chunks_is_flagged(self) -> None:
        """A 5,000-digit number missing from the chunks is one failing span, whole."""
        other = "7" * 4999 + "8"
        result = check([f"The key is {self.DIGITS}."], f"The key is {other}.")
        assert [other] == failing_spans(result)

    def test_grouped_long_number(self) -> None:
        """A long number written with thousands separators is still one number."""
        grouped = ",".join(["123"] * 2000)
        result = check([f"Total: {grouped}."], f"Total: {grouped}.")
        assert (True, ()) == (result.ok, result.findings)


class TestUnclosedQuote:
    BODY = "the committee approved the plan without any changes " * 4000

    def test_two_hundred_kb_unclosed_quote_gets_a_verdict(self) -> None:
        """An opening quote never closed, 200 KB long, is checked without error."""
        answer = 'The minutes say "' + self.BODY
        assert len(answer) > 200_000
        result = check(["The committee approved the plan."], answer)
        assert isinstance(result, relapse.GroundingResult)
        # An unclosed quote quotes nothing, and the text states no number.
        assert not [f for f in result.findings if f.code in ("FG001", "FG002")]

    def test_unclosed_quote_in_the_retry_prompt_stays_quoted(self) -> None:
        """The retry query built from it still has only relapse's own quotation marks."""
        answer = 'It has 12 rooms, "' + self.BODY
        finding = relapse.GroundingFinding("FG001", "1 number", ("12",))
        retry = compact_retry(attempt_after("q", answer, (finding,)))
        assert 4 == retry.count('"')
        assert [retry] == retry.splitlines()
