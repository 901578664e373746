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
from hypothesis import given, settings
from hypothesis import strategies as st

from grounding_verdicts import PASSES, failing_spans, fg001, flagged
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
from relapse.grounding._values.units import (
    AMBIGUOUS,
    MULTIPLIER,
    PEOPLE,
    REFERENCE,
    SCALE,
    binding_of,
    foreign,
)

Findings = tuple[tuple[str, tuple[str, ...], tuple[tuple[int, int], ...]], ...]


def findings(chunks: list[str], answer: str, question: str = "") -> Findings:
    """Return ``(code, spans, offsets)`` of every finding of ``answer`` against ``chunks``."""
    result = default_grounding_check(question, chunks, answer)
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
            "The farm keeps 30 cows.",  # a plural noun it counts
            "The empire lasted 30 decades.",  # a time the check has no unit for
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
            (["The farm keeps 30 cows."], "The farm keeps 30 animals."),  # counts, both
            (["It weighs 30 kgs."], "It weighs 30 kg."),  # a unit made plural
            (["It lasted 30 mths."], "It lasted 30 months."),  # an abbreviation of the unit
            (["It lasted 30 mos."], "It lasted 30 months."),
            (["Of the 30 was dropped."], MINUTES),  # a verb counts nothing
            (["A 30 bonus applies."], MINUTES),  # singular
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


class TestWordsWithNoPluralS:
    """
    Currencies named in words, the stone, and count nouns whose plural has no ``s``.

    Each binds a chunk's number as a unit or a plural noun does: ``50 yuan``
    is no ``50 cents``, ``12 stone`` no ``12 kg``, ``50 head of cattle`` no
    ``50 litres``. Offsets: ``It cost `` and ``A fare of `` are 8 and 10
    characters, ``He weighed `` 11, ``The ranch makes `` 16, ``It holds `` 9,
    ``It costs `` 9, ``It took `` 8.
    """

    @pytest.mark.parametrize(
        ("chunk", "answer", "span", "offsets"),
        [
            ("It cost 50 yuan.", "It cost 50 cents.", "50", (8, 10)),
            ("It cost 50 renminbi.", "It cost 50 euros.", "50", (8, 10)),
            ("A fare of 50 baht.", "A fare of $50.", "$50", (10, 13)),
            ("It costs 200 kronor.", "It costs 200 euros.", "200", (9, 12)),
            ("It costs 200 rand.", "It costs 200 euros.", "200", (9, 12)),
            ("It costs 200 euros.", "It costs 200 rand.", "200", (9, 12)),
            ("It costs 200 francs.", "It costs 200 shekels.", "200", (9, 12)),
            ("He weighed 12 stone.", "He weighed 12 kg.", "12", (11, 13)),
            (
                "The ranch keeps 50 head of cattle.",
                "The ranch makes 50 litres a day.",
                "50",
                (16, 18),
            ),
            ("The farm keeps 40 sheep.", "It holds 40 kg.", "40", (9, 11)),
            ("The 30 fish were sold.", "It took 30 minutes.", "30", (8, 10)),
        ],
    )
    def test_another_quantity_is_not_supported(
        self, chunk: str, answer: str, span: str, offsets: tuple[int, int]
    ) -> None:
        assert answer[offsets[0] : offsets[1]] == span
        assert (("FG001", (span,), (offsets,)),) == findings([chunk], answer)

    @pytest.mark.parametrize(
        ("chunk", "answer"),
        [
            ("It cost 50 yuan.", "It cost 50 yuan."),
            ("It cost 50 Yuan.", "It cost 50 yuan."),
            ("It cost 50 yuan.", "It cost 50 CNY."),
            # The sign is written for the yuan as well as the yen.
            ("It cost ¥50.", "It cost 50 yuan."),
            ("It cost 50 yuan.", "It cost ¥50."),
            ("It costs 200 kr.", "It costs 200 kronor."),
            ("He weighed 12 stone.", "He weighed 12 stone."),
            # 12 stone is 76.2 kg (pint: 12 * 6.35029318).
            ("He weighed 12 stone.", "He weighed 76 kg."),
            ("The ranch keeps 50 head of cattle.", "The ranch keeps 50 cattle."),
            ("The 30 fish were sold.", "They sold 30 fish."),
            ("The 30 fish were sold.", "They sold 30 of them."),  # bare in the answer
        ],
    )
    def test_the_same_quantity_is_supported(self, chunk: str, answer: str) -> None:
        assert () == findings([chunk], answer)


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
            ("30 cows", PEOPLE),  # a plural noun: what it counts
            ("30 decades", PEOPLE),
            ("30 kgs", None),  # a unit's abbreviation made plural: no noun
            ("30 was", None),
            ("30 bonus", None),  # singular: "-us", "-is", "-ss"
            ("30 basis", None),
            ("30 glass", None),
            ("30 Cities", None),  # a title's capital: not read
            ("page 30 cows", REFERENCE),  # the reference is read first
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
            ("%", REFERENCE, True),  # "page 62" is no 62%
            ("%", "min", True),
            ("%", "$", True),
            ("%", SCALE, True),  # "62 million" is no 62%
            ("$", SCALE, False),  # "$3.8 billion" still grounds a bare "$3.8"
            ("min", SCALE, False),
            (PEOPLE, SCALE, True),  # "62 million users" is no 62 users
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


