"""Exceptions the user's code raises reach the caller as themselves, with nothing lost."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from opentelemetry.trace import StatusCode

from contract_cases import DOCS
from helpers import decorated
from relapse import GroundingResult
from relapse.testing import CapturedSpans, ScriptedLLM


class _NotesNotAList(Exception):  # noqa: N818
    pass


# Found by hostile testing of the loop's contract.
class TestUserExceptions:
    def test_stop_iteration_propagates_as_itself(self) -> None:
        """A StopIteration from the LLM call is not turned into RuntimeError."""
        error = StopIteration("exhausted iterator")
        with pytest.raises(StopIteration) as caught:
            decorated(ScriptedLLM(["WRONG", error]))("q", DOCS)
        assert caught.value is error
        assert [1] == [r.iteration for r in caught.value.relapse_transcript]  # type: ignore[attr-defined]

    def test_bad_notes_do_not_stop_the_spans_ending(self, spans: CapturedSpans) -> None:
        """An exception whose __notes__ is not a list propagates as itself; every span ends."""
        error = _NotesNotAList("boom")
        error.__notes__ = "not a list"  # type: ignore[attr-defined]
        with pytest.raises(_NotesNotAList) as caught:
            decorated(ScriptedLLM([error]), tracer_provider=spans.provider)("q", DOCS)
        assert caught.value is error
        assert 2 == len(spans.spans)
        assert all(s.end_time is not None for s in spans.spans)
        assert all(s.status.status_code is StatusCode.ERROR for s in spans.spans)

    def test_raising_check_keeps_the_paid_answer(self) -> None:
        """When a custom check raises, that attempt's answer is in the attached transcript."""

        def check(query: str, chunks: Sequence[str], answer: str) -> GroundingResult:
            raise ValueError("check broke")

        with pytest.raises(ValueError, match="check broke") as caught:
            decorated(ScriptedLLM(["the paid answer"]), grounding_check=check)("q", DOCS)
        (record,) = caught.value.relapse_transcript  # type: ignore[attr-defined]
        assert ("the paid answer", False) == (record.answer, record.grounded)

    def test_nested_calls_keep_the_inner_transcript(self) -> None:
        """An error leaving a nested grounded call keeps the inner call's transcript."""
        error = RuntimeError("inner failed")
        inner = decorated(ScriptedLLM(["WRONG", error]))

        def outer_llm(query: str) -> str:
            return inner("inner q", DOCS)  # type: ignore[no-any-return]

        with pytest.raises(RuntimeError) as caught:
            decorated(outer_llm)("outer q", DOCS)
        transcript = caught.value.relapse_transcript  # type: ignore[attr-defined]
        assert ["inner q"] == [r.prompt for r in transcript]
        assert 1 == sum("relapse:" in n for n in caught.value.__notes__)

    def test_re_raised_instance_gets_one_note_and_the_latest_transcript(self) -> None:
        """The same exception instance raised in two calls carries one note, the last call's."""
        error = RuntimeError("flaky")
        answer = decorated(ScriptedLLM(["WRONG", error, error]))
        with pytest.raises(RuntimeError):
            answer("first", DOCS)
        with pytest.raises(RuntimeError) as caught:
            answer("second", DOCS)
        assert 1 == sum(n.startswith("relapse:") for n in caught.value.__notes__)
        assert () == caught.value.relapse_transcript  # type: ignore[attr-defined]
