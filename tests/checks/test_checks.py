"""The LLM judge and check composition."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

import relapse
from helpers import forbid
from relapse.checks import LLMJudge, all_of, parse_verdict
from relapse.testing import ScriptedLLM

CHUNKS = ["The museum opened in 1901 and holds 4,000 paintings."]


class TestParseVerdict:
    def test_supported(self) -> None:
        """A SUPPORTED first line accepts the answer."""
        assert relapse.GroundingResult(ok=True) == parse_verdict("Supported.\n", "x")

    def test_unsupported_keeps_verbatim_claims_as_spans(self) -> None:
        """Listed claims become spans with offsets only when they are in the answer."""
        answer = "It opened in 1901. It has a cafe."
        verdict = parse_verdict('UNSUPPORTED\n- "It has a cafe."\n- made up claim', answer)
        assert verdict is not None
        (finding,) = verdict.findings
        assert (False, "LJ001") == (verdict.ok, finding.code)
        assert ("It has a cafe.",) == finding.spans
        assert ((19, 33),) == finding.offsets
        assert "made up claim" in finding.message

    @pytest.mark.parametrize("reply", ["", "I think it is fine", "MAYBE\nx"])
    def test_no_verdict(self, reply: str) -> None:
        """A reply in neither format has no verdict."""
        assert parse_verdict(reply, "x") is None


class TestLLMJudge:
    def test_rejection_drives_a_retry(self) -> None:
        """A judge's UNSUPPORTED fails the answer and its claim reaches the retry query."""
        judge = ScriptedLLM(["UNSUPPORTED\nIt has a cafe.", "SUPPORTED"])
        llm = ScriptedLLM(["It has a cafe.", "It opened in 1901."])
        result = relapse.run("Tell me", CHUNKS, call_llm=llm, grounding_check=LLMJudge(judge))
        assert (True, 2) == (result.grounded, result.iterations)
        assert "It has a cafe." in judge.prompts[0]
        assert CHUNKS[0] in judge.prompts[0]
        assert "LJ001" in llm.prompts[1]

    @pytest.mark.parametrize("failure", [RuntimeError("judge down"), "no verdict here"])
    def test_failing_judge_ends_the_loop(self, failure: object) -> None:
        """A judge that raises or rambles accepts the answer: one call, no retry."""
        llm = ScriptedLLM(["anything"])
        result = relapse.run(
            "q", CHUNKS, call_llm=llm, grounding_check=LLMJudge(ScriptedLLM([failure]))
        )
        assert (True, 1) == (result.grounded, llm.calls)


class TestAllOf:
    def test_short_circuit_skips_the_judge_after_a_failure(self) -> None:
        """The judge is not asked about an answer the first check rejected."""
        judge = ScriptedLLM(["SUPPORTED"])
        check = all_of(forbid("WRONG"), LLMJudge(judge))
        assert not check("q", CHUNKS, "WRONG").ok
        assert 0 == judge.calls
        assert check("q", CHUNKS, "fine").ok
        assert 1 == judge.calls

    def test_findings_of_every_check_without_short_circuit(self) -> None:
        """With short_circuit=False every check runs and findings add up."""

        def always_fail(query: str, chunks: Sequence[str], answer: str) -> relapse.GroundingResult:
            return relapse.GroundingResult(False, (relapse.GroundingFinding("X1", "no"),))

        check = all_of(forbid("WRONG"), always_fail, short_circuit=False)
        assert ["FG001", "X1"] == [f.code for f in check("q", CHUNKS, "WRONG").findings]

    def test_combines_with_the_default_check(self) -> None:
        """all_of works with the default check and carries a readable name."""
        check = all_of(relapse.default_grounding_check, forbid("cafe"))
        assert check("q", CHUNKS, "It opened in 1901.").ok
        assert not check("q", CHUNKS, "It opened in 1907.").ok
        assert " & " in check.name  # type: ignore[attr-defined]

    def test_needs_two_callables(self) -> None:
        """Fewer than two checks, or a non-callable, is a TypeError."""
        with pytest.raises(TypeError, match="at least two"):
            all_of(forbid("x"))
        with pytest.raises(TypeError, match=r"checks\[1\] is int"):
            all_of(forbid("x"), 3)  # type: ignore[arg-type]
