"""
Hand-built stand-ins for the SDK and framework objects relapse reads by duck typing.

Each class has the attribute names and nesting of the real one (OpenAI,
Anthropic, LangChain, LlamaIndex, Haystack; names as of their 2025 releases),
and nothing else, so the tests prove relapse needs no SDK installed. Class
names match the real ones, since error messages name the type.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# OpenAI Chat Completions / Completions ---------------------------------------


@dataclass
class CompletionUsage:
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


@dataclass
class ChatCompletionMessage:
    content: str | None
    role: str = "assistant"
    refusal: str | None = None
    tool_calls: list[Any] | None = None


@dataclass
class Choice:
    message: ChatCompletionMessage
    index: int = 0
    finish_reason: str = "stop"


@dataclass
class ChatCompletion:
    choices: list[Choice]
    usage: CompletionUsage | None = None
    object: str = "chat.completion"
    model: str = "gpt-test"


def chat_completion(text: str | None, prompt: int = 0, completion: int = 0) -> ChatCompletion:
    """A ChatCompletion answering ``text``, with usage when token counts are given."""
    usage = CompletionUsage(prompt, completion, prompt + completion) if prompt else None
    return ChatCompletion([Choice(ChatCompletionMessage(text))], usage)


@dataclass
class CompletionChoice:
    text: str
    index: int = 0
    finish_reason: str = "stop"


@dataclass
class Completion:
    choices: list[CompletionChoice]
    usage: CompletionUsage | None = None
    object: str = "text_completion"


@dataclass
class ChoiceDelta:
    content: str | None = None
    role: str | None = None


@dataclass
class ChunkChoice:
    delta: ChoiceDelta
    index: int = 0
    finish_reason: str | None = None


@dataclass
class ChatCompletionChunk:
    choices: list[ChunkChoice]
    usage: CompletionUsage | None = None
    object: str = "chat.completion.chunk"


def chat_chunks(*texts: str, prompt: int = 0, completion: int = 0) -> list[ChatCompletionChunk]:
    """A chat stream: a role chunk, one chunk per text, and a final usage chunk when counted."""
    chunks = [ChatCompletionChunk([ChunkChoice(ChoiceDelta(role="assistant"))])]
    chunks += [ChatCompletionChunk([ChunkChoice(ChoiceDelta(text))]) for text in texts]
    if prompt:
        chunks.append(
            ChatCompletionChunk([], CompletionUsage(prompt, completion, prompt + completion))
        )
    return chunks


# OpenAI Responses ------------------------------------------------------------


@dataclass
class ResponseUsage:
    input_tokens: int
    output_tokens: int
    total_tokens: int


@dataclass
class Response:
    """openai.types.responses.Response: ``output_text`` is a property there."""

    output: list[Any]
    usage: ResponseUsage | None = None
    object: str = "response"

    @property
    def output_text(self) -> str:
        return "".join(
            part["text"]
            for item in self.output
            for part in item["content"]
            if part["type"] == "output_text"
        )


def responses_response(text: str, given: int = 0, made: int = 0) -> Response:
    item = {"type": "message", "content": [{"type": "output_text", "text": text}]}
    return Response([item], ResponseUsage(given, made, given + made) if given else None)


@dataclass
class ResponseEvent:
    """The Responses stream events: ``type`` plus the fields of that type."""

    type: str
    delta: str | None = None
    response: Response | None = None
    sequence_number: int = 0


# Anthropic -------------------------------------------------------------------


@dataclass
class TextBlock:
    text: str
    type: str = "text"


@dataclass
class ToolUseBlock:
    name: str
    input: dict[str, Any]
    type: str = "tool_use"


@dataclass
class AnthropicUsage:
    input_tokens: int | None
    output_tokens: int
    cache_creation_input_tokens: int | None = None
    cache_read_input_tokens: int | None = None


@dataclass
class Message:
    content: list[Any]
    usage: AnthropicUsage | None = None
    type: str = "message"
    role: str = "assistant"


@dataclass
class TextDelta:
    text: str
    type: str = "text_delta"


@dataclass
class AnthropicEvent:
    """The Anthropic raw stream events: ``type`` plus the fields of that type."""

    type: str
    message: Message | None = None
    delta: Any = None
    usage: AnthropicUsage | None = None
    index: int = 0


def anthropic_events(*texts: str, given: int, made: int) -> list[AnthropicEvent]:
    """An Anthropic stream as the API sends it, with cumulative usage."""
    return [
        AnthropicEvent("message_start", message=Message([], AnthropicUsage(given, 1))),
        AnthropicEvent("content_block_start"),
        AnthropicEvent("ping"),
        *(AnthropicEvent("content_block_delta", delta=TextDelta(text)) for text in texts),
        AnthropicEvent("content_block_stop"),
        AnthropicEvent("message_delta", usage=AnthropicUsage(None, made)),
        AnthropicEvent("message_stop"),
    ]


# LangChain, LlamaIndex, Haystack ---------------------------------------------


@dataclass
class AIMessage:
    """langchain_core.messages.AIMessage (its ``type`` is ``"ai"``)."""

    content: Any
    usage_metadata: dict[str, int] | None = None
    type: str = "ai"


@dataclass
class AIMessageChunk:
    content: Any
    usage_metadata: dict[str, int] | None = None
    type: str = "AIMessageChunk"


@dataclass
class Document:
    """langchain_core.documents.Document."""

    page_content: Any
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass
class TextNode:
    """llama_index.core.schema.TextNode: ``get_content()`` returns the text."""

    text: str
    metadata: dict[str, Any] = field(default_factory=dict)

    def get_content(self, metadata_mode: str = "none") -> str:
        return self.text


@dataclass
class NodeWithScore:
    node: TextNode
    score: float | None = None

    def get_content(self, metadata_mode: str = "none") -> str:
        return self.node.get_content(metadata_mode)


@dataclass
class LlamaResponse:
    """llama_index.core.base.response.schema.Response."""

    response: str | None
    source_nodes: list[NodeWithScore] = field(default_factory=list)
    metadata: dict[str, Any] | None = None


@dataclass
class HaystackDocument:
    """haystack.Document: ``content`` is None for a document holding only a blob."""

    content: str | None
    id: str = "doc-1"
    score: float | None = None
