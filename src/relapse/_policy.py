"""
The loop's options, validated once, in one place: :func:`make_policy`.

:func:`relapse.grounded` calls it once when decorating, :func:`relapse.run`
and :func:`relapse.arun` once per call; nothing else validates an option.
"""

from __future__ import annotations

import inspect
import os
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal, TypedDict

from relapse._read.chunks import materialize
from relapse._read.replies import AnswerOf, ChunksOf, Readers, UsageOf
from relapse._results import GroundingFinding
from relapse._state import Attempt
from relapse._telemetry import Telemetry
from relapse._telemetry import attributes as attr
from relapse.checks._contract import Check, check_name
from relapse.checks._incremental import can_judge_incrementally
from relapse.prompts import (
    RETRY_WORDINGS,
    continuation_note,
    continuation_retry,
    default_rewrite,
    rejected_after,
    retry_note,
)

if TYPE_CHECKING:
    from opentelemetry import trace
    from opentelemetry._logs import LoggerProvider
    from opentelemetry.metrics import MeterProvider

OnExhaustedPolicy = Literal["return", "best", "raise"]
#: ``release=``: when a stream's pieces reach the caller.
Release = Literal["answer", "sentence"]
RELEASE_ANSWER = "answer"
RELEASE_SENTENCE = "sentence"
RELEASES: tuple[str, ...] = (RELEASE_ANSWER, RELEASE_SENTENCE)
#: ``on_exhausted(attempt) -> answer``: picks the answer returned when none passed.
ExhaustedHandler = Callable[[Attempt], str]
OnExhausted = OnExhaustedPolicy | ExhaustedHandler
ON_EXHAUSTED_POLICIES: tuple[str, ...] = ("return", "best", "raise")

#: ``rewrite(attempt) -> retry query`` (or, as in 0.2.0 previews,
#: ``rewrite(query, previous_answer, findings)``).
Rewrite = Callable[[Attempt], str] | Callable[[str, str, Sequence[GroundingFinding]], str]
#: ``retrieve(attempt) -> chunks | None`` (or ``retrieve(query, previous_answer, findings)``).
Retrieve = Callable[[Attempt], Any] | Callable[[str, str, Sequence[GroundingFinding]], Any]
#: ``on_iteration(attempt)``: called before each LLM call; its return value is ignored.
OnIteration = Callable[[Attempt], object]
#: ``enabled`` as a bool, or ``enabled() -> bool`` read on every call.
Enabled = bool | Callable[[], bool]

#: Environment variable that, set to one of :data:`DISABLED_VALUES`, turns every loop off.
ENABLED_ENV = "RELAPSE_ENABLED"
#: Values of ``RELAPSE_ENABLED`` (compared case-insensitively) that mean "off".
DISABLED_VALUES = frozenset({"0", "false", "no", "off"})

#: Turns a ``retrieve`` result into ``(value passed to the function, chunk texts)``.
ChunksReader = Callable[[Any, str], tuple[Any, list[str]]]


@dataclass(frozen=True)
class Policy:
    """Everything about a loop that is fixed before its first call, validated."""

    max_iterations: int
    check: Check
    check_name: str
    on_exhausted: OnExhausted
    #: ``rewrite(attempt) -> str``, legacy signatures already adapted.
    rewrite: Callable[[Attempt], str]
    timeout_s: float | None
    max_prompt_chars: int | None
    telemetry: Telemetry
    #: Seconds from an arbitrary origin, read to enforce ``timeout_s``;
    #: injectable so tests can move time without sleeping.
    clock: Callable[[], float] = time.monotonic
    #: ``retrieve(attempt) -> (value, texts) | None``, adapted and validated.
    retrieve: Callable[[Attempt], tuple[Any, list[str]] | None] | None = None
    stop_on_repeat: bool = False
    on_iteration: OnIteration | None = None
    #: The kill switch, read by :func:`is_enabled` on every call.
    enabled: Enabled = True
    #: How each attempt's return value is read: answer, usage, own chunks.
    readers: Readers = field(default_factory=Readers)
    #: Stop retrying once the attempts' tokens reach this many (outcome ``budget``).
    max_total_tokens: int | None = None
    #: When a stream's pieces reach the caller: ``"answer"`` or ``"sentence"``
    #: (already ``"answer"`` when ``release="sentence"`` fell back).
    release: str = RELEASE_ANSWER
    #: Why ``release="sentence"`` fell back to ``"answer"`` (an
    #: ``attributes.FALLBACK_*`` value), or None.
    release_fallback: str | None = None

    def named(self, name: str) -> Policy:
        """This policy with its call span named ``relapse <name>``."""
        return replace(self, telemetry=self.telemetry.renamed(name))


