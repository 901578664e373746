"""
Shared test pieces: checks with known verdicts, so loop tests do not depend on
the default check, and assertions on iteration spans read back from a backend.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

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