# Signs and a unit (findings.md, "Signs" and "Units"): the sign is part of the
# value, and a signed number's unit is compared as an unsigned one's is.
_SIGNS = ("-", "\u2212", "\u2013", "minus ", "negative ")


class TestSignedUnits:
    @pytest.mark.parametrize(
        ("chunk", "answer", "span", "offsets"),
        [
            # "Temperatures fell to " is 21 characters.
            (
                "Temperatures fell to -5 °C overnight.",
                "Temperatures fell to -5 °F overnight.",
                "-5",
                (21, 23),
            ),
            ("The low was \u221212 °C.", "The low was \u221212 °F.", "\u221212", (12, 15)),
            # kelvin written "K" after a space is ambiguous, but conflicts as kelvin.
            (
                "Absolute zero is 0 K, or \u2212273.15 °C.",
                "It is \u2212273.15 K.",
                "\u2212273.15",
                (6, 13),
            ),
            # The chunk's "m" is ambiguous: a length still, against km.
            (
                "The level dropped by \u22122.5 m.",
                "The level dropped by \u22122.5 km.",
                "\u22122.5",
                (21, 25),
            ),
            ("The change was -30 kg.", "The change was -30 lb.", "-30", (15, 18)),
            # The currency symbol after the sign is the claim's, and its unit.
            ("The change was \u2212$30.", "The change was \u2212€30.", "\u2212€30", (15, 19)),
            ("The balance was -$500.", "The balance was -500 cents.", "-500", (16, 20)),
            ("It took -5 minutes.", "It took -5 hours.", "-5", (8, 10)),
            # A percent and a temperature: plainly another quantity (FOREIGN).
            ("The change was \u221240%.", "The change was \u221240 °C.", "\u221240", (15, 18)),
            # An en dash and the sign words sign a number too.
            ("It fell to \u20135 °C.", "It fell to \u20135 °F.", "\u20135", (11, 13)),
            ("It fell to -5 °C.", "It fell to minus 5 °F.", "minus 5", (11, 18)),
            ("It fell to negative 5 °C.", "It fell to -5 °F.", "-5", (11, 13)),
        ],
    )
    def test_another_unit_is_not_supported(
        self, chunk: str, answer: str, span: str, offsets: tuple[int, int]
    ) -> None:
        assert answer[offsets[0] : offsets[1]] == span
        assert (("FG001", (span,), (offsets,)),) == findings([chunk], answer, "What was the low?")

    @pytest.mark.parametrize(
        ("chunk", "answer"),
        [
            ("Temperatures fell to -5 °C overnight.", "Temperatures fell to -5 °C overnight."),
            ("The level dropped by \u22122.5 m.", "The level dropped by -2.5 m."),
            ("The change was \u2212$30.", "The change was -$30."),
            ("Temperatures fell to -5 °C overnight.", "Temperatures fell to minus 5 °C overnight."),
            ("It fell to -5 overnight.", "It fell to -5 °C overnight."),  # no unit in the chunk
            ("It fell to -5 °C.", "It fell to -5."),  # none in the answer
            ("It fell to -5 °F, then to -5 °C.", "It fell to -5 °C."),  # one occurrence agrees
        ],
    )
    def test_the_same_unit_is_supported(self, chunk: str, answer: str) -> None:
        assert () == findings([chunk], answer, "What was the low?")

    def test_an_unsigned_number_is_compared_with_unsigned_occurrences(self) -> None:
        """The chunk's ``−5 °C`` is not an occurrence of 5: its ``5 °F`` is the only one."""
        assert (("FG001", ("5",), ((7, 8),)),) == findings(
            ["It was \u22125 °C, later 5 °F."], "It was 5 °C."
        )
        assert () == findings(["It was \u22125 °F, later 5 °C."], "It was 5 °C.")

    def test_the_lookup_reads_the_sign(self) -> None:
        signed = ("-n", "5", 0)
        for text in ("It was -5 °F.", "It was \u22125 °F.", "It was minus 5 °F.", "(-5 °F)"):
            assert search_verdict([text], signed, "°C") == "conflict"
            assert units_by_number([text])[signed] == frozenset({"°F"})
            assert search_verdict([text], number_key("5"), "°C") == UNRELATED
        # A hyphen after a number or a letter is no sign.
        for text in ("It was 10-5 °F.", "GPT-5 °F"):
            assert search_verdict([text], signed, "°C") == UNRELATED

    @settings(max_examples=300, deadline=None)
    @given(
        chunk_sign=st.sampled_from(_SIGNS),
        answer_sign=st.sampled_from(_SIGNS),
        units=st.sampled_from(
            [
                (a, b)
                for group in (
                    ("°C", "°F", "kelvin"),
                    ("nm", "mm", "cm", "m", "km", "inches", "feet", "yards", "miles"),
                )
                for a in group
                for b in group
            ]
        ),
        whole=st.integers(3, 99_999),
        decimals=st.sampled_from(["", ".5", ".25", ".15"]),
    )
    def test_a_signed_value_is_supported_by_its_own_unit_only(
        self, chunk_sign: str, answer_sign: str, units: tuple[str, str], whole: int, decimals: str
    ) -> None:
        """For every sign form and two units of one dimension: supported iff the units are one."""
        chunk_unit, answer_unit = units
        value = f"{whole}{decimals}"
        chunk = f"The reading was {chunk_sign}{value} {chunk_unit} at noon."
        answer = f"The reading was {answer_sign}{value} {answer_unit} at noon."
        codes = [code for code, _, _ in findings([chunk], answer)]
        assert codes == ([] if chunk_unit == answer_unit else ["FG001"])


