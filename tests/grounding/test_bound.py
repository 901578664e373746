"""
Numbers bound to what they count (issue 21): a number stated for another quantity is no support.

Each case is an answer, its chunks and the verdict a careful reader gives,
worked out by hand from the rule in ``docs/findings.md`` ("Numbers bound to
what they count"): the flagged spans with their offsets, or none. The cases
come in pairs where they can: the same claim against a chunk that binds the
number to something else, and against one that binds it to the same thing
or to nothing, so a rule that rejects every number, or none, fails here.
"""

from __future__ import annotations

import pytest

from relapse.grounding import default_grounding_check
from relapse.grounding._index.unit_lookup import (
    AGREE,
    FOREIGN,
    UNRELATED,
    search_verdict,
    units_by_number,
    verdict_of,
)
from relapse.grounding._values.keys import number_key
from relapse.grounding._values.units import AMBIGUOUS, PEOPLE, REFERENCE, binding_of, foreign

Findings = tuple[tuple[str, tuple[str, ...], tuple[tuple[int, int], ...]], ...]


def findings(chunks: list[str], answer: str) -> Findings:
    """Return ``(code, spans, offsets)`` of every finding of ``answer`` against ``chunks``."""
    result = default_grounding_check("", chunks, answer)
    return tuple((f.code, f.spans, f.offsets) for f in result.findings)


MINUTES = "It takes 30 minutes."  # "30" at 9 = len("It takes ")
HIRED = "They hired 30 people."  # "30" at 11 = len("They hired ")


class TestBoundElsewhere:
    @pytest.mark.parametrize(
        "chunk",
        [
            "See page 30 for details.",  # a page number
            "See p. 30.",
            "Details are in Table 30.",
            "It opened on May 30, long ago.",  # a day of a month
            "Article 30 forbids it.",
            "The dish serves 30 people.",  # people, not minutes
            "It weighs 30 kg.",  # a mass, not a time
            "The ticket is $30.",  # money
            "Set the oven to 30 °C.",  # a temperature
        ],
    )
    def test_minutes_are_not_supported(self, chunk: str) -> None:
        assert (("FG001", ("30",), ((9, 9 + 2),)),) == findings([chunk], MINUTES)

    @pytest.mark.parametrize(
        "chunk",
        [
            "The trial lasted 30 days.",  # a time
            "The room is 30 m2.",  # an area
            "See page 30.",  # a reference
            "Tickets cost $30.",  # money
        ],
    )
    def test_people_are_not_supported(self, chunk: str) -> None:
        assert (("FG001", ("30",), ((11, 11 + 2),)),) == findings([chunk], HIRED)


class TestBoundToTheSameOrNothing:
    @pytest.mark.parametrize(
        "chunk",
        [
            "Bake for 30 minutes.",  # the same unit
            "Bake for 30 min.",  # another spelling of it
            "Bake for 30-45 minutes.",  # a range's end: read bare
            "Bake 30.",  # bare
            "Bake for a 30-minute stretch.",  # hyphenated: bound to nothing the check reads
            "See page 30. Bake for 30 minutes.",  # one occurrence agrees
            "It weighs 30 kg. Bake for thirty minutes.",  # spelled out in a chunk
            "The walk: 1 h 30m.",  # "m" is metres, minutes or million: ambiguous
        ],
    )
    def test_minutes_are_supported(self, chunk: str) -> None:
        assert () == findings([chunk], MINUTES)

    @pytest.mark.parametrize(
        ("chunks", "answer"),
        [
            (["It weighs 30 kg."], "It takes 30m."),  # the answer's "m" is ambiguous
            (["They hired 30 nurses."], "They hired 30 engineers."),  # nouns: not judged
            (["About 30% of people."], HIRED),  # 30 of 100 people is 30%
            (["It costs £30."], "It costs 30 pounds."),  # pounds: money or mass
            (["It is 10 km/h."], "It moves 10 km per hour."),  # a speed against a length
            (["See page 2."], "2 people came."),  # a trivial number bare of a unit
            (["In March 30 people died."], "In March 30 people died."),  # people, not a date
            (["See page 30."], "See page 30."),  # a reference against a reference
            (["In May 30 were arrested."], HIRED),  # no date ends after "May 30": a count
            (["The ticket is $30."], "The ticket is 30 dollars."),
        ],
    )
    def test_supported(self, chunks: list[str], answer: str) -> None:
        assert () == findings(chunks, answer)

    @pytest.mark.parametrize("question", ["Is 30 minutes enough?", "Is thirty enough?"])
    def test_the_question_states_it(self, question: str) -> None:
        """The question binds 30 to minutes, or the check reads it in words: exempt."""
        result = default_grounding_check(question, ["See page 30."], MINUTES)
        assert result.findings == ()

    def test_the_question_binds_it_elsewhere_too(self) -> None:
        result = default_grounding_check("What is on page 30?", ["See page 30."], MINUTES)
        assert [(f.code, f.spans, f.offsets) for f in result.findings] == [
            ("FG001", ("30",), ((9, 9 + 2),))
        ]


class TestBindings:
    @pytest.mark.parametrize(
        ("text", "binding"),
        [
            ("30 minutes", "min"),
            ("$30", "$"),
            ("30 people", PEOPLE),
            ("page 30", REFERENCE),
            ("May 30", REFERENCE),
            ("May 30, 2020", REFERENCE),
            ("In May 30 were hurt", None),  # a count: no date ends after it
            ("\u00a7 30", REFERENCE),
            ("30m", AMBIGUOUS + "m"),
            ("30 h", AMBIGUOUS + "h"),
            ("30%", "%"),
            ("$30%", AMBIGUOUS + "$"),  # a currency and a percent: either
            ("30", None),
            ("homepage 30", None),  # "page" inside a word is no reference
        ],
    )
    def test_by_hand(self, text: str, binding: str | None) -> None:
        start = text.index("30") - (1 if text.startswith("$") else 0)
        end = text.index("30") + 2
        assert binding == binding_of(text, start, end)

    @pytest.mark.parametrize(
        ("unit", "binding", "expected"),
        [
            ("min", REFERENCE, True),
            ("min", PEOPLE, True),
            ("min", "kg", True),
            ("min", None, False),
            ("min", "min", False),
            ("min", AMBIGUOUS + "m", False),
            ("lb", "£", False),  # mass and money are close: "pounds"
            ("km", "km/h", False),  # a length and a speed are close
            ("%", PEOPLE, False),
            (PEOPLE, "%", False),
            (PEOPLE, "day", True),
            (PEOPLE, PEOPLE, False),
        ],
    )
    def test_foreign(self, unit: str, binding: str | None, expected: bool) -> None:
        assert expected is foreign(unit, binding)

    @pytest.mark.parametrize(
        ("texts", "verdict"),
        [
            (["See page 30."], FOREIGN),
            (["See page 30.", "Wait 30."], AGREE),
            (["The walk: 30m."], UNRELATED),
            (["Nothing here."], UNRELATED),  # no occurrence: nothing to say
        ],
    )
    def test_verdicts_both_ways(self, texts: list[str], verdict: str) -> None:
        key = number_key("30", "", 0)
        assert verdict == search_verdict(texts, key, "min")
        assert verdict == verdict_of(units_by_number(texts).get(key, frozenset()), "min")
