"""The retry note cites a stage's findings by score, highest first."""

from __future__ import annotations

from relapse import Attempt, GroundingFinding, IterationRecord
from relapse.prompts import ranked, retry_note


def finding(code: str, span: str, score: float | None = None) -> GroundingFinding:
    return GroundingFinding(code, f"{span} is unsupported", (span,), score=score)


class TestRanked:
    def test_within_a_stage_highest_score_first_stages_in_order(self) -> None:
        """FG findings keep their order; the LD run is sorted 0.9, 0.7, 0.4, then unscored."""
        given = [
            finding("FG002", "1931"),
            finding("FG001", "40"),
            finding("LD001", "a", 0.4),
            finding("LD001", "b"),
            finding("LD001", "c", 0.9),
            finding("LD002", "d", 0.7),
            finding("LJ001", "e"),
        ]
        assert ["1931", "40", "c", "d", "a", "b", "e"] == [f.spans[0] for f in ranked(given)]

    def test_no_score_no_change(self) -> None:
        """The default check's findings (no score) are cited as they came."""
        given = [finding("FG003", "x"), finding("FG001", "y"), finding("FG002", "z")]
        assert given == ranked(given)

    def test_the_note_names_the_most_confident_first(self) -> None:
        """In the retry note, 'sure' (0.95) is cited before 'unsure' (0.55)."""
        findings = (finding("LD001", "unsure", 0.55), finding("LD001", "sure", 0.95))
        record = IterationRecord(1, "q", "It is unsure and sure.", False, findings)
        note = retry_note(Attempt(2, "q", "q", (), (record,), findings, 0.0))
        assert note.index("sure is unsupported") < note.index("unsure is unsupported")
