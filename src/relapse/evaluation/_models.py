"""
The models ``relapse eval --loop`` can run, made inside each worker process.

Each factory is a module-level function, so a ``functools.partial`` of it
pickles into a spawned worker; each model counts the tokens it was billed
(``prompt_tokens`` / ``completion_tokens``) when its server reports them.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterator
from typing import Any

__all__ = ["OpenAIMetered", "local_model", "openai_model"]


def local_model(workers: int = 1) -> Any:
    """
    The bundled Gemma 3 270M (:class:`relapse.llms.local.LocalModel`).

    Args:
        workers: Processes sharing the machine; each model gets an equal
            share of the cores as llama.cpp threads (at least 1).

    Returns:
        A ``LocalModel``; it counts tokens itself.

    Raises:
        relapse.llms.local.LocalModelUnavailable: the ``local`` extra is
            missing.
    """
    from relapse.llms.local import RETRY_TEMPERATURE, LocalModel

    return LocalModel(
        n_threads=max(1, (os.cpu_count() or 1) // workers), retry_temperature=RETRY_TEMPERATURE
    )


class OpenAIMetered:
    """
    An OpenAI-compatible server (``relapse.llms.openai.OpenAICompatible``) with token counts.

    Requests are greedy (temperature 0). ``prompt_tokens`` and
    ``completion_tokens`` add up each response's ``usage``; they are None
    once a response came without one, so a report never shows a partial sum.
    :meth:`stream` sends the request streaming (``release="sentence"``).

    Args:
        base_url: The API root, for example ``"http://127.0.0.1:8000/v1"``.
        model: The model name the server knows.
        api: ``"chat"`` or ``"completions"`` (for a base model).

    Raises:
        ImportError: ``relapse.llms.openai`` or the ``openai`` package is not
            installed; the message names what to install.
    """

    def __init__(self, *, base_url: str, model: str, api: str = "chat") -> None:
        try:
            openai_llms = importlib.import_module("relapse.llms.openai")
        except ImportError as error:
            raise ImportError(
                "--model openai needs relapse.llms.openai and the openai package;"
                f" run: pip install 'relapse[openai]' ({error})"
            ) from error
        self._text_of = openai_llms.text_of
        self._options: dict[str, Any] = {
            "model": model,
            "base_url": base_url,
            "api": api,
            "sampling": openai_llms.Sampling(temperature=0.0),
        }
        self._client = openai_llms.OpenAICompatible
        self._llm = self._client(**self._options)
        self._streaming: Any = None  # made by the first stream()
        self._prompt_tokens: int | None = 0
        self._completion_tokens: int | None = 0

    @property
    def prompt_tokens(self) -> int | None:
        """Prompt tokens of every response so far; None if one had no usage."""
        return self._prompt_tokens

    @property
    def completion_tokens(self) -> int | None:
        """Completion tokens of every response so far; None if one had no usage."""
        return self._completion_tokens

    def __call__(self, prompt: str) -> str:
        """Send ``prompt``; count its usage; return the answer text."""
        response = self._llm.create(prompt)
        self._count(getattr(response, "usage", None))
        return str(self._text_of(response))

    def stream(self, prompt: str) -> Iterator[Any]:
        """
        Send ``prompt`` streaming; yield the SDK's chunks; count the usage the stream reports.

        The request asks for the usage (``stream_options={"include_usage":
        True}``), which the last chunk carries. A stream closed before it
        (relapse stops a failing one), or a server that ignores the option,
        reports none: the counts become None.
        """
        if self._streaming is None:
            self._streaming = self._client(**self._options, stream=True)
        stream = self._streaming.create(prompt)
        usage: object = None
        try:
            for chunk in stream:
                usage = getattr(chunk, "usage", None) or usage
                yield chunk
        finally:
            close = getattr(stream, "close", None)
            if callable(close):
                close()  # stops the HTTP response of a stream closed early
            self._count(usage)

    def _count(self, usage: object) -> None:
        """Add one response's usage to the counts; None from the first without one."""
        prompt_tokens = getattr(usage, "prompt_tokens", None)
        completion_tokens = getattr(usage, "completion_tokens", None)
        if (
            self._prompt_tokens is None
            or self._completion_tokens is None
            or not isinstance(prompt_tokens, int)
            or not isinstance(completion_tokens, int)
        ):
            self._prompt_tokens = self._completion_tokens = None
        else:
            self._prompt_tokens += prompt_tokens
            self._completion_tokens += completion_tokens


def openai_model(*, base_url: str, model: str, api: str = "chat") -> OpenAIMetered:
    """Make an :class:`OpenAIMetered` (a picklable factory for worker processes)."""
    return OpenAIMetered(base_url=base_url, model=model, api=api)
