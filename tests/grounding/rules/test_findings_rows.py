"""
Every example row of the hand-kept docs/findings.md survives as a row that runs.

Issue 40 moved the rules' reference out of hand-kept tables into the rules'
docstrings. ``findings_rows.json`` lists the 193 example rows of findings.md
when the issue was filed (commit 2df1526), and the 6 added after it until the
tables went (commit 5ba4aa1): each with its line, its section, the row as
written, and the answers it became: rows of a rule's Examples table (run by
``test_examples.py``), or, where a row needs what an Examples row cannot hold
(a question, a whole passage, a character no docstring shows), rows of
:data:`TABLE` below, run here. An old row that listed several writings in one
cell became a row per writing. Every row's verdict is the one findings.md
documented.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

import pytest

from relapse.grounding import ALL_CODES, DEFAULT_CODES, GroundingCheck
from relapse.grounding.rules import RULES
from relapse.grounding.rules._rule import examples

OLD_ROWS = json.loads(Path(__file__).with_name("findings_rows.json").read_text("utf-8"))


class Case(NamedTuple):
    """An old example row an Examples table cannot hold: a question, the chunks, the answer."""

    question: str
    chunks: tuple[str, ...]
    answer: str
    verdict: str
    codes: frozenset[str] = DEFAULT_CODES


#: Two RAGTruth-like passages (MS MARCO): 46 words (233 characters) and 16.
MICE = (
    "Whatever your situation is, the best way to get rid of the mice is do it fast. You"
    " need to take immediate action. This is a critical step to getting rid of mice. Mice"
    " can very quickly take up residence in your home and start nesting."
)
WOOL = "Steel wool pads will prevent mice from using the hole to get back into your house."
MICE_QUESTION = "how to quickly get rid of mice"
_PASSAGES = (MICE, WOOL)

TABLE = [
    # FG001: numbers, "Does not fire": numbers in the question are supported.
    Case("How much is a 2006 chevy impala?", (), "It is a 2006 Chevy.", "passes"),
    # FG001: numbers, "Formats read": a zero-width space is deleted before scanning.
    Case("", ("12,500",), "12\u200b500", "passes"),
    # Numbers bound to what they count: a table's bare 62 grounds a percent
    # (the old row's chunk `North \| 62`: a pipe no Examples cell holds).
    Case("", ("North | 62",), "Turnout was 62%.", "passes"),
    # FG003: quotations, "Does not fire": apostrophes are not delimiters (no
    # quotation is read, so no rule decides).
    Case(
        "",
        ("The board approved it.",),
        "the board's approval followed the auditors' review of the CEO\u2019s memo",
        "passes",
    ),
    # FG003: quotations, "Does not fire": the question's own text is supported.
    Case("How to fold a quilt", (), 'the answer to the question "How to fold a quilt"', "passes"),
    # FG004: not an answer: an empty answer (no Examples cell shows it).
    Case("", ("The bridge opened in 1937.",), "", "fails"),
    # FG004, copies of the context or the question: a 46-word passage,
    # verbatim, in any case and with any line breaks.
    Case(MICE_QUESTION, _PASSAGES, MICE, "fails"),
    Case(MICE_QUESTION, _PASSAGES, MICE.upper().replace(". ", ".\n"), "fails"),
    # FG004: copies cover 345 of 366 characters.
    Case(MICE_QUESTION, _PASSAGES, f"Context: {MICE} {WOOL} Question: {MICE_QUESTION}", "fails"),
    # FG004: the question, with or without `?`.
    Case(MICE_QUESTION, _PASSAGES, "How to quickly get rid of mice?", "fails"),
    Case(MICE_QUESTION, _PASSAGES, "How to quickly get rid of mice", "fails"),
    # FG004: the passage's first 200 of 233 characters, a copy cut short (86 %).
    Case(MICE_QUESTION, _PASSAGES, MICE[:200], "fails"),
    # FG004: one sentence quoted (13 words); the question restated, then
    # answered; the passage's first 120 characters (52 %): answers.
    Case(MICE_QUESTION, _PASSAGES, "The best way to get rid of the mice is do it fast.", "passes"),
    Case(
        MICE_QUESTION,
        _PASSAGES,
        "How to quickly get rid of mice? Act fast, and seal the holes with steel wool pads.",
        "passes",
    ),
    Case(MICE_QUESTION, _PASSAGES, MICE[:120], "passes"),
    # FG004: the prompt's framed context (a label, then a chunk's start).
    Case(MICE_QUESTION, _PASSAGES, f"Context: {MICE[:142]}", "fails"),
    Case(MICE_QUESTION, _PASSAGES, f"[chunk 1] {MICE[:142]}", "fails"),
    # FG004: no label opens a chunk's start: answers.
    Case(MICE_QUESTION, _PASSAGES, f"Answer: {MICE[:142]}", "passes"),
    Case(MICE_QUESTION, _PASSAGES, f"Context: {MICE[82:200]}", "passes"),
    # FG005: names (opt-in): the question's words.
    Case("weather in wellesley", (), "It is warm in Wellesley.", "passes", ALL_CODES),
]

#: The answers of every rule's Examples rows.
EXAMPLE_ANSWERS = {row.answer for rule in RULES for row in examples(rule)}


def test_the_old_rows_are_findings_md_s() -> None:
    by_commit = {
        commit: [row["line"] for row in OLD_ROWS if row["commit"] == commit]
        for commit in ("2df1526", "5ba4aa1")
    }
    assert (193, 6) == tuple(len(set(lines)) for lines in by_commit.values())
    assert len(OLD_ROWS) == 199
    assert all(row["row"].startswith("| ") and row["answers"] for row in OLD_ROWS)


@pytest.mark.parametrize("old", OLD_ROWS, ids=lambda old: f"{old['commit']}-{old['line']}")
def test_an_old_row_survives_as_rows(old: dict[str, object]) -> None:
    answers = old["answers"]
    assert isinstance(answers, list)
    kept = EXAMPLE_ANSWERS | {case.answer for case in TABLE}
    assert [answer for answer in answers if answer not in kept] == []


@pytest.mark.parametrize("case", TABLE, ids=lambda case: case.answer[:30])
def test_a_table_row_holds(case: Case) -> None:
    result = GroundingCheck(codes=case.codes)(case.question, list(case.chunks), case.answer)
    assert case.verdict == ("passes" if result.ok else "fails"), result.findings
