"""
Finding the query and chunks arguments of a call, and replacing the query.

The layout is computed once, when decorating, so each call costs a few tuple
and dict lookups instead of ``inspect.Signature.bind``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
_NO_DEFAULT: Any = inspect.Parameter.empty


@dataclass(frozen=True)
class Slot:
    """Where one named parameter is found in ``(args, kwargs)``."""

    name: str
    #: Index in ``args``, or None when the parameter can only be passed by keyword.
    index: int | None
    #: Whether it may be passed by keyword.
    by_keyword: bool
    #: The declared default, or ``inspect.Parameter.empty``.
    default: Any
    #: For a positional-only slot: the defaults of the positional-only
    #: parameters before it, which fill the gap when it is set but the call
    #: left it (and them) at their defaults.
    gap_defaults: tuple[Any, ...] = ()

    def get(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """
        Return the argument's value in this call.

        Raises:
            TypeError: the call does not pass it and it has no default.
        """
        if self.by_keyword and self.name in kwargs:
            return kwargs[self.name]
        if self.index is not None and self.index < len(args):
            return args[self.index]
        if self.default is not _NO_DEFAULT:
            return self.default
        raise TypeError(f"missing required argument {self.name!r}")

    def replace(
        self, args: tuple[Any, ...], kwargs: dict[str, Any], value: Any
    ) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """Return ``(args, kwargs)`` with this argument set to ``value``."""
        if self.by_keyword and self.name in kwargs:
            return args, {**kwargs, self.name: value}
        if self.index is not None and self.index < len(args):
            return (*args[: self.index], value, *args[self.index + 1 :]), kwargs
        if self.by_keyword:
            return args, {**kwargs, self.name: value}
        if self.index is None:
            raise TypeError(f"cannot pass {self.name!r}: it is neither positional nor keyword")
        # Positional-only and not passed: it and every positional-only
        # parameter between the last passed one and it are at their defaults
        # (only positional-only parameters can precede it), so fill the gap.
        return (*args, *self.gap_defaults[len(args) :], value), kwargs


@dataclass(frozen=True)
class Slots:
    """Where the query, the chunks and the feedback parameter are in one kind of call."""

    query: Slot
    #: None when the function retrieves its chunks itself (``chunks_of``).
    chunks: Slot | None = None
    #: The parameter receiving the retry note (``feedback_arg``), if any.
    feedback: Slot | None = None


@dataclass(frozen=True)
class CallShape:
    """Where the query, chunks and feedback are, for unbound and bound calls."""

    unbound: Slots
    #: The same slots once ``self``/``cls`` is bound (methods called on an object or class).
    bound: Slots

    def slots(self, bound: bool) -> Slots:
        """The slots of a call whose first parameter is already bound or not."""
        return self.bound if bound else self.unbound


def _slot(params: list[inspect.Parameter], name: str) -> Slot:
    index: int | None = None
    for position, param in enumerate(params):
        if param.kind is inspect.Parameter.VAR_POSITIONAL:
            break
        if param.name == name:
            if param.kind in _POSITIONAL:
                index = position
            break
    param = next(p for p in params if p.name == name)
    gap: tuple[Any, ...] = ()
    if param.kind is inspect.Parameter.POSITIONAL_ONLY and index is not None:
        gap = tuple(p.default for p in params[:index])
    return Slot(
        name=name,
        index=index,
        by_keyword=param.kind is not inspect.Parameter.POSITIONAL_ONLY,
        default=param.default,
        gap_defaults=gap,
    )


def _named(params: list[inspect.Parameter], role: str, name: str, owner: str, listing: str) -> None:
    """Raise unless ``name`` is a single (not variadic) parameter."""
    found = next((p for p in params if p.name == name), None)
    if found is None:
        raise ValueError(
            f"{role}={name!r} is not a parameter of {owner} (its parameters: {listing})"
        )
    if found.kind is inspect.Parameter.VAR_POSITIONAL:
        # *args cannot be found by name in a call, nor replaced as one value.
        raise ValueError(
            f"{role}={name!r} is the variadic *{name} of {owner};"
            f" name a single parameter (its parameters: {listing})"
        )


def call_shape(
    function: Callable[..., Any],
    chunks_arg: str | None,
    query_arg: str | None,
    feedback_arg: str | None = None,
) -> CallShape:
    """
    Work out where ``chunks_arg``, ``query_arg`` and ``feedback_arg`` sit in ``function``'s calls.

    Computed once per decoration and never cached elsewhere, so nothing here
    keeps a decorated function (or what its closure holds) alive.

    Args:
        function: The function being decorated.
        chunks_arg: The name of its chunks parameter; None when it retrieves
            its chunks itself.
        query_arg: The name of its query parameter, or None for the first
            parameter that is none of the others nor ``self``/``cls``.
        feedback_arg: The name of the parameter receiving the retry note, or None.

    Returns:
        The layout of the parameters.

    Raises:
        ValueError: a name is not a parameter of ``function`` (the message
            lists its parameters), names its ``*args``, two roles name the
            same parameter, or no query parameter can be chosen.
    """
    params = [
        p
        for p in inspect.signature(function).parameters.values()
        if p.kind is not inspect.Parameter.VAR_KEYWORD
    ]
    names = [p.name for p in params]
    listing = ", ".join(names) or "none"
    owner = function.__qualname__
    others = {chunks_arg, feedback_arg} - {None}
    if query_arg is None:
        candidates = [
            p.name
            for i, p in enumerate(params)
            if p.name not in others
            and p.kind is not inspect.Parameter.VAR_POSITIONAL
            and not (i == 0 and p.name in ("self", "cls"))
        ]
        if not candidates:
            raise ValueError(
                f"{owner} has no parameter to use as the query"
                f" (its parameters: {listing}); pass query_arg="
            )
        query_arg = candidates[0]
    roles = {"chunks_arg": chunks_arg, "query_arg": query_arg, "feedback_arg": feedback_arg}
    for role, name in roles.items():
        if name is not None:
            _named(params, role, name, owner, listing)
    if query_arg == chunks_arg:
        raise ValueError(f"query_arg and chunks_arg must differ, both are {chunks_arg!r}")
    if feedback_arg is not None and feedback_arg in (query_arg, chunks_arg):
        raise ValueError(
            f"feedback_arg={feedback_arg!r} must name its own parameter, not the query or chunks"
        )
    bound = params[1:] if params and params[0].kind in _POSITIONAL else params
    first = params[0].name if params else None
    if first in roles.values():
        # A plain function is never called bound; keep the unbound layout.
        bound = params

    def slots(layout: list[inspect.Parameter]) -> Slots:
        return Slots(
            query=_slot(layout, query_arg),
            chunks=None if chunks_arg is None else _slot(layout, chunks_arg),
            feedback=None if feedback_arg is None else _slot(layout, feedback_arg),
        )

    return CallShape(unbound=slots(params), bound=slots(bound))
