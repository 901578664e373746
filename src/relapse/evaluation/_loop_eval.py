"""
``relapse eval --loop``: the grounding loop on a real model over a dataset's questions.

Each distinct question (with its passages) goes through one
:class:`relapse.Loop` (:meth:`relapse.Loop.run`) once. The report counts how
runs ended, with recoveries that are refusals apart (see
:func:`relapse.evaluation._outcomes.outcome_of`), LLM calls and tokens per
question, how long the retry prompts are compared with the first prompt, and
wall time per question. With ``release="sentence"`` every call streams
(:mod:`relapse.evaluation._streaming`) and the report adds the time to the
first released piece, the output tokens and relapse's estimate of the
output tokens saved.
"""

from __future__ import annotations

import multiprocessing
import pickle
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, Protocol

import relapse
from relapse._lineage import count_by_code
from relapse.checks._contract import Check as GroundingCheck
from relapse.evaluation._data import QuestionRecord
from relapse.evaluation._outcomes import outcome_of
from relapse.evaluation._streaming import run_streamed, saved_output_tokens_estimate, stream_of

__all__ = [
    "OUTCOMES",
    "LoopModel",
    "LoopReport",
    "QuestionRun",
    "distinct_questions",
    "evaluate_loop",
    "format_loop_report",
    "saved_output_tokens_estimate",
]

#: Outcomes in report order; ``recovered`` is a recovery with an answer,
#: ``recovered_refusal`` one whose final answer is a refusal, ``echoed`` a run
#: whose returned answer copies the context, the question or the instructions
#: back (never counted as recovered, whether or not the check passed it).
OUTCOMES = (
    "grounded_first_try",
    "recovered",
    "recovered_refusal",
    "echoed",
    "exhausted",
    "stalled",
    "timeout",
)


class LoopModel(Protocol):
    """
    A model the loop evaluation can run: ``model(prompt) -> response``.

    The response is a ``str`` or anything the loop's ``answer_of`` reads (an
    SDK response such as an OpenAI ``Completion``, whose reported usage then
    lands in :attr:`QuestionRun.usage`). With ``release="sentence"`` the
    model is called through ``stream(prompt)`` instead, which returns an
    iterator of pieces (``str``, or SDK chunks), as
    :meth:`relapse.llms.local.LocalModel.stream` does.
    """

    def __call__(self, prompt: str) -> object:
        """Complete ``prompt``."""


@dataclass(frozen=True)
class QuestionRun:
    """
    One question's run through the loop.

    Attributes:
        line: The question's first line in the dataset.
        id: That record's id.
        outcome: One of :data:`OUTCOMES` (or another outcome the loop
            reports).
        first_grounded: Whether the first answer passed the check.
        grounded: Whether the final answer passed the check.
        calls: LLM calls made.
        prompt_chars: Length in characters of each prompt sent to the model,
            first prompt first.
        tokens: Prompt plus completion tokens of all calls, when the model
            counts them (``prompt_tokens``/``completion_tokens`` attributes,
            as :class:`relapse.llms.local.LocalModel` has); else, when every
            call's response reported its usage, the sum of their
            ``total_tokens``; else None.
        wall_s: Wall time of the run, in seconds.
        answer: The final answer.
        answers: Every attempt's answer, first attempt first (``calls``
            of them); the final answer is one of them.
        usage: The tokens each call reported (:attr:`relapse.IterationRecord.usage`:
            read from the response, None when it reported none), first call
            first.
        resolved: Failing spans per finding code that a retry resolved,
            summed over the run's retries (see
            :attr:`relapse.IterationRecord.resolved`).
        persisted: Failing spans per code a retry kept.
        introduced: Failing spans per code a retry added.
        first_release_s: Seconds from the call to the first released piece
            with text: with ``release="sentence"``, as a streaming caller
            reads it; with ``release="answer"``, the whole run (the answer
            reaches the caller once it is checked); None when nothing was
            released.
        output_tokens: Completion tokens of all calls, when the model counts
            them (``completion_tokens``); else, when every call reported its
            usage, the sum of their output tokens; else None (a stream
            relapse closed early reports no usage).
        saved_tokens_estimate: relapse's estimate of the output tokens the
            retries did not generate again (:func:`saved_output_tokens_estimate`);
            0 with ``release="answer"``.
    """

    line: int
    id: str
    outcome: str
    first_grounded: bool
    grounded: bool
    calls: int
    prompt_chars: tuple[int, ...]
    tokens: int | None
    wall_s: float
    answer: str
    answers: tuple[str, ...] = ()
    usage: tuple[relapse.Usage | None, ...] = ()
    resolved: dict[str, int] = field(default_factory=dict)
    persisted: dict[str, int] = field(default_factory=dict)
    introduced: dict[str, int] = field(default_factory=dict)
    first_release_s: float | None = None
    output_tokens: int | None = None
    saved_tokens_estimate: int = 0


