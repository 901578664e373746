"""
relapse in Pydantic AI (optional extra ``pydantic-ai``: ``pydantic-ai-slim[openai]``).

:class:`GroundedOutput` checks an agent's text output against the chunks of
the run and, when it states what they do not hold, raises Pydantic AI's
``ModelRetry`` with relapse's retry note (the rejected answer and each failing
span), so the agent asks its model again. Register it either way::

    from relapse.integrations.pydantic_ai import GroundedOutput

    grounding = GroundedOutput(tools=["search"], max_iterations=3)
    agent = Agent(model, retries={"output": 2}, capabilities=[grounding.capability()])
    # or: agent.output_validator(grounding.validate)

    run = agent.run_sync("How long is the main span?")
    result = grounding.result_of(run)       # the relapse.RelapseResult
    print(result.outcome, result.usage, [r.findings for r in result.transcript])

The chunks of a run come from its deps (``chunks_of=lambda deps:
deps.chunks``: the caller retrieved them), from the return values of the
tools named in ``tools`` (the model retrieved them; every return of those
tools in this run so far, a list's items each a chunk), or both. Each answer
is checked against the chunks the run held when it was given.

Budgets: the loop's ``max_iterations`` counts answers, the first included;
Pydantic AI's output retry budget (``retries={"output": N}``, 1 by default)
counts re-asks. The loop ends by the smaller of the two, ``min(max_iterations,
N + 1)`` answers, so the agent never gives up halfway through it (its
"exceeded maximum retries" error): give the agent ``retries={"output":
max_iterations - 1}`` for the loop's full count. When the loop ends
(grounded, exhausted, stalled, a token budget, a timeout), the hook returns
the loop's answer (per ``on_exhausted``) and the run ends with it;
``on_exhausted="raise"`` raises :class:`relapse.NotGroundedError` out of the run.

Each answer is one attempt span under one ``relapse pydantic_ai`` call span.
Pydantic AI's own spans of the model requests are not their children: the
answer reaches relapse after the request ended. An attempt's tokens are
those of the model responses since the previous answer (tool-calling turns
included).

Streaming: Pydantic AI does not re-ask in ``run_stream`` ("retries are not
supported in run_stream()"; its budget there is 0). The partial outputs pass
unchecked (``ctx.partial_output``) and the final output is checked once: the
loop ends with it, grounded or ``exhausted`` (``on_exhausted`` applies, and
the text already streamed was shown). Use ``run``/``iter`` for re-asking.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from relapse._engine import Loop, hook_policy, loop_of
from relapse._results import RelapseResult, Usage
from relapse.integrations._stepper import Retry, Stepper

try:
    from pydantic_ai import ModelRetry, RunContext
    from pydantic_ai.capabilities import AbstractCapability
    from pydantic_ai.messages import ModelRequest, ModelResponse, ToolReturnPart
    from pydantic_ai.output import OutputContext
except ImportError as error:  # pragma: no cover - exercised by the missing-extra test
    raise ImportError(
        "relapse.integrations.pydantic_ai needs pydantic-ai;"
        " run: pip install 'relapse[pydantic-ai]'"
    ) from error

if TYPE_CHECKING:
    from typing import Unpack

    from relapse._policy import LoopOptions

__all__ = ["MAX_OPEN_RUNS", "GroundedOutput", "GroundingCapability"]

#: The call span of each run: ``relapse pydantic_ai``.
SPAN_NAME = "pydantic_ai"

#: How many runs' loops (and finished results) one :class:`GroundedOutput` keeps.
MAX_OPEN_RUNS = 1024


def _prompt_text(prompt: object) -> str:
    """The question of a run: its prompt, or the text parts of a multi-part prompt."""
    if isinstance(prompt, str):
        return prompt
    if isinstance(prompt, Sequence):
        return "\n".join(part for part in prompt if isinstance(part, str))
    return ""


def _returned_chunks(content: object) -> list[Any]:
    """A tool's return value as chunks: a list's items each, anything else one chunk."""
    if isinstance(content, (list, tuple)):
        return list(content)
    return [content]


class _Runs:
    """Bounded run id -> value map; the oldest entry is dropped (and handed back) past the cap."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.items: OrderedDict[str, Any] = OrderedDict()

    def put(self, key: str, value: Any) -> list[Any]:
        self.items[key] = value
        self.items.move_to_end(key)
        dropped = []
        while len(self.items) > self.cap:
            dropped.append(self.items.popitem(last=False)[1])
        return dropped


