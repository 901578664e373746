"""What the loop-contract tests share: chunks, and a policy that gives up."""

from __future__ import annotations

DOCS = ["The depot stores 40 buses."]
