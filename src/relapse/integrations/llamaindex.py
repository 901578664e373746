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
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from relapse import chunks_from
from relapse._checking import Check, check_name
from relapse._chunks import chunk_texts
from relapse._decorator import grounded
from relapse._prompts import NO_ANSWER, _problems
from relapse._types import GroundingResult, RelapseResult

try:
    from llama_index.core.base.base_query_engine import BaseQueryEngine
    from llama_index.core.base.response.schema import RESPONSE_TYPE, PydanticResponse, Response
    from llama_index.core.evaluation import BaseEvaluator, EvaluationResult
    from llama_index.core.prompts.mixin import PromptDictType, PromptMixinType
    from llama_index.core.schema import QueryBundle
except ImportError as error:  # pragma: no cover - exercised by the missing-extra test
    raise ImportError(
        "relapse.integrations.llamaindex needs llama-index-core;"
        " run: pip install 'relapse[llamaindex]'"
    ) from error

if TYPE_CHECKING:
    from typing import Unpack

    from relapse._options import LoopOptions

__all__ = ["RESULT_KEY", "GroundedQueryEngine", "GroundingEvaluator"]

#: The key of :class:`relapse.RelapseResult` in the returned ``Response.metadata``.
RESULT_KEY = "relapse"


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
        options: The loop options of :func:`relapse.grounded`
            (``max_iterations``, ``grounding_check``, ``on_exhausted``,
            ``tracer_provider``, ``capture_content``...).

    Raises:
        TypeError: ``query_engine`` is not a ``BaseQueryEngine``, or an option
            is bad (named in the message). At query time: the engine returned
            something without ``source_nodes`` (a streaming response).
        NotGroundedError: at query time, with ``on_exhausted="raise"``.
    """

    def __init__(self, query_engine: BaseQueryEngine, **options: Unpack[LoopOptions]) -> None:
        if not isinstance(query_engine, BaseQueryEngine):
            raise TypeError(
                "query_engine must be a LlamaIndex BaseQueryEngine,"
                f" got {type(query_engine).__name__}"
            )
        self._query_engine = query_engine
        engine = query_engine

        def ask(query: str, bundle: QueryBundle) -> RESPONSE_TYPE:
            return engine.query(_retry_bundle(query, bundle))

        async def aask(query: str, bundle: QueryBundle) -> RESPONSE_TYPE:
            return await engine.aquery(_retry_bundle(query, bundle))

        # The call span is named after these: "relapse GroundedQueryEngine".
        ask.__qualname__ = aask.__qualname__ = "GroundedQueryEngine"
        self._ask = grounded(chunks_of=chunks_from.llamaindex, query_arg="query", **options)(ask)
        self._aask = grounded(chunks_of=chunks_from.llamaindex, query_arg="query", **options)(aask)
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
        from relapse.grounding import default_grounding_check

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
