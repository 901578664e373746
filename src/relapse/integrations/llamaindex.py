"""
relapse in LlamaIndex (optional extra ``llamaindex``, needs ``llama-index-core`` only).

:class:`GroundedQueryEngine` wraps any query engine in relapse's loop: it
checks each response against that response's own ``source_nodes``, re-queries
with the retry query when the check rejects it, and returns a LlamaIndex
``Response`` whose ``metadata["relapse"]`` is the :class:`relapse.RelapseResult`
(transcript, outcome, usage)::

    engine = GroundedQueryEngine(index.as_query_engine(), max_iterations=3)
    response = engine.query("When did the bridge open?")
    response.metadata["relapse"].transcript

:class:`GroundingEvaluator` is relapse's grounding check as a LlamaIndex
``BaseEvaluator``: ``evaluate(query, response, contexts)`` returns an
``EvaluationResult`` whose ``passing`` is the check's verdict and whose
``feedback`` names every unsupported number, date or quotation. It therefore
drops into LlamaIndex's own ``RetryQueryEngine`` (which re-asks with that
feedback) and into its evaluation tooling (``BatchEvalRunner``)::

    from llama_index.core.query_engine import RetryQueryEngine
    from relapse.integrations.llamaindex import GroundingEvaluator

    engine = RetryQueryEngine(index.as_query_engine(), GroundingEvaluator(), max_retries=2)

``RetryQueryEngine`` returns its last attempt without evaluating it: when
every attempt fails, the ungrounded last response comes back unflagged.
:class:`GroundedQueryEngine` checks every attempt and says which one it
returned and whether it is grounded.

Streaming engines (``as_query_engine(streaming=True)``) stream with
``release="sentence"``: a ``StreamingResponse`` has its ``source_nodes``
before its tokens are read, so each attempt is checked against its own
nodes while its tokens stream, and :class:`GroundedQueryEngine` returns a
``StreamingResponse`` whose ``response_gen`` yields the tokens that passed.
For a decorated function, :func:`response_stream` turns a streaming response
into a stream relapse reads (``chunks_of=relapse.chunks_from.llamaindex``
reads its nodes before its tokens)::

    @relapse.grounded(chunks_of=relapse.chunks_from.llamaindex, release="sentence")
    def ask(query: str) -> ResponseStream:
        return response_stream(streaming_engine.query(query))

A LlamaIndex ``Response`` carries no token counts; :class:`GroundedQueryEngine`
reads them from the LLM calls made while the wrapped engine answers (the
``LLMChatEndEvent``/``LLMCompletionEndEvent`` of LlamaIndex's
instrumentation, whose response's ``raw`` is the provider's response), and
puts each attempt's sum in its ``Response.metadata["relapse.usage"]``.
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import AsyncGenerator, AsyncIterator, Generator, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, TypeVar

from relapse import chunks_from
from relapse._decorator import outcome_of
from relapse._engine import Loop, loop_of
from relapse._policy import RELEASE_SENTENCE
from relapse._read.chunks import chunk_texts
from relapse._read.usage import default_usage_of, usage_from
from relapse._results import GroundingResult, RelapseResult, Usage, total_usage
from relapse._stream.grounded import AsyncGroundedStream, GroundedStream
from relapse.checks._contract import Check, check_name
from relapse.grounding import default_grounding_check
from relapse.prompts import NO_ANSWER, _problems

try:
    from llama_index.core.base.base_query_engine import BaseQueryEngine
    from llama_index.core.base.response.schema import (
        RESPONSE_TYPE,
        AsyncStreamingResponse,
        PydanticResponse,
        Response,
        StreamingResponse,
    )
    from llama_index.core.evaluation import BaseEvaluator, EvaluationResult

    # The documented entry point; llama-index-core re-exports it without __all__.
    from llama_index.core.instrumentation import get_dispatcher  # type: ignore[attr-defined]
    from llama_index.core.instrumentation.event_handlers import BaseEventHandler
    from llama_index.core.instrumentation.events import BaseEvent
    from llama_index.core.instrumentation.events.llm import (
        LLMChatEndEvent,
        LLMCompletionEndEvent,
    )
    from llama_index.core.prompts.mixin import PromptDictType, PromptMixinType
    from llama_index.core.schema import QueryBundle
except ImportError as error:  # pragma: no cover - exercised by the missing-extra test
    raise ImportError(
        "relapse.integrations.llamaindex needs llama-index-core;"
        " run: pip install 'relapse[llamaindex]'"
    ) from error

if TYPE_CHECKING:
    from typing import Unpack

    from relapse._policy import LoopOptions

__all__ = [
    "RESULT_KEY",
    "USAGE_KEY",
    "AsyncResponseStream",
    "GroundedQueryEngine",
    "GroundingEvaluator",
    "ResponseStream",
    "llm_usage",
    "response_stream",
]

_R = TypeVar("_R")

#: The key of :class:`relapse.RelapseResult` in the returned ``Response.metadata``.
RESULT_KEY = "relapse"
#: The key of one attempt's :class:`relapse.Usage` in its ``Response.metadata``
#: (absent when none of its LLM calls reported tokens).
USAGE_KEY = "relapse.usage"


def llm_usage(response: object) -> Usage | None:
    """
    The tokens one LlamaIndex LLM response reports.

    Read from its ``raw`` (the provider's response, such as an OpenAI
    ``ChatCompletion`` with ``usage``, or its JSON form; see
    :func:`relapse.default_usage_of`), else from its ``additional_kwargs``
    (``prompt_tokens``/``completion_tokens``, where some LLM classes put them).

    Args:
        response: A ``ChatResponse`` or ``CompletionResponse``.

    Returns:
        The :class:`relapse.Usage`, or None when it reports none.
    """
    raw = getattr(response, "raw", None)
    usage = default_usage_of(raw) if raw is not None else None
    if usage is None:
        extra = getattr(response, "additional_kwargs", None)
        usage = usage_from(extra) if isinstance(extra, Mapping) else None
    return usage


class _QueryUsage:
    """The LLM responses of one query, each counted once."""

    __slots__ = ("_lock", "_seen", "usages")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        # Held, not only their ids, so that no id is reused while the query runs.
        self._seen: dict[int, object] = {}
        self.usages: list[Usage] = []

    def add(self, response: object) -> None:
        """Count ``response``'s tokens, unless its provider response was counted already."""
        # A CustomLLM's chat() calls its complete(): both end events carry
        # the same raw response, which must count once.
        raw = getattr(response, "raw", None)
        key = raw if raw is not None else response
        usage = llm_usage(response)
        with self._lock:
            if id(key) in self._seen:
                return
            self._seen[id(key)] = key
            if usage is not None:
                self.usages.append(usage)