def _takes_attempt(name: str, function: Callable[..., Any]) -> bool:
    """
    Whether ``function`` takes one :class:`Attempt` rather than the legacy three arguments.

    Raises:
        TypeError: it can be called with neither (before any paid call).
    """
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return True  # no signature to read (some builtins): assume the Attempt form
    for arguments, new_style in (((None,), True), ((None, None, None), False)):
        try:
            signature.bind(*arguments)
        except TypeError:
            continue
        return new_style
    raise TypeError(
        f"{name} must take one relapse.Attempt (or query, previous_answer, findings);"
        f" its signature is {signature}"
    )


def _rewrite_policy(rewrite: Any) -> Callable[[Attempt], str]:
    if rewrite is None:
        rewrite = default_rewrite
    elif not callable(rewrite):
        raise TypeError(f"rewrite must be callable(attempt) -> str, got {type(rewrite).__name__}")
    if _takes_attempt("rewrite", rewrite):
        return rewrite  # type: ignore[no-any-return]
    shipped = rewrite in RETRY_WORDINGS

    def legacy(attempt: Attempt) -> str:
        previous = attempt.previous_answer or ""
        if shipped and attempt.released:
            # release="sentence": the caller already read the prefix; ask for the rest.
            rejected = rejected_after(previous, attempt.released)
            return continuation_retry(attempt.query, attempt.released, rejected, attempt.errors)
        return rewrite(attempt.query, previous, attempt.errors)  # type: ignore[no-any-return]

    return legacy


def _retrieve_policy(
    retrieve: Any, read: ChunksReader
) -> Callable[[Attempt], tuple[Any, list[str]] | None] | None:
    if retrieve is None:
        return None
    if not callable(retrieve):
        raise TypeError(
            f"retrieve must be callable(attempt) -> chunks | None, got {type(retrieve).__name__}"
        )
    new_style = _takes_attempt("retrieve", retrieve)

    def fetch(attempt: Attempt) -> tuple[Any, list[str]] | None:
        if new_style:
            fresh = retrieve(attempt)
        else:
            fresh = retrieve(attempt.query, attempt.previous_answer or "", attempt.errors)
        return None if fresh is None else read(fresh, "retrieve() result")

    return fetch


def _positive_int(name: str, value: object, minimum: int, meaning: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum} ({meaning}), got {value}")


def enabled_from_env() -> bool:
    """
    Whether ``RELAPSE_ENABLED`` leaves the loops on.

    Returns:
        False when it is ``0``, ``false``, ``no`` or ``off`` (any case,
        surrounding spaces ignored); True when unset or anything else.
    """
    return os.environ.get(ENABLED_ENV, "").strip().lower() not in DISABLED_VALUES


def is_enabled(enabled: Enabled) -> bool:
    """Whether the loop runs on this call: ``enabled`` itself, or what ``enabled()`` returns."""
    if enabled is True or enabled is False:
        return enabled
    return bool(enabled())


class LoopOptions(TypedDict, total=False):
    """
    The options every entry point shares.

    :func:`relapse.grounded`, :func:`relapse.run` and :func:`relapse.arun` take
    them, with their meaning in :func:`relapse.grounded`'s docstring. Defaults
    are in :data:`DEFAULTS`.
    """

    max_iterations: int
    grounding_check: Check | None
    on_exhausted: OnExhausted
    rewrite: Rewrite | None
    timeout: float | None
    max_prompt_chars: int | None
    retrieve: Retrieve | None
    stop_on_repeat: bool
    on_iteration: OnIteration | None
    enabled: Enabled
    tracer_provider: trace.TracerProvider | None
    meter_provider: MeterProvider | None
    logger_provider: LoggerProvider | None
    capture_content: bool | None
    redact: Callable[[str], str] | None
    answer_of: AnswerOf | None
    usage_of: UsageOf | None
    max_total_tokens: int | None
    release: Release


