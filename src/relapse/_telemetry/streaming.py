"""
The span attributes of ``release="sentence"``: what each iteration released and where it stopped.

Counts and offsets only: no text goes on a span here (content capture is
handled by the iteration's usual attributes). Each function never raises: a
telemetry failure must not change what the caller reads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from relapse._telemetry import attributes as attr
from relapse._telemetry.context import Harmless

if TYPE_CHECKING:
    from opentelemetry.trace import Span
    from opentelemetry.util.types import AttributeValue

    from relapse._stream.release import Released

_SETTING_STREAM = Harmless("could not set the stream attributes")
_SETTING_FIRST_RELEASE = Harmless("could not set the first-release attribute")
_SETTING_FALLBACK = Harmless("could not set the fallback attribute")
_ENDING_CLOSED = Harmless("could not end a span closed by the caller")

#: Re-exported for the loop: the value when a call's check had no incremental form.
FALLBACK_CALL = attr.FALLBACK_CALL
#: Characters per token of the saved-tokens estimate (English text in the BPE
#: vocabularies of current models averages about four).
CHARS_PER_TOKEN = 4


def saved_tokens_estimate(prefix: int) -> int:
    """
    The output tokens a retry did not generate again, estimated: ``prefix // 4``.

    Args:
        prefix: Characters released by earlier iterations, which a retry
            continuing after them does not repeat.

    Returns:
        An estimate, not a provider count (:data:`CHARS_PER_TOKEN` characters a token).
    """
    return prefix // CHARS_PER_TOKEN


def release_attributes(span: Span, read: Released, first: float | None, prefix: int) -> None:
    """
    Put what one iteration read and released on its span.

    Args:
        span: The iteration span.
        read: The iteration's account (:class:`relapse._stream.release.Released`).
        first: Seconds from the call's start to its first released piece,
            when this iteration released it; else None.
        prefix: Characters released by earlier iterations.
    """
    with _SETTING_STREAM:
        if not span.is_recording():
            return
        values: dict[str, AttributeValue] = {
            attr.RELAPSE_STREAM_SENTENCES_CHECKED: read.sentences_checked,
            attr.RELAPSE_STREAM_SENTENCES_RELEASED: read.sentences_released,
            attr.RELAPSE_STREAM_RELEASED_CHARS: len(read.released),
            attr.RELAPSE_STREAM_READ_CHARS: read.read_chars,
            attr.RELAPSE_STREAM_STOPPED: read.stopped is not None,
        }
        if read.stopped is not None:
            values[attr.RELAPSE_STREAM_STOP_REASON] = read.stopped
        if first is not None:
            values[attr.RELAPSE_STREAM_FIRST_RELEASE] = first
        if prefix:
            values[attr.RELAPSE_STREAM_PREFIX_CHARS] = prefix
            values[attr.RELAPSE_STREAM_SAVED_TOKENS_ESTIMATE] = saved_tokens_estimate(prefix)
        span.set_attributes(values)


def first_release_attribute(span: Span, first: float) -> None:
    """Put the seconds to the call's first released piece on the call span."""
    with _SETTING_FIRST_RELEASE:
        if span.is_recording():
            span.set_attribute(attr.RELAPSE_STREAM_FIRST_RELEASE, first)


def fallback_attribute(span: Span, reason: str) -> None:
    """Say on ``span`` that ``release="sentence"`` fell back to ``"answer"``, and why."""
    with _SETTING_FALLBACK:
        if span.is_recording():
            span.set_attribute(attr.RELAPSE_STREAM_FALLBACK, reason)


def stopped_by_caller(span: Span) -> None:
    """End ``span`` of a loop whose caller closed the stream: stopped, not failed."""
    with _ENDING_CLOSED:
        if span.is_recording():
            span.set_attributes(
                {
                    attr.RELAPSE_STREAM_STOPPED: True,
                    attr.RELAPSE_STREAM_STOP_REASON: attr.STOP_CLOSED,
                }
            )
        span.end()
