"""Every property test's example count goes through ``property_budget.examples``."""

from __future__ import annotations

import re
from pathlib import Path

import property_budget

TESTS = Path(__file__).resolve().parents[1]

#: ``max_examples=`` followed by anything but ``examples(``.
FIXED_COUNT = re.compile(r"max_examples\s*=\s*(?!(property_)?examples\()")


def test_no_property_test_fixes_its_count_past_the_budget() -> None:
    fixed = [
        f"{path.relative_to(TESTS)}:{number}"
        for path in sorted(TESTS.rglob("*.py"))
        if path.name not in {"conftest.py", "property_budget.py", Path(__file__).name}
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if FIXED_COUNT.search(line)
    ]
    assert fixed == []


def test_the_pattern_tells_a_fixed_count_from_a_budgeted_one() -> None:
    assert FIXED_COUNT.search("@settings(max_examples=300, deadline=None)")
    assert FIXED_COUNT.search("settings(max_examples = WORDS)")
    assert not FIXED_COUNT.search("@settings(max_examples=examples(300))")


def test_fast_runs_a_tenth_and_at_least_ten() -> None:
    # Computed by hand: 300 // 10 = 30; 40 // 10 = 4, raised to 10; 5 stays 5.
    assert property_budget.FAST or property_budget.examples(300) == 300
    original = property_budget.FAST
    try:
        property_budget.FAST = True
        assert [property_budget.examples(n) for n in (300, 40, 5)] == [30, 10, 5]
        property_budget.FAST = False
        assert [property_budget.examples(n) for n in (300, 40, 5)] == [300, 40, 5]
    finally:
        property_budget.FAST = original
