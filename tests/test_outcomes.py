"""relapse._outcomes: a refusal is grounded but is not an answer."""

from __future__ import annotations

import pytest

from relapse import IterationRecord, RelapseResult
from relapse._outcomes import RECOVERED_REFUSAL, is_refusal, outcome_of


class TestIsRefusal:
    @pytest.mark.parametrize(
        "answer",
        [
            "The context does not say.",
            "  the context   does not say ",
            "THE CONTEXT DOES NOT SAY",
            "I don't know.",
            "Unable to answer based on given passages.",
        ],
    )
    def test_bare_refusals(self, answer: str) -> None:
        """Case, spacing and the final full stop do not matter."""
        assert is_refusal(answer)

    @pytest.mark.parametrize(
        "answer",
        [
            "The context does not say. It opened in 1937.",
            "It opened in 1937.",
            "",
            "The context does not say whether it opened.",
        ],
    )
    def test_answers_are_not_refusals(self, answer: str) -> None:
        """A refusal followed by a claim, or any other text, is an answer."""
        assert not is_refusal(answer)


def result(outcome: str, answer: str) -> RelapseResult:
    """A two-iteration result ending with ``answer``."""
    records = [
        IterationRecord(1, "q", "It is 9.", grounded=False),
        IterationRecord(2, "retry", answer, grounded=outcome == "recovered"),
    ]
    return RelapseResult(answer, outcome == "recovered", 2, records, outcome)


class TestOutcomeOf:
    def test_a_recovered_refusal_is_named(self) -> None:
        """recovered + refusal -> recovered_refusal; other outcomes pass through."""
        assert RECOVERED_REFUSAL == outcome_of(result("recovered", "The context does not say."))
        assert "recovered" == outcome_of(result("recovered", "It is 7."))
        assert "exhausted" == outcome_of(result("exhausted", "The context does not say."))
