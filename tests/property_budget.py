"""
How many examples a property test asks Hypothesis for.

``bash scripts/test.sh --fast`` sets ``RELAPSE_TEST_FAST=1``: every property
test then runs a tenth of its examples (at least 10), so the quick loop a
contributor runs while working stays near two minutes; CI's full run
(``bash scripts/test.sh``) runs them all. A test names its full count,
``@settings(max_examples=examples(300))``; Hypothesis's own default (100
examples, for tests that set none) follows the ``fast`` profile of
``tests/conftest.py``.
"""

from __future__ import annotations

import os

#: True under ``bash scripts/test.sh --fast``.
FAST = os.environ.get("RELAPSE_TEST_FAST") == "1"


def examples(count: int) -> int:
    """``count``, or under ``--fast`` a tenth of it and at least 10 (never more than ``count``)."""
    return min(count, max(10, count // 10)) if FAST else count
