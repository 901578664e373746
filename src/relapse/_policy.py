"""
The loop options: each documented once (:class:`LoopOptions`), validated once (:func:`make_policy`).

A :class:`relapse.Loop` calls :func:`make_policy` when it is built; the
decorator, ``run`` and ``arun`` derive their variants of its :class:`Policy`
(:meth:`Policy.for_function`, :meth:`Policy.for_run`) without validating
again. Nothing else validates an option.
"""

from __future__ import annotations

import inspect
import os
import time
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal, TypedDict

from relapse._read.chunks import materialize
from relapse._read.replies import AnswerOf, ChunksOf, Readers, UsageOf
from relapse._state import Attempt
from relapse._telemetry import Telemetry
from relapse._telemetry import attributes as attr
from relapse.checks._contract import Check, annotator_kind, can_judge_incrementally, check_name
from relapse.grounding import default_grounding_check
from relapse.prompts import compact_retry, retry_note

if TYPE_CHECKING:
    from opentelemetry import trace
    from opentelemetry._logs import LoggerProvider
    from opentelemetry.metrics import MeterProvider

OnExhaustedPolicy = Literal["return", "best", "raise", "redact"]
#: ``release=``: when a stream's pieces reach the caller.
Release = Literal["answer", "sentence"]
RELEASE_ANSWER = "answer"
RELEASE_SENTENCE = "sentence"
RELEASES: tuple[str, ...] = (RELEASE_ANSWER, RELEASE_SENTENCE)
#: ``on_exhausted(attempt) -> answer``: picks the answer returned when none passed.
ExhaustedHandler = Callable[[Attempt], str]
OnExhausted = OnExhaustedPolicy | ExhaustedHandler
ON_EXHAUSTED_POLICIES: tuple[str, ...] = ("return", "best", "raise", "redact")

