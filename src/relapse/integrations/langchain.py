"""
relapse in LangChain (optional extra ``langchain``, needs ``langchain-core`` only).

:class:`GroundedRunnable` wraps any Runnable (an LCEL chain) in relapse's
loop and is itself a Runnable: ``invoke``, ``ainvoke``, ``batch``, ``abatch``,
``stream`` and ``astream`` work as on the chain, and return the chain's own
output type (an ``AIMessage``, a ``str``, a dict) of the chosen attempt::

    from relapse.integrations.langchain import GroundedRunnable

    rag = {"context": itemgetter("question") | retriever,
           "question": itemgetter("question")} | RunnablePassthrough.assign(
        answer=prompt | llm | StrOutputParser())
    grounded_rag = GroundedRunnable(rag, context_key="context", feedback_key="feedback")
    grounded_rag.invoke({"question": "When did the bridge open?"})

The chunks come from the chain's input (``chunks_key``: the caller passes the
retrieved documents) or from its output (``context_key``: a chain that
retrieves inside itself returns its documents next to the answer). Items may
be LangChain ``Document``s, strings or mappings with ``text``.

On a retry the chain is invoked again with the retry query in place of the
question, or, with ``feedback_key``, with the question untouched and the
retry note (the rejected answer and its findings) under that key, so the
chain's own retriever keeps searching for the real question. Each attempt's
run is tagged ``relapse:attempt:N`` (LangChain's child-run tags), so
LangSmith and every other LangChain tracer show which run was which attempt,
under one run of this Runnable.

``stream``/``astream`` stream for real with ``release="sentence"``: the
chain's own chunks (``AIMessageChunk``s, or ``str`` after a
``StrOutputParser``) reach the caller as the sentences they complete pass the
check; at the first failing sentence the chain's stream is closed (the model
stops generating) and the retry's chunks continue after what was released.
With ``release="answer"`` (the default), or a ``context_key`` (the chunks
are known only once the chain's output is whole), they yield the chosen
attempt's whole output once, after the loop.

Agents built with LangChain 1.x's ``create_agent`` take
:class:`GroundingMiddleware` (``pip install 'relapse[langchain]'`` brings the
``langchain`` package it needs): it checks the agent's final answer against
what its tools returned and calls the model again with the retry note::

    from relapse.integrations.langchain import GroundingMiddleware

    grounding = GroundingMiddleware(tools=["search"], max_iterations=3)
    agent = create_agent(model, tools=[search], middleware=[grounding])

Each attempt's tokens are read from the LLM runs inside it (a callback
handler on the attempt's run sums what every ``on_llm_end`` reports: chat
messages' ``usage_metadata``, or a completion LLM's ``llm_output
["token_usage"]``), so an LCEL chain ending in ``StrOutputParser``, which
drops the message and its usage, still reports them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, Generic, cast

from relapse import chunks_from
from relapse._engine import Loop, loop_of
from relapse._policy import RELEASE_SENTENCE
from relapse._read.shapes import member
from relapse._read.usage import default_usage_of, usage_from
from relapse._results import RelapseResult, Usage, total_usage
from relapse._state import current_attempt
from relapse._stream.grounded import AsyncGroundedStream, GroundedStream

try:
    from langchain_core.callbacks import BaseCallbackHandler
    from langchain_core.callbacks.manager import (
        AsyncCallbackManagerForChainRun,
        CallbackManagerForChainRun,
    )
    from langchain_core.outputs import LLMResult
    from langchain_core.runnables import Runnable, RunnableConfig
    from langchain_core.runnables.config import patch_config
    from langchain_core.runnables.utils import Input, Output
except ImportError as error:  # pragma: no cover - exercised by the missing-extra test
    raise ImportError(
        "relapse.integrations.langchain needs langchain-core; run: pip install 'relapse[langchain]'"
    ) from error

if TYPE_CHECKING:
    from typing import Unpack

    from relapse._policy import LoopOptions
    from relapse.integrations._langchain_agent import GroundingMiddleware, tool_chunks

__all__ = [
    "ATTEMPT_TAG_PREFIX",
    "GroundedRunnable",
    "GroundingMiddleware",
    "llm_result_usage",
    "tool_chunks",
]


def __getattr__(name: str) -> Any:
    # The agent middleware needs the langchain package, GroundedRunnable only
    # langchain-core: it is imported when first asked for.
    if name in ("GroundingMiddleware", "tool_chunks"):
        import relapse.integrations._langchain_agent as agent

        return getattr(agent, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: Each attempt's run is tagged ``f"{ATTEMPT_TAG_PREFIX}{iteration}"``.
ATTEMPT_TAG_PREFIX = "relapse:attempt:"

#: The query key of a mapping input when ``query_key`` is not given.
DEFAULT_QUERY_KEY = "question"


def _attempt_tag() -> str:
    attempt = current_attempt()
    return f"{ATTEMPT_TAG_PREFIX}{attempt.iteration if attempt is not None else 1}"


def llm_result_usage(result: LLMResult) -> Usage | None:
    """
    The tokens one LLM run reported, as ``on_llm_end`` receives them.

    Chat models put them on each generated message (``usage_metadata``);
    completion LLMs (``langchain_openai.OpenAI``) in ``llm_output
    ["token_usage"]`` (LangChain keeps a batch's total on its first run and
    empties the others', so summing runs counts each token once). The
    messages are read first: a chat model reporting both would be counted
    twice.

    Args:
        result: What a LangChain LLM run ended with.

    Returns:
        The :class:`relapse.Usage`, or None when the run reported none.
    """
    messages = [
        usage_from(member(getattr(generation, "message", None), "usage_metadata"))
        for generations in result.generations
        for generation in generations
    ]
    reported = total_usage(messages)
    if reported is not None:
        return reported
    output = result.llm_output if isinstance(result.llm_output, Mapping) else {}
    return usage_from(output.get("token_usage")) or usage_from(output.get("usage"))


class _UsageCollector(BaseCallbackHandler):
    """Collects the tokens of every LLM run of one attempt (its child runs included)."""

    # Called in the LLM run's own thread or task, before it returns: the
    # attempt's usage is complete when the chain's invoke returns.
    run_inline = True
    raise_error = False

    def __init__(self) -> None:
        self.usages: list[Usage] = []

    def on_llm_end(self, response: LLMResult, **kwargs: Any) -> None:
        """Keep the tokens ``response`` reports, if any; never raises."""
        try:
            usage = llm_result_usage(response)
        except Exception:  # a report, never a reason to fail the chain
            return
        if usage is not None:
            self.usages.append(usage)  # list.append is atomic: batched runs may share it


#: The tokens of each attempt of the call in progress, in order, as the
#: attempt functions collect them; the loop's ``usage_of`` takes them.
_ATTEMPT_USAGE: ContextVar[list[Usage | None] | None] = ContextVar(
    "relapse_langchain_attempt_usage", default=None
)


def _usage_of_attempt(output: Any) -> Usage | None:
    """
    The tokens of the attempt that returned ``output``.

    What its LLM runs reported (see :func:`llm_result_usage`); when they
    reported nothing, what ``output`` itself carries (an ``AIMessage``'s
    ``usage_metadata``, see :func:`relapse.default_usage_of`).
    """
    pending = _ATTEMPT_USAGE.get()
    collected = pending.pop() if pending else None
    return collected if collected is not None else default_usage_of(output)


def _counted(
    pieces: Iterator[Any], collector: _UsageCollector, usages: list[Usage | None]
) -> Iterator[Any]:
    """
    The chain's stream, passed through; the attempt's tokens recorded when it ends.

    Its LLM runs report their tokens when their streams end (``on_llm_end``),
    so the attempt's usage is known only then; a stream closed early (a
    failing sentence) reports none, and records None.
    """
    try:
        yield from pieces
    finally:
        close = getattr(pieces, "close", None)
        if callable(close):
            close()
        usages.append(total_usage(collector.usages))


async def _acounted(
    pieces: AsyncIterator[Any], collector: _UsageCollector, usages: list[Usage | None]
) -> AsyncIterator[Any]:
    """:func:`_counted` for the chain's ``astream``."""
    try:
        async for piece in pieces:
            yield piece
    finally:
        close = getattr(pieces, "aclose", None)
        if callable(close):
            await close()
        usages.append(total_usage(collector.usages))


