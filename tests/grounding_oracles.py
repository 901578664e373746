"""
What the oracle properties share (tests/grounding/oracles/): their volumes and the verdict they ask.

Each oracle module (Babel, num2words, pint, dateutil) writes a quantity the
way its library writes it and asks the default check whether one chunk
supports the answer; the volumes are the examples per property that
docs/findings.md reports.
"""

from __future__ import annotations

from relapse.grounding import default_grounding_check

#: Examples per property (the volumes docs/findings.md reports).
BABEL_EXAMPLES = 3_000
WORDS_EXAMPLES = 2_000
PINT_EXAMPLES = 2_000


def grounded(chunk: str, answer: str) -> bool:
    """The default check's verdict on ``answer`` against one chunk."""
    return default_grounding_check("", [chunk], answer).ok
