"""``@relapse.grounded``: the loop around an existing ``answer(query, chunks)`` function."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar, cast

import wrapt
from opentelemetry import trace

from relapse._binding import CallShape, call_shape
from relapse._chunks import materialize
from relapse._loop import (
    ON_EXHAUSTED_POLICIES,
    GroundingCheck,
    OnExhausted,
    Policy,
    Retrieve,
    adrive,
    check_name,
    drive,
    steps,
)
from relapse._prompts import Rewrite, default_rewrite
from relapse._telemetry import Telemetry
from relapse._types import RelapseResult

if TYPE_CHECKING:
    from opentelemetry._logs import LoggerProvider
    from opentelemetry.metrics import MeterProvider

F = TypeVar("F", bound=Callable[..., Any])


def _validate(
    max_iterations: object,
    on_exhausted: object,
    grounding_check: object,
    rewrite: object,
    timeout: object,
    max_prompt_chars: object,
    retrieve: object,
) -> None:
    if isinstance(max_iterations, bool) or not isinstance(max_iterations, int):
        raise TypeError(f"max_iterations must be an int, got {type(max_iterations).__name__}")
    if max_iterations < 1:
        raise ValueError(f"max_iterations must be >= 1 (it counts LLM calls), got {max_iterations}")
    if on_exhausted not in ON_EXHAUSTED_POLICIES:
        raise ValueError(
            f"on_exhausted must be one of {', '.join(map(repr, ON_EXHAUSTED_POLICIES))},"
            f" got {on_exhausted!r}"
        )
    if grounding_check is not None and not callable(grounding_check):
        raise TypeError("grounding_check must be callable(query, chunks, answer)")
    if retrieve is not None and not callable(retrieve):
        raise TypeError("retrieve must be callable(query, previous_answer, findings)")
    if rewrite is not None and not callable(rewrite):
        raise TypeError("rewrite must be callable(query, previous_answer, findings)")
    if timeout is not None:
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
            raise TypeError(f"timeout must be a number of seconds, got {type(timeout).__name__}")
        if not timeout > 0:
            raise ValueError(f"timeout must be > 0 seconds, got {timeout}")
    if max_prompt_chars is not None and (
        isinstance(max_prompt_chars, bool)
        or not isinstance(max_prompt_chars, int)
        or max_prompt_chars < 1
    ):
        raise ValueError(f"max_prompt_chars must be a positive int, got {max_prompt_chars!r}")


class _Engine:
    """What one decorated function needs at call time."""

    def __init__(self, shape: CallShape, policy: Policy, is_async: bool) -> None:
        self.shape = shape
        self.policy = policy
        self.is_async = is_async

    def _prepare(
        self, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> tuple[str, list[str], Callable[[str, Any], tuple[tuple[Any, ...], dict[str, Any]]]]:
        # wrapt hands us args without self/cls whenever ``instance`` is set.
        query_slot, chunks_slot = self.shape.slots(bound=instance is not None)
        try:
            query = query_slot.get(args, kwargs)
        except TypeError:
            raise TypeError(f"missing the query argument {query_slot.name!r}") from None
        try:
            chunks = chunks_slot.get(args, kwargs)
        except TypeError:
            raise TypeError(f"missing the chunks argument {chunks_slot.name!r}") from None
        if not isinstance(query, str):
            raise TypeError(f"{query_slot.name} must be str, got {type(query).__name__}")
        passed, texts = materialize(chunks, chunks_slot.name)
        if passed is not chunks:
            args, kwargs = chunks_slot.replace(args, kwargs, passed)
        first_args, first_kwargs = args, kwargs

        def bind(prompt: str, chunks: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
            call_args, call_kwargs = first_args, first_kwargs
            if prompt is not query:
                call_args, call_kwargs = query_slot.replace(call_args, call_kwargs, prompt)
            if chunks is not None:
                call_args, call_kwargs = chunks_slot.replace(call_args, call_kwargs, chunks)
            return call_args, call_kwargs

        return query, texts, bind

    def execute(
        self, wrapped: Callable[..., Any], instance: Any, args: tuple[Any, ...], kwargs: Any
    ) -> Any:
        query, texts, bind = self._prepare(instance, args, kwargs)

        def call(prompt: str, chunks: Any) -> Any:
            call_args, call_kwargs = bind(prompt, chunks)
            return wrapped(*call_args, **call_kwargs)

        loop = steps(self.policy, query, texts)
        if self.is_async:
            return adrive(loop, call)
        return drive(loop, call)


class _BoundGrounded(wrapt.BoundFunctionWrapper):  # type: ignore[type-arg]
    """A grounded function bound to an instance or class (methods)."""

    def __call__(self, /, *args: Any, **kwargs: Any) -> Any:
        return _answer_of(super().__call__(*args, **kwargs))

    def run(self, /, *args: Any, **kwargs: Any) -> Any:
        """Call like the function, but return the :class:`relapse.RelapseResult`."""
        return super().__call__(*args, **kwargs)


class GroundedFunction(wrapt.FunctionWrapper):  # type: ignore[type-arg]
    """
    A function wrapped by :func:`grounded`.

    Calling it returns the answer of the :class:`relapse.RelapseResult`: the
    grounded answer, or, when none passed, the one ``on_exhausted`` picks;
    :meth:`run` returns the whole :class:`relapse.RelapseResult`.
    For an ``async def`` function both return awaitables.
    """

    __bound_function_wrapper__ = _BoundGrounded

    def __call__(self, /, *args: Any, **kwargs: Any) -> Any:
        return _answer_of(super().__call__(*args, **kwargs))

    def run(self, /, *args: Any, **kwargs: Any) -> Any:
        """Call like the function, but return the :class:`relapse.RelapseResult`."""
        return super().__call__(*args, **kwargs)


async def _await_answer(pending: Any) -> str:
    result: RelapseResult = await pending
    return result.answer


def _answer_of(outcome: Any) -> Any:
    if isinstance(outcome, RelapseResult):
        return outcome.answer
    return _await_answer(outcome)


def _is_async(function: Callable[..., Any]) -> bool:
    target: Any = function
    while True:
        if inspect.iscoroutinefunction(target):
            return True
        inner = getattr(target, "__func__", None) or getattr(target, "__wrapped__", None)
        if inner is None or inner is target:
            return False
        target = inner


def grounded(
    _function: None = None,
    /,
    *,
    chunks_arg: str,
    query_arg: str | None = None,
    max_iterations: int = 3,
    grounding_check: GroundingCheck | None = None,
    on_exhausted: OnExhausted = "return",
    rewrite: Rewrite | None = None,
    timeout: float | None = None,
    max_prompt_chars: int | None = None,
    retrieve: Retrieve | None = None,
    tracer_provider: trace.TracerProvider | None = None,
    meter_provider: MeterProvider | None = None,
    logger_provider: LoggerProvider | None = None,
    capture_content: bool | None = None,
    redact: Callable[[str], str] | None = None,
) -> Callable[[F], F]:
    """
    Re-invoke an ``answer(query, chunks)`` function until its answer is grounded.

    Iteration 1 calls the function with its arguments untouched. When the
    answer fails the check, iteration n > 1 calls it again with the query
    argument replaced by a retry query that quotes the original query, the
    previous answer and every finding, and asks for an answer from the
    context alone. The function must return the answer as ``str``.

    Works on plain and ``async def`` functions, instance methods,
    classmethods and staticmethods (apply ``@staticmethod``/``@classmethod``
    above it); name, docstring, signature and ``inspect.iscoroutinefunction``
    are those of the wrapped function (wrapt). The chunks argument may be
    passed positionally or by keyword; a one-shot iterable is read once and
    the same list is passed on every iteration.

    Args:
        _function: Only there so that a bare ``@relapse.grounded`` fails with
            Python's "missing ... keyword-only argument: 'chunks_arg'" rather
            than "takes 0 positional arguments"; pass nothing.
        chunks_arg: Name of the parameter holding the retrieved chunks: an
            iterable of ``str`` or of mappings with a ``"text"`` key.
        query_arg: Name of the query parameter; by default the first
            parameter that is neither ``chunks_arg`` nor ``self``/``cls``.
        max_iterations: Total LLM calls allowed, at least 1 (1 means no retry).
        grounding_check: ``check(query, chunks, answer) -> GroundingResult``;
            defaults to :func:`relapse.default_grounding_check`. ``chunks``
            is the list of chunk texts.
        on_exhausted: What to return when no answer passed: ``"return"`` the
            last answer, ``"best"`` the answer with the fewest failing spans
            (earliest on ties), ``"raise"`` :class:`relapse.NotGroundedError`.
        rewrite: ``rewrite(query, previous_answer, findings) -> str`` builds the
            retry query; defaults to a compact note appended to the query.
        timeout: Overall budget in seconds; checked between iterations, and
            when spent the loop ends with outcome ``"timeout"`` per
            ``on_exhausted``. It does not interrupt a running LLM call.
        retrieve: The re-retrieval back-edge, ``retrieve(query,
            previous_answer, findings) -> chunks | None``: called before each
            retry; new chunks (same shapes as the chunks argument) replace the
            chunks argument from then on and the check judges against them,
            None keeps the current ones. The idea of a refinement step that
            re-queries the retriever comes from agentic RAG evaluators.
        max_prompt_chars: When a retry query would exceed this many
            characters, it quotes only the failing spans instead of the whole
            previous answer.
        tracer_provider: OpenTelemetry tracer provider; the global one when None.
        meter_provider: OpenTelemetry meter provider; the global one when None.
        logger_provider: OpenTelemetry logger provider for evaluation events;
            when None they are span events.
        capture_content: Put prompts, answers and failing spans on spans;
            when None, decided by ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT``.
        redact: Applied to every captured text before it is recorded.

    Returns:
        A decorator; the decorated function also has ``.run(*args, **kwargs)``
        returning the :class:`relapse.RelapseResult`.

    Raises:
        TypeError: an option has the wrong type. At call time: the chunks or
            query argument is missing or of the wrong type, or the function
            returns a non-``str`` answer.
        ValueError: ``max_iterations`` < 1, an unknown ``on_exhausted``, or a
            ``chunks_arg``/``query_arg`` that is not a parameter (raised when
            decorating, listing the parameters).
        NotGroundedError: at call time, with ``on_exhausted="raise"``.
    """
    if _function is not None:
        raise TypeError("use @relapse.grounded(chunks_arg=...) with its options")
    _validate(
        max_iterations, on_exhausted, grounding_check, rewrite, timeout, max_prompt_chars, retrieve
    )
    if not isinstance(chunks_arg, str):
        raise TypeError(
            f"chunks_arg must be a parameter name (str), got {type(chunks_arg).__name__}"
        )
    if query_arg is not None and not isinstance(query_arg, str):
        raise TypeError(f"query_arg must be a parameter name (str), got {type(query_arg).__name__}")
    from relapse.grounding import default_grounding_check

    check = grounding_check or default_grounding_check

    def decorate(function: F) -> F:
        if isinstance(function, (staticmethod, classmethod)):
            target = function.__func__
        else:
            target = function
        if not callable(target):
            raise TypeError(f"@grounded decorates a function, got {type(function).__name__}")
        shape = call_shape(target, chunks_arg, query_arg)
        policy = Policy(
            max_iterations=max_iterations,
            check=check,
            check_name=check_name(check),
            on_exhausted=on_exhausted,
            rewrite=rewrite or default_rewrite,
            timeout_s=None if timeout is None else float(timeout),
            max_prompt_chars=max_prompt_chars,
            retrieve=retrieve,
            telemetry=Telemetry(
                getattr(target, "__qualname__", repr(target)),
                tracer_provider=tracer_provider,
                meter_provider=meter_provider,
                logger_provider=logger_provider,
                capture_content=capture_content,
                redact=redact,
            ),
        )
        engine = _Engine(shape, policy, _is_async(target))
        return cast(F, GroundedFunction(function, engine.execute))

    return decorate
