"""LangChain steps the ``relapse.integrations.langchain`` tests share (needs langchain-core)."""

from __future__ import annotations

from langchain_core.prompt_values import PromptValue
from langchain_core.runnables import Runnable, RunnableLambda


def recording(prompts: list[str]) -> Runnable[PromptValue, PromptValue]:
    """A pass-through step that appends the prompt text the model receives to ``prompts``."""

    def record(value: PromptValue) -> PromptValue:
        prompts.append(value.to_string())
        return value

    return RunnableLambda(record)
