"""
Shared test pieces: checks with known verdicts, so loop tests do not depend on
the default check, and assertions on iteration spans read back from a backend.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import relapse
from relapse import GroundingFinding, GroundingResult


def forbid(*words: str) -> object:
    """A check that fails any answer containing one of ``words`` (FG001, the word as span)."""

    def check(query: str, chunks: Sequence[str], answer: str) -> GroundingResult:
        bad = tuple(w for w in words if w in answer)
        if not bad:
            return GroundingResult(ok=True)
        return GroundingResult(
            ok=False,
            findings=(GroundingFinding("FG001", f"not in chunks: {list(bad)}", bad),),
        )

    check.name = "forbid"  # type: ignore[attr-defined]
    return check


def assert_rejected_then_grounded(one: Mapping[str, Any], two: Mapping[str, Any]) -> None:
    """
    Assert the attributes of a call's two iteration spans, however the backend decoded them.

    The first iteration was rejected with FG001/FG002 findings, the second was
    grounded with none (an empty code list may come back as ``[]`` or ``()``).
    """
    assert (1, False, 2, True) == (
        one["relapse.iteration"],
        one["relapse.grounded"],
        two["relapse.iteration"],
        two["relapse.grounded"],
    )
    assert one["relapse.findings.codes"]
    assert set(one["relapse.findings.codes"]) <= {"FG001", "FG002"}
    assert one["relapse.findings.count"] >= 1
    assert ((), 0) == (tuple(two["relapse.findings.codes"]), two["relapse.findings.count"])


def decorated(llm: Any, **options: Any) -> Any:
    """``answer(query, docs)`` returning ``llm(query)``, decorated with ``options``.

    The check defaults to ``forbid("WRONG")``.
    """
    options.setdefault("grounding_check", forbid("WRONG"))

    @relapse.grounded(chunks_arg="docs", **options)
    def answer(query: str, docs: Any) -> str:
        return llm(query)  # type: ignore[no-any-return]

    return answer


# Module-level decorated functions, so that they pickle by reference and can
# be sent to a process pool (tests/test_hostile_contract.py).


@relapse.grounded(chunks_arg="docs", grounding_check=forbid("WRONG"))
def echo_answer(query: str, docs: list[str]) -> str:
    """Answer with the query itself: grounded unless the query holds WRONG."""
    return f"echo {query}"


@relapse.grounded(chunks_arg="docs", grounding_check=forbid("WRONG"), on_exhausted="raise")
def never_grounded(query: str, docs: list[str]) -> str:
    """Always hallucinate: raises relapse.NotGroundedError after three calls."""
    return "WRONG"
