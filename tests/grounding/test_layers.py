"""
The default check's stages import downwards only: values, reading, the index, the check.

``relapse/grounding/`` is layered (docs/design.md): ``_values`` (how claims
compare) imports nothing else of the check but the shared text helpers;
``_read`` (text into claims) may import ``_values``; ``_index`` (the fast
paths) may import both; ``rules`` (the decisions) may import the three, and
the echo and names helpers beside them; the check at the top imports
everything. An import
that points up a layer would make a lower stage depend on a higher one, so
this reads every import statement of the package with :mod:`ast`.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import relapse.grounding

PACKAGE = Path(relapse.grounding.__file__).resolve().parent

#: The top-level modules every stage may use: text folding and the finding codes.
SHARED = {"relapse.grounding._text", "relapse.grounding._codes"}

#: For each stage, the stages of the check it may import, besides itself and SHARED.
ALLOWED = {
    "_values": set(),
    "_read": {"_values"},
    "_index": {"_values", "_read"},
    "rules": {"_values", "_read", "_index"},
}

#: The top-level modules of the check, besides SHARED, that a stage may use.
TOP_LEVEL = {"rules": {"relapse.grounding._echo", "relapse.grounding._names"}}


def grounding_imports(path: Path) -> set[str]:
    """Every ``relapse.grounding`` module ``path`` imports, as dotted names."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.level:
                raise AssertionError(f"{path}: relative import of {node.module!r}")
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name.startswith("relapse.grounding")}


def stage_of(module: str) -> str | None:
    """The stage (``_values``, ``_read``, ``_index``, ``rules``) of a grounding module, or None."""
    parts = module.split(".")
    return parts[2] if len(parts) > 3 and parts[2] in ALLOWED else None


@pytest.mark.parametrize("stage", sorted(ALLOWED))
def test_a_stage_imports_only_the_stages_below_it(stage: str) -> None:
    files = sorted((PACKAGE / stage).glob("*.py"))
    assert files, f"no modules in grounding/{stage}"
    upward = {
        f"{path.relative_to(PACKAGE)} imports {module}"
        for path in files
        for module in grounding_imports(path)
        if module not in SHARED | TOP_LEVEL.get(stage, set())
        and stage_of(module) not in {stage, *ALLOWED[stage]}
    }
    assert set() == upward


def test_the_shared_modules_import_no_stage() -> None:
    """``_text`` and ``_codes`` sit under every stage, so they import none of the check."""
    for name in sorted(SHARED):
        path = PACKAGE / (name.rsplit(".", 1)[1] + ".py")
        assert set() == grounding_imports(path), path


def test_the_rule_sees_an_upward_import(tmp_path: Path) -> None:
    """The reading above finds an import of a higher stage (so the rule can fail)."""
    module = tmp_path / "keys.py"
    module.write_text("from relapse.grounding._index.text_index import TextIndex\n")
    (module_name,) = grounding_imports(module)
    assert ("_index", set()) == (stage_of(module_name), ALLOWED["_values"])
