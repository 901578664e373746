"""``relapse.run`` and ``relapse.arun``: the loop driven directly around ``call_llm``."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from relapse._loop import adrive, drive, steps
from relapse._policy import LoopOptions, Policy, is_enabled, make_policy
from relapse._read.chunks import chunk_texts
from relapse._read.compress import default_compress
from relapse._read.replies import unchecked_result
from relapse._results import RelapseResult
from relapse.prompts import context_prompt

if TYPE_CHECKING:
    from typing import Unpack

#: ``build_prompt(question, chunk_texts) -> prompt``.
BuildPrompt = Callable[[str, Sequence[str]], str]


class _Call:
    """One run()/arun() call: its chunk texts, prompt builder and policy."""

    __slots__ = ("build_prompt", "call_llm", "policy", "query", "texts")

    def __init__(
        self,
        name: str,
        query: object,
        retrieved_chunks: Iterable[Any],
        call_llm: Callable[[str], Any],
        build_prompt: BuildPrompt | None,
        compress: bool,
        options: LoopOptions,
    ) -> None:
        if not isinstance(query, str):
            raise TypeError(f"query must be str, got {type(query).__name__}")
        if not callable(call_llm):
            raise TypeError(
                f"call_llm must be callable(prompt) -> str, got {type(call_llm).__name__}"
            )
        if build_prompt is not None and not callable(build_prompt):
            raise TypeError("build_prompt must be callable(question, chunks) -> str")
        texts = chunk_texts(retrieved_chunks, "retrieved_chunks")

        def read(fresh: Any, argument: str) -> tuple[list[str], list[str]]:
            new = chunk_texts(fresh, argument)
            if compress:
                new = default_compress(new)
            return new, new

        self.query = query
        self.texts = default_compress(texts) if compress else texts
        self.call_llm = call_llm
        self.build_prompt = build_prompt or context_prompt
        self.policy: Policy = make_policy(name, options, read_chunks=read)

    def ask(self, prompt: str, replaced: list[str] | None) -> Any:
        """Build the prompt over the current chunks and call the model."""
        return self.call_llm(
            self.build_prompt(prompt, self.texts if replaced is None else replaced)
        )

    def unchecked(self, raw: Any) -> RelapseResult:
        """The result of the one call made with the kill switch off."""
        return unchecked_result(self.query, raw)


def run(
    query: str,
    retrieved_chunks: Iterable[Any],
    *,
    call_llm: Callable[[str], object],
    compress: bool = False,
    build_prompt: BuildPrompt | None = None,
    **options: Unpack[LoopOptions],
) -> RelapseResult:
    """
    Answer ``query`` from ``retrieved_chunks`` with ``call_llm``, retrying until grounded.

    Compatible with relapse 0.1.0's ``run``. It drives the same loop as
    :func:`relapse.grounded`: the first iteration asks ``query``, later ones
    the retry query, each time inside a prompt built over the chunks. The
    call span is named ``relapse run``.

    Args:
        query: The user's question.
        retrieved_chunks: ``str`` items or mappings with a ``"text"`` key.
        call_llm: ``call_llm(prompt) -> response``, any provider: a ``str``
            or anything ``answer_of`` reads (an SDK response, a dict, a
            stream); inside it, :func:`relapse.current_attempt` gives the
            iteration's state.
        compress: Deduplicate and cap the chunks with
            :func:`relapse.default_compress` before the first call; the check
            then uses the compressed chunks, which are what the LLM saw.
        build_prompt: ``build_prompt(question, chunk_texts) -> prompt``; by
            default an instruction, the chunks fenced by content-hash tags,
            the question and ``Answer:``. Model adapters supply their own
            (for example :meth:`relapse.llms.local.LocalModel.build_prompt`).
        options: The loop options of :func:`relapse.grounded`, with the same
            defaults and meaning (:class:`relapse.LoopOptions`):
            ``grounding_check`` (``check(query, chunk_texts, answer)``),
            ``max_iterations=3``, ``on_exhausted``, ``rewrite``, ``timeout``,
            ``max_prompt_chars``, ``retrieve`` (new chunks go through
            ``compress`` too), ``stop_on_repeat``, ``on_iteration``,
            ``enabled``, ``tracer_provider``, ``meter_provider``,
            ``logger_provider``, ``capture_content``, ``redact``,
            ``answer_of``, ``usage_of``, ``max_total_tokens``.

    Returns:
        The :class:`relapse.RelapseResult`.

    Raises:
        TypeError: an unknown option or one of the wrong type; a chunk is
            neither ``str`` nor a mapping with a ``"text"`` key (the message
            names its index and type); ``call_llm`` is not callable, or no
            answer can be read from what it returns (see ``answer_of``).
        ValueError: ``max_iterations`` < 1 or an unknown ``on_exhausted``.
        NotGroundedError: no grounded answer and ``on_exhausted="raise"``.
        Exception: whatever ``call_llm`` raises, unchanged, with the
            transcript so far in its ``relapse_transcript`` attribute.
    """
    call = _Call("run", query, retrieved_chunks, call_llm, build_prompt, compress, options)
    if not is_enabled(call.policy.enabled):
        return call.unchecked(call.ask(query, None))
    return drive(steps(call.policy, query, call.texts), call.ask)


async def arun(
    query: str,
    retrieved_chunks: Iterable[Any],
    *,
    call_llm: Callable[[str], Awaitable[object]],
    compress: bool = False,
    build_prompt: BuildPrompt | None = None,
    **options: Unpack[LoopOptions],
) -> RelapseResult:
    """
    :func:`run` with an asynchronous ``call_llm``: ``await call_llm(prompt) -> answer``.

    Arguments, return value and exceptions are those of :func:`run`; the call
    span is named ``relapse arun``, and async checks are awaited.
    """
    call = _Call("arun", query, retrieved_chunks, call_llm, build_prompt, compress, options)
    if not is_enabled(call.policy.enabled):
        return call.unchecked(await call.ask(query, None))
    return await adrive(steps(call.policy, query, call.texts), call.ask)
