"""
mkdocs hooks: include a repository file (or one section of it) in a page.

A line ``--8<-- "PATH"`` is replaced by the file PATH (relative to the
repository root), and ``--8<-- "PATH" "HEADING"`` by the section of that file
under the Markdown heading HEADING, up to the next heading of the same or a
higher level. So the README's set-up commands and the otel-collector
example's README exist in one copy and the site shows them.

A line ``--8<-- rules`` is replaced by the default check's rules, generated
from their registry (``relapse.grounding.rules.RULES``): for each rule, in
the order the check asks them, its name, codes, role, phase, readers and
reach, then its specification (the docstring's Accepts, Why and Examples
sections). So the rules' reference is the code's, and cannot drift from it.

Relative links in the included text are relative to the included file's
folder. A link into ``docs/`` is rewritten relative to the page, so
``mkdocs build --strict`` checks it like any other; a link to another file of
the repository points at that file under ``repo_url``. So does a page's own
relative link out of ``docs/`` (``../../examples/app.py``), which mkdocs
would otherwise report as a missing documentation file; a link to a
repository file that does not exist is a warning, failing a strict build.
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path
from typing import Any

_INCLUDE = re.compile(r'^--8<-- "([^"]+)"(?: "([^"]+)")?[ \t]*$', re.MULTILINE)
_RULES = re.compile(r"^--8<-- rules[ \t]*$", re.MULTILINE)
# A docstring section's title: "Accepts:", "Why:", "Examples:".
_SECTION = re.compile(r"^(Accepts|Why|Examples):[ \t]*$")
# A Sphinx cross-reference in a docstring (":func:`x`"), shown as code.
_ROLE = re.compile(r":(?:func|data|mod|meth|class|attr):`~?([^`]+)`")
_LINK = re.compile(r"(\]\()([^)\s]+)(\))")
_HEADING = re.compile(r"^(#+) (.*)$")
# Under "mkdocs." so that mkdocs counts its warnings (and --strict fails on them).
_log = logging.getLogger("mkdocs.hooks.relapse")


def _section(text: str, heading: str, path: Path) -> str:
    lines = text.splitlines()
    for index, line in enumerate(lines):
        match = _HEADING.match(line)
        if match and match.group(2).strip() == heading:
            level = len(match.group(1))
            end = next(
                (
                    j
                    for j in range(index + 1, len(lines))
                    if (m := _HEADING.match(lines[j])) and len(m.group(1)) <= level
                ),
                len(lines),
            )
            return "\n".join(lines[index + 1 : end]).strip("\n")
    raise ValueError(f"{path}: no heading {heading!r} to include")


def rules_markdown() -> str:
    """The default check's rules as Markdown, from their registry, in the check's order."""
    # Imported when a page asks for it: the docs build runs in the project's environment.
    from relapse.grounding.rules import RULES
    from relapse.grounding.rules._rule import example_rows

    parts: list[str] = []
    for rule in RULES:
        before, after = rule.reach
        codes = ", ".join(sorted(rule.codes))
        reads = ", ".join(sorted(read.value for read in rule.reads))
        parts.append(f"#### `{rule.name}`\n")
        preview = " **Preview**: off unless `GroundingCheck(preview=True)`." if rule.preview else ""
        parts.append(
            f"{codes}; {rule.role.value}; asked in the {rule.phase.value} phase; reads"
            f" {reads}; reach {before} characters before the claim, {after} after.{preview}\n"
        )
        summary, _, body = _ROLE.sub(r"`\1`", rule.doc).partition("\n\n")
        body, _, _ = body.partition("Examples:")
        parts.append(summary + "\n")
        for line in body.splitlines():
            match = _SECTION.match(line)
            if match:
                parts.append(f"**{match.group(1)}.**")
            else:
                parts.append(line[4:] if line.startswith("    ") else line)
        rows = example_rows(rule.doc)
        if rows:
            parts.append("**Examples.**\n")
            parts.extend(rows)
        parts.append("")
    return "\n".join(parts)


def on_page_markdown(markdown: str, page: Any, config: Any, **kwargs: Any) -> str:
    """Expand every include line of the page."""
    root = Path(config.config_file_path).parent.resolve()
    docs = Path(config.docs_dir).resolve()
    page_dir = (docs / page.file.src_uri).parent
    repo_url = (config.repo_url or "").rstrip("/")

    def relink(match: re.Match[str], folder: Path, *, outside_only: bool = False) -> str:
        target = match.group(2)
        if re.match(r"[a-z][a-z0-9+.-]*:|#", target):
            return match.group(0)
        path_part, hash_, anchor = target.partition("#")
        resolved = (folder / path_part).resolve()
        if resolved.is_relative_to(docs):
            if outside_only:
                return match.group(0)
            new = os.path.relpath(resolved, page_dir)
        elif repo_url and resolved.is_relative_to(root):
            if not resolved.exists():
                _log.warning(
                    "Doc file '%s' links to '%s', which is not a file of the repository",
                    page.file.src_uri,
                    target,
                )
            new = f"{repo_url}/blob/main/{resolved.relative_to(root).as_posix()}"
        else:
            return match.group(0)
        return f"{match.group(1)}{new}{hash_}{anchor}{match.group(3)}"

    def include(match: re.Match[str]) -> str:
        included = (root / match.group(1)).resolve()
        text = included.read_text(encoding="utf-8")
        if match.group(2):
            text = _section(text, match.group(2), included)
        return _LINK.sub(lambda m: relink(m, included.parent), text)

    markdown = _INCLUDE.sub(include, markdown)
    if _RULES.search(markdown):
        markdown = _RULES.sub(lambda _: rules_markdown(), markdown)
    return _LINK.sub(lambda m: relink(m, page_dir, outside_only=True), markdown)