@dataclass
class LoopReport:
    """
    What :func:`evaluate_loop` measured.

    Attributes:
        runs: One per question, in dataset order.
        not_run: ``(line, id, reason)`` of each record not run (no question),
            listed so that nothing is dropped silently.
        duplicates: Records skipped because an earlier record had the same
            question and passages (RAGTruth has several responses per question).
        workers: Processes used.
        wall_s: Wall time of the whole evaluation (model loading included),
            in seconds.
        release: The loop's ``release``: ``"answer"`` or ``"sentence"``.
    """

    runs: list[QuestionRun] = field(default_factory=list)
    not_run: list[tuple[int, str, str]] = field(default_factory=list)
    duplicates: int = 0
    workers: int = 1
    wall_s: float = 0.0
    release: str = "answer"

    @property
    def outcomes(self) -> dict[str, int]:
        """Runs per outcome, every outcome of :data:`OUTCOMES` present."""
        counts = Counter(run.outcome for run in self.runs)
        return {name: counts.get(name, 0) for name in OUTCOMES} | dict(counts)

    def _mean(self, values: Sequence[float]) -> float | None:
        return sum(values) / len(values) if values else None

    @property
    def first_try_rate(self) -> float | None:
        """Share of questions whose first answer was grounded."""
        return self._mean([run.first_grounded for run in self.runs])

    @property
    def final_rate(self) -> float | None:
        """Share of questions whose final answer was grounded (refusals included)."""
        return self._mean([run.grounded for run in self.runs])

    @property
    def mean_calls(self) -> float | None:
        """Mean LLM calls per question."""
        return self._mean([run.calls for run in self.runs])

    @property
    def mean_tokens(self) -> float | None:
        """Mean tokens (prompt plus completion) per question; None when not counted."""
        counted = [run.tokens for run in self.runs if run.tokens is not None]
        return self._mean(counted) if len(counted) == len(self.runs) else None

    @property
    def retry_prompt_ratio(self) -> float | None:
        """Mean length of a retry prompt over its run's first prompt; None without retries."""
        return self._mean(
            [chars / run.prompt_chars[0] for run in self.runs for chars in run.prompt_chars[1:]]
        )

    @property
    def mean_wall_s(self) -> float | None:
        """Mean wall time per question, in seconds (model loading excluded)."""
        return self._mean([run.wall_s for run in self.runs])

    @property
    def median_first_release_s(self) -> float | None:
        """Median seconds to the first released piece, over the runs that released one."""
        times = [run.first_release_s for run in self.runs if run.first_release_s is not None]
        return statistics.median(times) if times else None

    @property
    def output_tokens(self) -> int | None:
        """Output tokens of every run; None unless every run counted them."""
        counted = [run.output_tokens for run in self.runs if run.output_tokens is not None]
        return sum(counted) if len(counted) == len(self.runs) and self.runs else None

    @property
    def saved_tokens_estimate(self) -> int:
        """The estimate of the output tokens the retries did not generate again, summed."""
        return sum(run.saved_tokens_estimate for run in self.runs)

    def lineage_totals(self) -> dict[str, tuple[int, int, int]]:
        """``code -> (resolved, persisted, introduced)`` spans over every retry, codes sorted."""
        totals: dict[str, tuple[int, int, int]] = {}
        for run in self.runs:
            for code in {*run.resolved, *run.persisted, *run.introduced}:
                resolved, persisted, introduced = totals.get(code, (0, 0, 0))
                totals[code] = (
                    resolved + run.resolved.get(code, 0),
                    persisted + run.persisted.get(code, 0),
                    introduced + run.introduced.get(code, 0),
                )
        return dict(sorted(totals.items()))

    @property
    def recovery_rates(self) -> dict[str, float]:
        """
        Per finding code: the share of failing spans a retry was asked to fix that it resolved.

        ``resolved / (resolved + persisted)`` over every retry of every run:
        each failing span of an answer followed by a retry is either resolved
        or persisted by that retry. Codes only ever introduced (never asked
        to be fixed) have no rate.
        """
        return {
            code: resolved / (resolved + persisted)
            for code, (resolved, persisted, _) in self.lineage_totals().items()
            if resolved + persisted
        }

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON-ready data: the summary figures, then every run."""
        return {
            "questions": len(self.runs),
            "first_try_grounded_rate": self.first_try_rate,
            "final_grounded_rate": self.final_rate,
            "outcomes": self.outcomes,
            "mean_calls": self.mean_calls,
            "mean_tokens": self.mean_tokens,
            "retry_prompt_ratio": self.retry_prompt_ratio,
            "mean_wall_s": self.mean_wall_s,
            "release": self.release,
            "median_first_release_s": self.median_first_release_s,
            "output_tokens": self.output_tokens,
            "saved_output_tokens_estimate": self.saved_tokens_estimate,
            "recovery_rates": self.recovery_rates,
            "lineage": {
                code: {"resolved": resolved, "persisted": persisted, "introduced": introduced}
                for code, (resolved, persisted, introduced) in self.lineage_totals().items()
            },
            "wall_s": self.wall_s,
            "workers": self.workers,
            "duplicates": self.duplicates,
            "not_run": [
                {"line": line, "id": id_, "reason": reason} for line, id_, reason in self.not_run
            ],
            "runs": [asdict(run) for run in self.runs],
        }


def distinct_questions(
    records: Iterable[QuestionRecord],
) -> tuple[list[QuestionRecord], list[tuple[int, str, str]], int]:
    """
    Keep each question once.

    Args:
        records: From :func:`relapse.evaluation.load_questions`.

    Returns:
        ``(questions, not_run, duplicates)``: the first record of each
        distinct (question, passages) pair in order; ``(line, id, reason)``
        of records without a question; how many records repeated an earlier
        pair.
    """
    seen: set[tuple[str, tuple[str, ...]]] = set()
    kept: list[QuestionRecord] = []
    not_run: list[tuple[int, str, str]] = []
    duplicates = 0
    for record in records:
        if record.question is None:
            not_run.append((record.line, record.id, f"no question (task type {record.task_type})"))
            continue
        key = (record.question, record.passages)
        if key in seen:
            duplicates += 1
            continue
        seen.add(key)
        kept.append(record)
    return kept, not_run, duplicates


def _tokens(model: object) -> int | None:
    prompt = getattr(model, "prompt_tokens", None)
    completion = getattr(model, "completion_tokens", None)
    if isinstance(prompt, int) and isinstance(completion, int):
        return prompt + completion
    return None


def _output_tokens(model: object) -> int | None:
    completion = getattr(model, "completion_tokens", None)
    return completion if isinstance(completion, int) else None


def _counted(before: int | None, after: int | None, reported: list[int | None]) -> int | None:
    """The model's own count over the run; else the sum of what every call reported; else None."""
    if before is not None and after is not None:
        return after - before
    if reported and all(value is not None for value in reported):
        return sum(value for value in reported if value is not None)
    return None