#: The usage of the query in progress (one attempt of a GroundedQueryEngine).
_QUERY: ContextVar[_QueryUsage | None] = ContextVar("relapse_llamaindex_query", default=None)


@contextmanager
def _counting_usage() -> Iterator[_QueryUsage]:
    """A new :class:`_QueryUsage`, counting the LLM calls made within (see :data:`_QUERY`)."""
    usage = _QueryUsage()
    token = _QUERY.set(usage)
    try:
        yield usage
    finally:
        _QUERY.reset(token)


class _UsageHandler(BaseEventHandler):
    """Counts the tokens of every LLM end event inside a grounded query; never raises."""

    @classmethod
    def class_name(cls) -> str:
        """LlamaIndex's name for the handler."""
        return "RelapseUsageHandler"

    def handle(self, event: BaseEvent, **kwargs: Any) -> None:
        """Count an LLM end event's response, when a grounded query is in progress."""
        query = _QUERY.get()
        if query is None or not isinstance(event, (LLMChatEndEvent, LLMCompletionEndEvent)):
            return
        try:
            if event.response is not None:
                query.add(event.response)
        except Exception:  # a report, never a reason to fail the query
            return


_handler_lock = threading.Lock()
_handler: list[_UsageHandler] = []


def _listen() -> None:
    """Attach the usage handler to LlamaIndex's root dispatcher, once per process."""
    with _handler_lock:
        if not _handler:
            _handler.append(_UsageHandler())
            get_dispatcher().add_event_handler(_handler[0])


