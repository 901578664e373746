"""
Every rule's specification has its sections, and every row of its Examples table runs.

The tables are the rules' specification (docs/findings.md, "The rules, in
order", is generated from them): a row whose verdict the check does not give,
or that the rule does not decide, is a spec the code does not keep. A row
whose verdict is the one the rule's role gives (passes for a rule that
supports or exempts, fails for one that vetoes) shows the rule deciding: the
trace names it. A row with the other verdict is a counter-example, what the
rule does not accept (a number no chunk holds, for ``held``) or does not veto
(ordinary English, for ``echo``): the check's verdict is asserted, and the
rule need not be the one that decided.
"""

from __future__ import annotations

import re

import pytest

from relapse.grounding import ALL_CODES, DEFAULT_CODES, GroundingCheck, default_grounding_check
from relapse.grounding.rules import RULES, Role, Rule
from relapse.grounding.rules._rule import Example, examples

ROWS = [(rule, row) for rule in RULES for row in examples(rule)]

# A section's title: a line of its own, at the docstring's indentation.
_TITLE = re.compile(r"^(\w[\w ]*):$", re.MULTILINE)


def decides(rule: Rule, row: Example) -> bool:
    """Tell whether the row's verdict is the one the rule gives when it decides."""
    return (row.verdict == "fails") == (rule.role is Role.VETOES)


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.name)
def test_every_rule_has_exactly_its_sections(rule: Rule) -> None:
    assert ["Accepts", "Why", "Examples"] == _TITLE.findall(rule.doc), rule.name


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.name)
def test_every_rule_has_a_row_where_it_decides(rule: Rule) -> None:
    rows = examples(rule)
    assert rows, f"rule {rule.name!r} has no Examples rows"
    assert any(decides(rule, row) for row in rows), f"rule {rule.name!r} never decides a row"


@pytest.mark.parametrize(
    ("rule", "row"), ROWS, ids=[f"{rule.name}-{n}" for n, (rule, _) in enumerate(ROWS)]
)
def test_an_example_row_holds(rule: Rule, row: Example) -> None:
    # An opt-in rule's rows (names, FG005) run with every code.
    check = (
        default_grounding_check if rule.codes <= DEFAULT_CODES else GroundingCheck(codes=ALL_CODES)
    )
    result = check("", list(row.chunks), row.answer, explain=True)
    assert row.verdict == ("passes" if result.ok else "fails"), result.findings
    if decides(rule, row):
        assert rule.name in {item.rule for item in result.trace}, result.trace


def test_a_section_missing_or_renamed_is_found() -> None:
    (held,) = [rule for rule in RULES if rule.name == "held"]
    for doc in (held.doc.replace("Why:", "Reasons:"), held.doc.replace("Accepts:", "")):
        assert ["Accepts", "Why", "Examples"] != _TITLE.findall(doc)


def test_a_malformed_row_names_the_rule() -> None:
    (broken,) = [rule for rule in RULES if rule.name == "held"]
    bad = broken.__class__(**{**_fields(broken), "doc": _MALFORMED})
    with pytest.raises(ValueError, match="rule 'held': an Examples row must be"):
        examples(bad)


def test_a_rule_with_no_rows_has_none() -> None:
    (held,) = [rule for rule in RULES if rule.name == "held"]
    bare = held.__class__(**{**_fields(held), "doc": _NO_ROWS})
    assert [] == examples(bare)


_MALFORMED = """S.

Examples:
    | answer | chunks | verdict |
    | --- | --- | --- |
    | `It is 5.` | `It is 5.` | holds |
"""

_NO_ROWS = """S.

Accepts:
    Anything.

Why:
    No reason.

Examples:
    | answer | chunks | verdict |
    | --- | --- | --- |
"""


def _fields(rule: Rule) -> dict[str, object]:
    return {name: getattr(rule, name) for name in rule.__dataclass_fields__}
