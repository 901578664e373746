"""
relapse in Haystack (optional extra ``haystack``: ``haystack-ai``).

Two hooks, both on the same :class:`relapse.Loop` as the decorator:

* :class:`GroundingChecker`, a pipeline component. It takes the question,
  the pipeline's documents and a chat generator's replies; when the reply is
  grounded (or the loop ends) it emits ``replies`` (the loop's answer) and
  ``result`` (the :class:`relapse.RelapseResult`), and when it fails it emits
  ``retry_note``, which a pipeline loop sends back to the prompt builder::

      pipe = Pipeline(max_runs_per_component=3)
      pipe.add_component("prompt", ChatPromptBuilder(template=..., required_variables=["query"]))
      pipe.add_component("llm", generator)
      pipe.add_component("check", GroundingChecker(max_iterations=3))
      pipe.connect("prompt.prompt", "llm.messages")
      pipe.connect("llm.replies", "check.replies")
      pipe.connect("check.retry_note", "prompt.retry_note")

  The loop is bounded twice: by the loop's ``max_iterations`` (the checker
  ends it with the loop's answer) and by Haystack's
  ``max_runs_per_component``, which must be at least ``max_iterations``.

* :class:`GroundingHook`, hooks for Haystack's ``Agent`` (``grounding.hooks()``: ``on_exit`` and
  ``after_run``). When the agent is about to stop on a text reply, the hook
  checks it against what the agent's tools returned in this run (or a state
  key holding documents) and, when it fails, appends the retry note as a
  user message and keeps the agent running (``continue_run``), up to the
  loop's limits; the agent's ``max_agent_steps`` still bounds the run.

Each answer's tokens are its reply's ``meta["usage"]`` (OpenAI-style
``prompt_tokens``/``completion_tokens``). Each answer is one attempt span
under one call span (``relapse haystack``); Haystack's own spans of the
generator runs are not their children (the reply reaches relapse after the
generator ran).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from relapse._engine import Loop, hook_policy, loop_of
from relapse._read.usage import usage_from
from relapse._results import RelapseResult, Usage
from relapse.integrations._stepper import Retry, Stepper

try:
    from haystack import Document, component, default_from_dict, default_to_dict
    from haystack.components.agents.state import State
    from haystack.dataclasses import ChatMessage, ChatRole
except ImportError as error:  # pragma: no cover - exercised by the missing-extra test
    raise ImportError(
        "relapse.integrations.haystack needs haystack-ai; run: pip install 'relapse[haystack]'"
    ) from error

if TYPE_CHECKING:
    from typing import Unpack

    from relapse._policy import LoopOptions

__all__ = ["GroundingChecker", "GroundingHook", "reply_usage", "tool_result_chunks"]

#: The call span of each grounded question: ``relapse haystack``.
SPAN_NAME = "haystack"

#: How many finished results a :class:`GroundingHook` keeps.
MAX_RESULTS = 256


def reply_usage(reply: ChatMessage) -> Usage | None:
    """The tokens a chat generator's reply reports in ``meta["usage"]``, or None."""
    return usage_from(reply.meta.get("usage"))


def tool_result_chunks(result: object) -> list[Any]:
    """
    The chunks one tool result holds.

    A list gives its items; a string holding a JSON array of strings gives
    those strings; any other value is one chunk.
    """
    if isinstance(result, (list, tuple)):
        return list(result)
    if isinstance(result, str) and result.startswith("["):
        try:
            items = json.loads(result)
        except ValueError:
            return [result]
        if isinstance(items, list) and all(isinstance(item, str) for item in items):
            return items
    return [result]


def _last_reply(replies: Sequence[ChatMessage], where: str) -> ChatMessage:
    for reply in reversed(replies):
        if isinstance(reply, ChatMessage) and reply.is_from(ChatRole.ASSISTANT):
            return reply
    raise ValueError(f"{where}: no assistant reply to check (got {len(replies)} message(s))")


