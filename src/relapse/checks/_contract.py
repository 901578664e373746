"""
The check contract, as ``typing.Protocol``s, and binding a check to one call.

Three roles, three names:

* :class:`Check`: any ``check(query, chunks, answer) -> GroundingResult``;
  what ``grounding_check=`` takes.
* :class:`PreparableCheck`: a :class:`Check` that can also be *prepared*
  for one call, ``prepare(query, chunks)``, doing its work on the chunks
  once for every answer of that call;
* :class:`BoundCheck`: what ``prepare`` returns, a check *bound* to one
  call's query and chunks, ``check(answer) -> GroundingResult``.

An ``async`` check (one that returns an awaitable verdict) works under
:func:`relapse.arun` and decorated ``async def`` functions.

A check that judges a growing text (``release="sentence"``) may also say how
its verdicts read it: :class:`ReadsItsStream` (a ``stream_reader()`` method)
returns a :class:`StreamReader`, which the incremental check asks when a
sentence's verdict is final, where a verdict's failing claims are and what is
held back; for one attempt it may give a :class:`StreamWindow` that judges a
long answer by a window of it. The default check supplies its own; a check
that supplies none is read generically (:mod:`relapse.checks._incremental`).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Coroutine, Generator, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol, runtime_checkable

from relapse._results import Evidence, GroundingFinding, GroundingResult, Usage, total_usage

#: What a check may return: the verdict, or (async checks) an awaitable of it.
Verdict = GroundingResult | Awaitable[GroundingResult]

#: Finding code a composition (:func:`relapse.checks.all_of`) records for a
#: check that rejected the answer without any finding: the rejection must
#: survive next to another check's warnings, which alone never reject.
SILENT_REJECTION_CODE = "AO001"


@runtime_checkable
class Check(Protocol):
    """``check(query, chunks, answer) -> GroundingResult``: any grounding check."""

    def __call__(self, query: str, chunks: Sequence[str], answer: str, /) -> Verdict:
        """Judge ``answer`` to ``query`` against the chunk texts ``chunks``."""


@runtime_checkable
class BoundCheck(Protocol):
    """
    A check bound to one call's query and chunks: ``check(answer) -> GroundingResult``.

    What :meth:`PreparableCheck.prepare` returns; the loop calls it once per answer.
    """

    def check(self, answer: str, /) -> Verdict:
        """Judge one answer against the bound chunks."""


@runtime_checkable
class PreparableCheck(Check, Protocol):
    """
    A :class:`Check` that can be prepared for one call: ``prepare(query, chunks) -> BoundCheck``.

    The loop prepares it once per call (and again when the chunks change),
    so work on the chunks (reading, indexing) is done once for every answer.
    """

    def prepare(self, query: str, chunks: Sequence[str], /) -> BoundCheck:
        """Bind the check to ``query`` and ``chunks``."""


class ClaimSpans(NamedTuple):
    """
    Where the claims are that make a verdict fail, in the text it judged.

    Attributes:
        spans: ``(start, end, finding)`` of each claim located: its offsets
            in the text and the index of its finding in ``verdict.findings``.
        whole: Whether an error is about the whole answer (a copy, an empty
            answer) or located nowhere: then nothing more may be released.
    """

    spans: tuple[tuple[int, int, int], ...]
    whole: bool


class WindowVerdict(NamedTuple):
    """
    What a :class:`StreamWindow` found after the released text of a long answer.

    Attributes:
        claims: The failing claims there: none (the window shows that nothing
            after the released text fails), or ``whole`` alone (the answer so
            far is a verdict about the whole answer, a copy).
        held: Offset in the whole text of a quotation that may still close
            (nothing from it is released), or None.
    """

    claims: ClaimSpans
    held: int | None


@runtime_checkable
class StreamWindow(Protocol):
    """
    One attempt's judge of a long answer by a window of it, not the whole text fed so far.

    Built by :meth:`StreamReader.window`, fed by one
    :class:`relapse.checks.IncrementalCheck`; not thread-safe. Each call's
    ``text`` extends the last one's.
    """

    #: How many times a window was judged (the check run on it).
    checks: int

    def judge(
        self, text: str, sentences: Sequence[tuple[int, int]], first: int, /
    ) -> WindowVerdict | None:
        """
        Judge the text after the first ``first`` sentences by a window, when one applies.

        Args:
            text: The text fed so far.
            sentences: ``(start, end)`` of every confirmed sentence, in order.
            first: The index of the first sentence not known to pass
                (``< len(sentences)``).

        Returns:
            A :class:`WindowVerdict` that holds no failing claim (or only a
            verdict about the whole answer), or None: no window applies, or
            it found a failure; then the whole text fed so far is judged.
        """


@runtime_checkable
class StreamReader(Protocol):
    """
    How a check's verdicts read a growing answer: when a verdict is final, where its claims are.

    :class:`relapse.checks.IncrementalCheck` asks it, so that the check
    itself, not the incremental check, knows how far its rules read. Every
    method is a pure function of its arguments; the reader is shared by the
    attempts of a call (:meth:`window` is per attempt).
    """

    #: Characters after a claim that a verdict on it reads: a verdict on a
    #: claim is final once the text reaches this far past it.
    reach: int

    def final_from(self, text: str, start: int, end: int, /) -> int | None:
        """
        The length of text from which the verdict on the sentence ``text[start:end]`` is final.

        Asked once the sentence's end is confirmed (the next one began).

        Returns:
            A length (``end`` when nothing after the sentence can change its
            verdict), or None when it is not known yet: the reader is asked
            again when the text grows.
        """

    def fails_for_good(self, text: str, sentence: tuple[int, int], claim_start: int, /) -> bool:
        """
        Tell whether a failing claim fails for good before :attr:`reach` passes.

        Asked for a claim inside ``sentence``, whose verdict is final: True
        when nothing after the sentence can rescue the claim.
        """

    def held_from(self, text: str, /) -> int | None:
        """Where ``text`` is held from (a quotation that may still close), or None."""

    def claims(self, verdict: GroundingResult, text: str, /) -> ClaimSpans:
        """Where the claims are that make ``verdict`` (a verdict on ``text``) fail."""

    def narrowed(
        self, finding: GroundingFinding, text: str, offsets: Sequence[tuple[int, int]], /
    ) -> GroundingFinding:
        """``finding`` (on ``text``) restricted to its claims at ``offsets``: a sentence's share."""

    def window(self, bound: Callable[[str], Verdict], /) -> StreamWindow | None:
        """
        A judge of windows of a long answer for one attempt of ``bound``, or None.

        Args:
            bound: The check bound to the call (what ``prepare`` gave).
        """


