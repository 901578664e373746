"""
:class:`Loop`, the engine: options validated once, then ``.run``, ``.arun`` and ``.grounded``.

The module-level :func:`grounded`, :func:`run` and :func:`arun` are one-line
skins over a :class:`Loop` built for that one decoration or call.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NoReturn, final

from relapse._decorator import decorator
from relapse._loop import adrive, drive, steps, unchecked_result
from relapse._policy import RELEASE_SENTENCE, LoopOptions, Policy, is_enabled, make_policy
from relapse._read.chunks import chunk_texts
from relapse._read.compress import default_compress
from relapse._read.replies import ChunksOf
from relapse._results import RelapseResult
from relapse.prompts import context_prompt

if TYPE_CHECKING:
    from typing import Unpack

    from relapse.typing import GroundedDecorator

#: ``build_prompt(question, chunk_texts) -> prompt``.
BuildPrompt = Callable[[str, Sequence[str]], str]


def _read_plain(fresh: Any, argument: str) -> tuple[list[str], list[str]]:
    """``run``'s reader of what ``retrieve`` returned: the texts, passed as they are."""
    texts = chunk_texts(fresh, argument)
    return texts, texts


def _read_compressed(fresh: Any, argument: str) -> tuple[list[str], list[str]]:
    """``run(compress=True)``'s reader: the texts, compressed as the first chunks were."""
    texts = default_compress(chunk_texts(fresh, argument))
    return texts, texts


class _Call:
    """One run()/arun() call: its query, chunk texts, and the prompt its model gets."""

    __slots__ = ("build_prompt", "call_llm", "query", "texts")

    def __init__(
        self,
        query: object,
        retrieved_chunks: Iterable[Any],
        call_llm: Callable[[str], Any],
        build_prompt: BuildPrompt | None,
        compress: bool,
    ) -> None:
        if not isinstance(query, str):
            raise TypeError(f"query must be str, got {type(query).__name__}")
        if not callable(call_llm):
            raise TypeError(
                f"call_llm must be callable(prompt) -> str, got {type(call_llm).__name__}"
            )
        if build_prompt is not None and not callable(build_prompt):
            raise TypeError("build_prompt must be callable(question, chunks) -> str")
        texts = chunk_texts(retrieved_chunks, "retrieved_chunks")
        self.query = query
        self.texts = default_compress(texts) if compress else texts
        self.call_llm = call_llm
        self.build_prompt = build_prompt or context_prompt

    def ask(self, prompt: str, replaced: list[str] | None) -> Any:
        """Build the prompt over the current chunks and call the model."""
        return self.call_llm(
            self.build_prompt(prompt, self.texts if replaced is None else replaced)
        )


