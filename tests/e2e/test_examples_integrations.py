"""The runnable examples of docs/integrations/, executed as a user would run them."""

from __future__ import annotations

import importlib.util
import re
from typing import Any

import pytest

from examples_runner import EXAMPLES, run_example
from llama_server import MODEL, LlamaServer


def test_langchain_example() -> None:
    """The fake model's wrong year is rejected (FG002); the chain's dict answer is grounded."""
    assert [
        "attempt 1: 'It opened in 1950.' [FG002]",
        "attempt 2: 'It opened on May 27, 1937.' [-]",
        "answer: It opened on May 27, 1937.",
        "grounded: True (recovered)",
    ] == run_example("langchain_rag.py").splitlines()


def test_langchain_example_prompts_hold_the_texts() -> None:
    """format_docs: the model reads the documents' texts, not reprs; the output keeps Documents."""
    from langchain_core.callbacks import BaseCallbackHandler
    from langchain_core.documents import Document

    spec = importlib.util.spec_from_file_location("langchain_rag", EXAMPLES / "langchain_rag.py")
    assert spec is not None
    assert spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    prompts: list[str] = []

    class Prompts(BaseCallbackHandler):
        def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
            prompts.extend(message.content for batch in messages for message in batch)

    question = "When did the Golden Gate Bridge open?"
    output = example.grounded_rag.invoke({"question": question}, config={"callbacks": [Prompts()]})
    assert 2 == len(prompts)  # the rejected attempt and the retry
    assert (
        "Answer from the context only.\n"
        "Context: The Golden Gate Bridge opened to traffic on May 27, 1937.\n\n"
        "Its main span is 1,280 metres long.\n\n"
        f"Question: {question}"
    ) == prompts[0]
    assert not any("Document(" in p or "page_content" in p for p in prompts)
    assert [Document, Document] == [type(d) for d in output["context"]]
    assert "It opened on May 27, 1937." == output["answer"]


def test_llamaindex_example() -> None:
    """Both ways recover the right date: relapse's engine and LlamaIndex's RetryQueryEngine."""
    pytest.importorskip(
        "llama_index.core", reason="the llamaindex extra: pip install 'relapse[llamaindex]'"
    )
    assert [
        "attempt 1: 'It opened in 1950.' [FG002]",
        "attempt 2: 'It opened on May 27, 1937.' [-]",
        "GroundedQueryEngine: It opened on May 27, 1937. grounded: True (recovered)",
        "RetryQueryEngine + GroundingEvaluator: It opened on May 27, 1937.",
    ] == run_example("llamaindex_rag.py").splitlines()


@pytest.mark.slow
def test_openai_compatible_example(llama_server: LlamaServer) -> None:
    """Against the local server: each question grounded, tokens reported per attempt."""
    output = run_example(
        "openai_compatible.py", OPENAI_BASE_URL=llama_server.base_url, RELAPSE_MODEL=MODEL
    )
    summaries = [line for line in output.splitlines() if not line.startswith("  ")]
    assert 2 == len(summaries), output
    assert all(re.search(r"-> grounded: True \(\w+\), [1-9]\d* tokens$", s) for s in summaries)
    attempts = [line for line in output.splitlines() if line.startswith("  attempt")]
    assert attempts
    assert all(re.search(r"\(\d+ in, \d+ out\)$", a) for a in attempts), output


def test_mcp_client_example() -> None:
    """`relapse mcp` over stdio: the wrong length is rejected naming 1,500, then recovered."""
    pytest.importorskip("mcp", reason="the mcp extra: pip install 'relapse[mcp]'")
    lines = run_example("mcp_client.py").splitlines()
    assert (
        "attempt 1: 'Its main span is 1,500 metres long.' grounded=False spans=['1,500']"
        == lines[0]
    )
    assert lines[1].startswith(
        '  retry note: Your previous answer was rejected: "Its main span is 1,500 metres long."'
    )
    assert [
        "attempt 2: 'Its main span is 1,280 metres long.' grounded=True spans=[]",
        "outcome: recovered, tokens: 890 in, 23 out",
    ] == lines[2:]


def test_pydantic_ai_example() -> None:
    """Attempt 1's tokens are the tool-calling request and the wrong answer: 60+95 in, 8+12 out."""
    pytest.importorskip(
        "pydantic_ai", reason="the pydantic-ai extra: pip install 'relapse[pydantic-ai]'"
    )
    assert [
        "attempt 1: 'Its main span is 1,500 metres long.' spans=['1,500'] (155 in, 20 out)",
        "attempt 2: 'Its main span is 1,280 metres long.' spans=[] (170 in, 11 out)",
        "answer: Its main span is 1,280 metres long.",
        "outcome: recovered, tokens: 325 in, 31 out",
    ] == run_example("pydantic_ai_agent.py").splitlines()


def test_langchain_agent_example() -> None:
    """The middleware's attempts are the final answers: the tool-calling call is the agent's."""
    pytest.importorskip(
        "langchain.agents", reason="the langchain extra: pip install 'relapse[langchain]'"
    )
    assert [
        "attempt 1: 'Its main span is 1,500 metres long.' spans=['1,500'] (95 in, 12 out)",
        "attempt 2: 'Its main span is 1,280 metres long.' spans=[] (170 in, 11 out)",
        "answer: Its main span is 1,280 metres long.",
        "outcome: recovered, tokens: 265 in, 23 out",
    ] == run_example("langchain_agent.py").splitlines()


def test_haystack_example() -> None:
    pytest.importorskip("haystack", reason="the haystack extra: pip install 'relapse[haystack]'")
    assert [
        "attempt 1: 'Its main span is 1,500 metres long.' spans=['1,500'] (95 in, 12 out)",
        "attempt 2: 'Its main span is 1,280 metres long.' spans=[] (170 in, 11 out)",
        "answer: Its main span is 1,280 metres long.",
        "outcome: recovered, tokens: 265 in, 23 out",
    ] == run_example("haystack_pipeline.py").splitlines()