@component
class GroundingChecker:
    """
    A pipeline component: check a generator's reply against the documents; emit a retry note.

    Inputs: ``query`` (the question), ``documents`` (what the reply must rest
    on: Haystack documents or strings) and ``replies`` (the chat
    generator's). Outputs: ``retry_note`` while the loop wants another
    answer; else ``replies`` (the loop's answer as one assistant message, its
    ``meta`` the reply's) and ``result``.

    One loop runs from a question's first reply until it ends; a reply for
    another question starts a new one (the open one ends, its spans stopped).

    Args:
        loop: The :class:`relapse.Loop` to run.
        options: Instead of ``loop``: the options of a new one.

    Raises:
        TypeError: a bad loop option.
        ValueError: a loop with ``retrieve`` or ``release="sentence"``.
    """

    def __init__(self, *, loop: Loop | None = None, **options: Unpack[LoopOptions]) -> None:
        self.loop = loop_of("GroundingChecker", loop, options)
        #: Answers per question, the first included (the loop's ``max_iterations``).
        self.max_iterations = hook_policy(self.loop, SPAN_NAME).max_iterations
        self._open: tuple[str, Stepper] | None = None

    def to_dict(self) -> dict[str, Any]:
        """
        Serialize the component with its loop's options.

        Raises:
            TypeError: an option is no plain value (a callable, a check, a
                telemetry provider): such a loop cannot be written to YAML.
        """
        options = dict(self.loop.options)
        for name, value in options.items():
            if not isinstance(value, (str, int, float, bool, type(None))):
                raise TypeError(
                    f"GroundingChecker cannot serialize the loop option {name}="
                    f"{type(value).__name__}: only plain values (str, numbers, bool) serialize"
                )
        return default_to_dict(self, **options)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GroundingChecker:
        """The component :meth:`to_dict` described."""
        checker: GroundingChecker = default_from_dict(cls, data)
        return checker

    def _stepper(self, query: str) -> Stepper:
        if self._open is not None and self._open[0] == query and not self._open[1].done:
            return self._open[1]
        if self._open is not None:
            self._open[1].close()
        stepper = Stepper(self.loop, SPAN_NAME, query)
        self._open = (query, stepper)
        return stepper

    def _output(self, step: Retry | RelapseResult, reply: ChatMessage) -> dict[str, Any]:
        if isinstance(step, Retry):
            return {"retry_note": step.note}
        self._open = None
        answer = ChatMessage.from_assistant(step.answer, meta=dict(reply.meta))
        return {"replies": [answer], "result": step}

    @component.output_types(replies=list[ChatMessage], result=RelapseResult, retry_note=str)
    def run(
        self, query: str, documents: list[Document], replies: list[ChatMessage]
    ) -> dict[str, Any]:
        """
        Check the last assistant reply.

        Raises:
            ValueError: no assistant reply among ``replies``.
            TypeError: a document of an unknown shape (the message names its index).
            NotGroundedError: no grounded answer and ``on_exhausted="raise"``.
        """
        reply = _last_reply(replies, "GroundingChecker")
        stepper = self._stepper(query)
        try:
            step = stepper.submit(
                reply.text or "", documents, usage=reply_usage(reply), response=reply
            )
        except BaseException:
            stepper.close()
            self._open = None
            raise
        return self._output(step, reply)

    @component.output_types(replies=list[ChatMessage], result=RelapseResult, retry_note=str)
    async def run_async(
        self, query: str, documents: list[Document], replies: list[ChatMessage]
    ) -> dict[str, Any]:
        """:meth:`run`, awaiting an async check."""
        reply = _last_reply(replies, "GroundingChecker")
        stepper = self._stepper(query)
        try:
            step = await stepper.asubmit(
                reply.text or "", documents, usage=reply_usage(reply), response=reply
            )
        except BaseException:
            stepper.close()
            self._open = None
            raise
        return self._output(step, reply)


