"""Turning ``--check`` text into a grounding check."""

from __future__ import annotations

import importlib
from typing import Any, cast

from relapse.checks import all_of, cascade
from relapse.evaluation._score import Check as GroundingCheck
from relapse.grounding import default_grounding_check

__all__ = ["resolve_check"]

#: Names ``--check`` accepts besides ``module:attribute``.
NAMED_CHECKS: dict[str, GroundingCheck] = {"default": default_grounding_check}

_MISSING = object()


def _one(spec: str, whole: str) -> GroundingCheck:
    if spec in NAMED_CHECKS:
        return NAMED_CHECKS[spec]
    module_name, colon, attribute = spec.partition(":")
    if not colon or not module_name or not attribute:
        raise ValueError(
            f"check {spec!r} (in {whole!r}): expected 'default', 'module:attribute'"
            " or checks joined by '&'"
        )
    try:
        value: Any = importlib.import_module(module_name)
    except ImportError as error:
        raise ValueError(f"check {spec!r}: cannot import {module_name!r} ({error})") from error
    for part in attribute.split("."):
        value = getattr(value, part, _MISSING)
        if value is _MISSING:
            raise ValueError(f"check {spec!r}: {module_name} has no attribute {attribute!r}")
    if not callable(value):
        raise TypeError(
            f"check {spec!r} is {type(value).__name__}; expected a callable"
            " check(query, chunks, answer) -> GroundingResult"
        )
    return value  # type: ignore[no-any-return]


def resolve_check(spec: str) -> GroundingCheck:
    """
    Find the grounding check ``spec`` names.

    Args:
        spec: ``"default"`` (:func:`relapse.default_grounding_check`), a
            ``"module:attribute"`` path to a check (the attribute may be
            dotted), or several of these joined by ``&``, combined with
            :func:`relapse.checks.all_of` (every check must pass; the first
            failing one stops the rest), or stages joined by ``>``, a
            :func:`relapse.checks.cascade` (``default > mod:judge``: the
            judge runs on the answers the default check passed, and the
            report gives each stage's share, catches and cost).

    Returns:
        The check.

    Raises:
        ValueError: ``spec`` is malformed, a module cannot be imported or an
            attribute is missing; the message names the part. From
            :func:`relapse.checks.cascade` (one stage).
        TypeError: the named attribute is not callable.
    """
    if ">" in spec:
        stages = [_joined(part.strip(), spec) for part in spec.split(">")]
        # A cascade of synchronous checks answers synchronously.
        return cast("GroundingCheck", cascade(*stages))
    return _joined(spec, spec)


def _joined(spec: str, whole: str) -> GroundingCheck:
    """One check, or several joined by ``&``."""
    parts = [part.strip() for part in spec.split("&")]
    checks = [_one(part, whole) for part in parts]
    if len(checks) == 1:
        return checks[0]
    # all_of of synchronous checks answers synchronously.
    return cast("GroundingCheck", all_of(*checks))