# A percent is bound as other units are (findings.md, "Numbers bound to what
# they count"): a chunk number bound only to another dimension, a scale word
# or a reference is no support of the answer's percent.
class TestPercentBoundElsewhere:
    @pytest.mark.parametrize(
        ("chunk", "answer", "span", "offsets"),
        [
            # "Turnout was " is 12 characters, "The rate is " 12, "The fee is " 11.
            ("See page 62.", "Turnout was 62%.", "62%", (12, 15)),
            ("It takes 45 minutes.", "The rate is 45%.", "45%", (12, 15)),
            ("The fee is 45 kg.", "The fee is 45 percent.", "45 percent", (11, 21)),
            ("The temperature is 45 °C.", "The rate is 45%.", "45%", (12, 15)),
            ("The fee is $45.", "The fee is 45%.", "45%", (11, 14)),
            ("The car reached 62 mph.", "Turnout was 62%.", "62%", (12, 15)),
            ("Turnout was 62 million voters.", "Turnout was 62%.", "62%", (12, 15)),
            # "Revenue grew " is 13 characters.
            ("Revenue was $4.2 billion.", "Revenue grew 4.2%.", "4.2%", (13, 17)),
            ("See page 62.", "Turnout was 62 per cent.", "62 per cent", (12, 23)),
            ("It fell \u221240 °C.", "It fell \u221240%.", "\u221240%", (8, 12)),
        ],
    )
    def test_not_supported(
        self, chunk: str, answer: str, span: str, offsets: tuple[int, int]
    ) -> None:
        assert answer[offsets[0] : offsets[1]] == span
        assert (("FG001", (span,), (offsets,)),) == findings([chunk], answer, "What was turnout?")

    @pytest.mark.parametrize(
        "chunk",
        [
            "Turnout was 62 people.",  # a counted noun: a documented non-goal
            "Turnout was 62 percent.",
            "Turnout was 62 per cent.",
            "Turnout was 62%.",
            "Region | Turnout\nNorth | 62\nSouth | 55",  # a bare number in a table
            "Turnout was 62.",
            "See page 62. Turnout was 62.",  # one occurrence bound to nothing
            "Of 62 million voters, 62% came.",  # one occurrence agrees
            "Sixty-two came; see page 62.",  # spelled out in a chunk
        ],
    )
    def test_supported(self, chunk: str) -> None:
        assert () == findings([chunk], "Turnout was 62%.", "What was turnout?")

    def test_a_ratio_still_supports_it(self) -> None:
        """``45%`` is the chunk's ratio 0.45, whatever its ``45 minutes`` count."""
        assert () == findings(["A share of 0.45 voted. It takes 45 minutes."], "The rate is 45%.")

    def test_a_scale_word_binds_its_mantissa_for_a_percent_only(self) -> None:
        """``$3.8 billion`` grounds ``$3.8``; ``page 30`` and ``30 million`` no ``30 minutes``."""
        assert () == findings(["Revenue was $3.8 billion."], "Revenue was $3.8.")
        assert (("FG001", ("30",), ((9, 11),)),) == findings(
            ["See page 30. Sales hit 30 million."], MINUTES
        )

    @settings(max_examples=300, deadline=None)
    @given(
        writing=st.sampled_from(
            [
                "{} minutes",
                "{} kg",
                "{} °C",
                "${}",
                "€{}",
                "{} mph",
                "{} km",
                "{} million",
                "{} billion",
                "page {}",
                "Table {}",
            ]
        ),
        whole=st.integers(3, 999),
        decimals=st.sampled_from(["", ".5", ".25"]),
        percent=st.sampled_from(["%", " %", " percent", " per cent"]),
    )
    def test_a_number_bound_elsewhere_never_supports_a_percent(
        self, writing: str, whole: int, decimals: str, percent: str
    ) -> None:
        value = f"{whole}{decimals}"
        chunk = f"The figure was {writing.format(value)}, it said."
        answer = f"The share was {value}{percent}, it said."
        assert [code for code, _, _ in findings([chunk], answer)] == ["FG001"]
        # The same digits bare, as a percent, or counting people do.
        for grounding in (value, f"{value}%", f"{value} percent", f"{value} people"):
            assert () == findings([f"The figure was {grounding}, it said."], answer)