class GroundingHook:
    """
    Grounding for a Haystack ``Agent``: its ``on_exit`` and ``after_run`` hooks.

    Pass :meth:`hooks` as the agent's hooks (or add them to yours)::

        grounding = GroundingHook(tools=["search"], max_iterations=3)
        agent = Agent(chat_generator=..., tools=[search], hooks=grounding.hooks())

    At ``on_exit`` with exit reason ``text``, it checks the last reply
    against the run's chunks: the results of the tools named in ``tools``
    (all tools when empty) in the conversation so far, and the documents
    under ``state_key`` when given.
    With no chunks it lets the agent stop. When the loop wants another
    answer it appends the retry note as a user message and sets
    ``continue_run``. When the loop ends without a grounded answer and its
    answer differs from the last reply (``on_exhausted`` ``"best"``,
    ``"redact"`` or a callable), it appends that answer as the final
    assistant message. At ``after_run`` it ends a loop the agent left open
    (``max_agent_steps`` reached). :attr:`results` holds each finished
    :class:`relapse.RelapseResult`.

    Args:
        tools: Names of the tools whose results are chunks; all when empty.
        state_key: A state key holding documents (or strings) to check against too.
        loop: The :class:`relapse.Loop` to run.
        options: Instead of ``loop``: the options of a new one.

    Raises:
        TypeError: a tool name or ``state_key`` not a ``str``; a bad loop option.
        ValueError: a loop with ``retrieve`` or ``release="sentence"``.
    """

    def __init__(
        self,
        *,
        tools: Sequence[str] = (),
        state_key: str | None = None,
        loop: Loop | None = None,
        **options: Unpack[LoopOptions],
    ) -> None:
        if isinstance(tools, str) or not all(isinstance(name, str) for name in tools):
            raise TypeError("tools must be a sequence of tool names (str)")
        if state_key is not None and not isinstance(state_key, str):
            raise TypeError(f"state_key must be a str or None, got {type(state_key).__name__}")
        self.loop = loop_of("GroundingHook", loop, options)
        hook_policy(self.loop, SPAN_NAME)  # fail now, not at the first answer
        self.tools = tuple(tools)
        self.state_key = state_key
        self._open: dict[int, Stepper] = {}
        #: The result of each finished run, latest last (at most :data:`MAX_RESULTS`).
        self.results: list[RelapseResult] = []
        self.on_exit = _OnExit(self)
        self.after_run = _AfterRun(self)

    def hooks(self) -> dict[str, list[Any]]:
        """The agent's ``hooks=``: ``{"on_exit": [...], "after_run": [...]}``."""
        return {"on_exit": [self.on_exit], "after_run": [self.after_run]}

    def drop(self, state: State) -> None:
        """End the loop of the run ``state`` belongs to, if one is open (spans stopped)."""
        stepper = self._open.pop(id(state), None)
        if stepper is not None:
            stepper.close()

    def _chunks(self, state: State, messages: Sequence[ChatMessage]) -> list[Any]:
        chunks: list[Any] = []
        if self.state_key is not None:
            chunks.extend(state.get(self.state_key) or [])
        for message in messages:
            for result in message.tool_call_results:
                if not self.tools or result.origin.tool_name in self.tools:
                    chunks.extend(tool_result_chunks(result.result))
        return chunks

    def answer(self, state: State) -> tuple[Stepper, ChatMessage, list[Any]] | None:
        """The loop, the reply and the chunks to check now; None when there is nothing to check."""
        if state.data.get("exit_reason") != "text":
            return None
        messages: list[ChatMessage] = list(state.data.get("messages") or [])
        if not messages or not messages[-1].is_from(ChatRole.ASSISTANT):
            return None
        reply = messages[-1]
        chunks = self._chunks(state, messages)
        if not chunks:
            return None
        stepper = self._open.get(id(state))
        if stepper is None:
            # The loop starts at the first text exit: the last user message is the question.
            users = (m.text or "" for m in reversed(messages) if m.is_from(ChatRole.USER))
            question = next(users, "")
            stepper = self._open[id(state)] = Stepper(self.loop, SPAN_NAME, question)
        return stepper, reply, chunks

    def after(self, state: State, step: Retry | RelapseResult, reply: ChatMessage) -> None:
        """Re-ask (a :class:`Retry`) or record the result and let the agent stop."""
        if isinstance(step, Retry):
            state.set("messages", [ChatMessage.from_user(step.note)])
            state.set("continue_run", True)
            return
        self._open.pop(id(state), None)
        self.results.append(step)
        del self.results[:-MAX_RESULTS]
        if step.answer != (reply.text or ""):
            state.set("messages", [ChatMessage.from_assistant(step.answer, meta=dict(reply.meta))])


class _Hook:
    """A Haystack hook of a :class:`GroundingHook` (serialized as a default one)."""

    def __init__(self, grounding: GroundingHook) -> None:
        self.grounding = grounding

    def to_dict(self) -> dict[str, Any]:
        """Serialize the hook: its tools and state key (the loop's options are not)."""
        return default_to_dict(
            self, tools=list(self.grounding.tools), state_key=self.grounding.state_key
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> _Hook:
        """The hook :meth:`to_dict` described, on a default loop."""
        params = data.get("init_parameters", {})
        return cls(GroundingHook(tools=params.get("tools", ()), state_key=params.get("state_key")))


class _OnExit(_Hook):
    def run(self, state: State) -> None:
        answered = self.grounding.answer(state)
        if answered is None:
            return
        stepper, reply, chunks = answered
        try:
            step = stepper.submit(
                reply.text or "", chunks, usage=reply_usage(reply), response=reply
            )
        except BaseException:
            self.grounding.drop(state)
            raise
        self.grounding.after(state, step, reply)

    async def run_async(self, state: State) -> None:
        answered = self.grounding.answer(state)
        if answered is None:
            return
        stepper, reply, chunks = answered
        try:
            step = await stepper.asubmit(
                reply.text or "", chunks, usage=reply_usage(reply), response=reply
            )
        except BaseException:
            self.grounding.drop(state)
            raise
        self.grounding.after(state, step, reply)


class _AfterRun(_Hook):
    def run(self, state: State) -> None:
        self.grounding.drop(state)
