"""
The kill switch with a real SDK stream (needs the ``openai`` package).

Kept apart from test_any_function.py, whose core tests the release step
runs from the sdist without any extra installed.
"""

from __future__ import annotations

import openai
import pytest
from openai.types.chat import ChatCompletionChunk

import relapse
from openai_scripted import Server, client, text_of

DOCS = ["The tower opened in 1889."]


class TestKillSwitchStreams:
    def test_the_environment_variable_keeps_an_sdk_stream_a_grounded_stream(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """RELAPSE_ENABLED=0: the real openai Stream comes back as a GroundedStream of chunks."""
        monkeypatch.setenv("RELAPSE_ENABLED", "0")
        server = Server("It opened in 1999.")
        sdk = client(server)

        @relapse.grounded(chunks_arg="docs", release="sentence")
        def answer(query: str, docs: list[str]) -> openai.Stream[ChatCompletionChunk]:
            return sdk.chat.completions.create(
                model="m", messages=[{"role": "user", "content": query}], stream=True
            )

        with answer("When?", DOCS) as stream:
            chunks = list(stream)
        assert isinstance(stream, relapse.GroundedStream)
        assert all(isinstance(chunk, ChatCompletionChunk) for chunk in chunks)
        assert "It opened in 1999." == text_of(chunks)
        assert ("disabled", tuple(chunks)) == (stream.result.outcome, stream.response.pieces)
