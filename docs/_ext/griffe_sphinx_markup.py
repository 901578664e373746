"""
A griffe extension: render the Sphinx markup in relapse's docstrings as Markdown.

relapse's docstrings are Google style (Napoleon sections) with Sphinx roles
(``:func:`relapse.run```), ``.. versionadded::`` lines, reST ``::`` literal
blocks and ``>>>`` doctests. mkdocstrings reads docstrings as Markdown, where
none of these mean anything, so before rendering this extension rewrites:

* a role whose target is a relapse object into an optional autorefs link
  (``<autoref optional identifier=...>``): a link when the target is on a page
  of the site, its name in code font otherwise, never a broken reference.
  Targets are resolved as Sphinx does: absolute, else relative to the
  object's own scope and its parents'. ``~`` shows the last name only;
* a role whose target is outside relapse (``threading.Lock``) into code font;
* ``.. versionadded:: X`` / ``.. versionchanged:: X`` into an italic line;
* a paragraph ending in ``::`` into one ending in ``:`` (the indented block
  after it is already a Markdown code block);
* a run of ``>>>`` lines with their output into a ``pycon`` code fence.
"""

from __future__ import annotations

import html
import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?:py:)?(?:func|class|meth|data|attr|mod|exc|obj|const):`(~?)([^`<]+)`")
_VERSION = re.compile(r"^(\s*)\.\. version(added|changed)::\s*(\S+)\s*$", re.MULTILINE)
_LITERAL_INTRO = re.compile(r"(\S)::$", re.MULTILINE)
_DOCTEST = re.compile(r"(?:^[ \t]*>>>.*\n(?:^[ \t]*(?:\.\.\.|\S).*\n)*)+", re.MULTILINE)


def _lookup(collection: Any, path: str) -> Any | None:
    try:
        return collection.get_member(path)
    except (KeyError, ValueError, AttributeError, griffe.AliasResolutionError):
        return None


def _resolve(obj: griffe.Object, target: str) -> str | None:
    """The path ``target`` names from ``obj``'s docstring, or None outside relapse."""
    collection = obj.modules_collection
    root = target.split(".", 1)[0]
    if root in collection.members:
        return target if _lookup(collection, target) is not None else None
    scope: griffe.Object | None = obj
    while scope is not None:
        found = _lookup(collection, f"{scope.path}.{target}")
        if found is not None:
            return str(found.path)
        scope = scope.parent
    return None


def _rewrite(obj: griffe.Object, text: str) -> str:
    def role(match: re.Match[str]) -> str:
        short, target = match.group(1), match.group(2).strip()
        shown = target.rsplit(".", 1)[-1] if short else target
        code = f"<code>{html.escape(shown)}</code>"
        path = _resolve(obj, target)
        if path is None:
            return code
        return f'<autoref optional identifier="{html.escape(path)}">{code}</autoref>'

    def doctest(match: re.Match[str]) -> str:
        block = match.group(0)
        indent = re.match(r"[ \t]*", block).group(0)  # type: ignore[union-attr]
        return f"{indent}```pycon\n{block}{indent}```\n"

    text = _DOCTEST.sub(doctest, text + "\n").rstrip("\n")
    text = _ROLE.sub(role, text)
    text = _VERSION.sub(
        lambda m: (
            f"{m.group(1)}*{'Added' if m.group(2) == 'added' else 'Changed'}"
            f" in version {m.group(3)}.*"
        ),
        text,
    )
    return _LITERAL_INTRO.sub(r"\1:", text)


class SphinxMarkup(griffe.Extension):
    """Rewrite every docstring of the loaded package once it is fully loaded."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        """Walk the package's own objects (not aliases) and rewrite their docstrings."""
        pending: list[griffe.Object] = [pkg]
        while pending:
            obj = pending.pop()
            if obj.docstring is not None:
                obj.docstring.value = _rewrite(obj, obj.docstring.value)
            pending.extend(
                member
                for member in obj.members.values()
                if not member.is_alias and isinstance(member, griffe.Object)
            )