#: ``rewrite(attempt) -> retry query``.
Rewrite = Callable[[Attempt], str]
#: ``retrieve(attempt) -> chunks | None``.
Retrieve = Callable[[Attempt], Any]
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
    #: Who judges, ``"CODE"`` or ``"LLM"`` (:func:`annotator_kind` of ``check``).
    annotator: str
    on_exhausted: OnExhausted
    #: ``rewrite(attempt) -> str``: the caller's, or the entry point's default.
    rewrite: Rewrite
    timeout_s: float | None
    max_prompt_chars: int | None
    telemetry: Telemetry
    #: Seconds from an arbitrary origin, read to enforce ``timeout_s``;
    #: injectable so tests can move time without sleeping.
    clock: Callable[[], float] = time.monotonic
    #: ``retrieve(attempt) -> chunks | None``, the caller's, validated.
    retrieve: Retrieve | None = None
    #: Turns what ``retrieve`` returned into ``(value passed on, chunk texts)``.
    read_chunks: ChunksReader = materialize
    stop_on_repeat: bool = False
    on_iteration: OnIteration | None = None
    #: The kill switch, read by :func:`is_enabled` on every call.
    enabled: Enabled = True
    #: How each attempt's return value is read: answer, usage, own chunks.
    readers: Readers = field(default_factory=Readers)
    #: Stop retrying once the attempts' tokens reach this many (outcome ``budget``).
    max_total_tokens: int | None = None
    #: Whether ``rewrite`` is the caller's (a ``feedback_arg`` keeps it).
    custom_rewrite: bool = False
    #: With ``on_exhausted="redact"``: what replaces a removed sentence (None: nothing).
    redact_marker: str | None = None
    #: When a stream's pieces reach the caller: ``"answer"`` or ``"sentence"``
    #: (already ``"answer"`` when ``release="sentence"`` fell back).
    release: str = RELEASE_ANSWER
    #: Why ``release="sentence"`` fell back to ``"answer"`` (an
    #: ``attributes.FALLBACK_*`` value), or None.
    release_fallback: str | None = None

    def named(self, name: str) -> Policy:
        """This policy with its call span named ``relapse <name>``."""
        return replace(self, telemetry=self.telemetry.renamed(name))

    def for_function(self, name: str, chunks_of: ChunksOf | None, feedback: bool) -> Policy:
        """
        This policy for one decorated function (its call span ``relapse <name>``).

        Args:
            name: The function's qualified name.
            chunks_of: ``chunks_of(response) -> chunks`` of a function that
                retrieves its chunks itself, or None.
            feedback: Whether the retry text goes to a ``feedback_arg``
                parameter; without a ``rewrite`` it is then
                :func:`relapse.prompts.retry_note` (the note without the question).

        Raises:
            TypeError: ``chunks_of`` is not callable.
            ValueError: ``chunks_of`` with ``retrieve``.
        """
        if chunks_of is not None and not callable(chunks_of):
            raise TypeError(
                f"chunks_of must be callable(response) -> chunks, got {type(chunks_of).__name__}"
            )
        if chunks_of is not None and self.retrieve is not None:
            raise ValueError(
                "retrieve= replaces the chunks argument; with chunks_of= the function retrieves"
                " its chunks itself: re-retrieve inside it"
                " (relapse.current_attempt() tells a retry)"
            )
        readers = Readers(self.readers.answer_of, self.readers.usage_of, chunks_of)
        rewrite = retry_note if feedback and not self.custom_rewrite else self.rewrite
        release, fallback = self.release, self.release_fallback
        if release == RELEASE_SENTENCE and chunks_of is not None and not reads_unread(chunks_of):
            _warn_fallback("chunks_of knows the chunks only after the stream")
            release, fallback = RELEASE_ANSWER, attr.FALLBACK_CHUNKS_OF
        return replace(
            self,
            readers=readers,
            rewrite=rewrite,
            release=release,
            release_fallback=fallback,
            telemetry=self.telemetry.renamed(name),
        )

    def for_run(self, name: str, read_chunks: ChunksReader) -> Policy:
        """
        This policy for ``run``/``arun``: call span ``relapse <name>``.

        ``read_chunks`` reads what ``retrieve`` returns (``run`` compresses it
        with ``compress=True``).
        """
        return replace(self, read_chunks=read_chunks, telemetry=self.telemetry.renamed(name))


def _takes_attempt(name: str, function: Callable[..., Any]) -> None:
    """
    Check that ``function`` can be called as ``function(attempt)``, before any paid call.

    Raises:
        TypeError: its signature cannot take one positional argument.
    """
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return  # no signature to read (some builtins): the call will tell
    try:
        signature.bind(None)
    except TypeError:
        shown = getattr(function, "__qualname__", type(function).__qualname__)
        raise TypeError(
            f"{name} must be callable as f(attempt), with one relapse.Attempt;"
            f" {shown}{signature} cannot take one positional argument"
            " (read attempt.query, attempt.previous_answer and attempt.errors instead)"
        ) from None