@runtime_checkable
class ReadsItsStream(Protocol):
    """
    A check that says how its verdicts read a growing answer: ``stream_reader() -> StreamReader``.

    The default check does. A check that does not is read generically: a
    sentence's verdict is final a fixed reach past its end, a failing claim
    is where its finding's offsets are (a finding without offsets is about
    the whole answer), and a quotation still open holds the text.
    """

    def stream_reader(self) -> StreamReader:
        """Return the check's reader of a growing answer."""


class PendingVerdict:
    """
    An async check's verdict: awaitable once, or closable without awaiting.

    A sync call cannot await an async check; the loop then closes the
    verdict, which closes the coroutine the check was waiting on too, so
    Python does not warn that it was never awaited.

    Args:
        verdict: The coroutine that produces the verdict by awaiting ``inner``.
        inner: What it awaits first (the judge's reply, a sub-check's verdict).
    """

    __slots__ = ("_inner", "_verdict")

    def __init__(self, verdict: Coroutine[Any, Any, GroundingResult], inner: object) -> None:
        self._verdict = verdict
        self._inner = inner

    def __await__(self) -> Generator[Any, Any, GroundingResult]:
        return self._verdict.__await__()

    def close(self) -> None:
        """Close the verdict and what it awaits, never having run them."""
        self._verdict.close()
        close = getattr(self._inner, "close", None)
        if callable(close):
            close()


class CheckOperators:
    """
    Mixin giving checks composition by operator: ``check_a & check_b``.

    ``a & b`` is :func:`relapse.checks.all_of(a, b) <relapse.checks.all_of>`.
    """

    __slots__ = ()

    def __and__(self, other: object) -> Any:
        if not callable(other):
            return NotImplemented
        return all_of(self, other)  # type: ignore[arg-type]

    def __rand__(self, other: object) -> Any:
        if not callable(other):
            return NotImplemented
        return all_of(other, self)  # type: ignore[arg-type]


