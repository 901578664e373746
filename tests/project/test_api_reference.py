"""Every public name has a place on the API reference pages (docs/reference/)."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "docs" / "reference"

#: The public modules whose ``__all__`` the reference pages must cover.
MODULES = (
    "relapse",
    "relapse.checks",
    "relapse.grounding",
    "relapse.prompts",
    "relapse.evaluation",
    "relapse.testing",
    "relapse.chunks_from",
    "relapse.integrations.phoenix",
    "relapse.integrations.langchain",
    "relapse.integrations.llamaindex",
    "relapse.integrations.pydantic_ai",
    "relapse.integrations.haystack",
    "relapse.integrations.mcp",
    "relapse.llms.local",
    "relapse.llms.openai",
    "relapse.serve",
)

#: The modules that import an extra, with the module that extra brings: without
#: it they cannot be imported, and their names are checked where it is installed.
EXTRAS = {
    "relapse.integrations.langchain": ("langchain_core", "langchain"),
    "relapse.integrations.llamaindex": ("llama_index.core", "llamaindex"),
    "relapse.integrations.pydantic_ai": ("pydantic_ai", "pydantic-ai"),
    "relapse.integrations.haystack": ("haystack", "haystack"),
    "relapse.integrations.mcp": ("mcp", "mcp"),
    "relapse.serve": ("starlette", "serve"),
}

_DIRECTIVE = re.compile(r"^::: (?P<path>[\w.]+)[ \t]*$")
_MEMBERS = re.compile(r"^\s+members: \[(?P<names>[^\]]*)\]\s*$")


def documented(pages: list[str]) -> set[str]:
    """
    The dotted paths the pages render: each ``::: path``, and with a
    ``members: [...]`` option each ``path.member``; a module rendered
    without that option renders every name of its ``__all__``.
    """
    paths: set[str] = set()
    for page in pages:
        lines = page.splitlines()
        for number, line in enumerate(lines):
            match = _DIRECTIVE.match(line)
            if match is None:
                continue
            path = match["path"]
            paths.add(path)
            members = None
            for option in lines[number + 1 : number + 4]:
                listed = _MEMBERS.match(option)
                if listed is not None:
                    members = [name.strip() for name in listed["names"].split(",")]
                    break
            if members is not None:
                paths.update(f"{path}.{name}" for name in members if name)
            else:
                module = _module_or_none(path)
                if module is not None:
                    paths.update(f"{path}.{name}" for name in getattr(module, "__all__", ()))
    return paths


def _module_or_none(path: str) -> object | None:
    try:
        return importlib.import_module(path)
    except ImportError:
        return None


def test_the_parser_reads_directives_and_member_lists() -> None:
    page = (
        "# P\n\n::: relapse.checks\n    options:\n      members: [Check, all_of]\n\n"
        "::: relapse.run\n"
    )
    assert {"relapse.checks", "relapse.checks.Check", "relapse.checks.all_of", "relapse.run"} == (
        documented([page])
    )


@pytest.mark.parametrize("name", MODULES)
def test_every_public_name_is_on_a_reference_page(name: str) -> None:
    if name in EXTRAS:
        needed, extra = EXTRAS[name]
        pytest.importorskip(needed, reason=f"the {extra} extra: pip install 'relapse[{extra}]'")
    pages = [path.read_text(encoding="utf-8") for path in sorted(REFERENCE.glob("*.md"))]
    paths = documented(pages)
    module = importlib.import_module(name)
    # Dunders (``__version__``) are not API to read about.
    public = [n for n in module.__all__ if not n.startswith("__")]
    missing = sorted(n for n in public if f"{name}.{n}" not in paths)
    assert [] == missing, f"{name}: add these to a page of docs/reference/"
