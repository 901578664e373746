"""relapse.checks.LLMJudge: a model as the check, its verdicts parsed strictly."""

from __future__ import annotations

import asyncio

import pytest

import relapse
from contract_cases import DOCS
from relapse import GroundingResult
from relapse.checks import LLMJudge, locate, parse_verdict
from relapse.testing import ScriptedLLM


# Found by hostile testing of the loop's contract.
class TestLLMJudge:
    @pytest.mark.parametrize(
        "reply",
        [
            "NOT SUPPORTED",
            "UNSUPPORTED: the year is wrong",
            "Verdict: UNSUPPORTED",
            "```\nUNSUPPORTED\nthe depot is red\n```",
            "**Unsupported**",
            "I checked it. The answer is not supported by the context.",
        ],
    )
    def test_recognisable_rejections_reject(self, reply: str) -> None:
        """Every recognisable rejection is a rejection, never 'no verdict'."""
        verdict = parse_verdict(reply, "the depot is red")
        assert verdict is not None
        assert verdict.ok is False

    def test_reason_on_the_verdict_line_is_a_claim(self) -> None:
        """'UNSUPPORTED: claim' lists the claim, as a span when it is in the answer."""
        verdict = parse_verdict("UNSUPPORTED: the depot is red", "Yes, the depot is red.")
        assert verdict is not None
        assert ("the depot is red",) == verdict.findings[0].spans

    def test_supported_and_garbage(self) -> None:
        """SUPPORTED accepts (also fenced); a reply with no verdict is None."""
        assert parse_verdict("```\nSUPPORTED\n```", "a") == GroundingResult(ok=True)
        assert parse_verdict("I like trains.", "a") is None

    async def test_async_judge_works_under_arun(self) -> None:
        """An async judge is awaited: its rejection drives a retry."""
        replies = iter(["UNSUPPORTED\nred", "SUPPORTED"])

        async def judge(prompt: str) -> str:
            await asyncio.sleep(0)
            return next(replies)

        llm = ScriptedLLM(["The depot is red.", "The depot stores 40 buses."])
        result = await relapse.arun("q", DOCS, call_llm=llm.acall, grounding_check=LLMJudge(judge))
        assert (True, 2) == (result.grounded, result.iterations)

    async def test_async_judge_works_in_an_async_decorated_function(self) -> None:
        """The same under a decorated async def function, combined with the default check."""

        async def judge(prompt: str) -> str:
            return "UNSUPPORTED" if "red" in prompt else "SUPPORTED"

        llm = ScriptedLLM(["The depot is red.", "It stores 40 buses."])

        @relapse.grounded(
            chunks_arg="docs", grounding_check=relapse.default_grounding_check & LLMJudge(judge)
        )
        async def answer(query: str, docs: list[str]) -> str:
            return await llm.acall(query)

        assert "It stores 40 buses." == await answer("q", DOCS)

    def test_async_judge_is_refused_under_a_sync_call(self) -> None:
        """A sync call cannot await the judge: a clear TypeError, the answer kept."""

        async def judge(prompt: str) -> str:
            return "SUPPORTED"

        with pytest.raises(TypeError, match="async") as caught:
            relapse.run("q", DOCS, call_llm=ScriptedLLM(["fine"]), grounding_check=LLMJudge(judge))
        assert ["fine"] == [r.answer for r in caught.value.relapse_transcript]  # type: ignore[attr-defined]

    @pytest.mark.parametrize(
        ("template", "message"),
        [
            ("Context {context} answer {answer} as JSON {", "not a valid template"),
            ('Context {context} answer {answer} reply {"ok": true}', "unknown field"),
            ("Only {answer}", r"lacks \{context\}"),
        ],
    )
    def test_broken_template_fails_at_construction(self, template: str, message: str) -> None:
        """A template .format cannot fill is a ValueError when the judge is built."""
        with pytest.raises(ValueError, match=message):
            LLMJudge(lambda p: "SUPPORTED", prompt=template)

    def test_literal_braces_doubled_are_fine(self) -> None:
        """A doubled brace is a literal brace."""
        judge = LLMJudge(lambda p: "SUPPORTED", prompt='{context} {answer} {{"ok": true}}')
        assert '{"ok": true}' in judge.render("q", ["c"], "a")


class TestLocated:
    @pytest.mark.parametrize(
        ("claim", "expected"),
        [
            ("the depot is red", (5, 21)),
            ("The depot is red", (5, 21)),
            ("the  depot, is red.", (5, 21)),
            ("depot is RED", (9, 21)),
            ("the depot is blue", None),
            ("...", None),
        ],
    )
    def test_claims_are_found_verbatim_or_loosely(
        self, claim: str, expected: tuple[int, int] | None
    ) -> None:
        """Case, spacing and punctuation between words are the judge's, the words the answer's."""
        assert expected == locate(claim, "Yes, the depot is red.")

    def test_every_located_claim_is_a_span_in_answer_order(self) -> None:
        """Two claims listed out of order: spans and offsets in answer order; a third unlocated."""
        answer = "It opened in 1931. The depot is red."
        verdict = parse_verdict("UNSUPPORTED\nThe depot is red\nit opened in 1931\nbats", answer)
        assert verdict is not None
        (finding,) = verdict.findings
        assert (("It opened in 1931", "The depot is red"), ((0, 17), (19, 35))) == (
            finding.spans,
            finding.offsets,
        )
        assert "bats" in finding.message

    def test_a_response_object_is_read_and_its_usage_kept(self) -> None:
        """A Chat Completion's text is the verdict; its usage the verdict's usage."""
        reply = {
            "choices": [{"message": {"role": "assistant", "content": "UNSUPPORTED\nred"}}],
            "usage": {"prompt_tokens": 321, "completion_tokens": 6},
        }
        verdict = LLMJudge(lambda prompt: reply)("q", DOCS, "The depot is red.")
        assert isinstance(verdict, GroundingResult)
        assert (False, relapse.Usage(321, 6)) == (verdict.ok, verdict.usage)
        assert ((13, 16),) == verdict.findings[0].offsets

    def test_a_reply_with_no_text_accepts_and_keeps_the_usage(self) -> None:
        """A response the reader cannot read: no verdict, accepted, its tokens still counted."""
        verdict = LLMJudge(lambda prompt: {"usage": {"input_tokens": 9, "output_tokens": 0}})(
            "q", DOCS, "The depot is red."
        )
        assert GroundingResult(ok=True, usage=relapse.Usage(9, 0)) == verdict
