"""
relapse in LlamaIndex (optional extra ``llamaindex``, needs ``llama-index-core`` only).

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
from typing import Any

from relapse._checking import Check, check_name
from relapse._chunks import chunk_texts
from relapse._prompts import NO_ANSWER, _problems
from relapse._types import GroundingResult

try:
    from llama_index.core.evaluation import BaseEvaluator, EvaluationResult
    from llama_index.core.prompts.mixin import PromptDictType
except ImportError as error:  # pragma: no cover - exercised by the missing-extra test
    raise ImportError(
        "relapse.integrations.llamaindex needs llama-index-core;"
        " run: pip install 'relapse[llamaindex]'"
    ) from error

__all__ = ["GroundingEvaluator"]

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
