"""
How one loop run ended, with refusals told apart from answers.

A refusal ("The context does not say.") passes the grounding check, so the
loop reports it as ``grounded``; but it is not an answer. Reports (``relapse
demo``, ``relapse eval --loop``) count a recovery that is a refusal apart from
a recovery with an answer.
"""

from __future__ import annotations

import re
from typing import Final

from relapse._attributes import OUTCOME_RECOVERED
from relapse._prompts import NO_ANSWER
from relapse._types import RelapseResult
from relapse.grounding import REFUSAL_PHRASES

__all__ = ["RECOVERED_REFUSAL", "is_refusal", "outcome_of"]

#: The outcome of a loop whose first answer failed and whose grounded final
#: answer is a refusal; ``relapse.outcome`` on the span still says ``recovered``.
RECOVERED_REFUSAL: Final = "recovered_refusal"

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


def outcome_of(result: RelapseResult) -> str:
    """
    The outcome of a loop run, splitting recoveries into answers and refusals.

    Args:
        result: What the loop returned.

    Returns:
        ``result.outcome``, except :data:`RECOVERED_REFUSAL` for a
        ``"recovered"`` run whose final answer :func:`is_refusal`.
    """
    if result.outcome == OUTCOME_RECOVERED and is_refusal(result.answer):
        return RECOVERED_REFUSAL
    return result.outcome
