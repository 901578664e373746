"""
Every row of every rule's Examples table runs: the check's verdict, and the rule named in the trace.

The tables are the rules' specification (docs/findings.md, "The rules, in
order", is generated from them): a row whose verdict the check does not give,
or that the rule does not decide, is a spec the code does not keep.
"""

from __future__ import annotations

import pytest

from relapse.grounding import ALL_CODES, GroundingCheck, default_grounding_check
from relapse.grounding._codes import FG005
from relapse.grounding.rules import RULES, Rule
from relapse.grounding.rules._rule import Example, examples

ROWS = [(rule, row) for rule in RULES for row in examples(rule)]


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.name)
def test_every_rule_has_examples(rule: Rule) -> None:
    assert examples(rule), f"rule {rule.name!r} has no Examples rows"


@pytest.mark.parametrize(
    ("rule", "row"), ROWS, ids=[f"{rule.name}-{n}" for n, (rule, _) in enumerate(ROWS)]
)
def test_an_example_row_holds(rule: Rule, row: Example) -> None:
    # The names rule is opt-in: its rows run with every code.
    check = GroundingCheck(codes=ALL_CODES) if FG005 in rule.codes else default_grounding_check
    result = check("", list(row.chunks), row.answer, explain=True)
    assert row.verdict == ("passes" if result.ok else "fails"), result.findings
    assert rule.name in {item.rule for item in result.trace}, result.trace


def test_a_malformed_row_names_the_rule() -> None:
    (broken,) = [rule for rule in RULES if rule.name == "held"]
    bad = broken.__class__(**{**_fields(broken), "doc": _MALFORMED})
    with pytest.raises(ValueError, match="rule 'held': an Examples row must be"):
        examples(bad)


_MALFORMED = """S.

Examples:
    | answer | chunks | verdict |
    | --- | --- | --- |
    | `It is 5.` | `It is 5.` | holds |
"""


def _fields(rule: Rule) -> dict[str, object]:
    return {name: getattr(rule, name) for name in rule.__dataclass_fields__}