@dataclass
class _Run:
    """One run's loop and how many of its messages earlier answers already counted."""

    stepper: Stepper
    counted: int


class GroundedOutput:
    """
    Grounds a Pydantic AI agent's text output, re-asking through ``ModelRetry``.

    Args:
        chunks_of: ``chunks_of(deps) -> chunks``: the chunks the caller passed
            in the run's deps.
        tools: Names of tools whose return values are chunks (a list's items
            each a chunk: ``str``, mappings with ``text``, documents).
        loop: The :class:`relapse.Loop` to run (``max_iterations``,
            ``grounding_check``, ``on_exhausted``, ``rewrite``, telemetry...).
        options: Instead of ``loop``: the options of a new one.

    Raises:
        TypeError: neither ``chunks_of`` nor ``tools``; ``chunks_of`` not
            callable; a tool name not a ``str``; a bad loop option.
        ValueError: a loop with ``retrieve`` or ``release="sentence"``.
    """

    def __init__(
        self,
        *,
        chunks_of: Callable[[Any], Iterable[Any]] | None = None,
        tools: Sequence[str] = (),
        loop: Loop | None = None,
        **options: Unpack[LoopOptions],
    ) -> None:
        if chunks_of is not None and not callable(chunks_of):
            raise TypeError(
                f"chunks_of must be callable(deps) -> chunks, got {type(chunks_of).__name__}"
            )
        if isinstance(tools, str) or not all(isinstance(name, str) for name in tools):
            raise TypeError("tools must be a sequence of tool names (str)")
        if chunks_of is None and not tools:
            raise TypeError(
                "give chunks_of (the chunks are in the run's deps) or tools (the names of the"
                " tools that retrieve them), or both"
            )
        self.loop = loop_of("GroundedOutput", loop, options)
        #: Answers per run, the first included (the loop's ``max_iterations``).
        self.max_iterations = hook_policy(self.loop, SPAN_NAME).max_iterations
        self._chunks_of = chunks_of
        self._tools = frozenset(tools)
        self._open = _Runs(MAX_OPEN_RUNS)
        self._results = _Runs(MAX_OPEN_RUNS)
        #: The loop of a run whose agent allows fewer answers, by that number.
        self._loops: dict[int, Loop] = {self.max_iterations: self.loop}

    def capability(self) -> GroundingCapability:
        """This grounding as a Pydantic AI capability (``Agent(capabilities=[...])``)."""
        return GroundingCapability(self)

    def result_of(self, run: Any) -> RelapseResult:
        """
        The :class:`relapse.RelapseResult` of a finished run.

        Args:
            run: The run's result (``agent.run_sync(...)``, anything with a
                ``run_id``) or its run id.

        Raises:
            LookupError: the run gave this grounding no final answer (it
                failed, or is one of more than :data:`MAX_OPEN_RUNS` since).
        """
        run_id = run if isinstance(run, str) else getattr(run, "run_id", None)
        result = self._results.items.get(run_id) if isinstance(run_id, str) else None
        if result is None:
            raise LookupError(f"no grounded answer recorded for run {run_id!r}")
        assert isinstance(result, RelapseResult)
        return result

    def _chunks(self, ctx: RunContext[Any]) -> list[Any]:
        chunks: list[Any] = []
        if self._chunks_of is not None:
            chunks.extend(self._chunks_of(ctx.deps))
        if self._tools:
            for message in ctx.messages:
                if not isinstance(message, ModelRequest) or message.run_id != ctx.run_id:
                    continue  # another run's history: not what this run retrieved
                for part in message.parts:
                    if isinstance(part, ToolReturnPart) and part.tool_name in self._tools:
                        chunks.extend(_returned_chunks(part.content))
        return chunks

    def _run(self, ctx: RunContext[Any]) -> _Run:
        run_id = ctx.run_id or ""
        run = self._open.items.get(run_id)
        if isinstance(run, _Run):
            return run
        # The agent re-asks at most max_retries times: the loop must end by then,
        # with its own answer, rather than see the agent give up mid-loop.
        answers = max(1, min(self.max_iterations, ctx.max_retries + 1))
        loop = self._loops.get(answers)
        if loop is None:
            loop = self._loops[answers] = self.loop.replace(max_iterations=answers)
        # Answers before the run's first message belong to the history passed in.
        first = next(
            (i for i, m in enumerate(ctx.messages) if getattr(m, "run_id", None) == ctx.run_id),
            len(ctx.messages),
        )
        run = _Run(Stepper(loop, SPAN_NAME, _prompt_text(ctx.prompt)), first)
        for dropped in self._open.put(run_id, run):
            dropped.stepper.close()
        return run

    def _usage(self, ctx: RunContext[Any], run: _Run) -> Usage | None:
        """The tokens of the model responses since the previous answer."""
        responses = [m for m in ctx.messages[run.counted :] if isinstance(m, ModelResponse)]
        run.counted = len(ctx.messages)
        if not responses:
            return None
        return Usage(
            sum(r.usage.input_tokens for r in responses),
            sum(r.usage.output_tokens for r in responses),
        )

    async def validate(self, ctx: RunContext[Any], output: str) -> str:
        """
        The output validator: check ``output``; raise ``ModelRetry`` with the note when it fails.

        Register with ``agent.output_validator(grounding.validate)``.

        Returns:
            ``output`` when it is grounded; when the loop ended without a
            grounded answer, its answer per ``on_exhausted``.

        Raises:
            ModelRetry: the loop wants another answer; its message is the retry note.
            TypeError: the output is not a ``str``.
            NotGroundedError: no grounded answer and ``on_exhausted="raise"``.
        """
        if ctx.partial_output:
            return output  # a stream's partial output: the final one is checked
        if not isinstance(output, str):
            raise TypeError(
                f"GroundedOutput checks text output; the agent's output is {type(output).__name__}"
            )
        run = self._run(ctx)
        response = ctx.messages[-1] if ctx.messages else None
        try:
            step = await run.stepper.asubmit(
                output, self._chunks(ctx), usage=self._usage(ctx, run), response=response
            )
        except BaseException:
            self.abandon(ctx)
            raise
        if isinstance(step, Retry):
            raise ModelRetry(step.note)
        self._open.items.pop(ctx.run_id or "", None)
        self._results.put(ctx.run_id or "", step)
        return step.answer

    def abandon(self, ctx: RunContext[Any]) -> None:
        """End the run's loop where it is (the run failed); its spans end as stopped."""
        run = self._open.items.pop(ctx.run_id or "", None)
        if isinstance(run, _Run):
            run.stepper.close()


@dataclass(init=False)
class GroundingCapability(AbstractCapability[Any]):
    """
    A :class:`GroundedOutput` as a Pydantic AI capability.

    It checks the final text output (``after_output_process``: Pydantic AI
    fires its validate hooks for structured output only), after the output
    validators, and ends the run's loop when the run fails
    (``on_run_error``). Build it with :meth:`GroundedOutput.capability`.
    """

    grounded: GroundedOutput

    def __init__(self, grounded: GroundedOutput) -> None:
        super().__init__()
        self.grounded = grounded

    async def after_output_process(
        self, ctx: RunContext[Any], *, output_context: OutputContext, output: Any
    ) -> Any:
        """Check a text output (see :meth:`GroundedOutput.validate`); other outputs pass."""
        if not isinstance(output, str):
            return output
        return await self.grounded.validate(ctx, output)

    async def on_run_error(self, ctx: RunContext[Any], *, error: BaseException) -> Any:
        """End the run's loop, then let ``error`` through."""
        self.grounded.abandon(ctx)
        raise error