@final
class Loop:
    """
    The grounding loop with its options, validated once: ask, check, rewrite, ask again.

    Build one, then run it as often as you like: :meth:`run` and
    :meth:`arun` drive it around a ``call_llm``, :meth:`grounded` decorates
    an LLM-calling function. The module-level :func:`relapse.run`,
    :func:`relapse.arun` and :func:`relapse.grounded` build a ``Loop`` for
    one call (or one decoration) and use it. Integrations
    (:class:`relapse.integrations.langchain.GroundedRunnable`,
    :class:`relapse.integrations.llamaindex.GroundedQueryEngine`) and
    :func:`relapse.evaluation.evaluate_loop` take one.

    A ``Loop`` is immutable (assigning an attribute raises
    ``AttributeError``) and holds no per-call state: every call's state
    lives in that call, so one ``Loop`` may be shared by threads and asyncio
    tasks at once. It holds its telemetry (providers, content capture) and
    reads ``RELAPSE_ENABLED`` once, when it is built.

    A ``Loop`` pickles as its :attr:`options`: unpickling builds
    ``Loop(**options)`` again (validating them and reading
    ``RELAPSE_ENABLED`` in the process that unpickles), so it pickles when
    every option does. A telemetry provider, a lambda or a closure does
    not; :func:`relapse.evaluation.evaluate_loop` with ``workers > 1`` names
    the option that does not.

    >>> import relapse
    >>> loop = relapse.Loop(max_iterations=2)
    >>> result = loop.run("When did it open?", ["It opened in 1932."],
    ...                   call_llm=lambda prompt: "It opened in 1932.")
    >>> result.outcome
    'grounded_first_try'

    Args:
        options: The loop options, each documented on
            :class:`relapse.LoopOptions` (defaults in its reference).

    Raises:
        TypeError: an unknown option, one of the wrong type (the message
            names it), or a policy that cannot be called as ``f(attempt)``.
        ValueError: an option out of range: ``max_iterations`` or
            ``max_total_tokens`` < 1, ``timeout`` <= 0, an unknown
            ``on_exhausted``.

    .. versionadded:: 0.2.0
    """

    __slots__ = ("_options", "_policy", "_runs")
    _policy: Policy
    _runs: dict[tuple[str, bool], Policy]
    _options: Mapping[str, object]

    def __init__(self, **options: Unpack[LoopOptions]) -> None:
        self._build("Loop", options)

    @classmethod
    def _for(cls, entry: str, options: Mapping[str, Any]) -> Loop:
        """A loop whose validation errors name ``entry`` (the skins: ``run``, ``grounded``)."""
        loop = cls.__new__(cls)
        loop._build(entry, options)
        return loop

    def _build(self, entry: str, options: Mapping[str, Any]) -> None:
        object.__setattr__(self, "_policy", make_policy(entry, options))
        # run()/arun()'s variants of the policy (span name, chunk reader),
        # made on first use: the module-level skins use only one.
        object.__setattr__(self, "_runs", {})
        object.__setattr__(self, "_options", MappingProxyType(dict(options)))

    def _run_policy(self, name: str, compress: bool) -> Policy:
        key = (name, compress)
        policy = self._runs.get(key)
        if policy is None:
            reader = _read_compressed if compress else _read_plain
            policy = self._policy.for_run(name, reader)
            # Two threads may race here: both build the same value, either is kept.
            self._runs[key] = policy
        return policy

    def __reduce__(self) -> tuple[Callable[[dict[str, Any]], Loop], tuple[dict[str, Any]]]:
        # The policy holds telemetry (providers, locks) that does not pickle;
        # the options are what the loop is, and rebuilding validates them.
        return (_rebuilt, (dict(self._options),))

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError(
            f"relapse.Loop is immutable (cannot set {name!r}): build another Loop(...)"
        )

    def __delattr__(self, name: str) -> NoReturn:
        raise AttributeError(f"relapse.Loop is immutable (cannot delete {name!r})")

    @property
    def options(self) -> Mapping[str, object]:
        """The options it was built with, as given (a read-only mapping; defaults left out)."""
        return self._options

    def replace(self, **changes: Unpack[LoopOptions]) -> Loop:
        """
        A new :class:`Loop` with this one's options and ``changes`` over them.

        >>> import relapse
        >>> relapse.Loop(max_iterations=2).replace(stop_on_repeat=True)
        relapse.Loop(max_iterations=2, stop_on_repeat=True)

        Raises:
            TypeError: see :class:`Loop`.
            ValueError: see :class:`Loop`.
        """
        return Loop._for("replace", {**self._options, **changes})

    def __repr__(self) -> str:
        shown = ", ".join(f"{key}={value!r}" for key, value in self._options.items())
        return f"relapse.Loop({shown})"

    def run(
        self,
        query: str,
        retrieved_chunks: Iterable[Any],
        *,
        call_llm: Callable[[str], object],
        compress: bool = False,
        build_prompt: BuildPrompt | None = None,
    ) -> RelapseResult:
        """
        Answer ``query`` from ``retrieved_chunks`` with ``call_llm``, retrying until grounded.

        The first iteration asks ``query``, later ones the retry query, each
        time inside a prompt built over the chunks. The call span is named
        ``relapse run``.

        Args:
            query: The user's question.
            retrieved_chunks: ``str`` items, mappings with a ``text``,
                ``page_content`` or ``content`` key, or LangChain, LlamaIndex
                or Haystack documents.
            call_llm: ``call_llm(prompt) -> response``, any provider: a
                ``str`` or anything ``answer_of`` reads (an SDK response, a
                dict, a stream); inside it, :func:`relapse.current_attempt`
                gives the iteration's state.
            compress: Deduplicate and cap the chunks with
                :func:`relapse.default_compress` before the first call (and
                those ``retrieve`` returns); the check then uses the
                compressed chunks, which are what the LLM saw.
            build_prompt: ``build_prompt(question, chunk_texts) -> prompt``;
                by default :func:`relapse.prompts.context_prompt` (an
                instruction, the chunks fenced by content-hash tags, the
                question and ``Answer:``). Model adapters supply their own
                (for example :meth:`relapse.llms.local.LocalModel.build_prompt`).

        Returns:
            The :class:`relapse.RelapseResult`.

        Raises:
            TypeError: ``query`` is not a ``str``; a chunk is none of the
                shapes above (the message names its index and type);
                ``call_llm`` is not callable, or no answer can be read from
                what it returns (see ``answer_of``).
            NotGroundedError: no grounded answer and ``on_exhausted="raise"``.
            Exception: whatever ``call_llm`` raises, unchanged, with the
                transcript so far in its ``relapse_transcript`` attribute.
        """
        call = _Call(query, retrieved_chunks, call_llm, build_prompt, compress)
        policy = self._run_policy("run", bool(compress))
        if not is_enabled(policy.enabled):
            return unchecked_result(query, call.ask(query, None))
        return drive(steps(policy, query, call.texts), call.ask)

    async def arun(
        self,
        query: str,
        retrieved_chunks: Iterable[Any],
        *,
        call_llm: Callable[[str], Awaitable[object]],
        compress: bool = False,
        build_prompt: BuildPrompt | None = None,
    ) -> RelapseResult:
        """
        :meth:`run` with an asynchronous ``call_llm``: ``await call_llm(prompt) -> response``.

        Arguments, return value and exceptions are those of :meth:`run`; the
        call span is named ``relapse arun``, and async checks are awaited.
        ``call_llm`` may also return an async iterator (a stream), read to
        its end.
        """
        call = _Call(query, retrieved_chunks, call_llm, build_prompt, compress)
        policy = self._run_policy("arun", bool(compress))
        if not is_enabled(policy.enabled):
            return unchecked_result(query, await call.ask(query, None))
        return await adrive(steps(policy, query, call.texts), call.ask)

    def grounded(
        self,
        _function: None = None,
        /,
        *,
        chunks_arg: str | None = None,
        chunks_of: ChunksOf | None = None,
        query_arg: str | None = None,
        feedback_arg: str | None = None,
    ) -> GroundedDecorator:
        """
        A decorator running this loop around an LLM-calling function.

        What the decorated function does and returns is described at
        :func:`relapse.grounded`, which is ``Loop(**options).grounded(...)``.

        Args:
            _function: Only there so that a bare ``@loop.grounded`` fails
                naming ``chunks_arg``/``chunks_of``; pass nothing.
            chunks_arg: Name of the parameter holding the retrieved chunks.
                Exactly one of ``chunks_arg`` and ``chunks_of``.
            chunks_of: ``chunks_of(response) -> chunks`` for a function that
                retrieves its chunks itself and returns them with the answer
                (see :mod:`relapse.chunks_from`).
            query_arg: Name of the query parameter; by default the first
                parameter that is none of ``chunks_arg``, ``feedback_arg``,
                ``self``/``cls``.
            feedback_arg: Name of a parameter receiving the retry note on
                iterations 2+, while the query argument stays the caller's.

        Returns:
            A decorator; see :func:`relapse.grounded`.

        Raises:
            TypeError: not exactly one of ``chunks_arg`` and ``chunks_of``,
                or a name that is not a ``str``.
            ValueError: ``retrieve`` with ``chunks_of``; a parameter name that
                is not a parameter (when decorating, listing them).
        """
        return decorator(
            self._policy,
            _function,
            chunks_arg=chunks_arg,
            chunks_of=chunks_of,
            query_arg=query_arg,
            feedback_arg=feedback_arg,
        )


