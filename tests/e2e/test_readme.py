"""The README's examples that run on their own do what the README says they print."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"


def _section_code(heading: str) -> str:
    """Return the first ```python block of the README section under ``heading``."""
    text = README.read_text("utf-8")
    section = text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match is not None, f"no python block under {heading!r}"
    return match.group(1)


@pytest.mark.parametrize("heading", ["Cite the chunks"])
def test_the_printed_lines_are_the_comments_after_each_print(heading: str) -> None:
    """Each ``# ...`` line after the code is what it prints, in order."""
    code = _section_code(heading)
    expected = [line[2:] for line in code.splitlines() if line.startswith("# ")]
    assert expected  # the example says what it prints
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(README), "exec"), {"__name__": "readme"})
    assert expected == out.getvalue().splitlines()
