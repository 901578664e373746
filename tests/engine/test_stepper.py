"""The loop driven one answer at a time (integrations._stepper), as the framework hooks drive it."""

from __future__ import annotations

import pytest

import relapse
from relapse._telemetry import attributes as attr
from relapse.integrations._stepper import Retry, Stepper
from relapse.testing import CapturedSpans

CHUNKS = ["Its main span is 1,280 metres long."]
WRONG, RIGHT = "It is 1,500 metres long.", "It is 1,280 metres long."


class TestStepper:
    def test_retry_then_result(self) -> None:
        stepper = Stepper(relapse.Loop(max_iterations=3), "test", "How long?")
        assert 1 == stepper.iteration
        retry = stepper.submit(WRONG, CHUNKS, usage=relapse.Usage(10, 2), response={"raw": 1})
        assert isinstance(retry, Retry)
        assert 2 == retry.attempt.iteration
        assert retry.note.startswith(f'Your previous answer was rejected: "{WRONG}"')
        assert "'1,500'" in retry.note
        result = stepper.submit(RIGHT, CHUNKS, usage=relapse.Usage(12, 3))
        assert isinstance(result, relapse.RelapseResult)
        assert ("recovered", RIGHT, relapse.Usage(22, 5)) == (
            result.outcome,
            result.answer,
            result.usage,
        )
        # The framework's own responses stay in the transcript.
        assert [{"raw": 1}, RIGHT] == [r.response for r in result.transcript]
        assert stepper.done
        with pytest.raises(RuntimeError, match="this grounded call has ended"):
            stepper.submit(RIGHT, CHUNKS)

    def test_each_answer_is_checked_against_its_own_chunks(self) -> None:
        stepper = Stepper(relapse.Loop(max_iterations=2), "test", "How long?")
        assert isinstance(stepper.submit(RIGHT, ["Nothing about it."]), Retry)
        result = stepper.submit(RIGHT, CHUNKS)
        assert isinstance(result, relapse.RelapseResult)
        assert "recovered" == result.outcome

    def test_the_kill_switch_passes_the_answer_unchecked(self) -> None:
        stepper = Stepper(relapse.Loop(enabled=False), "test", "How long?")
        result = stepper.submit(WRONG, CHUNKS, response="raw")
        assert isinstance(result, relapse.RelapseResult)
        assert ("disabled", WRONG, "raw") == (result.outcome, result.answer, result.response)

    def test_an_async_check_needs_asubmit(self) -> None:
        async def check(query: str, chunks: list[str], answer: str) -> relapse.GroundingResult:
            return relapse.GroundingResult(True)

        stepper = Stepper(relapse.Loop(grounding_check=check), "test", "How long?")
        with pytest.raises(TypeError, match="the grounding check is async"):
            stepper.submit(RIGHT, CHUNKS)

    async def test_asubmit_awaits_an_async_check(self) -> None:
        async def check(query: str, chunks: list[str], answer: str) -> relapse.GroundingResult:
            return relapse.GroundingResult("1,500" not in answer)

        stepper = Stepper(relapse.Loop(grounding_check=check, max_iterations=2), "t", "How long?")
        assert isinstance(await stepper.asubmit(WRONG, CHUNKS), Retry)
        result = await stepper.asubmit(RIGHT, CHUNKS)
        assert isinstance(result, relapse.RelapseResult)
        assert "recovered" == result.outcome

    def test_close_ends_the_spans_as_stopped(self, spans: CapturedSpans) -> None:
        stepper = Stepper(relapse.Loop(tracer_provider=spans.provider), "test", "How long?")
        stepper.submit(WRONG, CHUNKS)
        stepper.close()
        (call,) = spans.named("relapse test")
        assert call.attributes[attr.RELAPSE_STREAM_STOPPED] is True
        assert 2 == len(spans.named(attr.ITERATION_SPAN_NAME))

    def test_bad_input(self) -> None:
        with pytest.raises(TypeError, match="query must be str"):
            Stepper(relapse.Loop(), "test", None)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match='release="sentence"'):
            Stepper(relapse.Loop(release="sentence"), "test", "q")
        stepper = Stepper(relapse.Loop(), "test", "q")
        with pytest.raises(TypeError, match="answer must be str"):
            stepper.submit(None, CHUNKS)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match=r"chunks\[0\]"):
            stepper.submit(RIGHT, [3])
