"""Chunks as frameworks give them, and the ready-made ``relapse.chunks_from`` readers."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import relapse
from contract_cases import DOCS
from helpers import forbid
from relapse._read.chunks import chunk_texts
from sdk_shapes import Document, HaystackDocument, LlamaResponse, NodeWithScore, TextNode


class TestChunkShapes:
    @pytest.mark.parametrize(
        ("chunk", "expected"),
        [
            ("plain", "plain"),
            ({"text": "from text"}, "from text"),
            ({"page_content": "from page_content", "metadata": {}}, "from page_content"),
            ({"content": "from content", "meta": {}}, "from content"),
            (Document("LangChain document."), "LangChain document."),
            (NodeWithScore(TextNode("LlamaIndex node."), 0.8), "LlamaIndex node."),
            (TextNode("LlamaIndex text node."), "LlamaIndex text node."),
            (HaystackDocument("Haystack document."), "Haystack document."),
        ],
        ids=[
            "str",
            "mapping-text",
            "mapping-page_content",
            "mapping-content",
            "langchain-document",
            "llamaindex-node-with-score",
            "llamaindex-text-node",
            "haystack-document",
        ],
    )
    def test_reads_the_text_of(self, chunk: object, expected: str) -> None:
        """Each chunk shape yields its text, with no framework installed."""
        assert [expected] == chunk_texts([chunk], "docs")

    def test_mapping_key_order(self) -> None:
        """A mapping with several text keys is read by 'text' first, then 'page_content'."""
        both = {"content": "third", "page_content": "second", "text": "first"}
        assert ["first", "second"] == chunk_texts(
            [both, {"content": "x", "page_content": "second"}]
        )

    def test_a_node_object_with_only_text(self) -> None:
        """An object exposing just ``text`` (a LlamaIndex node without get_content) is read."""

        class Node:
            text = "bare text"

        assert ["bare text"] == chunk_texts([Node()])

    @pytest.mark.parametrize(
        ("chunks", "message"),
        [
            (
                ["ok", 3.5],
                r"^docs\[1\] is float; expected str or a mapping with a 'text', 'page_content'"
                r" or 'content' key, or a document: page_content \(LangChain Document\),"
                r" get_content\(\) or text \(LlamaIndex NodeWithScore, TextNode\) or content"
                r" \(Haystack Document\)$",
            ),
            (
                [HaystackDocument(None)],
                r"^docs\[0\] is a HaystackDocument whose content is NoneType;",
            ),
            (
                [Document(b"raw")],
                r"^docs\[0\] is a Document whose page_content is bytes; expected str",
            ),
            (
                [{"page_content": 7}],
                r"^docs\[0\] is a mapping whose 'page_content' is int; expected str",
            ),
            (
                Document("one"),
                r"^docs must be .* got a single Document \(wrap it in a list: \[document\]\)",
            ),
        ],
        ids=[
            "unsupported-item",
            "haystack-no-text",
            "langchain-bytes",
            "mapping-int",
            "single-document",
        ],
    )
    def test_unsupported_chunks_are_named(self, chunks: Any, message: str) -> None:
        """An unsupported chunk fails naming its index, its type and what was expected."""
        with pytest.raises(TypeError, match=message):
            chunk_texts(chunks, "docs")

    def test_decorator_reads_documents_and_fails_before_the_call(self) -> None:
        """Documents reach the check as text; a bad one fails before any model call."""
        calls: list[str] = []

        @relapse.grounded(chunks_arg="docs", grounding_check=forbid("WRONG"))
        def answer(query: str, docs: list[Any]) -> str:
            calls.append(query)
            return "It opened in 1889."

        result = answer.run("When?", [Document("The tower opened in 1889."), TextNode("x")])
        assert (True, ["When?"]) == (result.grounded, calls)
        with pytest.raises(TypeError, match=r"^docs\[1\] is object"):
            answer("When?", [Document("a"), object()])
        assert ["When?"] == calls


class TestChunksFrom:
    def test_llamaindex_reads_source_nodes(self) -> None:
        """``chunks_from.llamaindex`` returns a Response's source nodes, themselves readable."""
        nodes = [NodeWithScore(TextNode("Built in 1889."), 0.9)]
        found = relapse.chunks_from.llamaindex(LlamaResponse("It was 1889.", nodes))
        assert (nodes, ["Built in 1889."]) == (found, chunk_texts(found))

    def test_langchain_reads_context(self) -> None:
        """``chunks_from.langchain`` returns a retrieval chain's ``context`` documents."""
        docs = [Document("Built in 1889.")]
        chain_result = {"input": "When?", "context": docs, "answer": "1889."}
        assert docs is relapse.chunks_from.langchain(chain_result)

    def test_sources_reads_sources(self) -> None:
        """``chunks_from.sources`` returns the ``sources`` of an answer dict."""
        assert ["a", "b"] == relapse.chunks_from.sources({"answer": "x", "sources": ["a", "b"]})

    def test_key_builds_a_reader(self) -> None:
        """``chunks_from.key(name)`` reads any key."""
        reader = relapse.chunks_from.key("documents")
        assert (["d"], "key('documents')") == (reader({"documents": ["d"]}), reader.__qualname__)

    def test_wrong_results_are_named(self) -> None:
        """A result of the wrong shape names the reader, the key and what came back."""
        with pytest.raises(TypeError, match=r"^chunks_from.llamaindex reads .* returned str"):
            relapse.chunks_from.llamaindex("just text")
        with pytest.raises(
            TypeError,
            match=r"^chunks_from reads the chunks under 'context' .* with the keys 'answer'$",
        ):
            relapse.chunks_from.langchain({"answer": "x"})
        with pytest.raises(TypeError, match=r"under 'sources' .* it returned list$"):
            relapse.chunks_from.sources(["a"])
        with pytest.raises(TypeError, match=r"^key\(\) takes the name of a key \(str\), got int"):
            relapse.chunks_from.key(3)  # type: ignore[arg-type]


class _ResultSet:
    """A re-iterable container that is not a Sequence (a database result set)."""

    def __init__(self, rows: list[str]) -> None:
        self.rows = rows

    def __iter__(self) -> Iterator[str]:
        return iter(self.rows)


# Found by hostile testing of the loop's contract.
class TestChunkContainers:
    @pytest.mark.parametrize(
        "chunks",
        [
            {"The depot stores 40 buses."},
            {"The depot stores 40 buses.": 1}.keys(),
            _ResultSet(DOCS),
        ],
        ids=["set", "dict-view", "result-set"],
    )
    def test_re_iterable_containers_are_passed_untouched(self, chunks: Any) -> None:
        """Iteration 1 gets the caller's own object, and so does every retry."""
        received: list[Any] = []

        def llm(query: str) -> str:
            return "WRONG" if len(received) == 1 else "fine"

        @relapse.grounded(chunks_arg="docs", grounding_check=forbid("WRONG"))
        def answer(query: str, docs: Any) -> str:
            received.append(docs)
            return llm(query)

        assert "fine" == answer("q", chunks)
        assert [chunks, chunks] == received
        assert all(r is chunks for r in received)

    def test_generator_is_still_read_once(self) -> None:
        """A one-shot iterator is the only container replaced (by a list)."""
        received: list[Any] = []

        @relapse.grounded(chunks_arg="docs")
        def answer(query: str, docs: Any) -> str:
            received.append(docs)
            return "fine"

        answer("q", (d for d in DOCS))
        assert [DOCS] == received