def _with_usage(response: _R, usage: Usage | None) -> _R:
    """``response`` with ``usage`` under :data:`USAGE_KEY` in a copy of its metadata."""
    if usage is not None and isinstance(response, (Response, PydanticResponse)):
        metadata = dict(response.metadata or {})
        metadata[USAGE_KEY] = usage
        response.metadata = metadata
    return response


def _usage_of_response(response: Any) -> Usage | None:
    """An attempt's tokens: its :data:`USAGE_KEY`, else what the response itself reports."""
    metadata = getattr(response, "metadata", None)
    usage = metadata.get(USAGE_KEY) if isinstance(metadata, Mapping) else None
    return usage if isinstance(usage, Usage) else default_usage_of(response)


class ResponseStream:
    """
    A LlamaIndex ``StreamingResponse`` as a stream relapse reads: its tokens, its nodes.

    Iterating it yields the response's ``response_gen`` tokens (``str``), as
    they come; its ``source_nodes`` are the response's, there before any
    token is read, so ``chunks_of=relapse.chunks_from.llamaindex`` reads them
    and ``release="sentence"`` checks each token's sentence against them.
    :meth:`close` closes the token generator (the LLM's stream).

    Attributes:
        response: The ``StreamingResponse``.
        source_nodes: Its ``source_nodes`` (``NodeWithScore``s).

    .. versionadded:: 0.2.0
    """

    __slots__ = ("_tokens", "response", "source_nodes")

    def __init__(self, response: Any, tokens: Iterator[str]) -> None:
        self.response = response
        self.source_nodes = list(response.source_nodes or [])
        self._tokens = tokens

    def __iter__(self) -> ResponseStream:
        return self

    def __next__(self) -> str:
        return next(self._tokens)

    def close(self) -> None:
        """Close the token generator: the LLM's stream stops."""
        close = getattr(self._tokens, "close", None)
        if callable(close):
            close()


class AsyncResponseStream:
    """
    :class:`ResponseStream` for an ``AsyncStreamingResponse`` (``aquery``).

    ``async for`` its tokens; :meth:`aclose` closes the token generator.

    .. versionadded:: 0.2.0
    """

    # Not a base shared with ResponseStream: the API reference would show a
    # private base class on both public ones.
    __slots__ = ("_tokens", "response", "source_nodes")

    def __init__(self, response: Any, tokens: AsyncIterator[str]) -> None:
        self.response = response
        self.source_nodes = list(response.source_nodes or [])
        self._tokens = tokens

    def __aiter__(self) -> AsyncResponseStream:
        return self

    async def __anext__(self) -> str:
        return await self._tokens.__anext__()

    async def aclose(self) -> None:
        """Close the token generator: the LLM's stream stops."""
        close = getattr(self._tokens, "aclose", None)
        if callable(close):
            await close()


def response_stream(response: Any) -> ResponseStream | AsyncResponseStream:
    """
    The stream of a LlamaIndex streaming response, for a decorated function to return.

    Args:
        response: A ``StreamingResponse`` (``query`` on an engine built with
            ``streaming=True``) or an ``AsyncStreamingResponse`` (``aquery``),
            its ``response_gen`` not read yet.

    Returns:
        A :class:`ResponseStream` (sync tokens) or an
        :class:`AsyncResponseStream` (async tokens).

    Raises:
        TypeError: ``response`` has no unread ``response_gen`` (a plain
            ``Response``: the engine does not stream; or a streaming response
            read already, whose ``response_gen`` is spent).

    .. versionadded:: 0.2.0
    """
    tokens = getattr(response, "response_gen", None)
    if getattr(response, "response_txt", None) is not None:
        tokens = None  # read already (str(response), print_response_stream()): spent
    if isinstance(tokens, AsyncIterator):
        return AsyncResponseStream(response, tokens)
    if isinstance(tokens, Iterator):
        return ResponseStream(response, tokens)
    raise TypeError(
        "response_stream() takes a LlamaIndex StreamingResponse whose response_gen is not read"
        f" yet (an engine built with streaming=True); got {type(response).__name__}"
    )


