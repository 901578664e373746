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

A LlamaIndex ``Response`` carries no token counts; :class:`GroundedQueryEngine`
reads them from the LLM calls made while the wrapped engine answers (the
``LLMChatEndEvent``/``LLMCompletionEndEvent`` of LlamaIndex's
instrumentation, whose response's ``raw`` is the provider's response), and
puts each attempt's sum in its ``Response.metadata["relapse.usage"]``.
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Mapping, Sequence
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, TypeVar

from relapse import chunks_from
from relapse._engine import Loop, loop_of
from relapse._read.chunks import chunk_texts
from relapse._read.usage import default_usage_of, usage_from
from relapse._results import GroundingResult, RelapseResult, Usage, total_usage
from relapse.checks._contract import Check, check_name
from relapse.grounding import default_grounding_check
from relapse.prompts import NO_ANSWER, _problems

try:
    from llama_index.core.base.base_query_engine import BaseQueryEngine
    from llama_index.core.base.response.schema import RESPONSE_TYPE, PydanticResponse, Response
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

__all__ = ["RESULT_KEY", "USAGE_KEY", "GroundedQueryEngine", "GroundingEvaluator", "llm_usage"]

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
    if isinstance(response, (Response, PydanticResponse)):
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
        query_engine: Any LlamaIndex query engine returning a ``Response``
            (not a streaming one: set ``streaming=False``).
        loop: The :class:`relapse.Loop` to run (its options: ``max_iterations``,
            ``grounding_check``, ``on_exhausted``, ``tracer_provider``,
            ``capture_content``...).
        options: Instead of ``loop``: the options of a new one
            (:class:`relapse.LoopOptions`).

    Raises:
        TypeError: ``query_engine`` is not a ``BaseQueryEngine``, an option
            is bad (named in the message), or both ``loop`` and options are
            given. At query time: the engine returned something without
            ``source_nodes`` (a streaming response).
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

        def ask(query: str, bundle: QueryBundle) -> RESPONSE_TYPE:
            usage = _QueryUsage()
            token = _QUERY.set(usage)
            try:
                response = engine.query(_retry_bundle(query, bundle))
            finally:
                _QUERY.reset(token)
            return _with_usage(response, total_usage(usage.usages))

        async def aask(query: str, bundle: QueryBundle) -> RESPONSE_TYPE:
            usage = _QueryUsage()
            # Tasks the engine starts copy the context, and with it this object.
            token = _QUERY.set(usage)
            try:
                response = await engine.aquery(_retry_bundle(query, bundle))
            finally:
                _QUERY.reset(token)
            return _with_usage(response, total_usage(usage.usages))

        # The call span is named after these: "relapse GroundedQueryEngine".
        ask.__qualname__ = aask.__qualname__ = "GroundedQueryEngine"
        self.loop = loop_of("GroundedQueryEngine", loop, options)
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
        result: RelapseResult = self._ask.run(bundle.query_str, bundle)
        _with_result(result.response, result)
        return result

    async def arun(self, query: str | QueryBundle) -> RelapseResult:
        """:meth:`run`, querying the wrapped engine with ``aquery``."""
        bundle = QueryBundle(query) if isinstance(query, str) else query
        result: RelapseResult = await self._aask.run(bundle.query_str, bundle)
        _with_result(result.response, result)
        return result

    def _query(self, query_bundle: QueryBundle) -> RESPONSE_TYPE:
        """The chosen attempt's response, with the result in its metadata."""
        return self.run(query_bundle).response  # type: ignore[no-any-return]

    async def _aquery(self, query_bundle: QueryBundle) -> RESPONSE_TYPE:
        """The async :meth:`_query`."""
        return (await self.arun(query_bundle)).response  # type: ignore[no-any-return]


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
