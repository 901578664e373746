"""
A griffe extension: list a ``**options: Unpack[SomeTypedDict]`` function's options one by one.

``relapse.grounded`` takes its loop options as ``**options:
Unpack[LoopOptions]`` and documents each of them in its ``Args`` section, as
Python's ``help()`` and an IDE show it. To griffe the signature has one
parameter, ``options``, so every documented option is a parameter "that does
not appear in the function signature" and has no type.

This extension replaces, in griffe's data only (never at run time), such a
``**options`` parameter by one keyword-only parameter per key of the typed
dict, with the key's annotation (resolved where the typed dict is defined, so
cross-references work) and its default, read from a ``{"key": default}`` dict
literal named in the configuration. The reference then shows every option in
the signature and in the parameters table, with its type and default.

It does so only where the docstring documents the keys themselves (at least
one of them): a docstring documenting ``options`` as one parameter (``run``)
keeps the signature as written. Where it does, every key must be documented:
an undocumented key, or a key without a default, is a warning, which fails
``mkdocs build --strict``.

Configuration (``mkdocs.yml``)::

    extensions:
      - docs/_ext/griffe_unpack_options.py:UnpackOptions:
          defaults:
            relapse._policy.LoopOptions: relapse._policy.DEFAULTS
"""

from __future__ import annotations

import ast
from typing import Any

import griffe

_UNPACK = {"typing.Unpack", "typing_extensions.Unpack"}
_TYPED_DICT = {"typing.TypedDict", "typing_extensions.TypedDict"}


def _functions(obj: griffe.Object) -> list[griffe.Function]:
    """Every function and method defined in ``obj`` (not imported), depth first."""
    found: list[griffe.Function] = []
    pending: list[griffe.Object] = [obj]
    while pending:
        current = pending.pop()
        if isinstance(current, griffe.Function):
            found.append(current)
        pending.extend(
            member
            for member in current.members.values()
            if not member.is_alias and isinstance(member, griffe.Object)
        )
    return found


def _documented(func: griffe.Function) -> set[str]:
    """The names the docstring's parameter sections document, parsed quietly."""
    if func.docstring is None:
        return set()
    names: set[str] = set()
    # A parse of our own, without warnings: the real one, which warns, comes
    # later (when rendering), against the signature this extension leaves.
    for section in func.docstring.parse(warnings=False):
        if section.kind is griffe.DocstringSectionKind.parameters:
            names.update(parameter.name.lstrip("*") for parameter in section.value)
    return names


class UnpackOptions(griffe.Extension):
    """Expand ``**name: Unpack[TypedDict]`` where the docstring documents the keys."""

    def __init__(self, defaults: dict[str, str] | None = None) -> None:
        super().__init__()
        # Typed dict path -> path of the module attribute holding its defaults.
        self.defaults = dict(defaults or {})

    def _typed_dict(self, func: griffe.Function) -> tuple[griffe.Parameter, griffe.Class] | None:
        for parameter in func.parameters:
            annotation = parameter.annotation
            if (
                parameter.kind is griffe.ParameterKind.var_keyword
                and isinstance(annotation, griffe.ExprSubscript)
                and annotation.canonical_path in _UNPACK
            ):
                target = getattr(annotation.slice, "canonical_path", None)
                try:
                    cls = func.modules_collection.get_member(str(target))
                except (KeyError, ValueError, AttributeError, griffe.AliasResolutionError):
                    return None
                if isinstance(cls, griffe.Alias):
                    cls = cls.final_target
                if isinstance(cls, griffe.Class) and any(
                    getattr(base, "canonical_path", str(base)) in _TYPED_DICT for base in cls.bases
                ):
                    return parameter, cls
        return None

    def _defaults_of(self, cls: griffe.Class) -> dict[str, str]:
        path = self.defaults.get(cls.path)
        if path is None:
            return {}
        attribute = cls.modules_collection.get_member(path)
        value = getattr(attribute, "value", None)
        if not isinstance(value, griffe.ExprDict):
            griffe.logger.warning(f"unpack options: {path} is not a dict literal")
            return {}
        return {
            ast.literal_eval(str(key)): str(default)
            for key, default in zip(value.keys, value.values, strict=True)
            if key is not None
        }

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        """Expand the options of every function of the package that documents them."""
        for func in _functions(pkg):
            found = self._typed_dict(func)
            if found is None:
                continue
            var_keyword, cls = found
            keys = [
                (name, attribute.annotation)
                for name, attribute in cls.members.items()
                if isinstance(attribute, griffe.Attribute) and attribute.annotation is not None
            ]
            documented = _documented(func)
            if var_keyword.name in documented or not documented & {name for name, _ in keys}:
                continue
            assert func.docstring is not None  # _documented found names in it
            defaults = self._defaults_of(cls)
            del func.parameters[var_keyword.name]
            for name, annotation in keys:
                if name not in documented:
                    griffe.docstring_warning(
                        func.docstring,
                        0,
                        f"option '{name}' of {cls.path} (**{var_keyword.name})"
                        f" is not documented in {func.path}'s docstring",
                    )
                if name not in defaults and self.defaults.get(cls.path) is not None:
                    griffe.logger.warning(
                        f"unpack options: {self.defaults[cls.path]} has no default for '{name}'"
                    )
                parameter = griffe.Parameter(
                    name,
                    annotation=annotation,
                    kind=griffe.ParameterKind.keyword_only,
                    default=defaults.get(name, "..."),
                )
                parameter.function = func
                func.parameters[name] = parameter
