"""
:class:`GroundingMiddleware`: relapse in LangChain 1.x agents (``langchain.agents.create_agent``).

Imported through :mod:`relapse.integrations.langchain` (needs the ``langchain``
package, in the ``langchain`` extra; ``GroundedRunnable`` needs
``langchain-core`` only).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

from relapse._engine import Loop, hook_policy, loop_of
from relapse._read.shapes import member
from relapse._read.usage import usage_from
from relapse._results import RelapseResult, Usage
from relapse._state import current_attempt

try:
    from langchain.agents.middleware.types import (
        AgentMiddleware,
        ExtendedModelResponse,
        ModelRequest,
        ModelResponse,
    )
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
    from langchain_core.runnables.config import ensure_config, var_child_runnable_config
except ImportError as error:  # pragma: no cover - exercised by the missing-extra test
    raise ImportError(
        "relapse.integrations.langchain's GroundingMiddleware needs langchain 1.x;"
        " run: pip install 'relapse[langchain]'"
    ) from error

if TYPE_CHECKING:
    from typing import Unpack

    from relapse._policy import LoopOptions

__all__ = ["GroundingMiddleware", "tool_chunks"]

#: Each attempt's model run is tagged ``f"{ATTEMPT_TAG_PREFIX}{iteration}"``, as
#: :class:`~relapse.integrations.langchain.GroundedRunnable`'s attempts are.
ATTEMPT_TAG_PREFIX = "relapse:attempt:"

Handler = Callable[[ModelRequest], ModelResponse]
AsyncHandler = Callable[[ModelRequest], Awaitable[ModelResponse]]


def _final_message(response: ModelResponse) -> AIMessage | None:
    """The AI message a model response ends with, or None."""
    for message in reversed(response.result):
        if isinstance(message, AIMessage):
            return message
    return None


def _answer_of(response: ModelResponse) -> str:
    message = _final_message(response)
    return "" if message is None else message.text


def _usage_of(response: ModelResponse) -> Usage | None:
    message = _final_message(response)
    return None if message is None else usage_from(member(message, "usage_metadata"))


def tool_chunks(message: ToolMessage) -> list[Any]:
    """
    The chunks one tool returned: its artifact's items, or its content.

    A tool with ``response_format="content_and_artifact"`` that returns
    documents as its artifact gives those documents. Otherwise its content:
    a list gives its items (strings, or blocks with ``text``); a string
    holding a JSON array of strings (what LangChain makes of a tool returning
    ``list[str]``) gives those strings; any other string is one chunk.
    """
    artifact = message.artifact
    if isinstance(artifact, (list, tuple)) and artifact:
        return list(artifact)
    content = message.content
    if isinstance(content, list):
        return list(content)
    if content.startswith("["):
        try:
            items = json.loads(content)
        except ValueError:
            return [content]
        if isinstance(items, list) and all(isinstance(item, str) for item in items):
            return items
    return [content]


class _Turn:
    """One model call of the agent that ended in a final answer: what its attempts share."""

    __slots__ = ("first", "request")

    def __init__(self, request: ModelRequest, first: ModelResponse) -> None:
        self.request = request
        self.first = first

    def retry_request(self, feedback: str) -> ModelRequest:
        """The request again, with the rejected answer and the note after it, tools off."""
        attempt = current_attempt()
        previous = attempt.previous_answer if attempt is not None else None
        messages: list[Any] = list(self.request.messages)
        messages.append(AIMessage(content=previous or ""))
        messages.append(HumanMessage(content=feedback))
        # The answer must come from what the tools returned: no new tool round.
        return self.request.override(messages=messages, tools=[], tool_choice=None)


def _tagged() -> Any:
    """Set the ambient LangChain config to tag the model run with the attempt; the reset token."""
    attempt = current_attempt()
    iteration = attempt.iteration if attempt is not None else 1
    config = ensure_config()
    tags = [*config.get("tags", []), f"{ATTEMPT_TAG_PREFIX}{iteration}"]
    return var_child_runnable_config.set({**config, "tags": tags})


class GroundingMiddleware(AgentMiddleware):
    """
    Agent middleware: check the final answer against what the tools retrieved, and re-ask.

    ``wrap_model_call`` calls the model; when the response is a final answer
    (an ``AIMessage`` without tool calls) and tools returned chunks in this
    turn (the ``ToolMessage`` objects after the last human message, from the tools
    named in ``tools``, or every tool), it checks the answer. When the answer
    fails, the model is called again with the rejected answer and relapse's
    retry note appended as a human message, without tools, up to the loop's
    limits (``max_iterations``, ``timeout``, ``max_total_tokens``,
    ``stop_on_repeat``); the response the loop chose (per ``on_exhausted``) is
    what the agent gets. Each attempt's model run is tagged
    ``relapse:attempt:N`` and runs inside its relapse attempt span; each
    attempt's tokens are its ``AIMessage``'s ``usage_metadata``, summed in the
    result.

    A model response with tool calls, or a turn with no tool output to check
    against, passes unchecked. :attr:`results` keeps the
    :class:`relapse.RelapseResult` of each checked turn, latest last (at most
    :data:`MAX_RESULTS`).

    Args:
        tools: Names of the tools whose output is chunks; all tools when empty.
        loop: The :class:`relapse.Loop` to run.
        options: Instead of ``loop``: the options of a new one.

    Raises:
        TypeError: a tool name is not a ``str``; a bad loop option.
        ValueError: a loop with ``retrieve`` or ``release="sentence"``.
    """

    #: How many results :attr:`results` keeps.
    MAX_RESULTS = 256

    def __init__(
        self,
        *,
        tools: Sequence[str] = (),
        loop: Loop | None = None,
        **options: Unpack[LoopOptions],
    ) -> None:
        super().__init__()
        if isinstance(tools, str) or not all(isinstance(name, str) for name in tools):
            raise TypeError("tools must be a sequence of tool names (str)")
        grounding = loop_of("GroundingMiddleware", loop, options)
        hook_policy(grounding, "GroundingMiddleware")  # fail now, not at the first answer
        self.loop = grounding
        self._tools = frozenset(tools)
        #: The result of each checked turn, latest last.
        self.results: list[RelapseResult] = []
        self._sync, self._async = self._grounded(grounding)

    @staticmethod
    def _grounded(loop: Loop) -> tuple[Any, Any]:
        def attempt(query: str, chunks: Any, feedback: Any, turn: _Turn, handler: Handler) -> Any:
            if not feedback:
                return turn.first
            token = _tagged()
            try:
                return handler(turn.retry_request(feedback))
            finally:
                var_child_runnable_config.reset(token)

        async def aattempt(
            query: str, chunks: Any, feedback: Any, turn: _Turn, handler: AsyncHandler
        ) -> Any:
            if not feedback:
                return turn.first
            token = _tagged()
            try:
                return await handler(turn.retry_request(feedback))
            finally:
                var_child_runnable_config.reset(token)

        # The call span is named after these: "relapse GroundingMiddleware".
        for function in (attempt, aattempt):
            function.__qualname__ = "GroundingMiddleware"
        readers: dict[str, Any] = {}
        if "answer_of" not in loop.options:
            readers["answer_of"] = _answer_of
        if "usage_of" not in loop.options:
            readers["usage_of"] = _usage_of
        if readers:
            loop = loop.replace(**readers)
        decorate = loop.grounded(chunks_arg="chunks", query_arg="query", feedback_arg="feedback")
        return decorate(attempt), decorate(aattempt)

    def _turn(self, request: ModelRequest) -> tuple[str, list[Any]]:
        """The question of this turn (its last human message) and the chunks its tools returned."""
        question: str = ""
        chunks: list[Any] = []
        for message in reversed(request.messages):
            if isinstance(message, HumanMessage):
                question = message.text
                break
            if isinstance(message, ToolMessage) and (
                not self._tools or message.name in self._tools
            ):
                chunks[:0] = tool_chunks(message)
        return question, chunks

    def _needs_check(self, request: ModelRequest, response: Any) -> tuple[str, list[Any]] | None:
        if not isinstance(response, ModelResponse):
            return None  # an inner middleware's own short-circuit: not ours to judge
        message = _final_message(response)
        if message is None or message.tool_calls:
            return None
        question, chunks = self._turn(request)
        return (question, chunks) if chunks else None

    def _keep(self, result: RelapseResult) -> None:
        self.results.append(result)
        del self.results[: -self.MAX_RESULTS]

    def wrap_model_call(
        self, request: ModelRequest, handler: Handler
    ) -> ModelResponse | AIMessage | ExtendedModelResponse:
        """
        Call the model; re-ask while its final answer fails the check (see the class).

        Raises:
            NotGroundedError: no grounded answer and ``on_exhausted="raise"``.
            Exception: whatever the model raises, unchanged.
        """
        token = _tagged()
        try:
            response = handler(request)
        finally:
            var_child_runnable_config.reset(token)
        turn = self._needs_check(request, response)
        if turn is None:
            return response
        result: RelapseResult = self._sync.run(
            turn[0], turn[1], None, _Turn(request, response), handler
        )
        self._keep(result)
        return _chosen(result)

    async def awrap_model_call(
        self, request: ModelRequest, handler: AsyncHandler
    ) -> ModelResponse | AIMessage | ExtendedModelResponse:
        """:meth:`wrap_model_call` for the agent's async runs."""
        token = _tagged()
        try:
            response = await handler(request)
        finally:
            var_child_runnable_config.reset(token)
        turn = self._needs_check(request, response)
        if turn is None:
            return response
        result: RelapseResult = await self._async.run(
            turn[0], turn[1], None, _Turn(request, response), handler
        )
        self._keep(result)
        return _chosen(result)


def _chosen(result: RelapseResult) -> ModelResponse:
    """The response the loop chose; a text of ``on_exhausted``'s own as an AI message."""
    response = result.response
    if isinstance(response, ModelResponse):
        return response
    return ModelResponse(result=[AIMessage(content=result.answer)])
