"""
The layout of ``tests/grounding/`` (README.md there): a folder per stage, a file per rule family.

A rule family without its test file would leave its cases in whichever file
came to hand; an oracle module without the ``oracle`` marker would run in
``bash scripts/test.sh --fast``, which is meant to leave the oracles out.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import relapse.grounding.rules as rules_package

HERE = Path(__file__).resolve().parent
FAMILIES = sorted(
    path.stem
    for path in Path(rules_package.__file__).resolve().parent.glob("*.py")
    if not path.stem.startswith("_")
)
ORACLES = sorted((HERE / "oracles").glob("test_*.py"))


def test_the_stage_folders() -> None:
    folders = {path.name for path in HERE.iterdir() if path.is_dir()}
    assert {"read", "values", "index", "rules", "oracles"} <= folders


@pytest.mark.parametrize("family", FAMILIES)
def test_every_rule_family_has_its_test_file(family: str) -> None:
    """``rules/<family>.py`` is tested in ``tests/grounding/rules/test_<family>.py``."""
    assert (HERE / "rules" / f"test_{family}.py").is_file(), family


def _marks(path: Path) -> list[str]:
    """The source of every module-level ``pytestmark`` value of ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        ast.unparse(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Name) and target.id == "pytestmark"
    ]


def test_there_are_oracle_modules() -> None:
    assert len(ORACLES) >= 4


@pytest.mark.parametrize("path", ORACLES, ids=lambda path: path.name)
def test_every_oracle_module_is_marked(path: Path) -> None:
    """Each module under ``oracles/`` marks all its tests ``oracle``."""
    assert _marks(path) == ["pytest.mark.oracle"]


def test_an_unmarked_module_is_seen(tmp_path: Path) -> None:
    unmarked = tmp_path / "test_unmarked.py"
    unmarked.write_text("import pytest\n\n\ndef test_it() -> None:\n    pass\n")
    assert _marks(unmarked) == []