def _rebuilt(options: dict[str, Any]) -> Loop:
    """Unpickle a :class:`Loop`: build it again from its options."""
    return Loop._for("Loop", options)


def grounded(
    _function: None = None,
    /,
    *,
    chunks_arg: str | None = None,
    chunks_of: ChunksOf | None = None,
    query_arg: str | None = None,
    feedback_arg: str | None = None,
    **options: Unpack[LoopOptions],
) -> GroundedDecorator:
    """
    Re-invoke an LLM-calling function until its answer is grounded.

    ``Loop(**options).grounded(chunks_arg=..., ...)``: build a
    :class:`relapse.Loop` once to share its options between functions.

    Iteration 1 calls the function with its arguments untouched. When the
    answer fails the check, iteration n > 1 calls it again with the query
    argument replaced by a retry query that quotes the original query, the
    previous answer and every error finding, and asks for an answer from
    the context alone (or, with ``feedback_arg``, with the query untouched
    and that note in the feedback parameter).

    The function may return a ``str``, an SDK response (OpenAI, Anthropic,
    LangChain, LlamaIndex...), a dict, or a stream (a sync or async iterator,
    read to its end before the check; generator and async generator
    functions too); ``answer_of`` reads the text to check.
    Calling the decorated function returns the function's own return value
    of the chosen attempt (a stream is replayed as an iterator of the same
    kind, so its first piece arrives only once the whole answer is checked);
    ``.run`` returns the :class:`relapse.RelapseResult`, whose ``answer`` is
    the text, ``response`` the raw value and ``usage`` the tokens of every
    attempt.
    Inside it, :func:`relapse.current_attempt` gives the iteration's
    :class:`relapse.Attempt` (raise the temperature on a retry, for example).

    Works on plain and ``async def`` functions, instance methods,
    classmethods and staticmethods (apply ``@staticmethod``/``@classmethod``
    above it); name, docstring, signature and ``inspect.iscoroutinefunction``
    are those of the wrapped function (wrapt). The chunks argument may be
    passed positionally or by keyword; a one-shot iterator is read once and
    the same list is passed on every iteration; any other iterable is passed
    as it is. For ``async def`` functions every error, argument errors
    included, is raised when the coroutine is awaited.

    Args:
        _function: Only there so that a bare ``@relapse.grounded`` fails
            naming ``chunks_arg``/``chunks_of`` rather than with "takes 0
            positional arguments"; pass nothing.
        chunks_arg: Name of the parameter holding the retrieved chunks: an
            iterable of ``str``, of mappings with a ``text``, ``page_content``
            or ``content`` key, or of LangChain, LlamaIndex or Haystack
            documents. Exactly one of ``chunks_arg`` and ``chunks_of``.
        chunks_of: ``chunks_of(response) -> chunks`` for a function that
            retrieves its chunks itself and returns them with the answer
            (see :mod:`relapse.chunks_from`); each attempt is checked against
            the chunks it returned. Exactly one of ``chunks_arg`` and ``chunks_of``.
        query_arg: Name of the query parameter; by default the first
            parameter that is none of ``chunks_arg``, ``feedback_arg``,
            ``self``/``cls``.
        feedback_arg: Name of a parameter that receives, on iterations 2+,
            the retry note (the rejected answer and its findings, as text:
            :func:`relapse.prompts.retry_note`, or ``rewrite``'s result when
            given) while the query argument stays exactly the caller's, so the
            function's own retrieval, caches and logs see the real question.
            On iteration 1 it is passed untouched.
        options: The loop options, each documented on
            :class:`relapse.LoopOptions` (``max_iterations``,
            ``grounding_check``, ``on_exhausted``, ``rewrite``, ...).

    Returns:
        A decorator; the decorated function also has ``.run(*args, **kwargs)``
        returning the :class:`relapse.RelapseResult`.

    Raises:
        TypeError: an option has the wrong type, a policy cannot be called as
            ``f(attempt)``, or not exactly one of ``chunks_arg`` and
            ``chunks_of`` is given. At call time: the chunks or query
            argument is missing or of the wrong type (before any call), or
            the answer cannot be read from what the function returned (the
            raw value stays on the transcript).
        ValueError: ``max_iterations`` or ``max_total_tokens`` < 1, an
            unknown ``on_exhausted``, ``retrieve`` with ``chunks_of``, or a
            ``chunks_arg``/``query_arg``/``feedback_arg`` that is not a
            parameter (raised when decorating, listing the parameters).
        NotGroundedError: at call time, with ``on_exhausted="raise"``.

    .. versionchanged:: 0.2.0 ``chunks_of``, ``feedback_arg``, the loop
       options of :class:`relapse.LoopOptions`; calling returns the
       function's own return value.
    """
    return Loop._for("grounded", options).grounded(
        _function,
        chunks_arg=chunks_arg,
        chunks_of=chunks_of,
        query_arg=query_arg,
        feedback_arg=feedback_arg,
    )