def _policy_callable(name: str, value: object, shape: str) -> None:
    """Check an ``f(attempt)`` option: None, or a callable taking one positional argument."""
    if value is None:
        return
    if not callable(value):
        raise TypeError(f"{name} must be {shape}, got {type(value).__name__}")
    _takes_attempt(name, value)


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
    The loop options: every key documented here, once; the defaults are in :data:`DEFAULTS`.

    :class:`relapse.Loop`, :func:`relapse.grounded`, :func:`relapse.run`
    and :func:`relapse.arun` take them as keyword arguments. Every policy
    (``rewrite``, ``retrieve``, ``on_iteration``, a callable
    ``on_exhausted``) takes one :class:`relapse.Attempt`; one that cannot be
    called with one positional argument is a ``TypeError`` when the loop is
    built, before any LLM call.

    .. versionadded:: 0.2.0
    """

    #: Total LLM calls allowed, at least 1 (1 means no retry).
    max_iterations: int
    #: A :class:`relapse.checks.Check`, ``check(query, chunks, answer) ->
    #: GroundingResult``, where ``chunks`` is the list of chunk texts; None
    #: means :func:`relapse.default_grounding_check`. An async check (one
    #: returning an awaitable) needs an ``async def`` function or ``arun``.
    grounding_check: Check | None
    #: What to return when no answer passed: ``"return"`` the last answer;
    #: ``"best"`` the real answer with the fewest failing spans (earliest on
    #: ties), where an empty answer, an echo of the retry instructions (FG004)
    #: or an answer the check could not read ranks below every real answer;
    #: ``"raise"`` :class:`relapse.NotGroundedError`; ``"redact"`` that best
    #: answer with every sentence holding a failing span removed (outcome
    #: ``"redacted"``; the redacted text passes the check; the result's
    #: ``redactions`` say what went; the call returns the function's own type
    #: rebuilt around it where relapse can, else the text); or
    #: ``on_exhausted(attempt) -> str`` given the :class:`relapse.Attempt`
    #: that was not made (its ``transcript`` holds every record), whose text
    #: is returned (a function returning a stream gets a stream of the same
    #: kind yielding that text as its one piece).
    on_exhausted: OnExhausted
    #: ``rewrite(attempt) -> str`` builds the retry query from the
    #: :class:`relapse.Attempt` being prepared; any wording of
    #: :mod:`relapse.prompts` is one. None means
    #: :func:`relapse.prompts.compact_retry` (with a ``feedback_arg``,
    #: :func:`relapse.prompts.retry_note`).
    rewrite: Rewrite | None
    #: Overall budget in seconds, checked after each iteration and again after
    #: ``retrieve`` and after ``rewrite``, so no further iteration starts once
    #: it is spent (outcome ``"timeout"``, then per ``on_exhausted``). It does
    #: not interrupt a running LLM call (nor ``on_iteration``, ``retrieve``,
    #: ``rewrite``). None: no budget.
    timeout: float | None
    #: A hard upper bound, in characters, on every retry query: a longer one
    #: quotes only the failing spans, then only the finding codes, then a
    #: shortened question. None: no bound.
    max_prompt_chars: int | None
    #: The re-retrieval back-edge, ``retrieve(attempt) -> chunks | None``,
    #: called before each retry, before ``rewrite``: new chunks (the shapes
    #: of the chunks argument) replace the chunks from then on and the check
    #: judges against them (``run(compress=True)`` compresses them too); None
    #: keeps the current ones. Not with ``chunks_of``.
    retrieve: Retrieve | None
    #: Stop with outcome ``"stalled"`` on a stall, instead of paying for
    #: another call: a failing retry that resolved nothing and introduced
    #: nothing (its record's ``resolved`` and ``introduced`` are empty; see
    #: :class:`relapse.IterationRecord`).
    stop_on_repeat: bool
    #: ``on_iteration(attempt)``, called before each LLM call (inside its
    #: span); what it raises propagates like an LLM error.
    on_iteration: OnIteration | None
    #: The kill switch: a bool, or ``enabled() -> bool`` read on every call.
    #: When off, or when the environment variable ``RELAPSE_ENABLED`` is
    #: ``0``/``false``/``no``/``off`` (read when the loop is built: when
    #: decorating, by ``run``/``arun`` at each call), the function is called
    #: once, straight through: no check, no spans, outcome ``"disabled"``.
    enabled: Enabled
    #: OpenTelemetry tracer provider; None: the global one.
    tracer_provider: trace.TracerProvider | None
    #: OpenTelemetry meter provider; None: the global one.
    meter_provider: MeterProvider | None
    #: OpenTelemetry logger provider for evaluation events; None: they are span events.
    logger_provider: LoggerProvider | None
    #: Put prompts, answers and failing spans on spans; None: decided by
    #: ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT``.
    capture_content: bool | None
    #: ``redact(text) -> str``, applied to every captured text before it is recorded.
    redact: Callable[[str], str] | None
    #: ``answer_of(response) -> str`` reads the text to check from what the
    #: function (or ``call_llm``) returned; None means
    #: :func:`relapse.default_answer_of` (for a stream, the text of its
    #: pieces). For a stream it receives the :class:`relapse.Streamed`.
    answer_of: AnswerOf | None
    #: ``usage_of(response) -> relapse.Usage | None`` reads the tokens one
    #: call spent; None means :func:`relapse.default_usage_of` (for a stream,
    #: its final usage event).
    usage_of: UsageOf | None
    #: Stop retrying once the tokens the attempts reported (their checks'
    #: model calls included, an :class:`relapse.checks.LLMJudge`'s) reach this
    #: many (outcome ``"budget"``); the attempt that crossed it is still checked,
    #: and returned grounded if it passed. None: no budget.
    max_total_tokens: int | None
    #: ``"answer"`` (the default): a stream reaches the caller once the whole
    #: answer passed. ``"sentence"``: each sentence is released as soon as it
    #: passed (with what it needs to be judged: an open quotation, a range,
    #: a list), the stream is closed at the first failing sentence, and the
    #: retry continues after what was released (:func:`relapse.prompts.continuation_retry`);
    #: needs a check that judges a prefix (the default does), no ``answer_of``
    #: and no ``chunks_of`` (but one that reads the chunks off the unread
    #: stream, ``before_stream``, as :func:`relapse.chunks_from.llamaindex`),
    #: else it falls back to ``"answer"`` with a ``UserWarning``. No effect on
    #: functions that return no stream.
    release: Release
    #: ``clock() -> seconds``, a monotonic clock read to enforce ``timeout``
    #: (and for ``Attempt.elapsed_s``); None means :func:`time.monotonic`.
    #: :class:`relapse.testing.FakeClock` makes a timeout testable without
    #: waiting. Not the durations on spans, which are the SDK's.
    clock: Callable[[], float] | None
    #: With ``on_exhausted="redact"``, the text each removed sentence is
    #: replaced by (``"[unsupported]"``, say); None drops it with the
    #: whitespace before it.
    redact_marker: str | None


#: The default of every :class:`LoopOptions` key (the one place they are written).
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
    "release": "answer",
    "clock": None,
    "redact_marker": None,
}


def _validate(options: dict[str, Any]) -> None:
    """
    Raise on the first option of the wrong type or out of range.

    Also folds ``RELAPSE_ENABLED`` into ``options["enabled"]``: off wins.
    """
    _positive_int("max_iterations", options["max_iterations"], 1, "it counts LLM calls")
    on_exhausted = options["on_exhausted"]
    if callable(on_exhausted):
        _takes_attempt("on_exhausted", on_exhausted)
    elif on_exhausted not in ON_EXHAUSTED_POLICIES:
        raise ValueError(
            f"on_exhausted must be one of {', '.join(map(repr, ON_EXHAUSTED_POLICIES))}"
            f" or callable(attempt) -> str, got {on_exhausted!r}"
        )
    _policy_callable("rewrite", options["rewrite"], "callable(attempt) -> str")
    _policy_callable("retrieve", options["retrieve"], "callable(attempt) -> chunks | None")
    _policy_callable("on_iteration", options["on_iteration"], "callable(attempt)")
    clock = options["clock"]
    if clock is not None and not callable(clock):
        raise TypeError(f"clock must be callable() -> seconds or None, got {type(clock).__name__}")
    for name, shape in (
        ("grounding_check", "callable(query, chunks, answer)"),
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
        # Read like the content-capture variable: when the loop is built.
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
    marker = options["redact_marker"]
    if marker is not None:
        if not isinstance(marker, str):
            raise TypeError(f"redact_marker must be a str or None, got {type(marker).__name__}")
        if options["on_exhausted"] != "redact":
            raise ValueError(
                "redact_marker replaces the sentences on_exhausted='redact' removes;"
                f" on_exhausted is {options['on_exhausted']!r}"
            )
    if options["release"] not in RELEASES:
        raise ValueError(
            f"release must be one of {', '.join(map(repr, RELEASES))}, got {options['release']!r}"
        )


def _release(options: dict[str, Any], check: Check) -> tuple[str, str | None]:
    """
    The release mode a loop runs with, and why ``"sentence"`` fell back, if it did.

    ``release="sentence"`` needs a check that judges text incrementally,
    and relapse's own reading of the pieces (no ``answer_of``); otherwise the
    loop releases the answer whole and says so once, here, with a
    :class:`UserWarning` (and on every iteration span,
    ``relapse.stream.fallback``). :meth:`Policy.for_function` adds the third
    condition, chunks known before the stream is read (no ``chunks_of``).
    """
    if options["release"] != RELEASE_SENTENCE:
        return RELEASE_ANSWER, None
    if not can_judge_incrementally(check):
        reason, why = attr.FALLBACK_CHECK, f"the check {check_name(check)} cannot judge a prefix"
    elif options["answer_of"] is not None:
        reason, why = attr.FALLBACK_ANSWER_OF, "answer_of reads the text, not relapse"
    else:
        return RELEASE_SENTENCE, None
    _warn_fallback(why)
    return RELEASE_ANSWER, reason


def reads_unread(chunks_of: ChunksOf) -> bool:
    """
    Whether ``chunks_of`` reads the chunks off a stream before its pieces are read.

    A reader declares it with a truthy attribute ``before_stream``
    (:func:`relapse.chunks_from.llamaindex` does: a LlamaIndex streaming
    response has its ``source_nodes`` before its tokens); with such a reader
    ``release="sentence"`` does not fall back.
    """
    return bool(getattr(chunks_of, "before_stream", False))


def _warn_fallback(why: str) -> None:
    """Say once, when the loop is built, that ``release="sentence"`` fell back."""
    warnings.warn(
        f"release='sentence' falls back to release='answer': {why}; streams are released"
        " once the whole answer passed",
        UserWarning,
        stacklevel=5,
    )


def make_policy(name: str, given: Mapping[str, object]) -> Policy:
    """
    Validate every option of a loop and build its :class:`Policy`.

    The only place options are validated.

    Args:
        name: The entry point (``Loop``, ``grounded``, ``run``, ``arun``),
            named in errors; it also names the call span until
            :meth:`Policy.for_function` or :meth:`Policy.for_run`.
        given: The options the caller passed (:class:`LoopOptions` keys).

    Returns:
        The policy.

    Raises:
        TypeError: an unknown option, or one of the wrong type (the message
            names it); a policy that cannot be called as ``f(attempt)``.
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
    check = options["grounding_check"]
    if check is None:
        check = default_grounding_check
    timeout = options["timeout"]
    release, fallback = _release(options, check)
    rewrite = options["rewrite"]
    return Policy(
        max_iterations=options["max_iterations"],
        check=check,
        check_name=check_name(check),
        annotator=annotator_kind(check),
        on_exhausted=options["on_exhausted"],
        rewrite=compact_retry if rewrite is None else rewrite,
        custom_rewrite=rewrite is not None,
        timeout_s=None if timeout is None else float(timeout),
        max_prompt_chars=options["max_prompt_chars"],
        retrieve=options["retrieve"],
        stop_on_repeat=options["stop_on_repeat"],
        on_iteration=options["on_iteration"],
        enabled=options["enabled"],
        readers=Readers(options["answer_of"], options["usage_of"]),
        max_total_tokens=options["max_total_tokens"],
        release=release,
        release_fallback=fallback,
        redact_marker=options["redact_marker"],
        clock=time.monotonic if options["clock"] is None else options["clock"],
        telemetry=Telemetry(
            name,
            tracer_provider=options["tracer_provider"],
            meter_provider=options["meter_provider"],
            logger_provider=options["logger_provider"],
            capture_content=options["capture_content"],
            redact=options["redact"],
        ),
    )
