"""
The deterministic grounding check: numbers, dates and quotations must be in the chunks.

>>> from relapse.grounding import default_grounding_check
>>> result = default_grounding_check(
...     "How many customers?", ["It has 2.1 million customers."], "It has 2.1 billion customers."
... )
>>> [(finding.code, finding.spans) for finding in result.findings]
[('FG001', ('2.1 billion',))]

Codes: FG001 numbers, FG002 dates, FG003 quotations, FG004 an answer that
echoes the retry instructions, and FG005 names (opt-in: pass
``codes=ALL_CODES``). ``docs/findings.md`` documents every rule.
"""

from __future__ import annotations

from relapse._read.sentences import sentence_spans
from relapse.grounding._check import (
    REFUSAL_PHRASES,
    BoundGroundingCheck,
    GroundingCheck,
    default_grounding_check,
)
from relapse.grounding._codes import ALL_CODES, DEFAULT_CODES
from relapse.grounding._echo import ECHO_PHRASES

__all__ = [
    "ALL_CODES",
    "DEFAULT_CODES",
    "ECHO_PHRASES",
    "REFUSAL_PHRASES",
    "BoundGroundingCheck",
    "GroundingCheck",
    "default_grounding_check",
    "sentence_spans",
]