#: Each scale word the scanner reads, in another case or abbreviated, and the word it stands for.
_SCALE_WRITINGS = [
    ("mln", "million"),
    ("mn", "million"),
    ("Million", "million"),
    ("MLN", "million"),
    ("bln", "billion"),
    ("bn", "billion"),
    ("Billion", "billion"),
    ("tn", "trillion"),
]


class TestScaleWordsBindAsTheScannerReadsThem:
    """The unit lookup reads the scale words the scanner reads: ``62 mln`` as ``62 million``."""

    @pytest.mark.parametrize(("written", "word"), _SCALE_WRITINGS)
    @pytest.mark.parametrize(
        "answer",
        [
            "Sales grew 62%.",
            "Sales reached 62 km.",
            "Sales reached $62 billion.",
            "Sales reached 62 million units.",
            "It had 62 units.",
            "It shipped 62 million kg.",
        ],
    )
    def test_the_same_verdict_as_the_word(self, written: str, word: str, answer: str) -> None:
        def verdict(scale: str) -> object:
            return default_grounding_check("q", [f"It shipped 62 {scale} tonnes."], answer).ok

        assert verdict(written) == verdict(word)

    @pytest.mark.parametrize(("written", "_word"), _SCALE_WRITINGS)
    def test_a_mantissa_is_no_percent(self, written: str, _word: str) -> None:
        # 62 of "62 mln" counts millions: no 62% (as of "62 million").
        chunk = f"Sales reached 62 {written} units."
        assert failing_spans(chunk, "Sales grew 62%.") == ("62%",)

    @pytest.mark.parametrize(
        "chunk",
        [
            "The app has 62 million users.",
            "The app has 62 mln users.",
            "The app has 62bn users.",
            # Letters glued where the scanner reads them as the scale.
            "The app has 62m users.",
            "The app has 62M users.",
            "The app has 62.0M users.",
        ],
    )
    def test_a_mantissa_is_no_count_of_people(self, chunk: str) -> None:
        # 62 of "62 million users" counts millions of users: no 62 users.
        assert failing_spans(chunk, "The app has 62 users.") == ("62",)

    @pytest.mark.parametrize(
        ("chunk", "answer"),
        [
            ("The app has 62m users.", "The app has 62 million users."),
            ("The app has 62M users.", "The app has 62 million users."),
            ("The app has 62 million users.", "The app has 62 million users."),
            # One occurrence of 62 counts users.
            ("The app has 62 users and 62 million downloads.", "The app has 62 users."),
            # A small m before no people or unit word is the metre, not the scale.
            ("It ran the 62m dash with 40 users.", "It had 62 users."),
            # A bare mantissa is still grounded, as before.
            ("Revenue was $3.8 billion.", "Revenue was 3.8."),
        ],
    )
    def test_a_count_of_people_is_supported(self, chunk: str, answer: str) -> None:
        assert failing_spans(chunk, answer) == ()

    def test_the_unit_after_an_abbreviated_scale(self) -> None:
        # 5 mln tonnes is 5 million t: 5 million kg is another mass.
        chunk = "It shipped 5 mln tonnes."
        assert failing_spans(chunk, "It shipped 5 million kg.") == ("5 million",)
        assert failing_spans(chunk, "It shipped 5 million tonnes.") == ()


