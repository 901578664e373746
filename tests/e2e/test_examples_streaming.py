"""examples/streaming/, run as a user would: llama-cpp-python's server, the bundled model."""

from __future__ import annotations

import ast
import re

import pytest

from examples_runner import run_example
from llama_server import MODEL, LlamaServer


@pytest.mark.slow
def test_openai_stream_example(llama_server: LlamaServer) -> None:
    """What was printed is what the attempts released, and the result says how it ended."""
    output = run_example(
        "../streaming/openai_stream.py", OPENAI_BASE_URL=llama_server.base_url, RELAPSE_MODEL=MODEL
    )
    lines = output.splitlines()
    printed, attempts, summary = lines[0], lines[1:-1], lines[-1]
    found = [re.fullmatch(r"attempt \d: released (.*) \[[-A-Z0-9,]+\]", a) for a in attempts]
    assert attempts, output
    assert all(found), output
    released = [ast.literal_eval(m.group(1)) for m in found if m]
    # The reader saw exactly the concatenation of what each attempt released.
    assert printed.strip() == "".join(released).strip()
    assert re.fullmatch(
        r"grounded: (True|False) \(\w+\), first piece after \d+\.\d\d s", summary
    ), output


def test_langchain_stream_example() -> None:
    """The reader sees the first sentence and the retry's; the failing one and its tail never."""
    printed, counts = run_example("../streaming/langchain_stream.py").splitlines()
    first = "It opened to traffic on May 27, 1937. "
    retry = "Its main span is 1,280 metres long."
    assert first + retry == printed
    found = re.fullmatch(r"(\d+) AIMessageChunks shown, (\d+) tokens generated", counts)
    assert found is not None, counts
    # GenericFakeChatModel streams each word and each space as a chunk.
    shown, generated = int(found.group(1)), int(found.group(2))
    assert 2 * 8 + (2 * 7 - 1) == shown
    # Both answers whole would be 35 + 13 tokens: the first was closed before its end.
    first_answer = "It opened to traffic on May 27, 1937. Its main span is 2,000 metres long."
    assert len(first_answer.split()) * 2 + 2 * 7 - 1 <= generated < (2 * 18 - 1) + (2 * 7 - 1)


def test_llamaindex_stream_example() -> None:
    """Nodes before the first token; the reader sees the first sentence and the retry's."""
    pytest.importorskip(
        "llama_index.core", reason="the llamaindex extra: pip install 'relapse[llamaindex]'"
    )
    # The first answer is 8 + 7 + 3 words, the retry 7. The failing second
    # sentence is judged once the third begins: its stream was closed after
    # that sentence's first word, "is orange." never generated.
    lines = run_example("../streaming/llamaindex_stream.py").splitlines()
    assert [
        "1 source node(s) before the first token",
        "It opened to traffic on May 27, 1937. Its main span is 1,280 metres long.",
        f"recovered: 2 attempts, {8 + 7 + 1 + 7} words generated",
    ] == lines
