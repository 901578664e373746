"""
One chat-completions request through the library's own loop.

The loop is :class:`relapse.Loop` with the request's options, around one
``async def`` LLM call (:meth:`Gateway._function`) that sends the request
upstream: on iteration 1 the client's body unchanged, on a retry the same
body with the last user message replaced by the loop's retry query (and the
retry sampling, when asked). It is decorated like any user's function, so the
outcomes, the ``release="sentence"`` stream, the spans and the metrics are
the library's. A decorated function per distinct set of options is kept
(:data:`_CACHED`, least recently used first out): the options are validated
once per set, not per request.
"""

from __future__ import annotations

import copy
from collections import OrderedDict
from collections.abc import AsyncGenerator, Mapping
from typing import Any

import anyio
from opentelemetry.metrics import MeterProvider
from opentelemetry.trace import TracerProvider

from relapse._decorator import outcome_of
from relapse._engine import Loop
from relapse._read.streams import Streamed
from relapse._results import RelapseResult
from relapse._state import current_attempt
from relapse._stream.grounded import AsyncGroundedStream
from relapse.exceptions import NotGroundedError
from relapse.serve._config import ServeConfig
from relapse.serve._errors import GatewayError, upstream_failed
from relapse.serve._report import report, summed_usage, unchecked_report, usage_json
from relapse.serve._request import ChatCall, LoopChoice
from relapse.serve._shape import ChunkShaper
from relapse.serve._upstream import Upstream

#: Decorated functions kept, one per distinct :class:`LoopChoice`.
_CACHED = 64


def upstream_body(call: ChatCall, query: str, iteration: int) -> dict[str, Any]:
    """
    The body sent upstream on ``iteration`` with ``query`` as the last user message.

    Iteration 1 sends the client's body as it came (a stream also asks for
    the usage chunk, which the gateway needs to sum the attempts' tokens);
    a retry replaces the last user message's content with ``query`` and,
    with ``retry_sampling``, sets ``temperature`` and a seed that moves by
    ``seed_step`` per iteration from the client's seed (or 0).
    """
    body = dict(call.body)
    if call.stream:
        body["stream_options"] = {**(body.get("stream_options") or {}), "include_usage": True}
    if iteration < 2:
        return body
    messages = list(body["messages"])
    messages[call.user_index] = {**messages[call.user_index], "content": query}
    body["messages"] = messages
    sampling = call.retry_sampling
    if sampling is not None:
        seed = body.get("seed")
        start = seed if isinstance(seed, int) and not isinstance(seed, bool) else 0
        body["temperature"] = sampling.temperature
        body["seed"] = start + sampling.seed_step * (iteration - 1)
    return body


def _readable(response: dict[str, Any]) -> dict[str, Any]:
    """``response`` when it holds a chat choice with a message, else a 502."""
    choices = response.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping):
        raise upstream_failed("the upstream's response has no choices", "upstream_malformed")
    message = choices[0].get("message")
    if not isinstance(message, Mapping):
        raise upstream_failed(
            "the upstream's response's first choice has no message", "upstream_malformed"
        )
    return response


def _chosen_response(result: RelapseResult) -> dict[str, Any]:
    """The response object to return: the chosen attempt's, its text the answer's."""
    if isinstance(result.response, dict):
        return dict(result.response)
    # A redaction the response could not be rebuilt around: the last paid
    # response, with the redacted text as its message.
    base = copy.deepcopy(result.transcript[-1].response)
    base["choices"][0]["message"]["content"] = result.answer
    return dict(base)


