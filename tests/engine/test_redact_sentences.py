"""
on_exhausted="redact" cuts sentences as a reader does (issue 38, hostile test).

Redaction removed ``Senate has 45 members.`` from ``The U.S. Senate has 45
members.``, leaving ``The U.S.`` behind as debris, and removed a whole Chinese
answer for one bad number (``。`` ended no sentence). Offsets are worked out
by hand.
"""

from __future__ import annotations

import relapse
from relapse import Redaction
from relapse.testing import ScriptedLLM


def _redacted(docs: list[str], answer: str) -> relapse.RelapseResult:
    return relapse.run(  # type: ignore[call-overload, no-any-return]
        "q", docs, call_llm=ScriptedLLM([answer]), on_exhausted="redact", max_iterations=1
    )


class TestSentencesAsAReaderCutsThem:
    def test_initials_stay_with_their_sentence(self) -> None:
        """The sentence after ``U.S.`` is removed whole: no ``The U.S.`` is left behind."""
        docs = ["The U.S. Senate has 100 members. It meets in Washington."]
        answer = "The U.S. Senate has 45 members. It meets in Washington."
        result = _redacted(docs, answer)
        assert ("It meets in Washington.", "redacted") == (result.answer, result.outcome)
        # "The U.S. Senate has 45 members." is characters 0 to 31.
        assert [(0, 31)] == [redaction.span for redaction in result.redactions]

    def test_a_chinese_answer_loses_only_its_failing_sentence(self) -> None:
        """``北京有3000万人口。`` goes; the sentence after it, with no space between, stays."""
        docs = ["北京有2154万人口。上海有2487万人口。"]
        result = _redacted(docs, "北京有3000万人口。上海有2487万人口。")
        assert ("上海有2487万人口。", "redacted") == (result.answer, result.outcome)
        # The first sentence is 11 characters: 北京有 (3), 3000 (4), 万人口。 (4).
        assert [Redaction(1, (0, 11), result.redactions[0].findings)] == list(result.redactions)
