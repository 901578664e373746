"""
A griffe extension: render an options ``TypedDict`` with each key's ``#:`` comment and default.

relapse documents each loop option once, on :class:`relapse.LoopOptions`, in
a Sphinx-style ``#:`` comment above the key, and writes every default once,
in the ``DEFAULTS`` dict literal beside it. Griffe reads neither: comments are
not in the AST, and a ``TypedDict`` key has no value. This extension, in
griffe's data only (never at run time), gives each key of a configured typed
dict the text of its ``#:`` comment as its docstring and its default as its
value, so the reference renders every option with its type, default and
meaning, in one place that cannot drift from the code. The functions taking
``**options: Unpack[LoopOptions]`` document ``options`` as one parameter
pointing there.

A key without a ``#:`` comment, or without a default, is a warning, which
fails ``mkdocs build --strict``.

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


def _comment_above(lines: list[str], lineno: int) -> str | None:
    """The ``#:`` comment lines right above line ``lineno`` (1-based), joined; None if none."""
    found: list[str] = []
    index = lineno - 2
    while index >= 0 and lines[index].strip().startswith("#:"):
        found.append(lines[index].strip()[2:].strip())
        index -= 1
    return " ".join(reversed(found)) if found else None


class UnpackOptions(griffe.Extension):
    """Document each key of the configured typed dicts from its ``#:`` comment and default."""

    def __init__(self, defaults: dict[str, str] | None = None) -> None:
        super().__init__()
        # Typed dict path -> path of the module attribute holding its defaults.
        self.defaults = dict(defaults or {})

    def _defaults_of(self, collection: Any, path: str) -> dict[str, str]:
        attribute = collection.get_member(path)
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
        """Give every key of each configured typed dict its comment and default."""
        for class_path, defaults_path in self.defaults.items():
            if class_path.split(".", 1)[0] != pkg.name:
                continue
            try:
                cls = pkg.modules_collection.get_member(class_path)
            except (KeyError, ValueError, AttributeError, griffe.AliasResolutionError):
                continue  # this package does not define it
            if isinstance(cls, griffe.Alias):
                cls = cls.final_target
            defaults = self._defaults_of(pkg.modules_collection, defaults_path)
            lines = cls.module.lines
            for name, attribute in cls.members.items():
                if not isinstance(attribute, griffe.Attribute) or attribute.annotation is None:
                    continue
                comment = _comment_above(lines, attribute.lineno or 0)
                if comment is None:
                    griffe.logger.warning(
                        f"unpack options: option '{name}' of {class_path} has no #: comment"
                    )
                else:
                    attribute.docstring = griffe.Docstring(comment, parent=attribute)
                if name not in defaults:
                    griffe.logger.warning(
                        f"unpack options: {defaults_path} has no default for '{name}'"
                    )
                else:
                    attribute.value = defaults[name]