#: The default of every :class:`LoopOptions` key.
DEFAULTS: dict[str, object] = {
    "max_iterations": 3,
    "grounding_check": None,
    "on_exhausted": "return",
    "rewrite": None,
    "timeout": None,
    "max_prompt_chars": None,
    "retrieve": None,
    "stop_on_repeat": False,
    "on_iteration": None,
    "enabled": True,
    "tracer_provider": None,
    "meter_provider": None,
    "logger_provider": None,
    "capture_content": None,
    "redact": None,
    "answer_of": None,
    "usage_of": None,
    "max_total_tokens": None,
    "release": RELEASE_ANSWER,
}


def _validate(options: dict[str, Any]) -> None:
    """
    Raise on the first option of the wrong type or out of range.

    Also folds ``RELAPSE_ENABLED`` into ``options["enabled"]``: off wins.
    """
    _positive_int("max_iterations", options["max_iterations"], 1, "it counts LLM calls")
    on_exhausted = options["on_exhausted"]
    if not callable(on_exhausted) and on_exhausted not in ON_EXHAUSTED_POLICIES:
        raise ValueError(
            f"on_exhausted must be one of {', '.join(map(repr, ON_EXHAUSTED_POLICIES))}"
            f" or callable(attempt) -> str, got {on_exhausted!r}"
        )
    for name, shape in (
        ("grounding_check", "callable(query, chunks, answer)"),
        ("on_iteration", "callable(attempt)"),
        ("redact", "callable(text) -> str"),
        ("answer_of", "callable(response) -> str"),
        ("usage_of", "callable(response) -> relapse.Usage | None"),
    ):
        if options[name] is not None and not callable(options[name]):
            raise TypeError(f"{name} must be {shape}, got {type(options[name]).__name__}")
    if not isinstance(options["stop_on_repeat"], bool):
        raise TypeError(
            f"stop_on_repeat must be a bool, got {type(options['stop_on_repeat']).__name__}"
        )
    enabled = options["enabled"]
    if not isinstance(enabled, bool) and not callable(enabled):
        raise TypeError(
            f"enabled must be a bool or callable() -> bool, got {type(enabled).__name__}"
        )
    if not enabled_from_env():
        # Read like the content-capture variable: when decorating (run/arun: per call).
        options["enabled"] = False
    timeout = options["timeout"]
    if timeout is not None:
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
            raise TypeError(f"timeout must be a number of seconds, got {type(timeout).__name__}")
        if not timeout > 0:
            raise ValueError(f"timeout must be > 0 seconds, got {timeout}")
    limit = options["max_prompt_chars"]
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise ValueError(f"max_prompt_chars must be a positive int, got {limit!r}")
    if options["max_total_tokens"] is not None:
        _positive_int("max_total_tokens", options["max_total_tokens"], 1, "a number of tokens")
    if options["release"] not in RELEASES:
        raise ValueError(
            f"release must be one of {', '.join(map(repr, RELEASES))}, got {options['release']!r}"
        )


def _release(options: dict[str, Any], check: Check, chunks_of: object) -> tuple[str, str | None]:
    """
    The release mode a loop runs with, and why ``"sentence"`` fell back, if it did.

    ``release="sentence"`` needs a check that judges text incrementally,
    relapse's own reading of the pieces (no ``answer_of``) and chunks known
    before the stream is read (no ``chunks_of``); otherwise the loop releases
    the answer whole and says so once, here, with a :class:`UserWarning`
    (and on every iteration span, ``relapse.stream.fallback``).
    """
    if options["release"] != RELEASE_SENTENCE:
        return RELEASE_ANSWER, None
    if not can_judge_incrementally(check):
        reason, why = attr.FALLBACK_CHECK, f"the check {check_name(check)} cannot judge a prefix"
    elif options["answer_of"] is not None:
        reason, why = attr.FALLBACK_ANSWER_OF, "answer_of reads the text, not relapse"
    elif chunks_of is not None:
        reason, why = attr.FALLBACK_CHUNKS_OF, "chunks_of knows the chunks only after the stream"
    else:
        return RELEASE_SENTENCE, None
    warnings.warn(
        f"release='sentence' falls back to release='answer': {why}; streams are released"
        " once the whole answer passed",
        UserWarning,
        stacklevel=4,
    )
    return RELEASE_ANSWER, reason