def _streams(response: object) -> bool:
    """Whether ``response`` is a LlamaIndex streaming response (it has a ``response_gen``)."""
    return getattr(response, "response_gen", None) is not None


def _attempt_output(
    response: Any,
    usage: _QueryUsage,
    opened: list[ResponseStream | AsyncResponseStream],
    *,
    streaming: bool,
) -> Any:
    """
    What one attempt hands the loop: the wrapped engine's ``response``, or its stream.

    With ``streaming`` (``release="sentence"``) and a streaming response: its
    :func:`response_stream`, also appended to ``opened``; else ``response``
    with the tokens ``usage`` counted in its metadata (see :func:`_with_usage`).
    """
    if streaming and _streams(response):
        # Its nodes now, its tokens as the loop reads them.
        opened.append(response_stream(response))
        return opened[-1]
    return _with_usage(response, total_usage(usage.usages))


def _merged_nodes(opened: Sequence[ResponseStream | AsyncResponseStream]) -> list[Any]:
    """Every attempt's source nodes, each once, in the order the attempts retrieved them."""
    nodes: list[Any] = []
    seen: set[str] = set()
    for stream in opened:
        for node in stream.source_nodes:
            key = getattr(getattr(node, "node", None), "node_id", None) or str(id(node))
            if key not in seen:
                seen.add(key)
                nodes.append(node)
    return nodes


def _retry_bundle(query: str, bundle: QueryBundle) -> QueryBundle:
    """
    The bundle an iteration sends: the caller's, or the retry query over the caller's embedding.

    A retry query quotes the rejected answer and the findings; embedding that
    text would retrieve for the wrong question. The retry keeps the caller's
    embedding strings (or embedding), as LlamaIndex's own
    ``FeedbackQueryTransformation`` does, so retrieval still looks for the
    question while the synthesiser reads the retry note.
    """
    if query == bundle.query_str:
        return bundle
    return QueryBundle(
        query_str=query,
        image_path=bundle.image_path,
        custom_embedding_strs=list(bundle.embedding_strs),
        embedding=bundle.embedding,
    )


def _with_result(response: Any, result: RelapseResult) -> Any:
    """``response`` with the result under :data:`RESULT_KEY` in a copy of its metadata."""
    if isinstance(
        response, (Response, PydanticResponse, StreamingResponse, AsyncStreamingResponse)
    ):
        metadata = dict(response.metadata or {})
        metadata[RESULT_KEY] = result
        response.metadata = metadata
    return response


