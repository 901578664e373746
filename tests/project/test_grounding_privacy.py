"""
Contracts know no implementation: outside ``grounding/`` nothing imports a private name of it.

The default check (``relapse/grounding/``) is one check among others: the
check contract and every other check (``relapse/checks/``), the streaming
release and the readers reach it through its public names (``relapse.grounding``'s
``__all__``, the :class:`relapse.checks.StreamReader` it supplies), so its
insides can change without them. ``checks/`` imports none of it at all, and
tests no ``isinstance`` on the default check's classes: how the default check
streams is the reader it supplies (issue 40). This reads every import
statement of the package with :mod:`ast`.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import relapse

PACKAGE = Path(relapse.__file__).resolve().parent

#: Modules outside ``grounding/`` that still import a private name of it, and
#: why; the test fails when one stops doing so (take it off) or another starts.
KNOWN: dict[str, str] = {
    "relapse.evaluation._outcomes": (
        "the evaluation's outcome labels read the default check's FG004 messages,"
        " echo and copy helpers and text folding (issue 40 left them there)"
    ),
}

#: The default check's classes, which ``checks/`` must not name.
DEFAULT_CHECK_CLASSES = frozenset({"GroundingCheck", "BoundGroundingCheck"})


def module_name(path: Path) -> str:
    """``relapse.checks._incremental`` for ``.../relapse/checks/_incremental.py``."""
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def private_grounding_imports(source: str) -> list[str]:
    """
    Each import of ``source`` that reaches a private module or name of ``relapse.grounding``.

    ``relapse.grounding._check``, ``relapse.grounding.rules._rule``, and
    ``from relapse.grounding.rules import _x`` are private; ``relapse.grounding``
    and ``from relapse.grounding import GroundingCheck`` are not.
    """
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
            names: list[str] = []
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            modules = [node.module]
            names = [alias.name for alias in node.names]
        else:
            continue
        for module in modules:
            parts = module.split(".")
            if parts[:2] != ["relapse", "grounding"]:
                continue
            private = [part for part in parts[2:] if part.startswith("_")]
            private += [name for name in names if name.startswith("_")]
            if private:
                found.append(f"{module}: {', '.join(private)}")
    return found


def outside_grounding() -> list[Path]:
    paths = sorted(path for path in PACKAGE.rglob("*.py") if "grounding" not in path.parts)
    assert len(paths) > 60  # the whole package, not an empty glob
    return paths


def test_no_module_outside_grounding_imports_a_private_name_of_it() -> None:
    reaching = {
        module_name(path): private_grounding_imports(path.read_text(encoding="utf-8"))
        for path in outside_grounding()
    }
    assert set(KNOWN) == {name for name, found in reaching.items() if found}


@pytest.mark.parametrize(
    "path", sorted((PACKAGE / "checks").rglob("*.py")), ids=lambda path: path.name
)
def test_checks_import_nothing_of_grounding_and_test_no_default_check_class(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = list(ast.walk(tree))
    imported = {a.name for node in nodes if isinstance(node, ast.Import) for a in node.names}
    imported |= {node.module for node in nodes if isinstance(node, ast.ImportFrom) and node.module}
    assert not {name for name in imported if name.startswith("relapse.grounding")}
    named = {node.id for node in nodes if isinstance(node, ast.Name)}
    named |= {node.attr for node in nodes if isinstance(node, ast.Attribute)}
    assert not named & DEFAULT_CHECK_CLASSES


class TestTheRule:
    def test_private_modules_and_names_are_found(self) -> None:
        source = (
            "from relapse.grounding._check import BoundGroundingCheck\n"
            "from relapse.grounding.rules import _walk\n"
            "import relapse.grounding._read.quotes\n"
        )
        assert [
            "relapse.grounding._check: _check",
            "relapse.grounding.rules: _walk",
            "relapse.grounding._read.quotes: _read",
        ] == private_grounding_imports(source)

    def test_public_names_pass(self) -> None:
        source = (
            "from relapse.grounding import GroundingCheck, sentence_spans\n"
            "from relapse.grounding.rules import RULES\n"
            "import relapse.grounding\n"
            "from relapse.checks._contract import prepare\n"
        )
        assert [] == private_grounding_imports(source)
