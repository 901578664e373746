"""The value types that flow through the loop: findings, check results, records."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

#: How much a finding matters: an ``"error"`` rejects the answer and is named
#: in the retry query; a ``"warning"`` is only reported (transcript, spans).
Severity = Literal["error", "warning"]
SEVERITIES: tuple[str, ...] = ("error", "warning")

#: How a grounded call ended: the value of :attr:`RelapseResult.outcome` and
#: of the ``relapse.outcome`` span attribute. ``"grounded_first_try"``: the
#: first answer passed; ``"recovered"``: a retry's answer passed;
#: ``"exhausted"``: ``max_iterations`` answers, none passed; ``"timeout"``:
#: ``timeout`` was spent; ``"redacted"``: no answer passed and
#: ``on_exhausted="redact"`` took the failing sentences out of the best one;
#: ``"stalled"``: ``stop_on_repeat`` saw a failing retry that resolved nothing
#: and introduced nothing; ``"budget"``: the tokens spent reached
#: ``max_total_tokens``; ``"disabled"``: the kill switch was off (one call
#: straight through, no check).
Outcome = Literal[
    "grounded_first_try",
    "recovered",
    "exhausted",
    "timeout",
    "redacted",
    "stalled",
    "budget",
    "disabled",
]
#: Every :data:`Outcome`, in the order of its definition.
OUTCOMES: tuple[Outcome, ...] = get_args(Outcome)


@dataclass(frozen=True)
class Usage:
    """
    Tokens one LLM call (or several, summed) consumed.

    ``Usage`` values add up: ``a + b`` sums each field, and ``sum(usages)``
    works (it starts from ``0``).

    Attributes:
        input_tokens: Tokens of the prompt (OpenAI ``prompt_tokens``), cache
            reads and writes included.
        output_tokens: Tokens generated (OpenAI ``completion_tokens``),
            reasoning tokens included when the provider counts them there.

    Raises:
        TypeError: a field is not an ``int`` (``bool`` is refused).
        ValueError: a field is negative.
    """

    input_tokens: int = 0
    output_tokens: int = 0

    def __post_init__(self) -> None:
        for name in ("input_tokens", "output_tokens"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"Usage.{name} must be an int, got {type(value).__name__}")
            if value < 0:
                raise ValueError(f"Usage.{name} must be >= 0, got {value}")

    @property
    def total_tokens(self) -> int:
        """``input_tokens + output_tokens``."""
        return self.input_tokens + self.output_tokens

    def __add__(self, other: object) -> Usage:
        if not isinstance(other, Usage):
            return NotImplemented
        return Usage(
            self.input_tokens + other.input_tokens, self.output_tokens + other.output_tokens
        )

    def __radd__(self, other: object) -> Usage:
        # sum() starts from the int 0.
        if other == 0 and not isinstance(other, bool):
            return self
        return NotImplemented


def total_usage(usages: Iterable[Usage | None]) -> Usage | None:
    """The sum of the reported usages; None when none was reported."""
    reported = [usage for usage in usages if usage is not None]
    return sum(reported[1:], reported[0]) if reported else None


@dataclass(frozen=True)
class GroundingFinding:
    """
    One problem a grounding check found in an answer.

    Attributes:
        code: A stable finding code, for example ``"FG001"`` (numbers),
            ``"FG002"`` (dates) or ``"FG003"`` (quotations). The codes are
            documented in ``docs/findings.md``.
        message: A human-readable explanation. It may quote the failing spans
            but never the chunks.
        spans: The failing substrings exactly as they appear in the answer,
            in answer order.
        offsets: ``(start, end)`` character offsets of each span in the
            answer (end exclusive), parallel to ``spans``; empty when the
            check that produced the finding does not know them.
        severity: ``"error"`` (the default) rejects the answer and triggers
            a retry; ``"warning"`` is reported in the transcript and on the
            spans but never rejects an answer.
        score: How sure the stage that raised the finding is, as a
            probability in ``[0, 1]`` where the stage has one (a learned
            span detector's highest token probability over the spans, a
            judge's confidence), else None. The default check is
            deterministic and leaves it None.

    Raises:
        ValueError: ``severity`` is neither ``"error"`` nor ``"warning"``,
            or ``score`` is not a finite number in ``[0, 1]``.

    .. versionchanged:: 0.2.0 ``severity``, ``score``.
    """

    code: str
    message: str
    spans: tuple[str, ...] = field(default_factory=tuple)
    offsets: tuple[tuple[int, int], ...] = field(default_factory=tuple)
    severity: Severity = "error"
    score: float | None = None

    def __post_init__(self) -> None:
        if self.severity not in SEVERITIES:
            raise ValueError(
                f"severity must be 'error' or 'warning', got {self.severity!r}"
                f" (finding {self.code!r})"
            )
        if self.score is not None and (
            isinstance(self.score, bool)
            or not isinstance(self.score, (int, float))
            or not 0.0 <= self.score <= 1.0
        ):
            # NaN fails the range test too: it compares false both ways.
            raise ValueError(
                f"score must be a number in [0, 1] or None, got {self.score!r}"
                f" (finding {self.code!r})"
            )


@dataclass(frozen=True)
class StageRun:
    """
    What one stage of a :func:`relapse.checks.cascade` did with one answer.

    Attributes:
        name: The stage's name (its check's ``name``, else its qualname).
        ran: Whether the stage judged the answer; False when the cascade
            (mode ``"escalate"``) stopped at an earlier stage's rejection,
            or (``release="sentence"``) the stage waits for the end.
        ok: The stage's verdict when it ran (after its threshold), else None.
        duration_s: Wall time of the stage on this answer, in seconds (0.0
            when it did not run).
        usage: The tokens the stage spent (a judge's model call), or None
            when it reported none.
        findings: The stage's own findings, after its threshold and band
            (see :func:`relapse.checks.stage`).

    .. versionadded:: 0.2.0
    """

    name: str
    ran: bool
    ok: bool | None = None
    duration_s: float = 0.0
    usage: Usage | None = None
    findings: tuple[GroundingFinding, ...] = ()


#: What an :class:`Evidence` supports: a number, a date or a quotation of the answer.
EvidenceKind = Literal["number", "date", "quotation"]


@dataclass(frozen=True)
class Evidence:
    """
    Where a chunk supports one claim of the answer: a citation.

    The default check gives one for every claim it supported from a chunk
    (``docs/findings.md``, "Evidence"); a custom check may give its own.

    Attributes:
        kind: What the claim is: ``"number"`` (a number, an amount, a
            percentage, a range, a token such as ``3rd``), ``"date"`` (a
            date, a year, a decade, a century), ``"time"`` (a time of day)
            or ``"quotation"``. A custom check may use other kinds.
        answer_span: ``(start, end)`` character offsets of the claim in the
            answer string as the check received it (end exclusive): the
            number with its sign, currency, scale and unit as the check
            read them (``$3 billion``), the date (``March 5, 1931``), a
            quotation's text inside its quotation marks.
        chunk_index: The index of the supporting chunk in the chunks the
            check judged against; in what the loop returns, always the
            index in the chunks the caller passed (``run(compress=True)``
            judges a deduplicated list, whose evidence the loop moves back
            to the caller's chunks, offsets and ids).
        chunk_span: ``(start, end)`` character offsets, in that chunk's
            text as passed (never a normalised copy), of the text that
            supports the claim: the chunk's own writing of the value
            (``3,000,000,000`` for ``3 billion``, ``5 March 1931``), or of
            the quotation, from its first fragment to its last.
        chunk_id: The chunk's id when it came with one (a mapping's ``id``,
            ``doc_id``, ``node_id`` or ``metadata["source"]``, a document's
            ``id``/``node_id``/``metadata["source"]``), else None.

    .. versionadded:: 0.2.0
    """

    kind: str
    answer_span: tuple[int, int]
    chunk_index: int
    chunk_span: tuple[int, int]
    chunk_id: str | None = None


#: What a rule decided about a claim (:class:`ClaimTrace`).
ClaimOutcome = Literal["supported", "exempt", "fails", "covered"]


@dataclass(frozen=True)
class ClaimTrace:
    """
    Why the default check judged one claim as it did: ``check(..., explain=True)``.

    Attributes:
        code: The finding code the claim would fail with (``"FG001"``...).
        answer_span: ``(start, end)`` character offsets of the claim in the
            answer (end exclusive); the whole answer for FG004's rules.
        text: The claim's text, ``answer[start:end]``.
        reader: What read the claim: ``"digits"`` (numbers, dates and times
            in digits), ``"words"`` (numbers, years, times and decades in
            words), ``"ordinals"`` (``fourth``), ``"quotations"``, or
            ``"answer"`` (a rule of the whole answer: empty, echo, copy,
            names).
        rule: The name of the rule that decided it last
            (``relapse.grounding.rules.RULES``); None when none decided (a
            claim no rule supports).
        outcome: ``"supported"`` (a rule found what states it), ``"exempt"``
            (it claims nothing: a list marker, a trivial number), ``"fails"``
            (it is in a finding), or ``"covered"`` (inside a failing
            quotation or echoed line, whose finding covers it).
        evidence: The chunk's place that supports it, when the check cites one.

    .. versionadded:: 0.2.0
    """

    code: str
    answer_span: tuple[int, int]
    text: str
    reader: str
    rule: str | None
    outcome: ClaimOutcome
    evidence: Evidence | None = None


@dataclass(frozen=True)
class GroundingResult:
    """
    The verdict of a grounding check on one answer.

    The severity rule: ``ok`` is False only when an error finding exists or
    the check rejected the answer without any finding. A result built with
    ``ok=False`` whose findings are all warnings is stored with ``ok`` True:
    warnings never reject an answer.

    Attributes:
        ok: True when the answer may be returned as grounded.
        findings: Every problem found, errors and warnings; warnings may
            accompany ``ok`` True.
        evidence: Where the chunks support the answer's claims, one
            :class:`Evidence` per supported claim the check could place, in
            answer order; empty for a check that supplies none (the loop
            never requires it).
        usage: The tokens the check itself spent (an
            :class:`relapse.checks.LLMJudge`'s model call; a composition's
            parts summed), or None when it reported none (the default check
            calls no model).
        stages: What each stage of a :func:`relapse.checks.cascade` did
            (ran or not, verdict, wall time, tokens), in cascade order;
            empty for any other check.
        trace: Why each claim was judged as it was, in answer order: one
            :class:`ClaimTrace` per claim, when the default check is asked
            with ``explain=True``; empty otherwise.

    .. versionchanged:: 0.2.0 ``evidence``, ``usage``, ``stages`` and ``trace``.
    """

    ok: bool
    findings: tuple[GroundingFinding, ...] = field(default_factory=tuple)
    evidence: tuple[Evidence, ...] = ()
    usage: Usage | None = None
    stages: tuple[StageRun, ...] = ()
    trace: tuple[ClaimTrace, ...] = ()

    def __post_init__(self) -> None:
        if not self.ok and self.findings and all(f.severity == "warning" for f in self.findings):
            object.__setattr__(self, "ok", True)

    @property
    def errors(self) -> tuple[GroundingFinding, ...]:
        """The findings of severity ``"error"``."""
        return tuple(f for f in self.findings if f.severity == "error")


@dataclass(frozen=True)
class IterationRecord:
    """
    One LLM call of the loop and what the check said about its answer.

    Attributes:
        iteration: 1 for the first call, then 2, 3, ...
        prompt: The query text passed on this iteration: the caller's query on
            iteration 1, the retry prompt afterwards.
        answer: The answer text the check judged (what ``answer_of`` read
            from ``response``; empty when it could not be read).
        grounded: Whether the check accepted ``answer``.
        findings: The check's findings on ``answer``.
        duration_s: Wall time of the LLM call plus the check, in seconds.
        response: What the function (or ``call_llm``) returned, unchanged: a
            ``str``, an SDK response object, a dict; for a stream, a
            :class:`relapse.Streamed` of its pieces.
        usage: The tokens this call reported (:class:`relapse.Usage`), or
            None when it reported none.
        resolved: The error findings of the previous iteration's answer this
            answer no longer has, matched by code and normalised span (never
            by offset; see ``docs/guarantees.md``), each cut down to those
            spans, offsets in the previous answer. Empty on iteration 1.
        persisted: The error findings this answer still has from the previous
            one, offsets in this answer. Empty on iteration 1.
        introduced: The error findings this answer has and the previous one
            did not, offsets in this answer. Empty on iteration 1.
        evidence: The check's :attr:`GroundingResult.evidence` for this answer.
        released: ``release="sentence"``: the text of this call handed to
            the caller (its ``answer`` is the released prefix of earlier
            calls, then this call's text, up to its failing sentence); empty
            with ``release="answer"``.
        check_usage: The tokens the check spent judging ``answer`` (an
            :class:`relapse.checks.LLMJudge`'s model call), or None when it
            reported none. Not in ``usage``, which is the LLM call's own.
        stages: A :func:`relapse.checks.cascade`'s account of each stage on
            ``answer`` (:class:`relapse.StageRun`); empty for other checks.

    .. versionchanged:: 0.2.0 ``response``, ``usage``, ``resolved``,
       ``persisted``, ``introduced``, ``evidence``, ``released``,
       ``check_usage`` and ``stages``.
    """

    iteration: int
    prompt: str
    answer: str
    grounded: bool
    findings: tuple[GroundingFinding, ...] = field(default_factory=tuple)
    duration_s: float = 0.0
    # A response may be unhashable (a dict); records still hash by the rest.
    response: Any = field(default=None, hash=False)
    usage: Usage | None = None
    resolved: tuple[GroundingFinding, ...] = ()
    persisted: tuple[GroundingFinding, ...] = ()
    introduced: tuple[GroundingFinding, ...] = ()
    evidence: tuple[Evidence, ...] = ()
    released: str = ""
    check_usage: Usage | None = None
    stages: tuple[StageRun, ...] = ()

    @property
    def spent(self) -> Usage | None:
        """The tokens this iteration spent, its LLM call's and its check's; None if neither said."""
        return total_usage((self.usage, self.check_usage))


@dataclass(frozen=True)
class Redaction:
    """
    One sentence ``on_exhausted="redact"`` took out of an answer.

    Attributes:
        iteration: The iteration whose answer was redacted (its record in
            the transcript holds the full text).
        span: ``(start, end)`` character offsets of the removed sentence in
            that answer (end exclusive).
        findings: The error findings with a span in that sentence; empty
            when the sentence went because a claim of the redacted text
            failed without it, or nothing could be kept.

    .. versionadded:: 0.2.0
    """

    iteration: int
    span: tuple[int, int]
    findings: tuple[GroundingFinding, ...] = ()


@dataclass
class RelapseResult:
    """
    The outcome of one grounded call.

    Attributes:
        answer: The answer returned to the caller (per ``on_exhausted`` when no
            answer passed the check).
        grounded: True if and only if ``answer`` passed the check.
        iterations: How many LLM calls were made, from 1 to ``max_iterations``.
        transcript: One record per LLM call, in order.
        outcome: How the call ended, a :data:`relapse.Outcome`.
        response: The function's own return value for ``answer`` (what
            calling the decorated function returns; for a stream, the
            :class:`relapse.Streamed` it replays). With outcome
            ``"redacted"``, the response rebuilt around the redacted text
            where relapse can (a ``str``, a dict, an OpenAI Chat Completion,
            ...; see ``docs/decorator.md``), else the redacted text itself.
        redactions: With outcome ``"redacted"``, what was taken out: one
            :class:`relapse.Redaction` per removed sentence, in answer
            order; empty otherwise.
        evidence: The check's :class:`relapse.Evidence` for ``answer``: the
            chosen record's (for a redaction, the evidence of the sentences
            kept, offsets in the redacted text); empty for a callable
            ``on_exhausted``'s text and for checks that supply none.

    .. versionchanged:: 0.2.0 ``response``, ``redactions``, ``evidence`` and :attr:`usage`;
       ``outcome`` typed :data:`relapse.Outcome`.
    """

    answer: str
    grounded: bool
    iterations: int
    transcript: list[IterationRecord] = field(default_factory=list)
    outcome: Outcome = "grounded_first_try"
    response: Any = None
    redactions: tuple[Redaction, ...] = ()
    evidence: tuple[Evidence, ...] = ()

    @property
    def usage(self) -> Usage | None:
        """
        The tokens of every LLM call of the transcript, summed; None when none reported any.

        The check's model calls count too (an :class:`relapse.checks.LLMJudge`'s
        tokens, :attr:`IterationRecord.check_usage`): they were paid for this call.
        """
        return total_usage(record.spent for record in self.transcript)

    def __str__(self) -> str:
        status = "grounded" if self.grounded else f"not grounded ({self.outcome})"
        return (
            f"relapse: {status} after {self.iterations} iteration(s)\n  answer: {self.answer[:200]}"
        )
