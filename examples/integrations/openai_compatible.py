r"""
A grounded call to any OpenAI-compatible server, with the cost of each attempt.

Start a server, for example llama-cpp-python's with the bundled model::

    pip install 'relapse[openai,server]'
    python -m llama_cpp.server --model "$(python -c 'from relapse.llms.local import \
default_model_path; print(default_model_path())')" --model_alias gemma-3-270m \
        --chat_format gemma --port 8000

(``--chat_format gemma``: the bundled model has no chat template, and
llama-cpp-python would otherwise format chat requests as llama-2's
``[INST]``; on a small machine shared with other work, ``--n_threads 1
--n_threads_batch 1`` on 2 cores avoids client time-outs, see
docs/integrations/openai-compatible.md)

then run::

    OPENAI_BASE_URL=http://127.0.0.1:8000/v1 RELAPSE_MODEL=gemma-3-270m \
        python examples/integrations/openai_compatible.py

The decorated function returns the SDK's own ``Completion``; relapse reads
its text and its token usage, and the caller gets the ``Completion`` of the
chosen attempt back. The bundled model is a base model, so this example uses
the completions API with a one-example prompt; a chat model takes
``api="chat"`` and any prompt.
"""

from __future__ import annotations

import os

from openai.types import Completion

import relapse
from relapse.llms.openai import OpenAICompatible, Sampling, resample

DOCS = [
    "The Golden Gate Bridge opened to traffic on May 27, 1937.",
    "Its main span is 1,280 metres long.",
]
QUESTIONS = ["When did the Golden Gate Bridge open?", "How long is the main span?"]
EXAMPLE = (
    "Context: The Eiffel Tower was completed in 1889.\n"
    "Question: When was the Eiffel Tower completed?\n"
    "Answer: It was completed in 1889.\n\n"
)

llm = OpenAICompatible(
    base_url=os.environ.get("OPENAI_BASE_URL", "http://127.0.0.1:8000/v1"),
    model=os.environ.get("RELAPSE_MODEL", "gemma-3-270m"),
    api="completions",
    sampling=Sampling(temperature=0.0, max_tokens=60, stop=("\n",)),
    # Retries sample (temperature 0.7, a new seed each) instead of repeating.
    on_retry=resample(0.7),
)


@relapse.grounded(chunks_arg="docs", max_iterations=3)
def answer(question: str, docs: list[str]) -> Completion:
    context = " ".join(docs)
    return llm.create(f"{EXAMPLE}Context: {context}\nQuestion: {question}\nAnswer:")  # type: ignore[no-any-return]


def main() -> None:
    for question in QUESTIONS:
        result = answer.run(question, DOCS)
        for record in result.transcript:
            usage = record.usage
            tokens = f"{usage.input_tokens} in, {usage.output_tokens} out" if usage else "no usage"
            codes = ",".join(f.code for f in record.findings) or "-"
            print(f"  attempt {record.iteration}: {record.answer!r} [{codes}] ({tokens})")
        total = result.usage.total_tokens if result.usage else 0
        print(f"{question} -> grounded: {result.grounded} ({result.outcome}), {total} tokens")
        assert isinstance(result.response, Completion)


if __name__ == "__main__":
    main()
