"""
The state every policy receives: :class:`Attempt`, and :func:`current_attempt`.

One frozen object describes the iteration being prepared or in progress,
handed to every policy and documented field by field.
"""

from __future__ import annotations

from contextvars import ContextVar, Token
from dataclasses import dataclass

from relapse._results import GroundingFinding, IterationRecord, Usage, total_usage

__all__ = ["Attempt", "current_attempt"]


@dataclass(frozen=True)
class Attempt:
    """
    One iteration of the loop, as the policies and the decorated function see it.

    ``rewrite``, ``retrieve``, ``on_iteration`` and a callable ``on_exhausted``
    all receive it; :func:`current_attempt` returns it from inside the
    decorated function (or ``call_llm``) while that iteration runs.

    .. versionadded:: 0.2.0
    """

    #: 1 for the first LLM call, then 2, 3, ...
    iteration: int
    #: The caller's original query, unchanged on every iteration.
    query: str
    #: The query text this iteration sends: ``query`` on iteration 1, the retry
    #: query afterwards. While ``retrieve`` and ``rewrite`` prepare an
    #: iteration it is still the previous iteration's prompt.
    prompt: str
    #: The chunk texts the check judges this iteration's answer against.
    chunks: tuple[str, ...]
    #: The records of the iterations before this one, in order (empty on
    #: iteration 1).
    transcript: tuple[IterationRecord, ...]
    #: Every finding (errors and warnings) of the previous iteration's answer;
    #: empty on iteration 1.
    findings: tuple[GroundingFinding, ...]
    #: Seconds since the loop started (``time.monotonic`` unless a clock was injected).
    elapsed_s: float
    #: ``release="sentence"``: the text already handed to the caller, checked,
    #: which this iteration's answer continues (the retry query quotes it as
    #: already said); for a callable ``on_exhausted``, all the caller was
    #: shown, which its text follows. Empty on iteration 1 and with
    #: ``release="answer"``.
    released: str = ""

    @property
    def previous_answer(self) -> str | None:
        """The previous iteration's answer, or None on iteration 1."""
        return self.transcript[-1].answer if self.transcript else None

    @property
    def usage(self) -> Usage | None:
        """
        The tokens the iterations before this one spent, summed; None when none reported any.

        Each iteration's LLM call and its check's model calls (an
        :class:`relapse.checks.LLMJudge`'s tokens) count. A function can
        read it through :func:`current_attempt` to switch to a cheaper model,
        or stop, when the retries grow expensive.
        """
        return total_usage(record.spent for record in self.transcript)

    @property
    def errors(self) -> tuple[GroundingFinding, ...]:
        """The findings of severity ``"error"``: the ones a retry must fix."""
        return tuple(f for f in self.findings if f.severity == "error")


_CURRENT: ContextVar[Attempt | None] = ContextVar("relapse_current_attempt", default=None)


def current_attempt() -> Attempt | None:
    """
    The :class:`Attempt` of the iteration in progress, from inside the loop.

    Call it from the decorated function (or ``call_llm``) to adapt a retry:
    raise the temperature, change the seed, switch to a stronger model when
    ``attempt.iteration > 1``. It is a :class:`contextvars.ContextVar`, so each
    thread, each asyncio task and each nested grounded call sees its own.

    Returns:
        The attempt in progress, or None outside any grounded call.

    .. versionadded:: 0.2.0
    """
    return _CURRENT.get()


class attempt_scope:  # noqa: N801 (a context manager used like a function, as contextlib.suppress)
    """Make ``attempt`` what :func:`current_attempt` returns inside the ``with`` block."""

    __slots__ = ("_attempt", "_token")

    def __init__(self, attempt: Attempt) -> None:
        self._attempt = attempt
        self._token: Token[Attempt | None] | None = None

    def __enter__(self) -> None:
        self._token = _CURRENT.set(self._attempt)

    def __exit__(self, *exc_info: object) -> None:
        token = self._token
        if token is not None:
            self._token = None
            # A coroutine closed from another context cannot reset its token;
            # that context never saw the attempt, so there is nothing to undo.
            # (try, not contextlib.suppress: this runs on every LLM call.)
            try:  # noqa: SIM105 (suppress allocates a context manager per call)
                _CURRENT.reset(token)
            except ValueError:
                pass
