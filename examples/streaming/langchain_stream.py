"""
A LangChain chain streamed through relapse: its own chunks, as their sentences pass.

Runs offline: langchain-core's ``GenericFakeChatModel`` streams its answers
word by word, as a chat model does, and its first answer gets the span's
length wrong::

    python examples/streaming/langchain_stream.py

With ``release="sentence"``, ``GroundedRunnable.stream`` yields the chain's
own ``AIMessageChunk``s once the sentence they complete passed the check. The
first answer's second sentence fails (the context says 1,280 metres): its
chunks never reach the reader, the model's stream is closed there, and the
retry continues after the sentence already shown.
"""

from __future__ import annotations

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.prompts import ChatPromptTemplate

from relapse.integrations.langchain import GroundedRunnable

DOCS = [
    "The Golden Gate Bridge opened to traffic on May 27, 1937.",
    "Its main span is 1,280 metres long.",
]
QUESTION = "When did the Golden Gate Bridge open, and how long is its main span?"

llm = GenericFakeChatModel(
    messages=iter(
        [
            "It opened to traffic on May 27, 1937. Its main span is 2,000 metres long."
            " It is painted orange.",
            "Its main span is 1,280 metres long.",
        ]
    )
)
prompt = ChatPromptTemplate.from_template(
    "Context: {docs}\n{feedback}\nQuestion: {question}\nAnswer from the context only."
)
grounded = GroundedRunnable(
    prompt | llm, chunks_key="docs", feedback_key="feedback", release="sentence"
)


class Generated(BaseCallbackHandler):
    """Counts the tokens the model generated (a closed stream generates no more)."""

    def __init__(self) -> None:
        self.tokens = 0

    def on_llm_new_token(self, token: str, **kwargs: object) -> None:
        self.tokens += 1


generated = Generated()
chunks = []
for chunk in grounded.stream({"question": QUESTION, "docs": DOCS}, {"callbacks": [generated]}):
    chunks.append(chunk)
    print(chunk.content, end="", flush=True)
print()
print(f"{len(chunks)} {type(chunks[0]).__name__}s shown, {generated.tokens} tokens generated")
