"""The default ``answer_of``: the answer text of each return shape, and clear errors."""

from __future__ import annotations

import re
from typing import Any

import pytest

from relapse import default_answer_of
from sdk_shapes import (
    AIMessage,
    ChatCompletion,
    ChatCompletionMessage,
    Choice,
    Completion,
    CompletionChoice,
    LlamaResponse,
    Message,
    TextBlock,
    ToolUseBlock,
    chat_completion,
    responses_response,
)


class Gemini:
    """google.genai's GenerateContentResponse: ``text`` is a property there."""

    text = "Gemini says 1889."


class TestShapes:
    @pytest.mark.parametrize(
        ("result", "expected"),
        [
            ("It opened in 1889.", "It opened in 1889."),
            (chat_completion("Chat says 1889."), "Chat says 1889."),
            (Completion([CompletionChoice("Completion says 1889.")]), "Completion says 1889."),
            (responses_response("Responses says 1889."), "Responses says 1889."),
            (
                Message(
                    [TextBlock("Claude "), ToolUseBlock("search", {}), TextBlock("says 1889.")]
                ),
                "Claude says 1889.",
            ),
            (AIMessage("LangChain says 1889."), "LangChain says 1889."),
            (
                AIMessage(["LangChain ", {"type": "text", "text": "parts say 1889."}]),
                "LangChain parts say 1889.",
            ),
            (LlamaResponse("LlamaIndex says 1889."), "LlamaIndex says 1889."),
            (Gemini(), "Gemini says 1889."),
        ],
        ids=[
            "str",
            "openai-chat",
            "openai-completions",
            "openai-responses",
            "anthropic-message",
            "langchain-str",
            "langchain-parts",
            "llamaindex-response",
            "text-attribute",
        ],
    )
    def test_reads_the_text_of(self, result: Any, expected: str) -> None:
        """Each supported return shape yields exactly its answer text."""
        assert expected == default_answer_of(result)

    @pytest.mark.parametrize("key", ["answer", "output", "text", "content", "result"])
    def test_reads_a_mapping_key(self, key: str) -> None:
        """A mapping's answer key is read, whatever else the mapping holds."""
        assert "From the dict." == default_answer_of({"sources": [1, 2], key: "From the dict."})

    def test_answer_key_comes_first(self) -> None:
        """With several answer keys, the first in documented order wins."""
        result = {"result": "last", "text": "middle", "answer": "first"}
        assert "first" == default_answer_of(result)

    def test_reads_a_response_under_an_answer_key(self) -> None:
        """``{"answer": <ChatCompletion>}``: the value is read by the same rules."""
        assert "Nested." == default_answer_of({"answer": chat_completion("Nested.")})

    def test_reads_the_json_form_of_a_chat_completion(self) -> None:
        """``ChatCompletion.model_dump()``, a raw HTTP body, is read like the object."""
        body = {"object": "chat.completion", "choices": [{"message": {"content": "JSON."}}]}
        assert "JSON." == default_answer_of(body)

    def test_refusal_is_the_answer_when_content_is_none(self) -> None:
        """An OpenAI refusal has no content but a refusal text, which is what is checked."""
        refused = ChatCompletion([Choice(ChatCompletionMessage(None, refusal="I can't."))])
        assert "I can't." == default_answer_of(refused)

    def test_empty_string_content_is_an_answer(self) -> None:
        """An empty answer is text (the check decides what it is worth), not an error."""
        assert "" == default_answer_of(chat_completion(""))


class TestErrors:
    def test_unknown_shape_names_type_shapes_and_answer_of(self) -> None:
        """Anything else: a TypeError naming the type, the shapes tried and ``answer_of=``."""

        class Opaque:
            pass

        with pytest.raises(TypeError) as caught:
            default_answer_of(Opaque())
        message = str(caught.value)
        assert message.startswith("cannot read the answer text of a Opaque;")
        for shape in ("str", "choices[0].message.content", "output_text", "Anthropic Message"):
            assert shape in message
        assert "'answer', 'output', 'text', 'content', 'result'" in message
        assert message.endswith("pass answer_of=callable(result) -> str")

    @pytest.mark.parametrize(
        "result",
        [None, 42, b"bytes", {"sources": ["a"]}, ["a list"], {"answer": None}],
        ids=["none", "int", "bytes", "dict-without-answer", "list", "answer-none"],
    )
    def test_refuses(self, result: object) -> None:
        """Values that are no answer are refused by name, never turned into text."""
        name = re.escape(type(result).__name__)
        with pytest.raises(TypeError, match=rf"^cannot read the answer text of a {name};"):
            default_answer_of(result)

    def test_tool_call_is_not_an_answer(self) -> None:
        """A chat completion that called a tool has no text: said so, not read as empty."""
        called = ChatCompletion([Choice(ChatCompletionMessage(None, tool_calls=[{"id": "1"}]))])
        with pytest.raises(
            TypeError,
            match=r"^ChatCompletion\.choices\[0\]\.message\.content is NoneType \(the model"
            r" called a tool\), not text; pass answer_of=",
        ):
            default_answer_of(called)

    def test_message_of_tool_use_only_is_not_an_answer(self) -> None:
        """An Anthropic message without a text block names the blocks it has."""
        with pytest.raises(
            TypeError, match=r"^Message\.content holds no text part \(its parts: tool_use\)"
        ):
            default_answer_of(Message([ToolUseBlock("search", {"q": "x"})]))

    def test_empty_llamaindex_response(self) -> None:
        """A LlamaIndex query engine that produced no answer says so."""
        with pytest.raises(TypeError, match=r"^LlamaResponse\.response is None"):
            default_answer_of(LlamaResponse(None))
