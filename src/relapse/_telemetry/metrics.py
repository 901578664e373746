"""
The five relapse metric instruments: created once per meter provider, recorded through one guard.

``docs/telemetry.md`` lists each instrument with its unit and attributes.
Attribute sets are cached per key (bounded), so recording on the API's no-op
instruments allocates next to nothing.
"""

from __future__ import annotations

import contextlib
import threading
import weakref
from collections.abc import Sequence
from typing import TYPE_CHECKING

from opentelemetry import metrics

from relapse._telemetry import attributes as attr
from relapse._telemetry.context import Harmless
from relapse._telemetry.sdk import can_watch, metrics_set
from relapse._version import VERSION

if TYPE_CHECKING:
    from opentelemetry.metrics import MeterProvider
    from opentelemetry.util.types import AttributeValue

    from relapse._results import GroundingFinding, RelapseResult, Usage

#: Bucket boundaries (iterations) advised for the iterations histogram.
ITERATION_BUCKETS: tuple[float, ...] = (1, 2, 3, 4, 5, 6, 8, 10)
#: Bucket boundaries (seconds) advised for the check-duration histogram:
#: checks are local and usually well under a millisecond.
CHECK_DURATION_BUCKETS: tuple[float, ...] = (
    0.0001,
    0.00025,
    0.0005,
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
    10.0,
)
#: Bucket boundaries (tokens) advised for the tokens histogram: those the
#: GenAI semantic conventions advise for ``gen_ai.client.token.usage``.
TOKEN_BUCKETS: tuple[float, ...] = tuple(float(4**power) for power in range(14))

# Cached attribute sets keyed by a free-form string (finding codes, check
# names) stop growing here, so a check inventing codes cannot leak memory.
_ATTRIBUTE_CACHE_LIMIT = 256

_RECORDING_ITERATION = Harmless("could not record iteration metrics")
_RECORDING_CALL = Harmless("could not record call metrics")
_RECORDING_FAILED_CALL = Harmless("could not count a failed call")
_CREATING = Harmless("could not create metric instruments")


class _AttributeCache:
    """``key -> {name: key}`` mappings, built once per key (bounded)."""

    __slots__ = ("_cache", "_name")

    def __init__(self, name: str) -> None:
        self._name = name
        self._cache: dict[str, dict[str, AttributeValue]] = {}

    def __call__(self, key: str) -> dict[str, AttributeValue]:
        found = self._cache.get(key)
        if found is None:
            found = {self._name: key}
            if len(self._cache) < _ATTRIBUTE_CACHE_LIMIT:
                self._cache[key] = found
        return found