#: Every writing of a percent after a number, as the answer or a chunk may write it.
_PERCENT_WRITINGS = [
    "%",
    "\u066a",
    "\uff05",
    " percent",
    " Percent",
    " PERCENT",
    " per cent",
    " Per Cent",
    " PER CENT",
    " per\u00a0cent",
    " pct",
    " Pct",
    " PCT",
]


class TestPercentInEveryCase:
    """Each reader of a percent reads one list of its writings, in every case they are written."""

    @pytest.mark.parametrize("percent", _PERCENT_WRITINGS)
    def test_an_answer_percent_is_bound_to_percent(self, percent: str) -> None:
        answer = f"Turnout was 62{percent}."
        # A page, a speed: plainly no percent.
        assert failing_spans("See page 62.", answer) == (f"62{percent}",)
        assert failing_spans("The car reached 62 mph.", answer) == (f"62{percent}",)
        # A percent however written, a bare 62 and the ratio ground it.
        for chunk in ("Turnout was 62%.", "North | 62", "Turnout was 0.62."):
            assert failing_spans(chunk, answer) == (), chunk

    @pytest.mark.parametrize("percent", _PERCENT_WRITINGS)
    def test_a_chunk_percent_grounds_every_writing(self, percent: str) -> None:
        chunk = f"Turnout was 62{percent}."
        for answer in ("Turnout was 62%.", "Turnout was 62 per cent.", "Turnout was 62 PCT."):
            assert failing_spans(chunk, answer) == (), answer

    @pytest.mark.parametrize("percent", [" Percent", " PER CENT", " Pct"])
    def test_numbers_in_words_before_a_percent(self, percent: str) -> None:
        # "Fifty Percent" is a share; "minus five Percent" a signed change.
        assert failing_spans(f"Fifty{percent} of voters came.", "Half of voters came.") == ()
        assert failing_spans("It fell 5%.", f"It fell minus five{percent}.") == ("minus five",)


