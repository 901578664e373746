"""A cascade under release="sentence": every stage's rejection is kept from the caller."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from typing import Any

import pytest

import relapse
from relapse import GroundingResult
from relapse.checks import LLMJudge, cascade, stage
from relapse.checks._cascade_stream import CascadeStream
from stream_cases import BAD, DOCS, FIRST, GOOD, REST, TAIL, words

#: A sentence the default check passes (no claim) that the judge rejects.
RED = "The bridge is painted bright red by the city every spring. "


class SentenceJudge:
    """A judge rejecting any answer that says "red"; counts its calls and what it saw."""

    def __init__(self) -> None:
        self.answers: list[str] = []

    def __call__(self, prompt: str) -> str:
        answer = prompt.rsplit('Answer to check: "', 1)[1].split('"\n', 1)[0]
        self.answers.append(answer)
        return "UNSUPPORTED\npainted bright red" if "red" in answer else "SUPPORTED"


def streamed(text: str, **options: Any) -> Any:
    @relapse.grounded(chunks_arg="docs", release="sentence", **options)
    def answer(query: str, docs: list[str]) -> Iterator[str]:
        yield from words(text)

    return answer


class TestSentenceStages:
    def test_the_judge_judges_each_sentence_the_rules_passed_and_stops_at_its_rejection(
        self,
    ) -> None:
        """FIRST is released; RED passes the rules but not the judge: never released."""
        judge = SentenceJudge()
        check = cascade(relapse.default_grounding_check, LLMJudge(judge))
        answer = streamed(FIRST + RED + TAIL + REST, grounding_check=check, max_iterations=1)
        with answer("q", DOCS) as stream:
            released = "".join(stream)
        assert FIRST == released
        # Each sentence judged alone, once: FIRST, then RED (where the stream stopped).
        assert [FIRST.strip(), RED.strip()] == judge.answers
        (record,) = stream.result.transcript
        (finding,) = record.findings
        # Judged alone, offsets moved into the answer: "The bridge is " is 14 characters.
        start = len(FIRST) + len("The bridge is ")
        assert ("LJ001", ("painted bright red",), ((start, start + 18),)) == (
            finding.code,
            finding.spans,
            finding.offsets,
        )
        assert "painted bright red" == record.answer[start : start + 18]
        assert [True, False] == [run.ok for run in record.stages]

    def test_a_rule_rejection_costs_the_judge_nothing(self) -> None:
        """BAD fails the default check: the judge saw FIRST only, never BAD."""
        judge = SentenceJudge()
        check = cascade(relapse.default_grounding_check, LLMJudge(judge))
        answer = streamed(FIRST + BAD + TAIL + REST, grounding_check=check, max_iterations=1)
        with answer("q", DOCS) as stream:
            released = "".join(stream)
        assert FIRST == released
        assert [FIRST.strip()] == judge.answers
        (record,) = stream.result.transcript
        assert ["FG001"] == [f.code for f in record.findings]
        assert [(True, False), (False, None)] == [(run.ran, run.ok) for run in record.stages]

    def test_a_passing_answer_is_released_whole_and_judged_once_per_sentence(self) -> None:
        """FIRST + GOOD: every sentence judged once; no whole-answer judge call after."""
        judge = SentenceJudge()
        check = cascade(relapse.default_grounding_check, LLMJudge(judge))
        answer = streamed(FIRST + GOOD, grounding_check=check)
        with answer("q", DOCS) as stream:
            released = "".join(stream)
        assert FIRST + GOOD == released
        assert 4 == len(judge.answers)
        assert stream.result.grounded is True
        assert [True, True] == [run.ok for run in stream.result.transcript[0].stages]

    def test_an_end_stage_holds_everything_until_it_judged_the_whole_answer(self) -> None:
        """sentence='end': nothing released before the end; one call on the whole answer."""
        judge = SentenceJudge()
        check = cascade(relapse.default_grounding_check, stage(LLMJudge(judge), sentence="end"))
        released: list[str] = []
        answer = streamed(FIRST + RED + TAIL, grounding_check=check, max_iterations=1)
        with answer("q", DOCS) as stream:
            released.extend(stream)
        assert "" == "".join(released)
        assert [(FIRST + RED + TAIL).strip()] == judge.answers
        assert stream.result.grounded is False


def random_judge(seed: int) -> Any:
    """A judge rejecting each sentence holding 'e' with probability one half, fixed by seed."""
    chooser = random.Random(seed)
    verdicts: dict[str, bool] = {}

    def judge(prompt: str) -> str:
        answer = prompt.rsplit('Answer to check: "', 1)[1].split('"\n', 1)[0]
        if answer not in verdicts:
            verdicts[answer] = chooser.random() < 0.5
        return f"UNSUPPORTED\n{answer}" if verdicts[answer] else "SUPPORTED"

    return judge


class TestThePromise:
    @pytest.mark.parametrize("seed", range(6))
    def test_nothing_a_stage_rejects_is_released(self, seed: int) -> None:
        """Fed piece by piece, the released text never overlaps a span the final verdict rejects."""
        sentences = [FIRST, RED, "It opened to traffic in May 1937. ", TAIL, BAD, REST]
        text = "".join(itertools.islice(itertools.cycle(sentences), seed, seed + 5))
        check = cascade(relapse.default_grounding_check, LLMJudge(random_judge(seed)))
        stream = CascadeStream(check.stages, "q", DOCS)
        releasable = 0
        progress = None
        for piece in words(text):
            progress = stream.feed(piece)
            assert progress.releasable >= releasable
            releasable = progress.releasable
            if progress.failed is not None:
                break
        else:
            progress = stream.finish()
        assert progress is not None
        verdict = progress.failed or progress.passed
        assert isinstance(verdict, GroundingResult)
        for finding in verdict.errors:
            for start, _ in finding.offsets:
                assert start >= progress.releasable, (finding, progress.releasable)
        if progress.failed is None:
            assert len(text) == progress.releasable


class TestNested:
    def test_a_cascade_as_a_stage_keeps_the_promise(self) -> None:
        """The inner cascade's judge rejects RED: never released, though the outer judge passes."""
        inner_judge, outer_judge = SentenceJudge(), LLMJudge(lambda prompt: "SUPPORTED")
        inner = cascade(relapse.default_grounding_check, LLMJudge(inner_judge))
        check = cascade(stage(inner, cost=1.0), stage(outer_judge, cost=2000.0))
        answer = streamed(FIRST + RED + TAIL + REST, grounding_check=check, max_iterations=1)
        with answer("q", DOCS) as stream:
            released = "".join(stream)
        assert FIRST == released
        assert [FIRST.strip(), RED.strip()] == inner_judge.answers
        assert stream.result.grounded is False