def check_name(check: Callable[..., Any]) -> str:
    """The name a check reports in telemetry: its ``name`` attribute or qualname."""
    name = getattr(check, "name", None)
    if isinstance(name, str) and name:
        return name
    return getattr(check, "__qualname__", type(check).__qualname__)


#: Who judges, in OpenInference's annotator kinds: a model, or code.
ANNOTATOR_KINDS = frozenset({"LLM", "CODE", "HUMAN"})


def annotator_kind(check: object) -> str:
    """
    Who a check's verdict comes from: ``"LLM"`` or ``"CODE"`` (OpenInference's annotator kinds).

    A check declares it with an ``annotator_kind`` attribute
    (:class:`relapse.checks.LLMJudge` says ``"LLM"``); a composition is
    ``"LLM"`` when any part is; anything else is ``"CODE"``.
    """
    kind = getattr(check, "annotator_kind", None)
    if isinstance(kind, str) and kind in ANNOTATOR_KINDS:
        return kind
    parts = getattr(check, "checks", None)
    if isinstance(parts, tuple) and any(annotator_kind(part) == "LLM" for part in parts):
        return "LLM"
    return "CODE"


def prepare(check: Check, query: str, chunks: Sequence[str]) -> Callable[[str], Verdict]:
    """
    Bind ``check`` to one call, indexing the chunks once when it can.

    A check with a ``prepare(query, chunks)`` method (the default check has
    one) indexes the chunks once per call instead of once per iteration.

    Returns:
        ``answer -> verdict``.
    """
    preparer = getattr(check, "prepare", None)
    if callable(preparer):
        prepared = preparer(query, chunks)
        bound = getattr(prepared, "check", prepared)
        if callable(bound):
            return bound  # type: ignore[no-any-return]
    return lambda answer: check(query, chunks, answer)


def can_judge_incrementally(check: object) -> bool:
    """
    Tell whether ``check`` can judge a growing text sentence by sentence.

    A check declares it with a truthy attribute ``incremental``: the default
    check does, :class:`~relapse.checks.LLMJudge` does not (it needs the whole
    answer), :func:`~relapse.checks.all_of` and ``&`` do when every part does,
    and a plain function does not unless it sets ``fn.incremental = True``.
    An ``async`` check never does: the stream is judged between two pieces,
    synchronously.

    Args:
        check: Any check.

    Returns:
        True when ``release="sentence"`` can use it.
    """
    if not getattr(check, "incremental", False):
        return False
    call = getattr(check, "__call__", None)  # noqa: B004 -- the call itself, to test for a coroutine
    return not (inspect.iscoroutinefunction(check) or inspect.iscoroutinefunction(call))


@dataclass(frozen=True)
class _AllOf(CheckOperators):
    checks: tuple[Check, ...]
    short_circuit: bool
    name: str

    @property
    def incremental(self) -> bool:
        """Whether every part can judge a growing text sentence by sentence."""
        return all(can_judge_incrementally(check) for check in self.checks)

    def prepare(self, query: str, chunks: Sequence[str]) -> _BoundAllOf:
        return _BoundAllOf(
            tuple(prepare(c, query, chunks) for c in self.checks),
            tuple(check_name(c) for c in self.checks),
            self.short_circuit,
        )

    def __call__(self, query: str, chunks: Sequence[str], answer: str) -> Verdict:
        return self.prepare(query, chunks).check(answer)


def _add(
    verdict: object,
    name: str,
    findings: list[GroundingFinding],
    evidence: list[Evidence] | None = None,
    spent: list[Usage] | None = None,
) -> bool:
    """
    Collect the findings (evidence, tokens) of ``verdict`` from the check ``name``; True if passed.

    A rejection without any finding is recorded as a ``SILENT_REJECTION_CODE``
    error naming the check: left out, the composed result could hold only
    another check's warnings, and the severity rule would make it pass.

    Raises:
        TypeError: ``verdict`` is not a :class:`relapse.GroundingResult`.
    """
    if not isinstance(verdict, GroundingResult):
        raise TypeError(
            f"a check returned {type(verdict).__name__}; expected relapse.GroundingResult"
        )
    findings.extend(verdict.findings)
    if evidence is not None:
        evidence.extend(verdict.evidence)
    if spent is not None and verdict.usage is not None:
        spent.append(verdict.usage)
    if not verdict.ok and not verdict.errors:
        findings.append(
            GroundingFinding(
                SILENT_REJECTION_CODE, f"the check {name!r} rejected the answer without a finding"
            )
        )
    return verdict.ok


