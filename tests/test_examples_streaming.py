"""examples/streaming/, run as a user would: llama-cpp-python's server, the bundled model."""

from __future__ import annotations

import ast
import re

import pytest

from llama_server import MODEL, LlamaServer
from test_examples_integrations import run_example


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
