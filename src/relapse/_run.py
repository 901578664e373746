"""``relapse.run`` and ``relapse.arun``: the decorator applied to an internal ask function."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from opentelemetry import trace

from relapse._chunks import chunk_texts
from relapse._compress import default_compress
from relapse._decorator import grounded
from relapse._loop import GroundingCheck, OnExhausted, Retrieve
from relapse._prompts import Rewrite, context_prompt
from relapse._types import GroundingFinding, RelapseResult

if TYPE_CHECKING:
    from opentelemetry._logs import LoggerProvider
    from opentelemetry.metrics import MeterProvider

#: ``build_prompt(question, chunk_texts) -> prompt``.
BuildPrompt = Callable[[str, Sequence[str]], str]


@dataclass(frozen=True)
class _Model:
    call_llm: Callable[[str], Any]
    build_prompt: BuildPrompt


def _ask(prompt: str, chunks: Sequence[str], model: _Model) -> str:
    return model.call_llm(model.build_prompt(prompt, chunks))  # type: ignore[no-any-return]


async def _aask(prompt: str, chunks: Sequence[str], model: _Model) -> str:
    return await model.call_llm(model.build_prompt(prompt, chunks))  # type: ignore[no-any-return]


# The call span is named after these: "relapse run" and "relapse arun".
_ask.__qualname__ = "run"
_aask.__qualname__ = "arun"


#: The arguments of run()/arun() passed on to grounded() unchanged.
_FORWARDED = (
    "max_iterations",
    "grounding_check",
    "on_exhausted",
    "rewrite",
    "timeout",
    "max_prompt_chars",
    "retrieve",
    "tracer_provider",
    "meter_provider",
    "logger_provider",
    "capture_content",
    "redact",
)


def _forwarded(arguments: dict[str, Any]) -> dict[str, Any]:
    """Pick the options of :func:`grounded` out of run()'s or arun()'s arguments."""
    return {name: arguments[name] for name in _FORWARDED}


def _as_texts(retrieve: Retrieve, compress: bool) -> Retrieve:
    """Adapt a user's ``retrieve`` so the internal function always gets chunk texts."""
    if not callable(retrieve):
        raise TypeError("retrieve must be callable(query, previous_answer, findings)")

    def texts_of(query: str, answer: str, findings: Sequence[GroundingFinding]) -> Any:
        fresh = retrieve(query, answer, findings)
        if fresh is None:
            return None
        texts = chunk_texts(fresh, "retrieve() result")
        return default_compress(texts) if compress else texts

    return texts_of


def _decorated(
    function: Callable[..., Any],
    retrieved_chunks: Iterable[Any],
    call_llm: Callable[[str], Any],
    build_prompt: BuildPrompt | None,
    compress: bool,
    options: dict[str, Any],
) -> tuple[Any, list[str], _Model]:
    if not callable(call_llm):
        raise TypeError(f"call_llm must be callable(prompt) -> str, got {type(call_llm).__name__}")
    if build_prompt is not None and not callable(build_prompt):
        raise TypeError("build_prompt must be callable(question, chunks) -> str")
    texts = chunk_texts(retrieved_chunks, "retrieved_chunks")
    if compress:
        texts = default_compress(texts)
    retrieve = options.pop("retrieve")
    if retrieve is not None:
        options["retrieve"] = _as_texts(retrieve, compress)
    decorated = grounded(chunks_arg="chunks", query_arg="prompt", **options)(function)
    return decorated, texts, _Model(call_llm, build_prompt or context_prompt)


