"""
Each iteration's verdict as a Phoenix annotation (needs the ``otel`` extra).

relapse writes every iteration's verdict on its ``relapse.iteration`` span
as an OpenInference inline evaluation, ``evaluations.N.evaluation.{name,
label,score,annotator_kind,explanation}``. Phoenix (20.26) keeps those as
span attributes and makes its annotations only from its REST API.
:class:`PhoenixAnnotationExporter` is an OpenTelemetry span exporter that
posts them there; add it beside the OTLP exporter that sends the spans::

    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor
    from relapse.integrations.phoenix import PhoenixAnnotationExporter

    provider = TracerProvider()
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    provider.add_span_processor(BatchSpanProcessor(PhoenixAnnotationExporter()))

Every inline evaluation of every finished span becomes one annotation, with
the values on the span and nothing else (the explanation is there only as
relapse's content policy left it). Phoenix queues annotations whose span it
has not stored yet and retries them (every 10 s, for 10 minutes, in Phoenix
20.26), so the two exporters need no ordering.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import logging
import math
import re
import socket
import threading
import urllib.parse
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Final

from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

from relapse._telemetry import attributes as attr

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import ReadableSpan
    from opentelemetry.util.types import Attributes

__all__ = ["PhoenixAnnotationExporter"]

log = logging.getLogger("relapse.telemetry")

#: Phoenix's span annotation endpoint, under the server's base address.
ANNOTATIONS_PATH: Final = "/v1/span_annotations"

#: The annotator kinds Phoenix accepts; it rejects a whole request (422)
#: for one annotation with another kind, so such an evaluation is skipped.
ANNOTATOR_KINDS: Final = frozenset({"CODE", "LLM", "HUMAN"})

#: Annotation names Phoenix reserves for itself: it rejects a whole request
#: (400) holding one ("note" is its span notes'), so such an evaluation is skipped.
RESERVED_NAMES: Final = frozenset({"note"})

_EVALUATION_KEY: Final = re.compile(
    rf"^{re.escape(attr.OPENINFERENCE_EVALUATIONS)}\.(?P<index>\d+)\."
    rf"{re.escape(attr.EVALUATION_NAME)}$"
)


class PhoenixAnnotationExporter(SpanExporter):
    """
    A span exporter that posts spans' inline evaluations to Phoenix as annotations.

    For each finished span, each index ``N`` with a string
    ``evaluations.N.evaluation.name`` (other than ``note``, which Phoenix
    reserves) and an ``evaluations.N.evaluation.annotator_kind`` of
    ``CODE``, ``LLM`` or ``HUMAN`` gives one annotation of that span (its OpenTelemetry span id,
    16 lowercase hex digits): the name, the annotator kind and a result of
    whichever of ``label`` (str), ``score`` (a finite number) and
    ``explanation`` (str) the span carries. One batch is one ``POST
    {endpoint}/v1/span_annotations`` with ``{"data": [...]}``; a batch with
    no evaluations sends nothing.

    Telemetry never breaks the caller: :meth:`export` never raises. A
    network error, a timeout, an HTTP error status or a redirect returns
    ``SpanExportResult.FAILURE`` and logs one warning on the
    ``relapse.telemetry`` logger. A redirect is never followed: the
    annotations and the ``headers`` (an authorization) go to ``endpoint``'s
    host and nowhere else. The batch is not retried (Phoenix keeps
    the spans, and their inline evaluations, either way). Each export waits
    for Phoenix, so install it under a ``BatchSpanProcessor``, whose worker
    thread does the waiting, not under a ``SimpleSpanProcessor``, which
    would make every span's end wait in the caller's thread.

    Args:
        endpoint: Phoenix's base address, scheme ``http`` or ``https``
            (``http://localhost:6006`` for ``phoenix serve``; with a path
            when Phoenix is served under one), without ``/v1/...``, a
            query or credentials.
        timeout: Seconds, finite and > 0, that one export may take as a
            whole: connecting, sending and reading the whole reply (a
            server that trickles its reply is cut off at the deadline;
            resolving the host name is the system's).
        headers: Extra HTTP headers for every request (an
            ``authorization`` header for a Phoenix with authentication).
            ``Content-Type`` is always ``application/json``.

    Raises:
        TypeError: ``endpoint`` is not a str, ``timeout`` not a number, or
            ``headers`` not a mapping of str to str.
        ValueError: ``endpoint`` is not an http(s) address with a host and
            a valid port, or has credentials, a query, a fragment or a
            ``/v1`` path segment; ``timeout`` is not finite and > 0; a
            header name is empty or holds ``:``, a space or a line break, or
            a value holds a line break.

    .. versionadded:: 0.2.0
    """

    def __init__(
        self,
        endpoint: str = "http://localhost:6006",
        *,
        timeout: float = 10.0,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        if not isinstance(endpoint, str):
            msg = f"endpoint must be a str, got {type(endpoint).__name__}"
            raise TypeError(msg)
        _check_endpoint(endpoint)
        if isinstance(timeout, bool) or not isinstance(timeout, int | float):
            msg = f"timeout must be a number of seconds, got {type(timeout).__name__}"
            raise TypeError(msg)
        if not math.isfinite(timeout) or timeout <= 0:
            msg = f"timeout must be finite and > 0 seconds, got {timeout!r}"
            raise ValueError(msg)
        if headers is None:
            headers = {}
        if not isinstance(headers, Mapping):
            msg = f"headers must be a mapping of str to str, got {type(headers).__name__}"
            raise TypeError(msg)
        for key, value in headers.items():
            if not isinstance(key, str) or not isinstance(value, str):
                msg = f"headers must map str to str, got {key!r}: {value!r}"
                raise TypeError(msg)
            # http.client refuses these only when sending, which would fail
            # every export; a header cannot hold a line break at all.
            if not key or any(c in key for c in ":\r\n \t") or any(c in value for c in "\r\n"):
                msg = (
                    "headers must have non-empty names without ':', spaces or line breaks"
                    f" and values without line breaks, got {key!r}: {value!r}"
                )
                raise ValueError(msg)
        #: The address every batch is posted to.
        self.url: Final = endpoint.rstrip("/") + ANNOTATIONS_PATH
        self._timeout = float(timeout)
        # Header names are case-insensitive: a caller's own content-type
        # would be sent beside ours, and the body is JSON whatever it says.
        self._headers = {
            **{k: v for k, v in headers.items() if k.lower() != "content-type"},
            "Content-Type": "application/json",
        }
        self._shut_down = False

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        """
        Post the inline evaluations of ``spans`` as annotations, in one request.

        Args:
            spans: Finished spans, as the span processor hands them over.

        Returns:
            ``SUCCESS`` when Phoenix accepted the batch or it held no
            evaluation; ``FAILURE`` after :meth:`shutdown` or when the
            request failed (logged on ``relapse.telemetry``). Never raises.
        """
        if self._shut_down:
            log.warning("PhoenixAnnotationExporter is shut down; dropped %d span(s)", len(spans))
            return SpanExportResult.FAILURE
        try:
            annotations = [a for span in spans for a in annotations_of(span)]
            if not annotations:
                return SpanExportResult.SUCCESS
            body = json.dumps({"data": annotations}).encode("utf-8")
            status, reason, location = _post_within(self.url, body, self._headers, self._timeout)
        except (OSError, http.client.HTTPException) as error:
            # Phoenix down, unreachable or too slow: expected now and then,
            # so one line without a traceback.
            log.warning("could not post annotations to %s: %s", self.url, error or type(error))
            return SpanExportResult.FAILURE
        except Exception:
            # A span that cannot be read, or anything else: a failed export,
            # never the caller's exception.
            log.warning("could not post annotations to %s", self.url, exc_info=True)
            return SpanExportResult.FAILURE
        if 300 <= status < 400:
            # Following it would send the headers (an authorization) to
            # whatever host Location names, and turn the POST into a GET
            # without the annotations: nothing landed.
            log.warning(
                "Phoenix answered %d annotation(s) at %s with HTTP %d %s, a redirect to %s;"
                " not followed: annotations and headers go to the configured endpoint only",
                len(annotations),
                self.url,
                status,
                reason,
                location,
            )
            return SpanExportResult.FAILURE
        if not 200 <= status < 300:
            log.warning(
                "Phoenix refused %d annotation(s) at %s: HTTP %d %s",
                len(annotations),
                self.url,
                status,
                reason,
            )
            return SpanExportResult.FAILURE
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        """Stop exporting: later :meth:`export` calls return ``FAILURE`` and send nothing."""
        self._shut_down = True

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        """
        Return True: each :meth:`export` posts before it returns, nothing is buffered.

        Args:
            timeout_millis: Unused (milliseconds, the SDK's signature).
        """
        return True


def annotations_of(span: ReadableSpan) -> list[dict[str, object]]:
    """
    The Phoenix annotations of one span's inline evaluations, by index.

    Returns:
        One ``{"span_id", "name", "annotator_kind", "result"}`` dict per
        evaluation that has a str name and an annotator kind Phoenix
        accepts; ``[]`` for a span without a context or evaluations.
    """
    context = span.context
    attributes: Attributes = span.attributes
    if context is None or not attributes:
        return []
    indices = sorted(
        int(match["index"]) for key in attributes if (match := _EVALUATION_KEY.match(key))
    )
    annotations: list[dict[str, object]] = []
    for index in indices:
        name = attributes.get(attr.evaluation_key(index, attr.EVALUATION_NAME))
        kind = attributes.get(attr.evaluation_key(index, attr.EVALUATION_ANNOTATOR_KIND))
        if not isinstance(name, str) or name in RESERVED_NAMES or kind not in ANNOTATOR_KINDS:
            log.debug(
                "span %016x: evaluation %d has no name, a name Phoenix reserves or an"
                " annotator kind it does not accept",
                context.span_id,
                index,
            )
            continue
        result: dict[str, object] = {}
        label = attributes.get(attr.evaluation_key(index, attr.EVALUATION_LABEL))
        if isinstance(label, str):
            result["label"] = label
        score = attributes.get(attr.evaluation_key(index, attr.EVALUATION_SCORE))
        # NaN and infinities are not JSON: Phoenix would refuse the whole batch.
        if isinstance(score, int | float) and not isinstance(score, bool) and math.isfinite(score):
            result["score"] = score
        explanation = attributes.get(attr.evaluation_key(index, attr.EVALUATION_EXPLANATION))
        if isinstance(explanation, str):
            result["explanation"] = explanation
        annotations.append(
            {
                "span_id": format(context.span_id, "016x"),
                "name": name,
                "annotator_kind": kind,
                "result": result,
            }
        )
    return annotations


def _check_endpoint(endpoint: str) -> None:
    """Raise ValueError unless ``endpoint`` is an http(s) base address Phoenix can be under."""
    parsed = urllib.parse.urlsplit(endpoint)
    if parsed.scheme not in {"http", "https"} or not parsed.hostname:
        msg = f"endpoint must be an http:// or https:// address with a host, got {endpoint!r}"
        raise ValueError(msg)
    try:
        parsed.port  # noqa: B018 - parsing the port is the check
    except ValueError:
        msg = f"endpoint has a port that is not a number in 0-65535: {endpoint!r}"
        raise ValueError(msg) from None
    if parsed.username is not None or parsed.password is not None:
        # They would not be sent as a login; credentials belong in headers=.
        msg = f"endpoint must not hold credentials (pass an authorization header): {endpoint!r}"
        raise ValueError(msg)
    if parsed.query or parsed.fragment:
        msg = f"endpoint must be Phoenix's base address, without a query, got {endpoint!r}"
        raise ValueError(msg)
    # Phoenix's API is under {base}/v1/...: a path naming an API route (the
    # OTLP traces endpoint, the annotations endpoint) is not the base.
    if "v1" in parsed.path.split("/"):
        msg = (
            "endpoint must be Phoenix's base address, without /v1/..."
            f" (http://localhost:6006, not .../v1/traces), got {endpoint!r}"
        )
        raise ValueError(msg)


class _DeadlineError(OSError):
    """The export's whole time ran out (an OSError, like a socket timeout)."""


def _post_within(
    url: str, body: bytes, headers: Mapping[str, str], timeout: float
) -> tuple[int, str, str | None]:
    """
    POST ``body`` to ``url`` and read the whole reply, within ``timeout`` seconds in all.

    http.client follows no redirect, so a 3xx comes back as a status. A
    socket timeout bounds each read only, and a server trickling its reply
    byte by byte would keep a read-based wait going for ever: the request
    runs on a worker thread, and at the deadline its connection is shut,
    which ends that thread's blocked read at once.

    Returns:
        The status, its reason phrase and the ``Location`` header (or None).

    Raises:
        OSError: connecting or reading failed, or the deadline passed
            (``_DeadlineError``, "timed out after N s").
        http.client.HTTPException: the reply was not HTTP.
    """
    parsed = urllib.parse.urlsplit(url)
    connection_class = (
        http.client.HTTPSConnection if parsed.scheme == "https" else http.client.HTTPConnection
    )
    connection = connection_class(parsed.hostname or "", parsed.port, timeout=timeout)
    path = parsed.path or "/"
    outcome: list[tuple[int, str, str | None] | BaseException] = []

    def post() -> None:
        try:
            connection.request("POST", path, body=body, headers=dict(headers))
            response = connection.getresponse()
            response.read()
            outcome.append((response.status, response.reason, response.getheader("Location")))
        except BaseException as error:  # handed to the caller's thread, not lost
            outcome.append(error)

    worker = threading.Thread(target=post, name="relapse-phoenix-post", daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        # Shut the socket so the blocked read returns now; join briefly so
        # no thread is left reading a connection nobody owns.
        sock = connection.sock
        if sock is not None:
            with contextlib.suppress(OSError):  # already closed by the peer
                sock.shutdown(socket.SHUT_RDWR)
        connection.close()
        worker.join(1.0)
        raise _DeadlineError(f"timed out after {timeout:g} s")
    connection.close()
    (result,) = outcome
    if isinstance(result, BaseException):
        raise result
    return result
