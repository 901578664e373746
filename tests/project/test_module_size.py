"""
No module of src/relapse is over 800 lines without a sentence in docs/design.md saying why.

Issue 40: a module that long usually holds more than one job. docs/design.md
lists the ones that do not, each with why it is one module ("Modules of
`relapse/` over 800 lines"); a module that grows past the limit must be split
or join that list.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "relapse"
LIMIT = 800

# A list item of the design's section: "- `path`: why...".
_ITEM = re.compile(r"^\s*- `(?P<path>[^`]+\.py)`: \S")


def listed(design: str) -> set[str]:
    """The modules docs/design.md's list of long modules names, each with a reason."""
    lines = design.splitlines()
    start = next(i for i, line in enumerate(lines) if "over 800 lines" in line)
    names: set[str] = set()
    for line in lines[start + 1 :]:
        match = _ITEM.match(line)
        if match:
            names.add(match["path"])
        elif names and not line.startswith("      "):
            break
    return names


def long_modules() -> dict[str, int]:
    """Each module of src/relapse over the limit, by its path under src/relapse, and its lines."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        count = len(path.read_text(encoding="utf-8").splitlines())
        if count > LIMIT:
            found[path.relative_to(PACKAGE).as_posix()] = count
    return found


def test_every_long_module_is_listed_with_a_reason() -> None:
    design = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")
    assert {name: n for name, n in long_modules().items() if name not in listed(design)} == {}


def test_the_list_is_read_and_names_no_short_module() -> None:
    """The parse finds the listed modules; one listed but short must leave the list."""
    design = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")
    names = listed(design)
    assert "_loop.py" in names
    assert sorted(names - set(long_modules())) == []


def test_an_unlisted_long_module_is_found() -> None:
    text = "Modules over 800 lines:\n    - `_loop.py`: one loop.\n- `other`: next item\n"
    assert {"_loop.py"} == listed(text)
    assert "grounding/_read/words.py" not in listed(text)
