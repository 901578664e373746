"""
``relapse eval --loop --release sentence``: a question run with its stream read as a caller would.

With ``release="sentence"`` every call of the model streams
(``model.stream(prompt)``), and the run is read the way a streaming caller
reads it: through a grounded function's :class:`relapse.GroundedStream`,
timing the first piece that carries text. What the run saved is relapse's
own estimate (:func:`saved_output_tokens_estimate`), the figure each
iteration span carries as ``relapse.stream.saved_output_tokens_estimate``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import relapse
from relapse._stream.release import piece_text
from relapse._telemetry.streaming import saved_tokens_estimate
from relapse.evaluation._data import QuestionRecord
from relapse.prompts import context_prompt

__all__ = ["run_streamed", "saved_output_tokens_estimate", "stream_of"]


def saved_output_tokens_estimate(result: relapse.RelapseResult) -> int:
    """
    The output tokens a ``release="sentence"`` run's retries did not generate again: an estimate.

    Each retry continues after the text released before it, so it does not
    generate that text again: per retry, the released characters before it
    over four (:data:`relapse._telemetry.streaming.CHARS_PER_TOKEN`), summed.
    It is the sum of the iteration spans'
    ``relapse.stream.saved_output_tokens_estimate``; not a provider count (a
    stream closed early never reports its usage). 0 for a run that released
    nothing before a retry (``release="answer"`` among them).

    Args:
        result: A run's :class:`relapse.RelapseResult`.

    Returns:
        The estimate, in tokens.
    """
    saved = 0
    prefix = 0
    for record in result.transcript:
        if prefix:
            saved += saved_tokens_estimate(prefix)
        prefix += len(record.released)
    return saved


def stream_of(model: object) -> Callable[[str], Any]:
    """
    The model's ``stream(prompt)``, which ``release="sentence"`` calls.

    Raises:
        TypeError: the model has no callable ``stream``; the message names it.
    """
    stream = getattr(model, "stream", None)
    if not callable(stream):
        raise TypeError(
            "evaluate_loop with release='sentence' streams every call: the model"
            f" ({type(model).__name__}) needs stream(prompt) -> an iterator of pieces"
        )
    return stream  # type: ignore[no-any-return]


def run_streamed(
    record: QuestionRecord,
    model: object,
    loop: relapse.Loop,
    clock: Callable[[], float],
    prompt_chars: list[int],
) -> tuple[relapse.RelapseResult, float | None]:
    """
    Run one question with every call streaming, read as a streaming caller reads it.

    Args:
        record: The question and its passages.
        model: Has ``stream(prompt)`` and, optionally, ``build_prompt``
            (else :func:`relapse.prompts.context_prompt` builds the prompt).
        loop: The loop, with ``release="sentence"``.
        clock: ``clock() -> seconds``, monotonic.
        prompt_chars: Receives the length of each prompt sent.

    Returns:
        ``(result, first_release_s)``: the run's result, and the seconds from
        the call to the first released piece with text (None when nothing
        was released).

    Raises:
        TypeError: see :func:`stream_of`.
        Exception: whatever the model or the loop raises.
    """
    stream = stream_of(model)
    build: Callable[[str, Sequence[str]], str] = (
        getattr(model, "build_prompt", None) or context_prompt
    )

    def ask(question: str, passages: list[str]) -> Any:
        prompt = build(question, passages)
        prompt_chars.append(len(prompt))
        return stream(prompt)

    grounded = loop.grounded(chunks_arg="passages")(ask)
    started = clock()
    first: float | None = None
    with grounded(record.question or "", list(record.passages)) as pieces:
        for piece in pieces:
            if first is None and piece_text(piece):
                first = clock() - started
    return pieces.result, first