class _Inputs:
    """Reads the query and chunks out of a chain input, and writes an attempt's input."""

    __slots__ = ("chunks_key", "feedback_key", "query_key")

    def __init__(self, query_key: str | None, chunks_key: str | None, feedback_key: str | None):
        self.query_key = query_key
        self.chunks_key = chunks_key
        self.feedback_key = feedback_key

    def read(self, value: object) -> tuple[str, Any]:
        """``(query, chunks or None)``; TypeError naming the key when the input has none."""
        if isinstance(value, str):
            if self.query_key is not None or self.chunks_key or self.feedback_key:
                raise TypeError(
                    "the chain input is a str; query_key, chunks_key and feedback_key need a"
                    " mapping input"
                )
            return value, None
        if not isinstance(value, Mapping):
            raise TypeError(
                f"the chain input must be a str or a mapping, got {type(value).__name__}"
            )
        key = self.query_key or DEFAULT_QUERY_KEY
        query = value.get(key)
        if not isinstance(query, str):
            got = "no such key" if key not in value else type(query).__name__
            raise TypeError(
                f"the chain input's query_key {key!r} must hold the question as str, got {got}"
                f" (its keys: {', '.join(map(repr, list(value)[:8]))})"
            )
        if self.chunks_key is None:
            return query, None
        if self.chunks_key not in value:
            raise TypeError(f"the chain input has no chunks_key {self.chunks_key!r}")
        return query, value[self.chunks_key]

    def write(self, value: Any, query: str, chunks: Any, feedback: str | None) -> Any:
        """The input of one attempt: the caller's, with the query (and chunks, note) of this one."""
        if isinstance(value, str):
            return query
        attempt_input = dict(value)
        attempt_input[self.query_key or DEFAULT_QUERY_KEY] = query
        if self.chunks_key is not None:
            attempt_input[self.chunks_key] = chunks
        if self.feedback_key is not None:
            # Iteration 1 has no note; the chain's prompt still needs the variable.
            attempt_input[self.feedback_key] = feedback or ""
        return attempt_input


