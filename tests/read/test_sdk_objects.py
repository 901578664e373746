"""
The duck-typed readers against the real SDK and framework classes, where installed.

``tests/sdk_shapes.py`` stands in for these classes so the suite needs no SDK;
this file checks, with each package that happens to be installed, that the
real objects have the shapes the stand-ins claim. Skipped per package when it
is absent.
"""

from __future__ import annotations

from typing import Any

import pytest

from relapse import Usage, default_answer_of, default_usage_of
from relapse._read.chunks import chunk_texts
from relapse._read.streams import read_stream


def _openai() -> Any:
    return pytest.importorskip("openai")


class TestOpenAI:
    def test_chat_completion(self) -> None:
        """A real ChatCompletion: text from choices[0].message.content, usage in tokens."""
        _openai()
        from openai.types.chat import ChatCompletion

        response = ChatCompletion.model_validate(
            {
                "id": "c1",
                "object": "chat.completion",
                "created": 0,
                "model": "m",
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": "stop",
                        "message": {"role": "assistant", "content": "It opened in 1889."},
                    }
                ],
                "usage": {"prompt_tokens": 41, "completion_tokens": 7, "total_tokens": 48},
            }
        )
        assert ("It opened in 1889.", Usage(41, 7)) == (
            default_answer_of(response),
            default_usage_of(response),
        )

    def test_completion(self) -> None:
        """A real Completion (the legacy completions endpoint llama.cpp serves)."""
        _openai()
        from openai.types import Completion

        response = Completion.model_validate(
            {
                "id": "c1",
                "object": "text_completion",
                "created": 0,
                "model": "m",
                "choices": [
                    {"index": 0, "finish_reason": "stop", "text": " 1889.", "logprobs": None}
                ],
                "usage": {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15},
            }
        )
        assert (" 1889.", Usage(12, 3)) == (default_answer_of(response), default_usage_of(response))

    def test_responses(self) -> None:
        """A real Responses object: its ``output_text`` property, input/output tokens."""
        _openai()
        from openai.types.responses import Response

        response = Response.model_validate(
            {
                "id": "r1",
                "object": "response",
                "created_at": 0,
                "model": "m",
                "parallel_tool_calls": False,
                "tool_choice": "auto",
                "tools": [],
                "output": [
                    {
                        "type": "message",
                        "id": "m1",
                        "role": "assistant",
                        "status": "completed",
                        "content": [{"type": "output_text", "text": "1889.", "annotations": []}],
                    }
                ],
                "usage": {
                    "input_tokens": 30,
                    "output_tokens": 2,
                    "total_tokens": 32,
                    "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
                    "output_tokens_details": {"reasoning_tokens": 0},
                },
            }
        )
        assert ("1889.", Usage(30, 2)) == (default_answer_of(response), default_usage_of(response))

    def test_chat_stream_chunks(self) -> None:
        """Real ChatCompletionChunks, the last one carrying the usage (include_usage)."""
        _openai()
        from openai.types.chat import ChatCompletionChunk

        def chunk(delta: dict[str, Any], usage: dict[str, int] | None = None) -> Any:
            choices = [{"index": 0, "delta": delta, "finish_reason": None}] if delta else []
            return ChatCompletionChunk.model_validate(
                {
                    "id": "c1",
                    "object": "chat.completion.chunk",
                    "created": 0,
                    "model": "m",
                    "choices": choices,
                    "usage": usage,
                }
            )

        pieces = [
            chunk({"role": "assistant", "content": ""}),
            chunk({"content": "It opened "}),
            chunk({"content": "in 1889."}),
            chunk({}, {"prompt_tokens": 20, "completion_tokens": 5, "total_tokens": 25}),
        ]
        assert ("It opened in 1889.", Usage(20, 5)) == read_stream(pieces)


class TestLangChain:
    def test_messages_and_documents(self) -> None:
        """A real AIMessage (text and usage_metadata) and Document (page_content)."""
        pytest.importorskip("langchain_core")
        from langchain_core.documents import Document
        from langchain_core.messages import AIMessage, AIMessageChunk

        message = AIMessage(
            content=[{"type": "text", "text": "It opened in 1889."}],
            usage_metadata={"input_tokens": 9, "output_tokens": 4, "total_tokens": 13},
        )
        assert ("It opened in 1889.", Usage(9, 4)) == (
            default_answer_of(message),
            default_usage_of(message),
        )
        assert ["The tower opened in 1889."] == chunk_texts(
            [Document(page_content="The tower opened in 1889.")]
        )
        chunks = [AIMessageChunk(content="It "), AIMessageChunk(content="opened.")]
        assert ("It opened.", None) == read_stream(chunks)


class TestLlamaIndex:
    def test_response_and_nodes(self) -> None:
        """A real Response (``response``) and NodeWithScore/TextNode (``get_content()``)."""
        pytest.importorskip("llama_index.core")
        from llama_index.core.base.response.schema import Response
        from llama_index.core.schema import NodeWithScore, TextNode

        node = NodeWithScore(node=TextNode(text="Opened in 1889.", metadata={"page": 3}), score=0.5)
        response = Response(response="1889.", source_nodes=[node])
        assert ("1889.", None) == (default_answer_of(response), default_usage_of(response))
        assert ["Opened in 1889.", "Opened in 1889."] == chunk_texts([node, node.node])