def _feedback_note(attempt: Attempt) -> str:
    """The default retry text of a ``feedback_arg`` parameter: the note, not the question."""
    previous = attempt.previous_answer or ""
    if attempt.released:
        rejected = rejected_after(previous, attempt.released)
        return continuation_note(attempt.released, rejected, attempt.errors)
    return retry_note(previous, attempt.errors)


def make_policy(
    name: str,
    given: Mapping[str, object],
    *,
    read_chunks: ChunksReader = materialize,
    chunks_of: ChunksOf | None = None,
    feedback: bool = False,
) -> Policy:
    """
    Validate every option of a loop and build its :class:`Policy`.

    The only place options are validated.

    Args:
        name: The entry point (``grounded``, ``run``, ``arun``), named in
            errors; it also names the call span until :meth:`Policy.named`.
        given: The options the caller passed (:class:`LoopOptions` keys).
        read_chunks: Turns a ``retrieve`` result into ``(value, texts)``.
        chunks_of: ``chunks_of(response) -> chunks`` of a decorated function
            that retrieves itself (there is then nothing for ``retrieve`` to
            replace).
        feedback: Whether the retry text goes to a ``feedback_arg`` parameter;
            without a ``rewrite`` it is then :func:`relapse.prompts.retry_note`
            (the note without the question).

    Returns:
        The policy.

    Raises:
        TypeError: an unknown option, or one of the wrong type (the message
            names it).
        ValueError: an option out of range (the message names it).
    """
    unknown = sorted(set(given) - set(DEFAULTS))
    if unknown:
        raise TypeError(
            f"{name}() got an unexpected keyword argument {unknown[0]!r}"
            f" (its loop options: {', '.join(DEFAULTS)})"
        )
    options: dict[str, Any] = {**DEFAULTS, **given}
    _validate(options)
    if chunks_of is not None and not callable(chunks_of):
        raise TypeError(
            f"chunks_of must be callable(response) -> chunks, got {type(chunks_of).__name__}"
        )
    if chunks_of is not None and options["retrieve"] is not None:
        raise ValueError(
            "retrieve= replaces the chunks argument; with chunks_of= the function retrieves"
            " its chunks itself: re-retrieve inside it (relapse.current_attempt() tells a retry)"
        )
    rewrite = options["rewrite"]
    if feedback and rewrite is None:
        rewrite = _feedback_note
    check = options["grounding_check"]
    if check is None:
        from relapse.grounding import default_grounding_check

        check = default_grounding_check
    timeout = options["timeout"]
    release, fallback = _release(options, check, chunks_of)
    return Policy(
        max_iterations=options["max_iterations"],
        check=check,
        check_name=check_name(check),
        on_exhausted=options["on_exhausted"],
        rewrite=_rewrite_policy(rewrite),
        timeout_s=None if timeout is None else float(timeout),
        max_prompt_chars=options["max_prompt_chars"],
        retrieve=_retrieve_policy(options["retrieve"], read_chunks),
        stop_on_repeat=options["stop_on_repeat"],
        on_iteration=options["on_iteration"],
        enabled=options["enabled"],
        readers=Readers(options["answer_of"], options["usage_of"], chunks_of),
        max_total_tokens=options["max_total_tokens"],
        release=release,
        release_fallback=fallback,
        telemetry=Telemetry(
            name,
            tracer_provider=options["tracer_provider"],
            meter_provider=options["meter_provider"],
            logger_provider=options["logger_provider"],
            capture_content=options["capture_content"],
            redact=options["redact"],
        ),
    )