class _ChainCall:
    """
    One call of the grounded chain: what its attempts share.

    The loop binds each attempt's query, chunks and note; the rest is here.

    Attributes:
        inputs: How the caller's input is rewritten for an attempt.
        value: The caller's input to the chain.
        config: The config LangChain handed this runnable's run.
        manager: This runnable's run (an attempt's run is its child).
        usages: Each attempt's tokens, in order, appended as it ends
            (None when its LLM runs reported none); the loop's ``usage_of``
            takes them (see :data:`_ATTEMPT_USAGE`).
    """

    __slots__ = ("config", "inputs", "manager", "usages", "value")

    def __init__(
        self,
        inputs: _Inputs,
        value: Any,
        config: RunnableConfig,
        manager: CallbackManagerForChainRun | AsyncCallbackManagerForChainRun,
    ) -> None:
        self.inputs = inputs
        self.value = value
        self.config = config
        self.manager = manager
        self.usages: list[Usage | None] = []

    def attempt_input(self, query: str, chunks: Any, feedback: str | None) -> Any:
        """The chain input of one attempt (see :meth:`_Inputs.write`)."""
        return self.inputs.write(self.value, query, chunks, feedback)

    def attempt_config(self) -> tuple[_UsageCollector, RunnableConfig]:
        """The config of one attempt's chain run: a child of this run, tagged, collecting usage."""
        collector = _UsageCollector()
        callbacks = self.manager.get_child(_attempt_tag())
        callbacks.add_handler(collector, inherit=True)
        return collector, patch_config(self.config, callbacks=callbacks)


@contextmanager
def _usages_read_from(call: _ChainCall) -> Iterator[None]:
    """Within: the loop's ``usage_of`` takes the attempts' tokens from ``call``."""
    token = _ATTEMPT_USAGE.set(call.usages)
    try:
        yield
    finally:
        _ATTEMPT_USAGE.reset(token)