class GroundedQueryEngine(BaseQueryEngine):
    """
    A query engine that re-queries another until its response is grounded.

    Each iteration queries the wrapped engine, reads the response text
    (``Response.response``) and checks it against that response's
    ``source_nodes``; a rejected response is re-queried with relapse's retry
    query, whose embedding strings stay the caller's question (see
    :func:`_retry_bundle`). The chosen attempt's ``Response`` is returned,
    with the :class:`relapse.RelapseResult` in ``metadata["relapse"]``; its
    own metadata is kept. One call span, one iteration span per query, as for
    :func:`relapse.grounded`.

    Unlike LlamaIndex's ``RetryQueryEngine`` the retry is decided by a
    deterministic check (no evaluator LLM call) and every attempt is
    recorded; the two compose too (:class:`GroundingEvaluator`).

    Args:
        query_engine: Any LlamaIndex query engine returning a ``Response``;
            a streaming one (``streaming=True``) with ``release="sentence"``,
            which then returns a ``StreamingResponse`` of the tokens that
            passed (see the module docstring).
        loop: The :class:`relapse.Loop` to run (its options: ``max_iterations``,
            ``grounding_check``, ``on_exhausted``, ``tracer_provider``,
            ``capture_content``...).
        options: Instead of ``loop``: the options of a new one
            (:class:`relapse.LoopOptions`).

    Raises:
        TypeError: ``query_engine`` is not a ``BaseQueryEngine``, an option
            is bad (named in the message), or both ``loop`` and options are
            given. At query time: the engine returned something without
            ``source_nodes``, or a streaming response with
            ``release="answer"``.
        NotGroundedError: at query time, with ``on_exhausted="raise"``.
    """

    def __init__(
        self,
        query_engine: BaseQueryEngine,
        *,
        loop: Loop | None = None,
        **options: Unpack[LoopOptions],
    ) -> None:
        if not isinstance(query_engine, BaseQueryEngine):
            raise TypeError(
                "query_engine must be a LlamaIndex BaseQueryEngine,"
                f" got {type(query_engine).__name__}"
            )
        self._query_engine = query_engine
        engine = query_engine
        _listen()

        self.loop = loop_of("GroundedQueryEngine", loop, options)
        #: Whether a streaming engine's tokens are released as they pass.
        self._streaming = self.loop.options.get("release") == RELEASE_SENTENCE

        def ask(
            query: str, bundle: QueryBundle, opened: list[ResponseStream | AsyncResponseStream]
        ) -> Any:
            with _counting_usage() as usage:
                response = engine.query(_retry_bundle(query, bundle))
            return _attempt_output(response, usage, opened, streaming=self._streaming)

        async def aask(
            query: str, bundle: QueryBundle, opened: list[ResponseStream | AsyncResponseStream]
        ) -> Any:
            # Tasks the engine starts copy the context, and with it the usage.
            with _counting_usage() as usage:
                response = await engine.aquery(_retry_bundle(query, bundle))
            return _attempt_output(response, usage, opened, streaming=self._streaming)

        # The call span is named after these: "relapse GroundedQueryEngine".
        ask.__qualname__ = aask.__qualname__ = "GroundedQueryEngine"
        run_loop = self.loop
        if "usage_of" not in run_loop.options:
            run_loop = run_loop.replace(usage_of=_usage_of_response)
        decorate = run_loop.grounded(chunks_of=chunks_from.llamaindex, query_arg="query")
        self._ask = decorate(ask)
        self._aask = decorate(aask)
        super().__init__(callback_manager=query_engine.callback_manager)

    def _get_prompt_modules(self) -> PromptMixinType:
        """The wrapped engine's prompts are this engine's."""
        return {"query_engine": self._query_engine}

    def run(self, query: str | QueryBundle) -> RelapseResult:
        """
        Query like :meth:`query`, but return the :class:`relapse.RelapseResult`.

        Its ``response`` is the chosen attempt's ``Response``.
        """
        bundle = QueryBundle(query) if isinstance(query, str) else query
        result: RelapseResult = self._ask.run(bundle.query_str, bundle, [])
        _with_result(result.response, result)
        return result

    async def arun(self, query: str | QueryBundle) -> RelapseResult:
        """:meth:`run`, querying the wrapped engine with ``aquery``."""
        bundle = QueryBundle(query) if isinstance(query, str) else query
        result: RelapseResult = await self._aask.run(bundle.query_str, bundle, [])
        _with_result(result.response, result)
        return result

    def _query(self, query_bundle: QueryBundle) -> RESPONSE_TYPE:
        """
        The chosen attempt's response, with the result in its metadata.

        With ``release="sentence"`` and a streaming engine: a
        ``StreamingResponse`` whose ``response_gen`` yields the tokens as
        their sentences pass (the loop runs as it is read); its
        ``source_nodes`` are the first attempt's, every attempt's once the
        stream is done, when ``metadata["relapse"]`` is the result.
        """
        if not self._streaming:
            return self.run(query_bundle).response  # type: ignore[no-any-return]
        opened: list[ResponseStream | AsyncResponseStream] = []
        outcome = outcome_of(self._ask, query_bundle.query_str, query_bundle, opened)
        if isinstance(outcome, GroundedStream):
            return _streaming_response(outcome, opened)
        _with_result(outcome.response, outcome)
        return outcome.response  # type: ignore[no-any-return]

    async def _aquery(self, query_bundle: QueryBundle) -> RESPONSE_TYPE:
        """The async :meth:`_query` (an ``AsyncStreamingResponse`` when streaming)."""
        if not self._streaming:
            return (await self.arun(query_bundle)).response  # type: ignore[no-any-return]
        opened: list[ResponseStream | AsyncResponseStream] = []
        outcome = await outcome_of(self._aask, query_bundle.query_str, query_bundle, opened)
        if isinstance(outcome, AsyncGroundedStream):
            return _astreaming_response(outcome, opened)
        if isinstance(outcome, GroundedStream):
            # An aquery that returned a sync token stream: still a stream.
            return _streaming_response(outcome, opened)
        _with_result(outcome.response, outcome)
        return outcome.response  # type: ignore[no-any-return]