class TestASignAfterTheCurrency:
    """``$-3.2 million`` is ``-$3.2 million``: a minus after a currency symbol is the sign."""

    @pytest.mark.parametrize(
        ("chunk", "answer", "expected"),
        [
            ("It lost $-3.2 million.", "It lost $3.2 million.", ("$3.2 million",)),
            ("It lost $3.2 million.", "It lost $-3.2 million.", ("$-3.2 million",)),
            ("It lost -$3.2 million.", "It lost $-3.2 million.", ()),
            ("It lost $-3.2 million.", "It lost -$3.2 million.", ()),
            ("It lost $-3.2 million.", "It lost $\u22123.2 million.", ()),
            ("It lost $ -30.", "It lost -$30.", ()),
            # The currency is still compared.
            ("It lost €-30.", "It lost $-30.", ("$-30",)),
            ("It lost $-30.", "It lost €-30.", ("€-30",)),
            # A range's dash is no sign.
            ("Prices range $5-$10.", "Prices range $5-$10.", ()),
            ("It costs $5-10.", "It costs $10.", ()),
        ],
    )
    def test_sign_after_the_currency(
        self, chunk: str, answer: str, expected: tuple[str, ...]
    ) -> None:
        assert failing_spans(chunk, answer) == expected


class TestMultipliers:
    """
    A multiplier (``sevenfold``, ``7-fold``, ``7x``) is a ratio, foreign to a percent (issue 38).

    ``Prices rose sevenfold`` passed on a chunk's ``7 percent``: a number in
    words that multiplies was bound to nothing, so any 7 supported it.
    """

    @pytest.mark.parametrize(
        ("chunk", "answer", "expected"),
        [
            ("Prices rose 7 percent.", "Prices rose sevenfold.", fg001("sevenfold")),
            ("Prices rose 7%.", "Prices rose sevenfold.", fg001("sevenfold")),
            ("Prices rose 7%.", "Prices rose 7-fold.", fg001("7")),
            ("Prices rose 7%.", "Prices rose 7x.", fg001("7")),
            ("Prices rose 7 kg.", "Prices rose sevenfold.", fg001("sevenfold")),
            ("See page 7.", "Prices rose sevenfold.", fg001("sevenfold")),
            # The other way: a percent is no multiplier either.
            ("Prices rose 7x.", "Prices rose 7%.", fg001("7%")),
            ("Prices rose 7-fold.", "Prices rose 7 percent.", fg001("7 percent")),
            # Every writing of a multiplier supports every other.
            ("Prices rose 7-fold.", "Prices rose sevenfold.", PASSES),
            ("Prices rose 7x.", "Prices rose sevenfold.", PASSES),
            ("Prices rose 7 fold.", "Prices rose 7x.", PASSES),
            ("Prices rose sevenfold.", "Prices rose 7-fold.", PASSES),
            ("Prices rose 7\u00d7.", "Prices rose sevenfold.", PASSES),
            # "7 times" is a multiplier or a count of occasions: it supports both.
            ("Prices rose 7 times.", "Prices rose sevenfold.", PASSES),
            ("She won 7 titles.", "She won 7 times.", PASSES),
            # Bound to nothing: supported, as every bare number is.
            ("Prices rose to 7.", "Prices rose sevenfold.", PASSES),
        ],
    )
    def test_a_multiplier(self, chunk: str, answer: str, expected: object) -> None:
        assert flagged(chunk, answer) == expected

    def test_bindings(self) -> None:
        assert binding_of("It rose sevenfold.", 8, 17) == MULTIPLIER
        assert binding_of("It rose 7-fold.", 8, 9) == MULTIPLIER
        assert binding_of("It rose 7x.", 8, 9) == MULTIPLIER
        assert binding_of("A size 7xl shirt.", 7, 8) != MULTIPLIER  # no times sign: a word
        assert foreign(MULTIPLIER, "%")
        assert foreign("%", MULTIPLIER)
        assert not foreign(MULTIPLIER, PEOPLE)
        assert not foreign(PEOPLE, MULTIPLIER)