class Instruments:
    """
    The five relapse instruments of one meter, created once.

    Its ``record_*`` methods never raise (a failure is logged at debug level).

    Attributes:
        iterations: Histogram of LLM calls per completed grounded call
            (unit ``{iteration}``), by ``relapse.outcome``.
        calls: Counter of grounded calls (unit ``{call}``), by
            ``relapse.outcome`` (plus ``error.type`` for ``"error"``).
        findings: Counter of findings (unit ``{finding}``), by
            ``relapse.finding.code``.
        check_duration: Histogram of check durations in seconds (unit ``s``),
            by ``gen_ai.evaluation.name``.
        tokens: Histogram of the tokens one grounded call spent over all
            its LLM calls (unit ``{token}``), by ``relapse.outcome`` and
            ``gen_ai.token.type``; recorded only when a call reported usage.
        proxied: Whether they are the API's proxy instruments (made while no
            global meter provider was set): silent until one is set.
        no_op: Whether they are the API's no-op instruments: always silent.
    """

    __slots__ = (
        "calls",
        "check_attributes",
        "check_duration",
        "code_attributes",
        "findings",
        "iterations",
        "no_op",
        "outcome_attributes",
        "proxied",
        "token_attributes",
        "tokens",
    )

    def __init__(self, meter: metrics.Meter, proxied: bool = False) -> None:
        self.proxied = proxied
        self.no_op = isinstance(meter, metrics.NoOpMeter)
        self.iterations = meter.create_histogram(
            attr.METRIC_CALL_ITERATIONS,
            unit="{iteration}",
            description="LLM calls made by one grounded call that completed.",
            explicit_bucket_boundaries_advisory=ITERATION_BUCKETS,
        )
        self.calls = meter.create_counter(
            attr.METRIC_CALLS,
            unit="{call}",
            description="Grounded calls, by outcome.",
        )
        self.findings = meter.create_counter(
            attr.METRIC_FINDINGS,
            unit="{finding}",
            description="Findings reported by the grounding check, by finding code.",
        )
        self.check_duration = meter.create_histogram(
            attr.METRIC_CHECK_DURATION,
            unit="s",
            description="Duration of one grounding check.",
            explicit_bucket_boundaries_advisory=CHECK_DURATION_BUCKETS,
        )
        self.tokens = meter.create_histogram(
            attr.METRIC_CALL_TOKENS,
            unit="{token}",
            description="Tokens one grounded call spent over all its LLM calls, by outcome.",
            explicit_bucket_boundaries_advisory=TOKEN_BUCKETS,
        )
        self.outcome_attributes = _AttributeCache(attr.RELAPSE_OUTCOME)
        self.token_attributes: dict[tuple[str, str], dict[str, AttributeValue]] = {}
        self.code_attributes = _AttributeCache(attr.RELAPSE_FINDING_CODE)
        self.check_attributes = _AttributeCache(attr.GEN_AI_EVALUATION_NAME)

    def record_iteration(
        self, check_name: str, check_s: float, findings: Sequence[GroundingFinding]
    ) -> None:
        """Record one check's duration (seconds) and count each of its findings by code."""
        with _RECORDING_ITERATION:
            self.check_duration.record(check_s, self.check_attributes(check_name))
            for finding in findings:
                self.findings.add(1, self.code_attributes(finding.code))

    def record_call(self, result: RelapseResult) -> None:
        """Count a completed call by outcome; record its iterations and tokens."""
        with _RECORDING_CALL:
            outcome = self.outcome_attributes(result.outcome)
            self.calls.add(1, outcome)
            self.iterations.record(result.iterations, outcome)
            self._record_tokens(result.outcome, result.usage)

    def record_failed_call(self, error: BaseException, usage: Usage | None) -> None:
        """
        Count a call that raised ``error`` (outcome ``"error"`` plus ``error.type``).

        The iterations histogram records completed calls only; ``usage``, the
        tokens paid before the failure, goes on the tokens histogram.
        """
        with _RECORDING_FAILED_CALL:
            self.calls.add(
                1,
                {
                    attr.RELAPSE_OUTCOME: attr.OUTCOME_ERROR,
                    attr.ERROR_TYPE: type(error).__qualname__,
                },
            )
            self._record_tokens(attr.OUTCOME_ERROR, usage)

    def _record_tokens(self, outcome: str, usage: Usage | None) -> None:
        """Record a call's input and output tokens on the tokens histogram, when it reported any."""
        if usage is None:
            return
        for kind, tokens in (
            (attr.TOKEN_TYPE_INPUT, usage.input_tokens),
            (attr.TOKEN_TYPE_OUTPUT, usage.output_tokens),
        ):
            key = (outcome, kind)
            attributes = self.token_attributes.get(key)
            if attributes is None:
                attributes = {attr.RELAPSE_OUTCOME: outcome, attr.GEN_AI_TOKEN_TYPE: kind}
                if len(self.token_attributes) < _ATTRIBUTE_CACHE_LIMIT:
                    self.token_attributes[key] = attributes
            self.tokens.record(tokens, attributes)


_instruments_lock = threading.Lock()
_global_instruments: list[Instruments] = []
_provider_instruments: weakref.WeakKeyDictionary[object, Instruments] = weakref.WeakKeyDictionary()


def instruments_for(meter_provider: MeterProvider | None) -> Instruments | None:
    """
    The relapse instruments of ``meter_provider`` (the global one when None).

    Created on first use and shared by every ``Telemetry`` of that
    provider (weakly keyed: it never keeps a provider alive), so
    :func:`relapse.run`, which builds its telemetry per call, does not create
    instruments per call. With the global provider the API's proxy
    instruments are cached; they follow a provider set globally later.

    Returns:
        The instruments, or None when the provider failed to create them
        (the failure is logged at debug level).
    """
    found: Instruments | None = None
    with _instruments_lock, _CREATING:
        if meter_provider is None:
            if not _global_instruments:
                meter = metrics.get_meter(attr.SCOPE_NAME, VERSION)
                # Read after get_meter, which loads a provider its variable names.
                proxied = can_watch() and not metrics_set()
                _global_instruments.append(Instruments(meter, proxied))
            return _global_instruments[0]
        try:
            found = _provider_instruments.get(meter_provider)
        except TypeError:  # not weak-referenceable: no caching
            found = None
        if found is None:
            meter = metrics.get_meter(attr.SCOPE_NAME, VERSION, meter_provider=meter_provider)
            found = Instruments(meter)
            with contextlib.suppress(TypeError):
                _provider_instruments[meter_provider] = found
    return found
