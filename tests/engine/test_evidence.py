"""relapse.Evidence through the loop: chunk ids, records, results, composition, citation markers."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

import relapse
from relapse import Evidence, GroundingResult
from relapse._read.chunks import ChunkText, chunk_id_of, chunk_texts
from relapse.checks import all_of
from relapse.testing import ScriptedLLM

CHUNKS = [
    {"text": "The depot stores 40 buses.", "id": "depot"},
    {"text": "It opened in 1998 with 40 bays.", "metadata": {"source": "history.pdf"}},
]
ANSWER = "It stores 40 buses since 1998."


def pointing(query: str, chunks: Sequence[str], answer: str) -> GroundingResult:
    """A check supplying evidence without ids: 40 in both chunks, 1998 in the second."""
    forty = (answer.index("40"), answer.index("40") + 2)
    year = (answer.index("1998"), answer.index("1998") + 4)
    return GroundingResult(
        True,
        (),
        (
            Evidence("number", forty, 0, (17, 19)),  # len("The depot stores ") = 17
            Evidence("number", forty, 1, (23, 25)),  # len("It opened in 1998 with ") = 23
            Evidence("date", year, 1, (13, 17)),  # len("It opened in ") = 13
        ),
    )


class TestChunkIds:
    def test_ids_of_mappings_and_documents(self) -> None:
        """Mappings (id, doc_id, node_id, metadata source); LangChain and LlamaIndex documents."""
        pytest.importorskip(
            "langchain_core", reason="the langchain extra: pip install 'relapse[langchain]'"
        )
        pytest.importorskip(
            "llama_index.core", reason="the llamaindex extra: pip install 'relapse[llamaindex]'"
        )
        from langchain_core.documents import Document
        from llama_index.core.schema import NodeWithScore, TextNode

        assert ["a", "b", "c", "d.pdf", "7", None, None] == [
            chunk_id_of({"text": "x", "id": "a"}),
            chunk_id_of({"text": "x", "doc_id": "b"}),
            chunk_id_of({"text": "x", "node_id": "c"}),
            chunk_id_of({"text": "x", "metadata": {"source": "d.pdf"}}),
            chunk_id_of({"text": "x", "id": 7}),
            chunk_id_of({"text": "x", "id": True}),  # a bool is no id
            chunk_id_of("plain text"),
        ]
        assert "lc-1" == chunk_id_of(Document(page_content="x", id="lc-1"))
        assert "web.html" == chunk_id_of(
            Document(page_content="x", metadata={"source": "web.html"})
        )
        node = TextNode(text="x", id_="node-9")
        assert ("node-9", "node-9") == (chunk_id_of(node), chunk_id_of(NodeWithScore(node=node)))

    def test_chunk_texts_carry_the_ids(self) -> None:
        """The texts are str (equal to the text) and remember their chunk's id."""
        texts = chunk_texts(CHUNKS)
        assert ["The depot stores 40 buses.", "It opened in 1998 with 40 bays."] == texts
        assert isinstance(texts[0], ChunkText)
        assert ["depot", "history.pdf"] == [chunk_id_of(text) for text in texts]


class TestThroughTheLoop:
    def test_the_loop_names_the_chunks(self) -> None:
        """A check's evidence without ids gets its chunk's id; record and result hold it."""
        result = relapse.run("q", CHUNKS, call_llm=ScriptedLLM([ANSWER]), grounding_check=pointing)
        assert ["depot", "history.pdf", "history.pdf"] == [e.chunk_id for e in result.evidence]
        assert result.transcript[0].evidence == result.evidence

    def test_a_check_without_evidence_gives_none(self) -> None:
        """The loop never requires evidence: an empty tuple."""
        result = relapse.run(
            "q",
            CHUNKS,
            call_llm=ScriptedLLM([ANSWER]),
            grounding_check=lambda q, c, a: GroundingResult(True),
        )
        assert () == result.evidence

    def test_all_of_merges_evidence_in_answer_order(self) -> None:
        """Both parts' evidence, once each, sorted by answer offsets."""
        none = lambda query, chunks, answer: GroundingResult(True)  # noqa: E731
        verdict = all_of(none, pointing)("q", chunk_texts(CHUNKS), ANSWER)
        assert [(10, 12), (10, 12), (25, 29)] == [e.answer_span for e in verdict.evidence]


class TestCitations:
    def test_markers_after_each_claim(self) -> None:
        """'40' is in chunks 0 and 1: [1][2]; '1998' in chunk 1: [2]."""
        verdict = pointing("q", [], ANSWER)
        assert "It stores 40[1][2] buses since 1998[2]." == relapse.cite(ANSWER, verdict.evidence)

    def test_the_list_of_claims(self) -> None:
        """One (claim, number, chunk, offsets) per evidence item, in answer order."""
        verdict = pointing("q", [], ANSWER)
        assert [
            ("40", 1, 0, None, (17, 19)),
            ("40", 2, 1, None, (23, 25)),
            ("1998", 2, 1, None, (13, 17)),
        ] == [tuple(c) for c in relapse.citations(ANSWER, verdict.evidence)]

    def test_evidence_of_another_answer_is_refused(self) -> None:
        """Offsets past the answer's end name the argument and the lengths."""
        with pytest.raises(ValueError, match=r"evidence\[0\].answer_span \(10, 12\) is outside"):
            relapse.cite("short", pointing("q", [], ANSWER).evidence)
        with pytest.raises(TypeError, match=r"evidence\[0\] is str; expected relapse.Evidence"):
            relapse.cite("short", ["x"])  # type: ignore[list-item]
