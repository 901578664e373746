r"""
A streamed grounded answer: each sentence reaches the reader once it passed the check.

Start an OpenAI-compatible server, for example llama-cpp-python's with the
bundled model (see examples/integrations/openai_compatible.py for the
command), then run::

    OPENAI_BASE_URL=http://127.0.0.1:8000/v1 RELAPSE_MODEL=gemma-3-270m \
        python examples/streaming/openai_stream.py

The decorated function returns the SDK's own ``Stream``; with
``release="sentence"`` the caller iterates the SDK's own chunk objects as
their sentences pass, and reads the :class:`relapse.RelapseResult` once the
stream is done. The bundled model is a base model, so this example uses the
completions API with a one-example prompt; with a chat model, call
``client.chat.completions.create(..., stream=True)`` the same way.
"""

from __future__ import annotations

import os
import time

from openai import OpenAI, Stream
from openai.types import Completion

import relapse

DOCS = [
    "The Golden Gate Bridge opened to traffic on May 27, 1937.",
    "Its main span is 1,280 metres long.",
]
QUESTION = "When did the Golden Gate Bridge open, and how long is its main span?"
EXAMPLE = (
    "Context: The Eiffel Tower was completed in 1889. It is 330 metres tall.\n"
    "Question: When was the Eiffel Tower completed, and how tall is it?\n"
    "Answer: It was completed in 1889. It is 330 metres tall.\n\n"
)

client = OpenAI(
    base_url=os.environ.get("OPENAI_BASE_URL", "http://127.0.0.1:8000/v1"), api_key="unused"
)


@relapse.grounded(chunks_arg="docs", release="sentence")
def answer(question: str, docs: list[str]) -> Stream[Completion]:
    context = " ".join(docs)
    return client.completions.create(
        model=os.environ.get("RELAPSE_MODEL", "gemma-3-270m"),
        prompt=f"{EXAMPLE}Context: {context}\nQuestion: {question}\nAnswer:",
        max_tokens=60,
        temperature=0.0,
        seed=0,
        stop=["\n"],
        stream=True,
        stream_options={"include_usage": True},
    )


began = time.perf_counter()
first: float | None = None
with answer(QUESTION, DOCS) as stream:
    for chunk in stream:  # the SDK's own Completion chunks
        if chunk.choices and chunk.choices[0].text:
            if first is None:
                first = time.perf_counter() - began
            print(chunk.choices[0].text, end="", flush=True)
print()
result = stream.result
for record in result.transcript:
    codes = ",".join(f.code for f in record.findings if f.severity == "error") or "-"
    print(f"attempt {record.iteration}: released {record.released!r} [{codes}]")
print(f"grounded: {result.grounded} ({result.outcome}), first piece after {first or 0:.2f} s")
