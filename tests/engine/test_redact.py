"""on_exhausted="redact": the best attempt without its failing sentences, and what was removed."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import openai
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from openai.types.chat import ChatCompletionChunk

import relapse
from helpers import forbid
from openai_scripted import Server, client
from property_budget import examples
from relapse import GroundingFinding, GroundingResult, Redaction
from relapse._read.rebuild import rebuilt
from relapse.grounding import default_grounding_check
from relapse.testing import ScriptedLLM, capture_spans
from sdk_shapes import (
    AIMessage,
    Message,
    ResponseEvent,
    TextBlock,
    anthropic_events,
    chat_completion,
    responses_response,
)

DOCS = ["The depot stores 40 buses and opened on 3 March 1998."]
QUERY = "Tell me about the depot."
BIG = "The depot is big."
BAD = "It stores 45 buses."
DATE = "It opened on 3 March 1998."
ANSWER = f"{BIG} {BAD} {DATE}"


def _redacted(answers: list[str], **options: Any) -> relapse.RelapseResult:
    options.setdefault("max_iterations", 1)
    return relapse.run(  # type: ignore[call-overload, no-any-return]
        QUERY, DOCS, call_llm=ScriptedLLM(answers), on_exhausted="redact", **options
    )


class TestRedaction:
    def test_the_failing_sentence_is_removed(self) -> None:
        """'45' fails: its sentence goes with the space before it; the map names it."""
        result = _redacted([ANSWER])
        start = len(BIG) + 1  # 18
        assert (f"{BIG} {DATE}", "redacted", False) == (
            result.answer,
            result.outcome,
            result.grounded,
        )
        assert 1 == len(result.redactions)
        removed = result.redactions[0]
        assert Redaction(1, (start, start + len(BAD)), removed.findings) == removed
        number = start + len("It stores ")  # 28
        assert (("FG001", ((number, number + 2),)),) == tuple(
            (f.code, f.offsets) for f in removed.findings
        )
        assert default_grounding_check(QUERY, DOCS, result.answer).ok

    def test_a_marker_replaces_the_sentence(self) -> None:
        """redact_marker takes the removed sentence's place, spacing kept."""
        result = _redacted([ANSWER], redact_marker="[unsupported]")
        assert f"{BIG} [unsupported] {DATE}" == result.answer

    def test_the_best_attempt_is_redacted(self) -> None:
        """Of two failing attempts the one with fewer failing spans is redacted."""
        worse = f"It stores 45 buses. It opened on 4 March 1997. {BIG}"
        result = _redacted([worse, ANSWER], max_iterations=2)
        assert (f"{BIG} {DATE}", 2) == (result.answer, result.redactions[0].iteration)

    def test_a_grounded_answer_is_not_redacted(self) -> None:
        """Redaction is only for exhaustion: a recovery returns the recovered answer."""
        result = _redacted([ANSWER, f"{BIG} {DATE}"], max_iterations=2)
        assert ("recovered", ()) == (result.outcome, result.redactions)

    def test_every_sentence_failing_leaves_nothing(self) -> None:
        """Nothing supported, nothing kept: the empty answer, every sentence in the map."""
        result = _redacted(["It stores 45 buses.\nIt opened in 1997."])
        assert ("", [(0, 19), (20, 38)]) == (
            result.answer,
            [removed.span for removed in result.redactions],
        )

    def test_spans_without_offsets_are_found_in_the_answer(self) -> None:
        """A custom check's findings with spans but no offsets are located by text."""
        result = _redacted(
            ["Fine here. WRONG there.\nFine again."], grounding_check=forbid("WRONG")
        )
        assert "Fine here.\nFine again." == result.answer
        assert [(11, 23)] == [
            removed.span for removed in result.redactions
        ]  # 11 = len("Fine here. ")

    def test_a_finding_that_cannot_be_located_removes_everything(self) -> None:
        """No spans: the failure may be anywhere, so nothing is kept."""

        def nowhere(query: str, chunks: Sequence[str], answer: str) -> GroundingResult:
            return GroundingResult(False, (GroundingFinding("X001", "somewhere"),))

        result = _redacted(["One. Two."], grounding_check=nowhere)
        assert ("", 2) == (result.answer, len(result.redactions))

    def test_the_redacted_text_is_checked_again(self) -> None:
        """A sentence that fails once another is gone is removed too (no finding named)."""

        def dangling(query: str, chunks: Sequence[str], answer: str) -> GroundingResult:
            findings = []
            if "WRONG" in answer:
                at = answer.index("WRONG")
                findings.append(GroundingFinding("X001", "wrong", ("WRONG",), ((at, at + 5),)))
            if "Therefore" in answer and "Because" not in answer:
                at = answer.index("Therefore")
                findings.append(
                    GroundingFinding("X002", "dangling", ("Therefore",), ((at, at + 9),))
                )
            return GroundingResult(not findings, tuple(findings))

        result = _redacted(["Intro. Because WRONG. Therefore fine."], grounding_check=dangling)
        assert "Intro." == result.answer
        because = len("Intro. ")  # 7
        therefore = because + len("Because WRONG. ")  # 22
        assert [
            (because, because + len("Because WRONG.")),
            (therefore, therefore + len("Therefore fine.")),
        ] == [removed.span for removed in result.redactions]
        assert (("X001",), ()) == tuple(
            tuple(f.code for f in removed.findings) for removed in result.redactions
        )

    def test_an_async_check_judges_the_redaction(self) -> None:
        """relapse.arun awaits the check on the redacted text too."""

        async def check(query: str, chunks: Sequence[str], answer: str) -> GroundingResult:
            return default_grounding_check(query, chunks, answer)

        async def llm(prompt: str) -> str:
            return ANSWER

        result = asyncio.run(
            relapse.arun(
                QUERY,
                DOCS,
                call_llm=llm,
                grounding_check=check,
                on_exhausted="redact",
                max_iterations=1,
            )
        )
        assert (f"{BIG} {DATE}", "redacted") == (result.answer, result.outcome)

    def test_redacted_is_the_call_span_outcome(self) -> None:
        """The call span reports relapse.outcome = 'redacted'; the re-check makes no span."""
        with capture_spans() as spans:
            _redacted([ANSWER], tracer_provider=spans.provider)
            (call,) = [s for s in spans.spans if s.name.startswith("relapse ")]
            assert "redacted" == call.attributes["relapse.outcome"]  # type: ignore[index]
            assert 1 == sum(s.name == "relapse.check" for s in spans.spans)

    def test_raise_is_not_redact(self) -> None:
        """redact_marker without on_exhausted='redact' is refused, naming both."""
        with pytest.raises(ValueError, match=r"redact_marker .* on_exhausted is 'return'"):
            relapse.run(QUERY, DOCS, call_llm=ScriptedLLM([ANSWER]), redact_marker="[x]")
        with pytest.raises(TypeError, match="redact_marker must be a str or None, got int"):
            _redacted([ANSWER], redact_marker=3)