def run(
    query: str,
    retrieved_chunks: Iterable[Any],
    *,
    call_llm: Callable[[str], object],
    compress: bool = False,
    build_prompt: BuildPrompt | None = None,
    **options: Unpack[LoopOptions],
) -> RelapseResult:
    """
    Answer ``query`` from ``retrieved_chunks`` with ``call_llm``, retrying until grounded.

    ``Loop(**options).run(...)``: the options are validated (and
    ``RELAPSE_ENABLED`` read) on every call; build a :class:`relapse.Loop`
    once to validate them once. Compatible with relapse 0.1.0's ``run``.
    The call span is named ``relapse run``.

    Args:
        query: The user's question.
        retrieved_chunks: ``str`` items or mappings with a ``"text"`` key
            (and the other shapes of :meth:`relapse.Loop.run`).
        call_llm: ``call_llm(prompt) -> response``, any provider: a ``str``
            or anything ``answer_of`` reads (an SDK response, a dict, a
            stream).
        compress: Deduplicate and cap the chunks with
            :func:`relapse.default_compress` before the first call.
        build_prompt: ``build_prompt(question, chunk_texts) -> prompt``; by
            default :func:`relapse.prompts.context_prompt`.
        options: The loop options, each documented on
            :class:`relapse.LoopOptions` (``grounding_check``,
            ``max_iterations``, ``rewrite``, ...).

    Returns:
        The :class:`relapse.RelapseResult`.

    Raises:
        TypeError: an unknown option or one of the wrong type; see
            :meth:`relapse.Loop.run` for the arguments.
        ValueError: ``max_iterations`` < 1 or an unknown ``on_exhausted``.
        NotGroundedError: no grounded answer and ``on_exhausted="raise"``.
        Exception: whatever ``call_llm`` raises, unchanged, with the
            transcript so far in its ``relapse_transcript`` attribute.
    """
    return Loop._for("run", options).run(
        query, retrieved_chunks, call_llm=call_llm, compress=compress, build_prompt=build_prompt
    )


