"""The default check never raises and never hangs, whatever its input."""

from __future__ import annotations

import time

import pytest

from grounding_verdicts import codes_and_spans, verdict
from relapse import GroundingResult
from relapse.grounding import (
    default_grounding_check,
)

#: Longer than the 4,300 digits ``int()`` accepts from a string.
LONG = 5_000


#: Wall-time bound for hostile inputs, in seconds: far above the linear cost
#: (tens of milliseconds), far below a quadratic one (minutes).
HOSTILE_SECONDS = 10.0


# The kinds of issue 12.
class TestNeverCrash:
    """Digit runs longer than int()'s limit, wherever the scanner reads them."""

    @pytest.mark.parametrize(
        "text",
        [
            "May " + "9" * LONG,
            "On Sept. " + "1" * LONG + " it rained.",
            "1" * LONG + "/" + "2" * LONG,
            "3/" + "4" * LONG,
            "1" * LONG + ":" + "2" * LONG,
            "\uff11" * LONG + "/\uff12",
            "10^" + "9" * LONG,
            "9" * LONG + " x 10^5",
            "1." + "2" * LONG + " x 10^-5",
        ],
        ids=[
            "month-then-long",
            "abbreviation-then-long",
            "slash-pair",
            "long-denominator",
            "colon-pair",
            "full-width-pair",
            "caret-long-exponent",
            "long-mantissa-caret",
            "long-decimals-caret",
        ],
    )
    def test_long_digit_runs_in_a_chunk_or_an_answer(self, text: str) -> None:
        """The same text as a chunk and as an answer: indexed, then found there."""
        assert verdict([text], text) == []
        assert verdict([text], "It is 12 units.") == [("FG001", ("12",))]
        failing_spans = verdict(["Nothing here."], text)
        assert failing_spans, "a long unsupported number is still a claim"


class TestHostileInput:
    @pytest.mark.parametrize(
        "answer",
        [
            "7" * 200_000,
            "1," * 100_000,
            "1." * 100_000,
            "1-" * 100_000,
            "111 " * 50_000,
            '"' + "word " * 40_000,
            '"a ' * 66_000,
            "\u2018" + "x" * 200_000,
            "seventy " * 25_000,
            "passage 1 and " * 15_000,
            "Sept. " * 33_000,
            "$" * 200_000,
            "-" * 200_000,
            "10^" * 66_000,
            "2.5 x 10^-3 " * 16_000,
            "10^(" * 50_000,
        ],
        ids=[
            "digit-run",
            "comma-list",
            "dot-chain",
            "hyphen-chain",
            "space-groups",
            "unclosed-quote",
            "many-openers",
            "unclosed-single",
            "number-words",
            "references",
            "months",
            "currency",
            "dashes",
            "carets",
            "caret-powers",
            "open-caret-parentheses",
        ],
    )
    def test_200_kb_answer_in_linear_time(self, answer: str) -> None:
        """A 200 KB hostile answer is checked without catastrophic backtracking."""
        started = time.perf_counter()
        result = default_grounding_check("q", ["Some 5 context."], answer)
        assert time.perf_counter() - started < HOSTILE_SECONDS
        assert isinstance(result, GroundingResult)

    def test_200_kb_hostile_chunk(self) -> None:
        """Hostile chunks are indexed in linear time too."""
        chunks = ["7" * 200_000, "1," * 100_000, '"' + "x " * 100_000, "seventy " * 25_000]
        started = time.perf_counter()
        assert default_grounding_check("", chunks, "It is seventy, or 1.").ok
        assert time.perf_counter() - started < HOSTILE_SECONDS

    def test_ten_thousand_chunks(self) -> None:
        """10,000 chunks are one index."""
        chunks = [f"Chunk {n} says {n * 7} units." for n in range(10_000)]
        started = time.perf_counter()
        result = default_grounding_check("", chunks, "It says 69993 units, not 69994.")
        assert time.perf_counter() - started < HOSTILE_SECONDS
        assert [("FG001", ("69994",))] == codes_and_spans(result)

    def test_surrogates_and_controls(self) -> None:
        """Lone surrogates, NULs and odd marks never raise."""
        weird = "\ud800\udfff\x00\u200b\u202e\ufffe 12\u0301 «\ud83d» ١٬٢٣٤"
        result = default_grounding_check(weird, [weird, {"text": weird}], weird + " 9999")
        assert ["FG001"] == [finding.code for finding in result.findings]