class GroundedRunnable(Runnable[Input, Output], Generic[Input, Output]):
    """
    A Runnable that re-invokes another until its answer is grounded.

    Args:
        runnable: The chain to ground. Its output is what the check reads: a
            message (its ``content``), a ``str``, or a mapping holding the
            answer under ``answer``/``output``/``text``/``content``/``result``
            (or pass ``answer_of=``).
        query_key: The input key holding the question, for a mapping input;
            ``"question"`` by default. A ``str`` input is the question itself.
        chunks_key: The input key holding the retrieved chunks (the caller
            retrieved them). Exactly one of ``chunks_key`` and ``context_key``.
        context_key: The output key holding the chunks the chain retrieved
            itself (a mapping output such as ``{"answer": ..., "context": [...]}``);
            each attempt is checked against the chunks it returned.
        feedback_key: An input key that receives the retry note on iterations
            2+ (``""`` on iteration 1) while the question stays the caller's;
            the chain's prompt should show it. Without it the question itself
            is replaced by the retry query.
        loop: The :class:`relapse.Loop` to run (its options: ``max_iterations``,
            ``grounding_check``, ``on_exhausted``, ``tracer_provider``,
            ``answer_of``...); shared between runnables if you like.
        options: Instead of ``loop``: the options of a new one
            (:class:`relapse.LoopOptions`).

    Raises:
        TypeError: ``runnable`` is not a Runnable, a key is not a ``str``, an
            option is bad, or both ``loop`` and options are given. At call
            time, before the chain runs: an input without the query (or
            chunks) key, or a ``str`` input with keys set.
        ValueError: not exactly one of ``chunks_key`` and ``context_key``.
        NotGroundedError: at call time, with ``on_exhausted="raise"``.
    """

    def __init__(
        self,
        runnable: Runnable[Input, Output],
        *,
        query_key: str | None = None,
        chunks_key: str | None = None,
        context_key: str | None = None,
        feedback_key: str | None = None,
        loop: Loop | None = None,
        **options: Unpack[LoopOptions],
    ) -> None:
        if not isinstance(runnable, Runnable):
            raise TypeError(f"runnable must be a LangChain Runnable, got {type(runnable).__name__}")
        for name, key in (
            ("query_key", query_key),
            ("chunks_key", chunks_key),
            ("context_key", context_key),
            ("feedback_key", feedback_key),
        ):
            if key is not None and not isinstance(key, str):
                raise TypeError(f"{name} must be a str or None, got {type(key).__name__}")
        if (chunks_key is None) == (context_key is None):
            raise ValueError(
                "give exactly one of chunks_key (the chunks are in the chain's input) and"
                " context_key (the chain returns them in its output)"
            )
        self.runnable = runnable
        self._inputs = _Inputs(query_key, chunks_key, feedback_key)
        self.loop = loop_of("GroundedRunnable", loop, options)
        #: Whether stream()/astream() release the chain's chunks as they pass
        #: (a chain returning its chunks in its output is checked once whole).
        self._streams = self.loop.options.get("release") == RELEASE_SENTENCE and context_key is None
        self._sync, self._async, self._stream, self._astream = self._loops(
            context_key, feedback_key, self.loop
        )

    def _loops(
        self, context_key: str | None, feedback_key: str | None, loop: Loop
    ) -> tuple[Any, Any, Any, Any]:
        """The grounded attempt functions (sync, async, streaming sync and async), built once."""
        chain = self.runnable
        feedback_arg = "feedback" if feedback_key is not None else None

        def attempt(query: str, chunks: Any, feedback: str | None, call: _ChainCall) -> Any:
            collector, child = call.attempt_config()
            output = chain.invoke(call.attempt_input(query, chunks, feedback), child)
            call.usages.append(total_usage(collector.usages))
            return output

        async def aattempt(query: str, chunks: Any, feedback: str | None, call: _ChainCall) -> Any:
            collector, child = call.attempt_config()
            output = await chain.ainvoke(call.attempt_input(query, chunks, feedback), child)
            call.usages.append(total_usage(collector.usages))
            return output

        def attempt_stream(
            query: str, chunks: Any, feedback: str | None, call: _ChainCall
        ) -> Iterator[Any]:
            collector, child = call.attempt_config()
            pieces = chain.stream(call.attempt_input(query, chunks, feedback), child)
            return _counted(pieces, collector, call.usages)

        async def aattempt_stream(
            query: str, chunks: Any, feedback: str | None, call: _ChainCall
        ) -> AsyncIterator[Any]:
            collector, child = call.attempt_config()
            pieces = chain.astream(call.attempt_input(query, chunks, feedback), child)
            return _acounted(pieces, collector, call.usages)

        # The call span is named after these: "relapse GroundedRunnable".
        for function in (attempt, aattempt, attempt_stream, aattempt_stream):
            function.__qualname__ = "GroundedRunnable"
        if context_key is None:
            shape: dict[str, Any] = {"chunks_arg": "chunks"}
        else:
            shape = {"chunks_of": chunks_from.key(context_key)}
        if "usage_of" not in loop.options:
            # The attempt's LLM runs report its tokens (StrOutputParser drops them).
            loop = loop.replace(usage_of=_usage_of_attempt)
        decorate = loop.grounded(query_arg="query", feedback_arg=feedback_arg, **shape)
        if not self._streams:
            return decorate(attempt), decorate(aattempt), None, None
        return (
            decorate(attempt),
            decorate(aattempt),
            decorate(attempt_stream),
            decorate(aattempt_stream),
        )

    # Types are the wrapped chain's (schemas follow from them) ---------------

    @property
    def InputType(self) -> type[Input]:  # noqa: N802 (LangChain's Runnable API)
        """The wrapped chain's input type."""
        return self.runnable.InputType

    @property
    def OutputType(self) -> type[Output]:  # noqa: N802 (LangChain's Runnable API)
        """The wrapped chain's output type."""
        return self.runnable.OutputType

    # Calls -------------------------------------------------------------------

    def _begin(
        self,
        value: Any,
        config: RunnableConfig,
        manager: CallbackManagerForChainRun | AsyncCallbackManagerForChainRun,
    ) -> tuple[str, Any, _ChainCall]:
        """The query and chunks of the input ``value``, and the call its attempts share."""
        query, chunks = self._inputs.read(value)
        return query, chunks, _ChainCall(self._inputs, value, config, manager)

    # LangChain passes ``run_manager`` and ``config`` by these names.
    def _run(
        self, value: Input, run_manager: CallbackManagerForChainRun, config: RunnableConfig
    ) -> RelapseResult:
        query, chunks, call = self._begin(value, config, run_manager)
        with _usages_read_from(call):
            result: RelapseResult = self._sync.run(query, chunks, None, call)
        return result

    async def _arun(
        self, value: Input, run_manager: AsyncCallbackManagerForChainRun, config: RunnableConfig
    ) -> RelapseResult:
        query, chunks, call = self._begin(value, config, run_manager)
        with _usages_read_from(call):
            result: RelapseResult = await self._async.run(query, chunks, None, call)
        return result

    def _invoke(
        self, value: Input, run_manager: CallbackManagerForChainRun, config: RunnableConfig
    ) -> Output:
        return cast("Output", self._run(value, run_manager, config).response)

    async def _ainvoke(
        self, value: Input, run_manager: AsyncCallbackManagerForChainRun, config: RunnableConfig
    ) -> Output:
        return cast("Output", (await self._arun(value, run_manager, config)).response)

    def invoke(self, input: Input, config: RunnableConfig | None = None, **kwargs: Any) -> Output:
        """
        Invoke the chain until its answer is grounded; return the chosen attempt's output.

        Raises:
            TypeError: the input lacks the query or chunks key (before the chain runs).
            NotGroundedError: no grounded answer and ``on_exhausted="raise"``.
            Exception: whatever the chain raises, unchanged, with the
                transcript in its ``relapse_transcript`` attribute.
        """
        del kwargs
        return self._call_with_config(self._invoke, input, config, run_type="chain")

    async def ainvoke(
        self,
        input: Input,
        config: RunnableConfig | None = None,
        **kwargs: Any,
    ) -> Output:
        """:meth:`invoke` with the chain's ``ainvoke``."""
        del kwargs
        return await self._acall_with_config(self._ainvoke, input, config, run_type="chain")

    def run(self, value: Input, config: RunnableConfig | None = None) -> RelapseResult:
        """
        :meth:`invoke`, returning the :class:`relapse.RelapseResult` instead.

        Its ``response`` is the chosen attempt's output; its ``transcript``
        holds every attempt's answer, findings and output.
        """
        return self._call_with_config(self._run, value, config, run_type="chain")  # type: ignore[arg-type, return-value]

    async def arun(self, value: Input, config: RunnableConfig | None = None) -> RelapseResult:
        """:meth:`run` with the chain's ``ainvoke``."""
        return await self._acall_with_config(self._arun, value, config, run_type="chain")  # type: ignore[arg-type, return-value]

    # Streams (release="sentence") --------------------------------------------

    def _stream_chunks(
        self,
        values: Iterator[Input],
        run_manager: CallbackManagerForChainRun,
        config: RunnableConfig,
        opened: list[GroundedStream[Any]],
    ) -> Iterator[Output]:
        # LangChain hands a stream's input as an iterator of one value (or of
        # chunks of it, added up, when this runnable is piped after a stream).
        value: Any = None
        for part in values:
            value = part if value is None else value + part
        query, chunks, call = self._begin(value, config, run_manager)
        # Set in this stream's own context (LangChain runs every step of it
        # there), where the loop's usage_of reads it between pieces.
        _ATTEMPT_USAGE.set(call.usages)
        stream = self._stream(query, chunks, None, call)
        opened.append(stream)
        with stream:
            yield from stream

    async def _astream_chunks(
        self,
        values: AsyncIterator[Input],
        run_manager: AsyncCallbackManagerForChainRun,
        config: RunnableConfig,
        opened: list[AsyncGroundedStream[Any]],
    ) -> AsyncIterator[Output]:
        value: Any = None
        async for part in values:
            value = part if value is None else value + part
        query, chunks, call = self._begin(value, config, run_manager)
        _ATTEMPT_USAGE.set(call.usages)
        stream = await self._astream(query, chunks, None, call)
        opened.append(stream)
        async with stream:
            async for piece in stream:
                yield piece

    def stream(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Output]:
        """
        Stream the chain's chunks as they pass the check (``release="sentence"``).

        The chunks are the chain's own (``AIMessageChunk``, ``str``...), in
        order; a chunk is yielded once all of its text passed. At the first
        failing sentence the chain's stream is closed and the retry's chunks
        continue after the released text. Closing this iterator closes the
        chain's stream and ends the loop. With ``release="answer"`` or a
        ``context_key``, yields the chosen attempt's whole output once.

        Raises:
            TypeError: as :meth:`invoke`; a chunk whose text relapse cannot
                read (a chain streaming mappings: use ``release="answer"``).
            NotGroundedError: after the released text, with ``on_exhausted="raise"``.
            Exception: whatever the chain raises, unchanged.
        """
        if not self._streams:
            yield from super().stream(input, config, **kwargs)
            return
        opened: list[GroundedStream[Any]] = []

        # LangChain passes ``run_manager`` and ``config`` by these names.
        def transform(
            values: Iterator[Input], run_manager: CallbackManagerForChainRun, config: RunnableConfig
        ) -> Iterator[Output]:
            return self._stream_chunks(values, run_manager, config, opened)

        chunks = self._transform_stream_with_config(
            iter([input]), transform, config, run_type="chain"
        )
        try:
            yield from chunks
        finally:
            # LangChain's generator swallows its close, leaving ours open:
            # close it explicitly, so the chain's stream (the provider's) ends now.
            for stream in opened:
                stream.close()
            close = getattr(chunks, "close", None)
            if callable(close):
                close()

    async def astream(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Output]:
        """:meth:`stream` with the chain's ``astream``."""
        if not self._streams:
            async for output in super().astream(input, config, **kwargs):
                yield output
            return
        opened: list[AsyncGroundedStream[Any]] = []

        async def one() -> AsyncIterator[Input]:
            yield input

        def transform(
            values: AsyncIterator[Input],
            run_manager: AsyncCallbackManagerForChainRun,
            config: RunnableConfig,
        ) -> AsyncIterator[Output]:
            return self._astream_chunks(values, run_manager, config, opened)

        chunks = self._atransform_stream_with_config(one(), transform, config, run_type="chain")
        try:
            async for chunk in chunks:
                yield chunk
        finally:
            for stream in opened:
                await stream.aclose()
            close = getattr(chunks, "aclose", None)
            if callable(close):
                await close()
