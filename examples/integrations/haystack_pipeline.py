"""
Ground a Haystack pipeline's answer with a pipeline loop: runs offline.

The prompt builder, a chat generator and relapse's GroundingChecker form a
loop: a rejected reply sends the retry note back to the prompt. A scripted
generator stands in for yours (its first reply states a length the documents
do not hold, its second is right); swap in OpenAIChatGenerator or any other::

    pip install 'relapse[haystack]'
    python examples/integrations/haystack_pipeline.py
"""

from __future__ import annotations

from typing import Any

from haystack import Document, Pipeline, component
from haystack.components.builders import ChatPromptBuilder
from haystack.dataclasses import ChatMessage

from relapse import Usage
from relapse.integrations.haystack import GroundingChecker

DOCUMENTS = [
    Document(content="The Golden Gate Bridge opened to traffic on May 27, 1937."),
    Document(content="Its main span is 1,280 metres long."),
]
TEMPLATE = [
    ChatMessage.from_user(
        "Answer from the context only.\n"
        "Context: {% for d in documents %}{{ d.content }} {% endfor %}\n"
        "{% if retry_note %}{{ retry_note }}\n{% endif %}Question: {{ query }}"
    )
]


@component
class ScriptedGenerator:
    """A stand-in chat generator: scripted replies, with OpenAI-style token counts."""

    def __init__(self) -> None:
        self.replies = [("Its main span is 1,500 metres long.", 95, 12),
                        ("Its main span is 1,280 metres long.", 170, 11)]  # fmt: skip

    @component.output_types(replies=list[ChatMessage])
    def run(self, messages: list[ChatMessage]) -> dict[str, Any]:
        text, tokens_in, tokens_out = self.replies.pop(0)
        usage = {"prompt_tokens": tokens_in, "completion_tokens": tokens_out}
        return {"replies": [ChatMessage.from_assistant(text, meta={"usage": usage})]}


# max_runs_per_component bounds Haystack's loop; it must allow max_iterations answers.
pipe = Pipeline(max_runs_per_component=3)
builder = ChatPromptBuilder(template=TEMPLATE, required_variables=["query", "documents"])
pipe.add_component("prompt", builder)
pipe.add_component("llm", ScriptedGenerator())
pipe.add_component("check", GroundingChecker(max_iterations=3))
pipe.connect("prompt.prompt", "llm.messages")
pipe.connect("llm.replies", "check.replies")
pipe.connect("check.retry_note", "prompt.retry_note")


def tokens(usage: Usage | None) -> str:
    """``"95 in, 12 out"``, or ``"no tokens"``."""
    return f"{usage.input_tokens} in, {usage.output_tokens} out" if usage else "no tokens"


def main() -> None:
    question = "How long is the main span?"
    given = {"query": question, "documents": DOCUMENTS}
    output = pipe.run({"prompt": given, "check": given})
    result = output["check"]["result"]
    for record in result.transcript:
        spans = [span for f in record.findings for span in f.spans]
        print(
            f"attempt {record.iteration}: {record.answer!r} spans={spans} ({tokens(record.usage)})"
        )
    print(f"answer: {output['check']['replies'][0].text}")
    print(f"outcome: {result.outcome}, tokens: {tokens(result.usage)}")


if __name__ == "__main__":
    main()