def _run_one(
    record: QuestionRecord,
    model: LoopModel,
    loop: relapse.Loop,
    clock: Callable[[], float] = time.monotonic,
) -> QuestionRun:
    prompt_chars: list[int] = []

    def call(prompt: str) -> object:
        prompt_chars.append(len(prompt))
        return model(prompt)

    tokens_before, output_before = _tokens(model), _output_tokens(model)
    started = clock()
    streaming = loop.options.get("release") == "sentence"
    first_release: float | None = None
    if streaming:
        result, first_release = run_streamed(record, model, loop, clock, prompt_chars)
    else:
        result = loop.run(
            record.question or "",
            record.passages,
            call_llm=call,
            build_prompt=getattr(model, "build_prompt", None),
        )
    wall_s = clock() - started
    if not streaming and result.answer:
        first_release = wall_s  # the answer reaches the caller once it is checked
    usage = tuple(attempt.usage for attempt in result.transcript)
    tokens = _counted(
        tokens_before,
        _tokens(model),
        [None if reported is None else reported.total_tokens for reported in usage],
    )
    output_tokens = _counted(
        output_before,
        _output_tokens(model),
        [None if reported is None else reported.output_tokens for reported in usage],
    )
    return QuestionRun(
        line=record.line,
        id=record.id,
        outcome=outcome_of(result, record.question, record.passages),
        first_grounded=result.transcript[0].grounded,
        grounded=result.grounded,
        calls=result.iterations,
        prompt_chars=tuple(prompt_chars),
        tokens=tokens,
        wall_s=wall_s,
        answer=result.answer,
        answers=tuple(attempt.answer for attempt in result.transcript),
        usage=usage,
        resolved=_summed(record.resolved for record in result.transcript),
        persisted=_summed(record.persisted for record in result.transcript),
        introduced=_summed(record.introduced for record in result.transcript),
        first_release_s=first_release,
        output_tokens=output_tokens,
        saved_tokens_estimate=saved_output_tokens_estimate(result),
    )


