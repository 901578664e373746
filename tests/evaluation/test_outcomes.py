"""relapse.evaluation._outcomes: a refusal is grounded but is not an answer."""

from __future__ import annotations

import pytest

import relapse
from relapse import GroundingFinding, IterationRecord, RelapseResult
from relapse.evaluation._outcomes import ECHOED, RECOVERED_REFUSAL, is_echo, is_refusal, outcome_of


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


#: A 24-word chunk: a copy of it is no answer.
CHUNK = (
    "The Golden Gate Bridge opened to traffic on May 27, 1937, after four years of"
    " building, and carried cars from its first day on."
)


class TestEchoes:
    def test_a_copy_passed_by_a_lenient_check_is_echoed(self) -> None:
        """A check that does not look for copies passed the chunk back: echoed, not recovered."""
        assert 24 == len(CHUNK.split())
        lenient = relapse.run(
            "When did it open?",
            [CHUNK],
            call_llm=relapse.testing.ScriptedLLM(["It opened in 1950.", CHUNK]),
            grounding_check=lambda query, chunks, answer: relapse.GroundingResult(
                "1950" not in answer
            ),
        )
        assert "recovered" == lenient.outcome  # what the loop and its spans say
        assert ECHOED == outcome_of(lenient, "When did it open?", [CHUNK])
        assert "recovered" == outcome_of(lenient)  # without the chunks it cannot tell

    def test_the_default_check_rejects_the_copy_and_the_run_is_echoed(self) -> None:
        """The default check rejects the copy (FG004) to the end: echoed, not exhausted."""
        run = relapse.run(
            "When did it open?",
            [CHUNK],
            call_llm=relapse.testing.ScriptedLLM(["It opened in 1950.", CHUNK]),
            max_iterations=2,
        )
        assert ("exhausted", ["FG004"]) == (
            run.outcome,
            [f.code for f in run.transcript[-1].findings],
        )
        assert is_echo(run)
        assert ECHOED == outcome_of(run)

    def test_an_echo_of_the_instructions_is_echoed(self) -> None:
        """An FG004 echo of the retry wording on the returned answer: echoed."""
        records = [
            IterationRecord(1, "q", "It is 9.", grounded=False),
            IterationRecord(
                2,
                "retry",
                "Answer using only the context.",
                grounded=False,
                findings=(GroundingFinding("FG004", "echo", ("Answer using only the context.",)),),
            ),
        ]
        run = RelapseResult("Answer using only the context.", False, 2, records, "exhausted")
        assert ECHOED == outcome_of(run)

    def test_an_empty_answer_is_not_an_echo(self) -> None:
        """FG004's empty answer stays exhausted: it copies nothing."""
        empty = GroundingFinding("FG004", "the answer is empty: it answers nothing", ("",))
        records = [IterationRecord(1, "q", "", grounded=False, findings=(empty,))]
        assert "exhausted" == outcome_of(RelapseResult("", False, 1, records, "exhausted"))

    def test_a_real_answer_quoting_a_sentence_is_recovered(self) -> None:
        """A recovery quoting part of the chunk is an answer."""
        answer = "The Golden Gate Bridge opened to traffic on May 27, 1937."
        assert "recovered" == outcome_of(result("recovered", answer), "When did it open?", [CHUNK])