class TestResponses:
    """The decorated call returns the function's own type, rebuilt around the redacted text."""

    def _call(self, response: object) -> object:
        @relapse.grounded(chunks_arg="docs", on_exhausted="redact", max_iterations=1)
        def answer(query: str, docs: Sequence[str]) -> object:
            return response

        return answer(QUERY, DOCS)

    def test_a_dict(self) -> None:
        """The answer key is replaced; the other keys are kept; the original is untouched."""
        original = {"answer": ANSWER, "sources": ["d1"]}
        assert {"answer": f"{BIG} {DATE}", "sources": ["d1"]} == self._call(original)
        assert ANSWER == original["answer"]

    def test_a_chat_completion(self) -> None:
        """choices[0].message.content is replaced, on a copy of the same type."""
        got = self._call(chat_completion(ANSWER, 10, 5))
        assert type(chat_completion("")) is type(got)
        assert f"{BIG} {DATE}" == got.choices[0].message.content  # type: ignore[attr-defined]
        assert 15 == got.usage.total_tokens  # type: ignore[attr-defined]

    def test_a_responses_object_of_one_part(self) -> None:
        """Its one output_text part is replaced: output_text reads the redacted text."""
        got = self._call(responses_response(ANSWER))
        assert f"{BIG} {DATE}" == got.output_text  # type: ignore[attr-defined]

    def test_messages(self) -> None:
        """An Anthropic message of one text block, a LangChain message of a str."""
        got = self._call(Message([TextBlock(ANSWER)]))
        assert f"{BIG} {DATE}" == got.content[0].text  # type: ignore[attr-defined]
        assert f"{BIG} {DATE}" == self._call(AIMessage(ANSWER)).content  # type: ignore[attr-defined]

    def test_two_text_parts_cannot_be_rebuilt(self) -> None:
        """Where the cut falls between parts is unknown: the caller gets the text."""
        split = Message([TextBlock(f"{BIG} "), TextBlock(f"{BAD} {DATE}")])
        assert f"{BIG} {DATE}" == self._call(split)

    def test_a_stream_becomes_one_piece(self) -> None:
        """A generator function's caller iterates the redacted text as one piece."""

        @relapse.grounded(chunks_arg="docs", on_exhausted="redact", max_iterations=1)
        def answer(query: str, docs: Sequence[str]) -> Any:
            yield f"{BIG} "
            yield f"{BAD} {DATE}"

        assert [f"{BIG} {DATE}"] == list(answer(QUERY, DOCS))

    def test_an_openai_stream_stays_chunks(self) -> None:
        """The real SDK's Stream: the caller reads one ChatCompletionChunk of the redacted text."""
        server = Server(ANSWER)
        sdk = client(server)

        @relapse.grounded(chunks_arg="docs", on_exhausted="redact", max_iterations=1)
        def answer(query: str, docs: Sequence[str]) -> openai.Stream[ChatCompletionChunk]:
            return sdk.chat.completions.create(
                model="m", messages=[{"role": "user", "content": query}], stream=True
            )

        with answer(QUERY, DOCS) as stream:
            (chunk,) = list(stream)
        # The first chunk carrying text ("The ") is the model; its copy carries the text.
        assert isinstance(chunk, ChatCompletionChunk)
        assert (f"{BIG} {DATE}", None) == (chunk.choices[0].delta.content, chunk.usage)
        assert (f"{BIG} {DATE}", "redacted") == (stream.result.answer, stream.result.outcome)

    def test_events_before_the_text_are_kept_those_after_it_are_not(self) -> None:
        """Anthropic events: message_start, content_block_start, ping, then one text delta."""
        events = anthropic_events(f"{BIG} ", f"{BAD} {DATE}", given=25, made=9)

        @relapse.grounded(chunks_arg="docs", on_exhausted="redact", max_iterations=1)
        def answer(query: str, docs: Sequence[str]) -> Any:
            yield from events

        got = list(answer(QUERY, DOCS))
        assert [*events[:3], "content_block_delta"] == [*got[:3], got[3].type]
        assert 4 == len(got)
        assert f"{BIG} {DATE}" == got[3].delta.text
        assert f"{BIG} " == events[3].delta.text  # the provider's event is left alone

    def test_a_closing_event_repeating_the_text_is_not_replayed(self) -> None:
        """OpenAI Responses: response.completed holds the whole original answer; it is dropped."""
        events = [
            ResponseEvent("response.created"),
            ResponseEvent("response.output_text.delta", delta=f"{BIG} {BAD} "),
            ResponseEvent("response.output_text.delta", delta=DATE),
            ResponseEvent("response.completed", response=responses_response(ANSWER, 30, 12)),
        ]

        @relapse.grounded(chunks_arg="docs", on_exhausted="redact", max_iterations=1)
        def answer(query: str, docs: Sequence[str]) -> Any:
            yield from events

        created, delta = answer(QUERY, DOCS)
        assert created is events[0]
        assert ("response.output_text.delta", f"{BIG} {DATE}") == (delta.type, delta.delta)

    def test_rebuilt_needs_the_copy_to_read_back(self) -> None:
        """A copy the reader does not read as the new text is refused (None)."""
        assert None is rebuilt({"answer": ANSWER}, "new", lambda response: "other")
        assert "new" == rebuilt(ANSWER, "new", lambda response: "other")


