"""Checks with known verdicts, so loop tests do not depend on the default check."""

from __future__ import annotations

from collections.abc import Sequence

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