def _streaming_response(
    stream: GroundedStream[str], opened: list[ResponseStream | AsyncResponseStream]
) -> StreamingResponse:
    """The ``StreamingResponse`` handed to the caller: the released tokens, the attempts' nodes."""

    def tokens() -> Generator[str, None, None]:
        with stream:
            yield from stream
        _streamed(response, opened, stream.result)

    response = StreamingResponse(response_gen=tokens(), **_first_attempt_fields(opened))
    return response


def _astreaming_response(
    stream: AsyncGroundedStream[str], opened: list[ResponseStream | AsyncResponseStream]
) -> AsyncStreamingResponse:
    """:func:`_streaming_response` for ``aquery``: an ``AsyncStreamingResponse``."""

    async def tokens() -> AsyncGenerator[str, None]:
        async with stream:
            async for token in stream:
                yield token
        _streamed(response, opened, stream.result)

    response = AsyncStreamingResponse(response_gen=tokens(), **_first_attempt_fields(opened))
    return response


def _first_attempt_fields(opened: list[ResponseStream | AsyncResponseStream]) -> dict[str, Any]:
    """A streaming response's fields while it streams: the first attempt's nodes and metadata."""
    first = opened[0].response
    return {
        "source_nodes": list(first.source_nodes or []),
        "metadata": dict(first.metadata or {}),
    }


def _streamed(
    response: StreamingResponse | AsyncStreamingResponse,
    opened: list[ResponseStream | AsyncResponseStream],
    result: RelapseResult,
) -> None:
    """Finish ``response`` once its tokens are done: every attempt's nodes, and the result."""
    response.source_nodes = _merged_nodes(opened)
    _with_result(response, result)


#: ``EvaluationResult.feedback`` of a grounded response.
GROUNDED_FEEDBACK = "grounded: the contexts support every checked claim"