async def arun(
    query: str,
    retrieved_chunks: Iterable[Any],
    *,
    call_llm: Callable[[str], Awaitable[object]],
    compress: bool = False,
    build_prompt: BuildPrompt | None = None,
    **options: Unpack[LoopOptions],
) -> RelapseResult:
    """
    :func:`run` with an asynchronous ``call_llm``: ``await call_llm(prompt) -> answer``.

    ``Loop(**options).arun(...)``. Arguments, return value and exceptions are
    those of :func:`run`; the call span is named ``relapse arun``, and async
    checks are awaited.

    Args:
        query: The user's question.
        retrieved_chunks: The chunks, as for :func:`run`.
        call_llm: ``await call_llm(prompt) -> response``.
        compress: As for :func:`run`.
        build_prompt: As for :func:`run`.
        options: The loop options, each documented on :class:`relapse.LoopOptions`.

    Returns:
        The :class:`relapse.RelapseResult`.
    """
    return await Loop._for("arun", options).arun(
        query, retrieved_chunks, call_llm=call_llm, compress=compress, build_prompt=build_prompt
    )


def loop_of(entry: str, loop: object, options: Mapping[str, Any]) -> Loop:
    """
    The :class:`Loop` an integration runs: ``loop``, or one built from ``options``.

    Raises:
        TypeError: both are given, or ``loop`` is not a :class:`Loop`
            (the message names ``entry``).
    """
    if loop is None:
        return Loop._for(entry, options)
    if not isinstance(loop, Loop):
        raise TypeError(f"{entry}: loop must be a relapse.Loop, got {type(loop).__name__}")
    if options:
        raise TypeError(
            f"{entry} takes loop= or loop options, not both: put"
            f" {', '.join(sorted(options))} in the Loop (loop.replace(...))"
        )
    return loop


def hook_policy(loop: Loop, name: str) -> Policy:
    """
    ``loop``'s policy for a framework hook that re-asks by itself (span ``relapse <name>``).

    The framework calls the model and re-asks with the retry note
    (:func:`relapse.prompts.retry_note`, or the loop's ``rewrite``), so the
    question stays the caller's, as with a decorator's ``feedback_arg``.

    Raises:
        ValueError: the loop has ``retrieve`` (the framework's own tools
            retrieve; the check must judge what the model saw) or
            ``release="sentence"`` (a hook sees an answer only once whole).
    """
    policy = loop._policy
    if policy.retrieve is not None:
        raise ValueError(
            f"{name}: the loop's retrieve= cannot reach the framework's model; retrieve in a"
            " tool or in the framework's pipeline, and build the Loop without retrieve"
        )
    if policy.release == RELEASE_SENTENCE:
        raise ValueError(
            f'{name}: release="sentence" needs relapse to read the model\'s stream; this hook'
            ' sees each answer whole: build the Loop with release="answer"'
        )
    return policy.for_function(name, None, feedback=True)
