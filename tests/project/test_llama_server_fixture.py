"""The local-server fixture fails loudly, with the server's output, when the server cannot start."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from llama_server import llama_server


def test_server_that_cannot_start_fails_the_test(tmp_path: Path) -> None:
    """A missing model file ends in pytest.fail naming the exit and the server's own error."""
    # Looked up, not imported: importing llama_cpp loads the runtime into pytest.
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("the server extra: pip install 'relapse[server]'")
    missing = tmp_path / "no-such-model.gguf"
    with pytest.raises(pytest.fail.Exception) as failed, llama_server(model=missing):
        pytest.fail("the server started without a model")  # pragma: no cover
    message = str(failed.value)
    assert "llama_cpp.server exited with" in message
    assert "before it was ready" in message
    assert "no-such-model.gguf" in message
