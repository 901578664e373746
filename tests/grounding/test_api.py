"""The public API of relapse.grounding: the check's configuration, codes and call forms."""

from __future__ import annotations

from types import MappingProxyType

import relapse
from grounding_verdicts import codes_and_spans
from relapse import Evidence, GroundingFinding, GroundingResult
from relapse.grounding import (
    ALL_CODES,
    BoundGroundingCheck,
    GroundingCheck,
    default_grounding_check,
)


class TestApi:
    def test_default_check_is_exported(self) -> None:
        """``relapse.default_grounding_check`` is this check."""
        assert relapse.default_grounding_check is default_grounding_check

    def test_default_check_is_a_configured_check(self) -> None:
        """The default check is a ``GroundingCheck`` with defaults: it has ``prepare``."""
        assert GroundingCheck() == default_grounding_check
        prepared = default_grounding_check.prepare("", ["It cost $5."])
        assert prepared.check("It cost $5.").ok

    def test_name(self) -> None:
        """The default check is named ``relapse.default``."""
        assert "relapse.default" == GroundingCheck().name

    def test_call_equals_prepare_then_check(self) -> None:
        """``check(q, c, a)`` == ``check.prepare(q, c).check(a)``."""
        check = GroundingCheck()
        chunks = ["Revenue was $3.8 billion in 2021."]
        answer = "Revenue was $4 billion in 2020."
        assert check.prepare("", chunks).check(answer) == check("", chunks, answer)

    def test_prepared_check_is_reusable(self) -> None:
        """One prepared index checks many answers."""
        prepared = GroundingCheck().prepare("", ["Revenue was $3.8 billion in 2021."])
        assert isinstance(prepared, BoundGroundingCheck)
        assert not prepared.check("Revenue was $4 billion.").ok
        assert prepared.check("Revenue was $3.8 billion.").ok
        assert not prepared.check("It was 2020.").ok

    def test_mapping_chunks(self) -> None:
        """Chunks may be mappings with a ``"text"`` key."""
        chunks = [{"text": "It cost $5.", "id": 1}, MappingProxyType({"text": "In 1999."})]
        assert default_grounding_check("", chunks, "It cost $5 in 1999.").ok

    def test_codes_select_what_is_reported(self) -> None:
        """``codes`` limits the check to some finding codes."""
        check = GroundingCheck(codes=frozenset({"FG002"}))
        result = check("", ["Nothing."], 'It cost $5 in 1999, "said someone there".')
        assert [("FG002", ("1999",))] == codes_and_spans(result)
        assert frozenset({"FG001", "FG002", "FG003", "FG004", "FG005"}) == ALL_CODES

    def test_result_shape(self) -> None:
        """Findings come in code order; spans and offsets are parallel and exact."""
        answer = 'In 1999 it cost $7 and "a lot of money", then $9.'
        result = default_grounding_check("", ["It cost $5."], answer)
        assert not result.ok
        assert ["FG001", "FG002", "FG003"] == [finding.code for finding in result.findings]
        for finding in result.findings:
            assert isinstance(finding, GroundingFinding)
            assert len(finding.spans) == len(finding.offsets)
            assert list(finding.spans) == [answer[start:end] for start, end in finding.offsets]
        assert ("$7", "$9") == result.findings[0].spans
        assert "2 number(s) not in the retrieved chunks: '$7', '$9'" == result.findings[0].message

    def test_grounded_answer(self) -> None:
        """A grounded answer has ``ok`` True and no findings."""
        cost = (len("It cost "), len("It cost $5"))  # the amount, its sign included
        evidence = (Evidence("number", cost, 0, cost),)
        assert GroundingResult(ok=True, findings=(), evidence=evidence) == default_grounding_check(
            "", ["It cost $5."], "It cost $5."
        )

    def test_long_message_is_shortened(self) -> None:
        """The message quotes five spans at most; ``spans`` holds all of them."""
        answer = " ".join(f"{n} units." for n in range(10, 20))
        (finding,) = default_grounding_check("", ["None."], answer).findings
        assert 10 == len(finding.spans)
        assert finding.message.endswith("and 5 more")

    def test_same_span_twice_is_listed_twice(self) -> None:
        """Each occurrence is listed, at its own offsets."""
        (finding,) = default_grounding_check("", ["None."], "It was 77, yes 77.").findings
        assert ("77", "77") == finding.spans
        assert ((7, 9), (15, 17)) == finding.offsets