class GroundingEvaluator(BaseEvaluator):
    """
    A LlamaIndex evaluator that runs relapse's grounding check.

    ``passing`` is the check's verdict, ``score`` is 1.0 when grounded and
    0.0 when not (the ``gen_ai.evaluation.score.value`` relapse reports on
    its spans), and ``feedback`` lists every finding (code, message, failing
    spans) followed by the instruction relapse's own retry query gives: answer
    from the context or say that it does not say. That wording is what
    ``RetryQueryEngine``'s ``FeedbackQueryTransformation`` puts into the next
    query.

    The default check is deterministic and local (no LLM call), so
    ``evaluate`` runs it directly instead of going through an event loop, and
    it works inside a running one. An async check (an async
    :class:`relapse.checks.LLMJudge`) needs ``aevaluate``.

    Args:
        grounding_check: ``check(query, chunks, answer) -> GroundingResult``
            (or an awaitable of one, with ``aevaluate``);
            :func:`relapse.default_grounding_check` when None.

    Raises:
        TypeError: ``grounding_check`` is not callable.
    """

    def __init__(self, grounding_check: Check | None = None) -> None:
        if grounding_check is not None and not callable(grounding_check):
            raise TypeError("grounding_check must be callable(query, chunks, answer)")
        self.grounding_check: Check = grounding_check or default_grounding_check
        #: The check's name, as relapse's spans report it.
        self.check_name = check_name(self.grounding_check)

    def _get_prompts(self) -> PromptDictType:
        """No prompts: the check is not an LLM."""
        return {}

    def _update_prompts(self, prompts_dict: PromptDictType) -> None:
        """Nothing to update: the check has no prompts."""

    def evaluate(
        self,
        query: str | None = None,
        response: str | None = None,
        contexts: Sequence[str] | None = None,
        **kwargs: Any,
    ) -> EvaluationResult:
        """
        Check ``response`` against ``contexts``.

        Args:
            query: The question; the default check does not need it (``""``
                when None), custom checks may.
            response: The answer text to check.
            contexts: The retrieved chunks' texts (``str`` or mappings with a
                ``"text"`` key).
            kwargs: Accepted for the ``BaseEvaluator`` interface and ignored.

        Returns:
            ``EvaluationResult(query, contexts, response, passing, feedback, score)``.

        Raises:
            ValueError: ``response`` or ``contexts`` is None (LlamaIndex passes
                None when a response has no text or no source nodes).
            TypeError: a context item is neither ``str`` nor a mapping with a
                ``"text"`` key, or the check returns something else than a
                :class:`relapse.GroundingResult`.
        """
        del kwargs
        answer, texts = _validated(response, contexts)
        verdict = self.grounding_check(query or "", texts, answer)
        if inspect.isawaitable(verdict):
            close = getattr(verdict, "close", None)
            if callable(close):
                close()  # never awaited: close it so Python does not warn
            raise TypeError(
                f"{self.check_name} is an async check; use aevaluate (LlamaIndex's async paths)"
            )
        return _result(query, texts, answer, verdict)

    async def aevaluate(
        self,
        query: str | None = None,
        response: str | None = None,
        contexts: Sequence[str] | None = None,
        **kwargs: Any,
    ) -> EvaluationResult:
        """:meth:`evaluate` for LlamaIndex's async paths; awaits an async check's verdict."""
        del kwargs
        answer, texts = _validated(response, contexts)
        verdict = self.grounding_check(query or "", texts, answer)
        if inspect.isawaitable(verdict):
            verdict = await verdict
        return _result(query, texts, answer, verdict)


def _validated(response: object, contexts: Sequence[Any] | None) -> tuple[str, list[str]]:
    """``(answer, context_texts)``, after checking ``response`` and ``contexts`` are usable."""
    if response is None:
        raise ValueError("response must be the answer text to check, got None")
    if contexts is None:
        raise ValueError("contexts must be the retrieved chunk texts, got None")
    if not isinstance(response, str):
        raise TypeError(f"response must be str, got {type(response).__name__}")
    return response, chunk_texts(contexts, "contexts")


def _result(
    query: str | None, texts: list[str], response: str, verdict: object
) -> EvaluationResult:
    if not isinstance(verdict, GroundingResult):
        raise TypeError(
            f"grounding_check returned {type(verdict).__name__}; expected relapse.GroundingResult"
        )
    return EvaluationResult(
        query=query,
        contexts=texts,
        response=response,
        passing=verdict.ok,
        feedback=feedback(verdict),
        score=1.0 if verdict.ok else 0.0,
    )


def feedback(verdict: GroundingResult) -> str:
    """
    The ``EvaluationResult.feedback`` of a verdict.

    Returns:
        :data:`GROUNDED_FEEDBACK` when it passed; else the error findings
        (warnings do not fail an answer, so they are not asked to be fixed),
        one ``CODE: message ["span"]`` per finding joined by ``"; "``, then
        the instruction to answer from the context alone.
    """
    if verdict.ok:
        return GROUNDED_FEEDBACK
    errors = [f for f in verdict.findings if f.severity == "error"]
    return (
        f"The response states things the context does not support: {_problems(errors)}."
        f" Answer using only the context; if the context does not contain the answer,"
        f" say: {NO_ANSWER}"
    )
