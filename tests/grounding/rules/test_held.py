"""
Held values: trivial numbers, the question's numbers, list markers and references claim nothing.

The held rule (``relapse/grounding/rules/held.py``) and the false alarms
found on RAGTruth answers that it now lets pass.
"""

from __future__ import annotations

import pytest

import relapse
from grounding_verdicts import codes_and_spans, failing_spans, flagged_spans
from relapse.grounding import GroundingCheck, default_grounding_check


# from test_numbers.py
class TestQuestionNumbers:
    def test_question_number_is_supported(self) -> None:
        """A number the question states is not flagged."""
        query = "Is a 2006 Chevy Impala reliable at 150,000 miles?"
        answer = "A 2006 Chevy Impala at 150,000 miles can be reliable."
        assert () == flagged_spans("Impalas are durable.", answer, query)
        assert () == flagged_spans("Impalas are durable.", answer, query, code="FG002")

    def test_question_exemption_can_be_turned_off(self) -> None:
        """With ``exempt_question=False``, question numbers need chunk support."""
        check = GroundingCheck(exempt_question=False)
        result = check("What about 150,000 miles?", ["Impalas are durable."], "At 150,000 miles.")
        assert [("FG001", ("150,000",))] == [(f.code, f.spans) for f in result.findings]


# from test_numbers.py
class TestTrivialNumbers:
    def test_zero_one_two_are_not_flagged(self) -> None:
        """0, 1 and 2 claim too little to flag."""
        assert () == flagged_spans(
            "Nothing here.", "There are 0 risks, 1 option and 2 ways, or one."
        )

    def test_trivial_numbers_with_units_are_claims(self) -> None:
        """``2%`` and ``$1 billion`` are claims, not trivial numbers."""
        assert ("2%", "$1 billion") == flagged_spans("Nothing here.", "It grew 2% to $1 billion.")

    def test_trivial_set_is_configurable(self) -> None:
        """``GroundingCheck(trivial_numbers=...)`` replaces the default set."""
        check = GroundingCheck(trivial_numbers=frozenset({0, 1, 2, 3}))
        assert check("", ["Nothing."], "There are 3 ways and 2 risks.").ok
        strict = GroundingCheck(trivial_numbers=frozenset())
        result = strict("", ["Nothing."], "There are 2 risks.")
        assert [("FG001", ("2",))] == [(f.code, f.spans) for f in result.findings]


# from test_numbers.py
# The kinds of issue 12.
class TestSmallNumbersThatMeasure:
    @pytest.mark.parametrize(
        ("answer", "span"),
        [
            ("Plant them 1-2 inches deep.", "1-2"),
            ("The level is 0-1 ng/mL.", "0-1"),
            ("Walk 1 kilometer.", "1"),
            ("Add 2 cups of flour.", "2"),
            ("It rose 2%.", "2%"),
            ("Walk one kilometer.", "one"),
        ],
    )
    def test_with_a_unit_or_in_a_range_they_are_claims(self, answer: str, span: str) -> None:
        """0, 1 and 2 with a unit or in a range measure something: FG001 when unsupported."""
        assert (span,) == failing_spans("Nothing here.", answer)

    @pytest.mark.parametrize(
        "answer", ["It is 1 of the best.", "There are 2 ways.", "One said no."]
    )
    def test_bare_they_are_trivial(self, answer: str) -> None:
        """Written bare, they still claim too little to flag."""
        assert () == failing_spans("Nothing here.", answer)


# from test_numbers.py
class TestInlineEnumerations:
    @pytest.mark.parametrize(
        "answer",
        [
            "Causes include 1. hormones 2. genes 3. diet 4. sun exposure.",
            "1) Use a towel. 2) Use a hair dryer. 3) Comb it.",
        ],
    )
    def test_counting_markers_are_not_claims(self, answer: str) -> None:
        """Markers that count up from 1 on one line order the answer; no FG001."""
        chunks = ["Hormones, genes, diet and sun exposure. Use a towel, a hair dryer, a comb."]
        assert relapse.default_grounding_check("why", chunks, answer).ok

    @pytest.mark.parametrize(
        ("answer", "span"),
        [("It has 4. Then it stops.", "4"), ("Steps 1. towel 2. dryer and 3 hours rest.", "3")],
    )
    def test_a_number_that_does_not_continue_the_count_is_a_claim(
        self, answer: str, span: str
    ) -> None:
        """Without the previous marker, or without the marker shape, the number is checked."""
        result = relapse.default_grounding_check("q", ["Use a towel and a dryer."], answer)
        assert [("FG001", (span,))] == [(f.code, f.spans) for f in result.findings]


# from test_false_alarms.py
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