def _summed(parts: Iterable[Sequence[relapse.GroundingFinding]]) -> dict[str, int]:
    """Spans per code over the records' findings of one lineage kind."""
    counts: Counter[str] = Counter()
    for findings in parts:
        counts.update(count_by_code(findings))
    return dict(sorted(counts.items()))


# One model per worker process, made by the pool's initializer. A failure to
# make it is kept and raised by the first question, so the caller gets the
# real exception (a missing extra) rather than a broken pool.
_worker_model: list[LoopModel | Exception] = []


def _start_worker(make_model: Callable[[], LoopModel]) -> None:
    try:
        _worker_model.append(make_model())
    except Exception as error:
        _worker_model.append(error)


def _run_in_worker(
    record: QuestionRecord, loop: relapse.Loop, clock: Callable[[], float]
) -> QuestionRun:
    model = _worker_model[0]
    if isinstance(model, Exception):
        raise model
    if loop.options.get("release") == "sentence":
        stream_of(model)
    return _run_one(record, model, loop, clock)


def _loop_for(
    loop: relapse.Loop | None,
    grounding_check: GroundingCheck | None,
    max_iterations: int | None,
    release: str | None = None,
) -> relapse.Loop:
    """The loop every question runs: ``loop``, or one built from the shortcuts."""
    shortcuts: dict[str, Any] = {}
    if release is not None:
        shortcuts["release"] = release
    if grounding_check is not None:
        shortcuts["grounding_check"] = grounding_check
    if max_iterations is not None:
        if isinstance(max_iterations, int) and max_iterations < 1:
            raise ValueError(f"max_iterations must be >= 1, got {max_iterations}")
        shortcuts["max_iterations"] = max_iterations
    if loop is None:
        return relapse.Loop(**shortcuts)
    if not isinstance(loop, relapse.Loop):
        raise TypeError(f"evaluate_loop: loop must be a relapse.Loop, got {type(loop).__name__}")
    if shortcuts:
        given = ", ".join(f"{name}=" for name in shortcuts)
        raise TypeError(
            f"evaluate_loop takes loop= or {given}, not both: put them in the Loop"
            f" (loop.replace({', '.join(f'{name}=...' for name in shortcuts)}))"
        )
    return loop


