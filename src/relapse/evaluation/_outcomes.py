"""
How one loop run ended, with refusals and echoes told apart from answers.

A refusal ("The context does not say.") passes the grounding check, so the
loop reports it as ``grounded``; but it is not an answer. Reports (``relapse
demo``, ``relapse eval --loop``) count a recovery that is a refusal apart from
a recovery with an answer. An echo (an answer that copies the context, the
question or the prompt's instructions back) is no answer either: a run that
returned one is counted as ``echoed``, never as ``recovered``, whether a
check let it pass or not.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from relapse._results import IterationRecord, RelapseResult
from relapse.grounding import REFUSAL_PHRASES
from relapse.grounding._codes import EMPTY_MESSAGE, FG004
from relapse.grounding._echo import asked_text, is_copy
from relapse.grounding._text import CHUNK_SEPARATOR, fold
from relapse.prompts import NO_ANSWER

__all__ = ["ECHOED", "RECOVERED_REFUSAL", "is_echo", "is_refusal", "outcome_of"]

#: The outcome of a loop whose first answer failed and whose grounded final
#: answer is a refusal; ``relapse.outcome`` on the span still says ``recovered``.
RECOVERED_REFUSAL: Final = "recovered_refusal"
#: The outcome of a loop whose returned answer is an echo: FG004 (other than an
#: empty answer) on it, or a copy of the chunks or the question; whatever
#: ``relapse.outcome`` says (``recovered`` when a check passed it,
#: ``exhausted`` when the default check rejected it to the end).
ECHOED: Final = "echoed"

_SPACES = re.compile(r"\s+")
_REFUSALS = frozenset(
    phrase.casefold().rstrip(".")
    for phrase in (NO_ANSWER, "the context does not say", *REFUSAL_PHRASES)
)


def is_refusal(answer: str) -> bool:
    """
    Tell whether ``answer`` is a refusal and nothing more.

    An answer is a refusal when, case folded, with runs of whitespace made one
    space and trailing full stops dropped, it is exactly the retry query's
    sanctioned refusal (``"The context does not say."``) or one of
    :data:`relapse.grounding.REFUSAL_PHRASES`. An answer that refuses and then
    states something else is not a refusal.

    Args:
        answer: The model's answer.

    Returns:
        True for a bare refusal.
    """
    folded = _SPACES.sub(" ", answer).strip().casefold().rstrip(". ")
    return folded in _REFUSALS


def _returned(result: RelapseResult) -> IterationRecord | None:
    """The record of the answer the run returned (the last one with that text), if any."""
    for record in reversed(result.transcript):
        if record.answer == result.answer:
            return record
    return None


def is_echo(
    result: RelapseResult, question: str | None = None, chunks: Sequence[str] | None = None
) -> bool:
    """
    Tell whether the answer a run returned is an echo, not an answer.

    It is when its record holds an FG004 finding of either severity other
    than the empty answer's (an echo of the retry instructions, a copy of the
    chunks or the question), or, given ``question`` and ``chunks``, when it
    copies them back (:func:`relapse.grounding._echo.is_copy`), which tells
    echoes apart under a check that does not look for copies.

    Args:
        result: What the loop returned.
        question: The question the run was asked, to look for copies of it.
        chunks: The chunk texts the run was given, to look for copies of them.

    Returns:
        True for an echo.
    """
    record = _returned(result)
    if record is not None and any(
        f.code == FG004 and f.message != EMPTY_MESSAGE for f in record.findings
    ):
        return True
    if chunks is None or not result.answer.strip():
        return False
    folded = [fold(chunk) for chunk in chunks]
    return is_copy(result.answer, asked_text(question or ""), folded, CHUNK_SEPARATOR.join(folded))


def outcome_of(
    result: RelapseResult, question: str | None = None, chunks: Sequence[str] | None = None
) -> str:
    """
    The outcome of a loop run, splitting recoveries into answers, refusals and echoes.

    Args:
        result: What the loop returned.
        question: The question asked; with ``chunks``, a returned copy of
            either is an echo even when the check passed it.
        chunks: The chunk texts the run was given.

    Returns:
        :data:`ECHOED` for a run whose returned answer :func:`is_echo`;
        :data:`RECOVERED_REFUSAL` for a ``"recovered"`` run whose final answer
        :func:`is_refusal`; else ``result.outcome``.
    """
    if result.outcome != "disabled" and is_echo(result, question, chunks):
        return ECHOED
    if result.outcome == "recovered" and is_refusal(result.answer):
        return RECOVERED_REFUSAL
    return result.outcome
