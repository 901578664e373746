"""relapse.run / relapse.arun: the relapse 0.1.0 API on top of the decorator."""

from __future__ import annotations

from typing import Any

import pytest

import relapse
from helpers import forbid
from relapse.testing import ScriptedLLM

CHUNKS = ["World War II ended in 1945 with the surrender of Japan in September."]


class TestScenariosOf010:
    def test_hallucinating_then_correcting_model_ends_grounded_after_two(self) -> None:
        """A wrong year first, the right one second: grounded, 2 iterations."""
        llm = ScriptedLLM(["The war ended in 1946.", "The war ended in 1945."])
        result = relapse.run("When did WW2 end?", CHUNKS, call_llm=llm, max_iterations=3)
        assert (True, 2, "The war ended in 1945.") == (
            result.grounded,
            result.iterations,
            result.answer,
        )
        assert ["FG002"] == [f.code for f in result.transcript[0].findings]

    def test_stubborn_model_ends_not_grounded_after_max_iterations(self) -> None:
        """The same invented number on every call: not grounded after max_iterations."""
        llm = ScriptedLLM(["About 70 million people died, out of 2300 million."])
        result = relapse.run("How many died?", CHUNKS, call_llm=llm, max_iterations=3)
        assert (False, 3, 3) == (result.grounded, result.iterations, llm.calls)

    def test_clean_model_stops_after_one(self) -> None:
        """A faithful first answer costs one call."""
        llm = ScriptedLLM(["It ended in 1945, when Japan surrendered in September."])
        result = relapse.run("When did WW2 end?", CHUNKS, call_llm=llm)
        assert (True, 1, 1) == (result.grounded, result.iterations, llm.calls)


class TestPrompts:
    def test_first_prompt_holds_context_and_question(self) -> None:
        """call_llm gets a full prompt: instruction, fenced chunks, question, Answer:."""
        llm = ScriptedLLM(["1945"])
        relapse.run("When did WW2 end?", CHUNKS, call_llm=llm)
        prompt = llm.prompts[0]
        assert CHUNKS[0] in prompt
        assert "Question: When did WW2 end?" in prompt
        assert prompt.endswith("Answer:")

    def test_build_prompt_replaces_the_format(self) -> None:
        """A model adapter's build_prompt decides the prompt layout."""
        llm = ScriptedLLM(["1945"])
        relapse.run(
            "When?",
            CHUNKS,
            call_llm=llm,
            build_prompt=lambda q, chunks: f"{len(chunks)}|{q}",
        )
        assert ["1|When?"] == llm.prompts

    def test_chunk_mappings_use_their_text(self) -> None:
        """Mappings with a 'text' key are accepted; their text reaches the LLM."""
        llm = ScriptedLLM(["1945"])
        result = relapse.run("When?", [{"text": CHUNKS[0], "id": 7}], call_llm=llm)
        assert result.grounded
        assert CHUNKS[0] in llm.prompts[0]

    @pytest.mark.parametrize(
        ("chunks", "message"),
        [
            ([CHUNKS[0], 42], r"retrieved_chunks\[1\] is int"),
            ([b"x"], r"retrieved_chunks\[0\] is bytes"),
        ],
    )
    def test_bad_chunk_names_index_and_type(self, chunks: Any, message: str) -> None:
        """Anything but str or a text mapping is a TypeError with index and type."""
        with pytest.raises(TypeError, match=message):
            relapse.run("q", chunks, call_llm=ScriptedLLM(["x"]))

    def test_compress_deduplicates_what_the_llm_sees(self) -> None:
        """compress=True drops duplicate chunks before the first call."""
        llm = ScriptedLLM(["1945"])
        relapse.run("When?", [CHUNKS[0], CHUNKS[0] + "  "], call_llm=llm, compress=True)
        assert 1 == llm.prompts[0].count("World War II ended")

    def test_compressed_evidence_names_the_caller_s_chunks(self) -> None:
        r"""Evidence names the chunk passed (index, id, offsets), not the compressed list's.

        Chunk 1 repeats chunk 0 and is dropped; chunk 2 holds the year after
        collapsed white space. Its offsets, counted by hand in the original
        text: "Opened  in\n\n 1932" puts "1932" at 13..17 (10..14 in the
        compressed "Opened in 1932.", the compressed list's index 1).
        """
        chunks = [
            {"id": "a", "text": "Nothing here."},
            {"id": "b", "text": "Nothing   here."},
            {"id": "c", "text": "Opened  in\n\n 1932."},
        ]
        result = relapse.run(
            "When?", chunks, call_llm=ScriptedLLM(["It opened in 1932."]), compress=True
        )
        (evidence,) = result.evidence
        assert (2, "c", (13, 17)) == (evidence.chunk_index, evidence.chunk_id, evidence.chunk_span)
        assert "1932" == chunks[2]["text"][13:17]
        (citation,) = relapse.citations(result.answer, result.evidence)
        assert ("c", 2) == (citation.chunk_id, citation.chunk_index)

    def test_compressed_chunk_maps_a_span_across_collapsed_white_space(self) -> None:
        """A span over a collapsed run covers the run as the original writes it."""
        (text,) = relapse.default_compress(["  a \t\n b  c"])
        assert "a b c" == text
        # "a b" is original 2..8 ("a \t\n b"); "c" is 10..11; the empty span at 5 is 11.
        assert [(2, 8), (10, 11), (11, 11)] == [
            text.source_span(0, 3),  # type: ignore[attr-defined]
            text.source_span(4, 5),  # type: ignore[attr-defined]
            text.source_span(5, 5),  # type: ignore[attr-defined]
        ]


class TestAsync:
    async def test_arun_matches_run(self) -> None:
        """arun drives the same loop with an async call_llm."""
        llm = ScriptedLLM(["The war ended in 1946.", "The war ended in 1945."])
        result = await relapse.arun("When did WW2 end?", CHUNKS, call_llm=llm.acall)
        assert (True, 2) == (result.grounded, result.iterations)


class TestOptions:
    def test_custom_check_and_raise(self) -> None:
        """grounding_check and on_exhausted are honoured by run()."""
        with pytest.raises(relapse.NotGroundedError):
            relapse.run(
                "q",
                CHUNKS,
                call_llm=ScriptedLLM(["WRONG"]),
                grounding_check=forbid("WRONG"),
                on_exhausted="raise",
                max_iterations=2,
            )

    def test_max_prompt_chars_falls_back_to_spans_only(self) -> None:
        """A retry query over max_prompt_chars quotes the spans, not the answer."""
        long_answer = "WRONG " + "padding " * 200
        llm = ScriptedLLM([long_answer, "ok"])
        relapse.run(
            "q",
            CHUNKS,
            call_llm=llm,
            grounding_check=forbid("WRONG"),
            max_prompt_chars=300,
            build_prompt=lambda q, chunks: q,
        )
        assert "padding" not in llm.prompts[1]
        assert '"WRONG"' in llm.prompts[1]

    def test_compress_budget(self) -> None:
        """default_compress caps the total characters and keeps order."""
        assert ["abc", "de"] == relapse.default_compress(["abc", "abc", "defg"], max_chars=5)