class Gateway:
    """
    Serves checked and unchecked chat completions against one upstream.

    Args:
        config: The server's settings.
        upstream: The upstream client.
        tracer_provider: Spans go here; None: the global provider.
        meter_provider: Metrics go here; None: the global provider.
    """

    def __init__(
        self,
        config: ServeConfig,
        upstream: Upstream,
        tracer_provider: TracerProvider | None = None,
        meter_provider: MeterProvider | None = None,
    ) -> None:
        self.config = config
        self.upstream = upstream
        self._providers: dict[str, Any] = {
            "tracer_provider": tracer_provider,
            "meter_provider": meter_provider,
        }
        self._functions: OrderedDict[LoopChoice, Any] = OrderedDict()

    def _function(self, choice: LoopChoice) -> Any:
        """The grounded LLM call for ``choice``, built once."""
        function = self._functions.get(choice)
        if function is not None:
            self._functions.move_to_end(choice)
            return function
        upstream = self.upstream
        loop = Loop(
            max_iterations=choice.max_iterations,
            on_exhausted=choice.on_exhausted,
            redact_marker=choice.redact_marker,
            timeout=choice.timeout,
            max_total_tokens=choice.max_total_tokens,
            release=choice.release,
            capture_content=self.config.capture_content,
            **self._providers,
        )

        async def chat_completions(
            query: str, chunks: list[Any], call: ChatCall, headers: Mapping[str, str]
        ) -> Any:
            attempt = current_attempt()
            body = upstream_body(call, query, 1 if attempt is None else attempt.iteration)
            if call.stream:
                return await upstream.stream(body, headers)
            return _readable(await upstream.complete(body, headers))

        # The call span's name, "relapse serve.chat_completions", and its code.function.name.
        chat_completions.__qualname__ = "serve.chat_completions"
        function = loop.grounded(chunks_arg="chunks", query_arg="query")(chat_completions)
        self._functions[choice] = function
        if len(self._functions) > _CACHED:
            self._functions.popitem(last=False)
        return function

    async def _outcome(
        self, call: ChatCall, headers: Mapping[str, str]
    ) -> RelapseResult | AsyncGroundedStream[Any]:
        assert call.chunks is not None
        function = self._function(call.loop)
        try:
            outcome: RelapseResult | AsyncGroundedStream[Any] = await outcome_of(
                function, call.query, list(call.chunks), call, headers
            )
        except NotGroundedError as error:
            raise not_grounded(error) from None
        return outcome

    async def complete(self, call: ChatCall, headers: Mapping[str, str]) -> dict[str, Any]:
        """
        A non-streaming request: the upstream's response plus the ``relapse`` object.

        Raises:
            GatewayError: the upstream failed (see :mod:`relapse.serve._upstream`),
                or 422 ``not_grounded`` with ``on_exhausted="raise"``.
        """
        if call.chunks is None:
            response = await self.upstream.complete(call.body, headers)
            response["relapse"] = unchecked_report([response])
            return response
        result = await self._outcome(call, headers)
        assert isinstance(result, RelapseResult)  # a non-streaming call returns no stream
        response = _chosen_response(result)
        usage = usage_json(summed_usage(result))
        if usage is not None:
            response["usage"] = usage
        response["relapse"] = report(result)
        return response

    async def stream(
        self, call: ChatCall, headers: Mapping[str, str]
    ) -> AsyncGenerator[dict[str, Any], None]:
        """
        A streaming request: the chunk objects to send, the ``relapse`` object on the last.

        With ``release="sentence"`` only pieces whose sentences passed are
        yielded, as they pass. Closing the iterator closes the upstream stream.

        Raises:
            GatewayError: as :meth:`complete`, from the first step on.
        """
        shaper = ChunkShaper(call.include_usage)
        if call.chunks is None:
            events = await self.upstream.stream(upstream_body(call, call.query, 1), headers)
            seen: list[Any] = []
            try:
                async for event in events:
                    seen.append({"usage": event["usage"]} if event.get("usage") else {})
                    shaped = shaper.shape(event)
                    if shaped is not None:
                        yield shaped
            finally:
                await events.aclose()  # shielded inside
            report_ = unchecked_report(seen)
            for chunk in shaper.finish(report_, report_["usage"]):
                yield chunk
            return
        outcome = await self._outcome(call, headers)
        if isinstance(outcome, RelapseResult):
            # release="answer": the chosen attempt's pieces, checked whole.
            result = outcome
            pieces = (
                result.response.pieces
                if isinstance(result.response, Streamed)
                else (result.answer,)
            )
            for piece in pieces:
                shaped = shaper.shape(piece)
                if shaped is not None:
                    yield shaped
        else:
            try:
                async for piece in outcome:
                    shaped = shaper.shape(piece)
                    if shaped is not None:
                        yield shaped
            except NotGroundedError as error:
                raise not_grounded(error) from None
            finally:
                # Shielded: when the client left, the request is being
                # cancelled, and the loop and its upstream stream must still end.
                with anyio.CancelScope(shield=True):
                    await outcome.aclose()
            result = outcome.result
        relapse = report(result)
        for chunk in shaper.finish(relapse, usage_json(summed_usage(result))):
            yield chunk


def not_grounded(error: NotGroundedError) -> GatewayError:
    """The 422 of ``on_exhausted="raise"``, carrying the ``relapse`` report."""
    return GatewayError(
        422,
        str(error),
        kind="not_grounded",
        code="not_grounded",
        param="relapse.on_exhausted",
        extra={"relapse": report(error.result)},
    )
