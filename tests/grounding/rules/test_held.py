"""Kinds of false alarm found on RAGTruth answers, each passing as a careful reader expects."""

from __future__ import annotations

import pytest

from grounding_verdicts import codes_and_spans
from relapse.grounding import (
    default_grounding_check,
)


class TestRagTruthKinds:
    @pytest.mark.parametrize(
        "answer",
        [
            "Steps:\n3. Print the schedule.\n4. Post it.\n5) Send it.",
            "**7.** Print the schedule.",
            "- 8. Print the schedule.",
        ],
    )
    def test_list_markers_are_not_claims(self, answer: str) -> None:
        """Line-leading list markers order the answer; they claim nothing."""
        assert default_grounding_check("", ["Print the schedule."], answer).ok

    def test_line_leading_quantity_is_a_claim(self) -> None:
        """A line that starts with a quantity is not a list marker."""
        result = default_grounding_check("", ["Add flour."], "Add:\n300 grams of flour.")
        assert [("FG001", ("300",))] == codes_and_spans(result)

    @pytest.mark.parametrize(
        "answer",
        [
            "Print it (Passage 3).",
            "Passage 4 and passage 5 say so.",
            "Both passages 3, 4, and 5 agree.",
            "It is printed [4].",
            "It is printed [3, 5].",
            "As Document 7 says, print it.",
            "Print it (Passage 1, step 6).",
            "All three provided passages agree.",
            "Question 3: how is it printed?",
            "Repeat step 4 and 5.",
            "[chunk 3] says print it.",
        ],
    )
    def test_references_to_the_context_are_not_claims(self, answer: str) -> None:
        """``(Passage 3)``, ``passage 2 and passage 3``, ``[2]``... name the prompt's parts."""
        assert default_grounding_check("", ["Print the schedule."], answer).ok

    def test_question_quotation_and_year(self) -> None:
        """Quoted question text and the question's year are supported."""
        query = "how to replace the battery of a 2006 chevy impala"
        answer = 'To "replace the battery of a 2006 Chevy Impala", open the hood.'
        assert default_grounding_check(query, ["Open the hood."], answer).ok