# Sentences whose claims the chunks support, and sentences whose claims they do not.
SUPPORTED = (
    "The depot stores 40 buses.",
    "It opened on 3 March 1998.",
    "It is a depot for buses.",
    "Buses are parked there.",
)
UNSUPPORTED = (
    "It stores 45 buses.",
    "It opened on 4 March 1997.",
    "It cost $12 million.",
    'The mayor called it "the finest depot in the land".',
    "About 70% of routes start there.",
)


@st.composite
def failing_answers(draw: st.DrawFn) -> str:
    """An answer of supported and unsupported sentences, at least one of each."""
    good = draw(st.lists(st.sampled_from(SUPPORTED), min_size=1, max_size=4))
    bad = draw(st.lists(st.sampled_from(UNSUPPORTED), min_size=1, max_size=4))
    sentences = draw(st.permutations(good + bad))
    separators = draw(st.lists(st.sampled_from([" ", "\n", "  "]), min_size=len(sentences)))
    return "".join(s + sep for s, sep in zip(sentences, separators, strict=False)).strip()


class TestProperties:
    @settings(max_examples=examples(60), deadline=None)
    @given(failing_answers(), st.sampled_from([None, "[unsupported]"]))
    def test_the_redacted_answer_passes_the_check(self, answer: str, marker: str | None) -> None:
        """A generated failing answer's redaction passes the check; exactly the bad sentences go."""
        assert not default_grounding_check(QUERY, DOCS, answer).ok
        result = _redacted([answer], redact_marker=marker)
        assert "redacted" == result.outcome
        assert default_grounding_check(QUERY, DOCS, result.answer).ok
        removed = sorted(answer[slice(*r.span)] for r in result.redactions)
        assert sorted(s for s in UNSUPPORTED for _ in range(answer.count(s))) == removed
        kept = [s for s in SUPPORTED for _ in range(answer.count(s))]
        assert sorted(kept) == sorted(s for s in SUPPORTED for _ in range(result.answer.count(s)))