def _check_picklable(loop: relapse.Loop, workers: int) -> None:
    """
    Raise before any process starts when an option of ``loop`` cannot reach a worker.

    A :class:`relapse.Loop` pickles as its options (it is rebuilt from them
    in the worker), so each option must pickle on its own.
    """
    for name, value in loop.options.items():
        error = _pickle_error(value)
        if error is None:
            continue
        hint = (
            "telemetry providers do not cross processes: trace with workers=1"
            if name.endswith("_provider")
            else "use a module-level function or class (not a lambda or closure), or workers=1"
        )
        raise TypeError(
            f"evaluate_loop(workers={workers}) sends the loop to each worker process,"
            f" so its options must pickle; {name}= (a {type(value).__name__}) does not"
            f" ({error}): {hint}"
        ) from error


def _pickle_error(value: object) -> Exception | None:
    """What pickling ``value`` raises, or None when it pickles."""
    try:
        pickle.dumps(value)
    except Exception as error:  # any pickling failure is reported, named
        return error
    return None


def evaluate_loop(
    records: Iterable[QuestionRecord],
    make_model: Callable[[], LoopModel],
    *,
    loop: relapse.Loop | None = None,
    grounding_check: GroundingCheck | None = None,
    max_iterations: int | None = None,
    release: Literal["answer", "sentence"] | None = None,
    workers: int = 1,
    limit: int | None = None,
    progress: Callable[[], None] | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> LoopReport:
    """
    Run each distinct question through one :class:`relapse.Loop` and measure.

    >>> import relapse
    >>> from relapse.evaluation import QuestionRecord, evaluate_loop
    >>> record = QuestionRecord(1, "q1", "When did it open?", ("It opened in 1932.",), "QA", None)
    >>> report = evaluate_loop([record], lambda: lambda prompt: "It opened in 1932.",
    ...                        loop=relapse.Loop(max_iterations=2))
    >>> report.outcomes["grounded_first_try"]
    1

    Args:
        records: From :func:`relapse.evaluation.load_questions` (annotated
            records work too; their responses are not used).
        make_model: Makes the model: ``model(prompt) -> response``, with an
            optional ``build_prompt(question, chunk_texts)`` (used when
            present) and optional token counters. With ``workers > 1`` it is
            called once in each worker process, so it must be picklable (a
            class or module-level function, or a ``functools.partial`` of one).
        loop: The :class:`relapse.Loop` every question runs, with all its
            options (:class:`relapse.LoopOptions`); None: a
            ``Loop(grounding_check=..., max_iterations=...)`` of the two
            arguments below. With ``workers > 1`` it is pickled, as its
            options, and rebuilt in each worker (``RELAPSE_ENABLED`` read
            there), so every option must pickle: no telemetry provider, no
            lambda or closure.
        grounding_check: Shortcut for ``loop=relapse.Loop(grounding_check=...)``;
            None: :func:`relapse.default_grounding_check`. Not with ``loop``.
        max_iterations: Shortcut for ``loop=relapse.Loop(max_iterations=...)``,
            LLM calls allowed per question, at least 1; None: the loop's
            default (3). Not with ``loop``.
        release: Shortcut for ``loop=relapse.Loop(release=...)``; None: the
            loop's (``"answer"``). With ``"sentence"`` every call streams
            (``model.stream(prompt)``) and each run is read as a streaming
            caller reads it, timing the first released piece
            (:attr:`QuestionRun.first_release_s`). Not with ``loop``.
        workers: 1 runs in this process; more runs a process pool of that
            size (spawned processes, one model each). As with any spawned
            pool, a script calling this must keep its top-level work under
            ``if __name__ == "__main__":`` (the ``relapse`` command does).
        limit: Run only the first ``limit`` distinct questions.
        progress: Called once after each question.
        clock: ``clock() -> seconds``, monotonic: times each run and its
            first released piece (tests pass a
            :class:`relapse.testing.FakeClock`).

    Returns:
        The :class:`LoopReport`, runs in dataset order.

    Raises:
        TypeError: ``loop`` together with ``grounding_check`` or
            ``max_iterations`` (the message names them); ``loop`` is not a
            :class:`relapse.Loop`; with ``workers > 1``, an option of the
            loop that does not pickle (the message names it); an option of
            the wrong type (see :class:`relapse.Loop`).
        ValueError: ``max_iterations`` or ``workers`` below 1, ``limit``
            below 0.
        Exception: whatever ``make_model`` or the model raises (the loop
            never hides an LLM error); with a pool, the first failing
            question's error, of its own type.

    .. versionchanged:: 0.2.0 ``loop``; the model may return any response
       the loop reads; ``release`` and ``clock``.
    """
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    if limit is not None and limit < 0:
        raise ValueError(f"limit must be >= 0, got {limit}")
    loop = _loop_for(loop, grounding_check, max_iterations, release)
    streaming = loop.options.get("release") == "sentence"
    if workers > 1:
        _check_picklable(loop, workers)
    started = time.monotonic()
    questions, not_run, duplicates = distinct_questions(records)
    questions = questions[:limit]
    report = LoopReport(
        not_run=not_run,
        duplicates=duplicates,
        workers=workers,
        release="sentence" if streaming else "answer",
    )
    if workers == 1:
        model = make_model()
        if streaming:
            stream_of(model)  # before the first question: the model cannot stream
        for record in questions:
            report.runs.append(_run_one(record, model, loop, clock))
            if progress is not None:
                progress()
    else:
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(
            workers, mp_context=context, initializer=_start_worker, initargs=(make_model,)
        ) as pool:
            futures = [pool.submit(_run_in_worker, record, loop, clock) for record in questions]
            for future in as_completed(futures):
                future.result()
                if progress is not None:
                    progress()
            report.runs = [future.result() for future in futures]
    report.wall_s = time.monotonic() - started
    return report


def _rate(value: float | None, digits: int = 2) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def format_loop_report(report: LoopReport) -> str:
    """
    The loop report as ``relapse eval --loop`` prints it.

    Args:
        report: From :func:`evaluate_loop`.

    Returns:
        A summary line, then one line per outcome, then, when any retry was
        made, the recovery rate of each finding code (see
        :attr:`LoopReport.recovery_rates`), then, with ``release="sentence"``,
        the streaming line (median time to the first released piece, output
        tokens, the estimate of the output tokens saved), then the records
        not run.
    """
    runs = len(report.runs)
    first = sum(run.first_grounded for run in report.runs)
    final = sum(run.grounded for run in report.runs)
    outcomes = report.outcomes
    lines = [
        f"summary: {runs} questions, first-try grounded {_rate(report.first_try_rate)}"
        f" ({first}/{runs}), final grounded {_rate(report.final_rate)} ({final}/{runs}),"
        f" recovered {outcomes['recovered'] + outcomes['recovered_refusal']}"
        f" ({outcomes['recovered_refusal']} as a refusal), echoed {outcomes['echoed']},"
        f" mean calls {_rate(report.mean_calls)}, mean tokens {_rate(report.mean_tokens, 0)},"
        f" retry prompt / first prompt {_rate(report.retry_prompt_ratio)},"
        f" {_rate(report.mean_wall_s)} s per question"
        f" (wall time {report.wall_s:.1f} s, {report.workers} worker(s))",
        "outcomes:",
    ]
    lines += [f"  {name:<20} {count:>4}" for name, count in outcomes.items()]
    totals = report.lineage_totals()
    if totals:
        lines.append("recovery by finding code (failing spans a retry resolved):")
        rates = report.recovery_rates
        for code, (resolved, persisted, introduced) in totals.items():
            rate = _rate(rates.get(code))
            lines.append(
                f"  {code:<8} {rate:>5} ({resolved}/{resolved + persisted} resolved,"
                f" {introduced} introduced)"
            )
    if report.release == "sentence":
        lines.append(
            f'streaming (release="sentence"): median time to first release'
            f" {_rate(report.median_first_release_s, 3)} s, output tokens"
            f" {_rate(report.output_tokens, 0)}, output tokens saved"
            f" {report.saved_tokens_estimate} (estimate: characters released before"
            " each retry / 4)"
        )
    if report.duplicates:
        lines.append(f"{report.duplicates} record(s) repeat an earlier question: run once")
    for line, record_id, reason in report.not_run:
        lines.append(f"not run: line {line} (id {record_id}): {reason}")
    return "\n".join(lines)