def _merged(evidence: list[Evidence]) -> tuple[Evidence, ...]:
    """The evidence of every part, once each, in answer order."""
    return tuple(sorted(set(evidence), key=lambda e: (e.answer_span, e.chunk_index, e.chunk_span)))


@dataclass(frozen=True)
class _BoundAllOf:
    checks: tuple[Callable[[str], Verdict], ...]
    #: The name of each check, parallel to ``checks``.
    names: tuple[str, ...]
    short_circuit: bool

    def check(self, answer: str) -> Verdict:
        findings: list[GroundingFinding] = []
        evidence: list[Evidence] = []
        # The parts' own tokens (a judge's), summed on the composed verdict.
        spent: list[Usage] = []
        ok = True
        remaining = iter(zip(self.checks, self.names, strict=True))
        for check, name in remaining:
            verdict = check(answer)
            if inspect.isawaitable(verdict):
                # An async check: finish the rest awaiting, in the same order.
                return PendingVerdict(
                    self._finish(verdict, name, remaining, answer, findings, ok, evidence, spent),
                    verdict,
                )
            ok = _add(verdict, name, findings, evidence, spent) and ok
            if not ok and self.short_circuit:
                break
        return GroundingResult(ok, tuple(findings), _merged(evidence), total_usage(spent))

    async def _finish(
        self,
        pending: Awaitable[GroundingResult],
        name: str,
        remaining: Iterator[tuple[Callable[[str], Verdict], str]],
        answer: str,
        findings: list[GroundingFinding],
        ok: bool,
        evidence: list[Evidence],
        spent: list[Usage],
    ) -> GroundingResult:
        ok = _add(await pending, name, findings, evidence, spent) and ok
        for check, next_name in remaining:
            if not ok and self.short_circuit:
                break
            verdict = check(answer)
            if inspect.isawaitable(verdict):
                verdict = await verdict
            ok = _add(verdict, next_name, findings, evidence, spent) and ok
        return GroundingResult(ok, tuple(findings), _merged(evidence), total_usage(spent))


def all_of(*checks: Check, short_circuit: bool = True) -> Check:
    """
    Combine checks: the answer passes when every check passes.

    The composition rejects whenever any check rejects. A check that rejects
    without any finding (``GroundingResult(ok=False)``) is recorded as an
    ``AO001`` error finding naming it, so the rejection stands next to
    another check's warnings (which alone never reject), and the loop's
    ``"best"`` ranks the answer as one a check could not read.

    Put cheap deterministic checks first: with ``short_circuit`` (the
    default) the checks after the first failing one are not run, so an LLM
    judge is only paid for answers the default check accepted.

    Args:
        checks: Two or more checks.
        short_circuit: Stop at the first failing check.

    Returns:
        A check whose findings are those of every check that ran, in order
        (with an ``AO001`` finding for each silent rejection), and whose
        ``usage`` sums theirs (a judge's tokens).

    Raises:
        TypeError: fewer than two checks, or one is not callable.
    """
    if len(checks) < 2:
        raise TypeError(f"all_of needs at least two checks, got {len(checks)}")
    for index, check in enumerate(checks):
        if not callable(check):
            raise TypeError(f"checks[{index}] is {type(check).__name__}; expected a callable check")
    name = " & ".join(check_name(c) for c in checks)
    return _AllOf(tuple(checks), short_circuit, name)


def narrowed_finding(
    finding: GroundingFinding, text: str, offsets: Sequence[tuple[int, int]]
) -> GroundingFinding:
    """``finding`` with only the claims at ``offsets`` (its message unchanged)."""
    return GroundingFinding(
        finding.code,
        finding.message,
        tuple(text[low:high] for low, high in offsets),
        tuple(offsets),
        finding.severity,
    )
