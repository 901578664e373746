"""
The words pass judges each distinct number in words in its surroundings once (issue 38).

A megabyte of supported number words took seconds: every claim was judged
anew. Every rule of the pass reads the answer within ``LOOK_BACK`` and
``LOOK_AHEAD`` of a claim, so a claim met again in the same surroundings
gets the verdict of the first; the verdicts and the evidence stay those of
judging each one.
"""

from __future__ import annotations

import pytest

from relapse.grounding import default_grounding_check
from relapse.grounding._check import BoundGroundingCheck
from relapse.grounding._index.blocks import LOOK_AHEAD, LOOK_BACK

SENTENCE = "There were seventy-seven of them. "  # 34 characters


def _counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the calls of the words pass's verdict."""
    calls: list[int] = []
    judge = BoundGroundingCheck._word_verdict

    def counting(self: BoundGroundingCheck, answer: str, claim: object) -> object:
        calls.append(1)
        return judge(self, answer, claim)  # type: ignore[arg-type]

    monkeypatch.setattr(BoundGroundingCheck, "_word_verdict", counting)
    return calls


def test_a_repeated_claim_is_judged_once_per_surroundings(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _counted(monkeypatch)
    answer = SENTENCE * 2_000
    result = default_grounding_check("", ["There were 77 of them."], answer)
    assert result.ok
    # The claims whose look-back starts at the answer's start, or whose
    # look-ahead reaches its end, each see other surroundings; the rest, one.
    at_most = LOOK_BACK // len(SENTENCE) + 1 + LOOK_AHEAD // len(SENTENCE) + 1 + 1
    assert 0 < len(calls) <= at_most < 2_000


def test_the_verdicts_are_those_of_each_claim(monkeypatch: pytest.MonkeyPatch) -> None:
    """A failing claim fails at every place, a supported one is evidence up to the cap."""
    answer = "It cost seventy-seven dollars, then eighty-one dollars. " * 300
    result = default_grounding_check("", ["It cost 77 dollars."], answer)
    (finding,) = result.findings
    width = len("It cost seventy-seven dollars, then ")
    period = len(answer) // 300
    assert finding.offsets == tuple(
        (period * n + width, period * n + width + len("eighty-one")) for n in range(300)
    )
    # Each place of "seventy-seven" is evidence, pointing at the chunk's "77".
    seventy = len("It cost ")
    spans = [evidence.answer_span for evidence in result.evidence]
    assert spans[:3] == [(period * n + seventy, period * n + seventy + 13) for n in range(3)]
    assert {evidence.chunk_span for evidence in result.evidence} == {(8, 10)}