def run(
    query: str,
    retrieved_chunks: Iterable[Any],
    *,
    call_llm: Callable[[str], str],
    grounding_check: GroundingCheck | None = None,
    compress: bool = False,
    max_iterations: int = 3,
    on_exhausted: OnExhausted = "return",
    build_prompt: BuildPrompt | None = None,
    rewrite: Rewrite | None = None,
    timeout: float | None = None,
    max_prompt_chars: int | None = None,
    retrieve: Retrieve | None = None,
    tracer_provider: trace.TracerProvider | None = None,
    meter_provider: MeterProvider | None = None,
    logger_provider: LoggerProvider | None = None,
    capture_content: bool | None = None,
    redact: Callable[[str], str] | None = None,
) -> RelapseResult:
    """
    Answer ``query`` from ``retrieved_chunks`` with ``call_llm``, retrying until grounded.

    Compatible with relapse 0.1.0's ``run``. Internally this is
    :func:`relapse.grounded` applied to a function that builds a prompt from
    a query and the chunks and calls ``call_llm``: the first iteration asks
    ``query``, later ones ask the retry query.

    Args:
        query: The user's question.
        retrieved_chunks: ``str`` items or mappings with a ``"text"`` key.
        call_llm: ``call_llm(prompt) -> answer``, any provider.
        grounding_check: ``check(query, chunk_texts, answer) -> GroundingResult``;
            :func:`relapse.default_grounding_check` when None.
        compress: Deduplicate and cap the chunks with
            :func:`relapse.default_compress` before the first call; the check
            then uses the compressed chunks, which are what the LLM saw.
        max_iterations: Total LLM calls allowed, at least 1.
        on_exhausted: ``"return"``, ``"best"`` or ``"raise"``; see
            :func:`relapse.grounded`.
        build_prompt: ``build_prompt(question, chunk_texts) -> prompt``; by
            default an instruction, the chunks fenced by content-hash tags,
            the question and ``Answer:``. Model adapters supply their own
            (for example :meth:`relapse.llms.local.LocalModel.build_prompt`).
        rewrite: Builds the retry query; see :func:`relapse.grounded`.
        timeout: Overall budget in seconds, checked between iterations.
        max_prompt_chars: Retry-query length in characters above which only
            the failing spans are quoted.
        retrieve: ``retrieve(query, previous_answer, findings) -> chunks | None``,
            called before each retry to fetch new chunks (re-retrieval); see
            :func:`relapse.grounded`.
        tracer_provider: OpenTelemetry tracer provider; the global one when None.
        meter_provider: OpenTelemetry meter provider; the global one when None.
        logger_provider: OpenTelemetry logger provider for evaluation events.
        capture_content: Record prompts and answers on spans; see
            :func:`relapse.grounded`.
        redact: Applied to every captured text first.

    Returns:
        The :class:`relapse.RelapseResult`.

    Raises:
        TypeError: a chunk is neither ``str`` nor a mapping with a ``"text"``
            key (the message names its index and type), ``call_llm`` is not
            callable, or it returns a non-``str``.
        ValueError: ``max_iterations`` < 1 or an unknown ``on_exhausted``.
        NotGroundedError: no grounded answer and ``on_exhausted="raise"``.
        Exception: whatever ``call_llm`` raises, unchanged, with the
            transcript so far in its ``relapse_transcript`` attribute.
    """
    options = _forwarded(locals())
    decorated, texts, model = _decorated(
        _ask, retrieved_chunks, call_llm, build_prompt, compress, options
    )
    result: RelapseResult = decorated.run(query, texts, model)
    return result


async def arun(
    query: str,
    retrieved_chunks: Iterable[Any],
    *,
    call_llm: Callable[[str], Awaitable[str]],
    grounding_check: GroundingCheck | None = None,
    compress: bool = False,
    max_iterations: int = 3,
    on_exhausted: OnExhausted = "return",
    build_prompt: BuildPrompt | None = None,
    rewrite: Rewrite | None = None,
    timeout: float | None = None,
    max_prompt_chars: int | None = None,
    retrieve: Retrieve | None = None,
    tracer_provider: trace.TracerProvider | None = None,
    meter_provider: MeterProvider | None = None,
    logger_provider: LoggerProvider | None = None,
    capture_content: bool | None = None,
    redact: Callable[[str], str] | None = None,
) -> RelapseResult:
    """
    :func:`run` with an asynchronous ``call_llm``: ``await call_llm(prompt) -> answer``.

    Arguments, return value and exceptions are those of :func:`run`.
    """
    options = _forwarded(locals())
    decorated, texts, model = _decorated(
        _aask, retrieved_chunks, call_llm, build_prompt, compress, options
    )
    result: RelapseResult = await decorated.run(query, texts, model)
    return result
