"""
The kinds of issue 12: no input makes the check raise, and verdicts a careful reader expects.

Every expected value here is worked out by hand from the rule in
``docs/findings.md``, never copied from the check's output.
"""

from __future__ import annotations

import pytest

from relapse import GroundingResult
from relapse.grounding import default_grounding_check

#: Longer than the 4,300 digits ``int()`` accepts from a string.
LONG = 5_000


def codes_and_spans(result: GroundingResult) -> list[tuple[str, tuple[str, ...]]]:
    """Return ``(code, spans)`` of every finding."""
    return [(finding.code, finding.spans) for finding in result.findings]


def verdict(chunks: list[str], answer: str, query: str = "") -> list[tuple[str, tuple[str, ...]]]:
    """Check ``answer`` against ``chunks`` with the default check."""
    return codes_and_spans(default_grounding_check(query, chunks, answer))


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
        ],
        ids=[
            "month-then-long",
            "abbreviation-then-long",
            "slash-pair",
            "long-denominator",
            "colon-pair",
            "full-width-pair",
        ],
    )
    def test_long_digit_runs_in_a_chunk_or_an_answer(self, text: str) -> None:
        """The same text as a chunk and as an answer: indexed, then found there."""
        assert verdict([text], text) == []
        assert verdict([text], "It is 12 units.") == [("FG001", ("12",))]
        flagged = verdict(["Nothing here."], text)
        assert flagged, "a long unsupported number is still a claim"
