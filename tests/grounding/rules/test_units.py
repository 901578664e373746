"""
Units and bindings: a supported number's unit, and what it counts, agree with the chunks'.

Numbers bound to what they count (issue 21): a number stated for another
quantity is no support.

How the cases are made and where they came from: ``tests/grounding/README.md``.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grounding_verdicts import PASSES, failing_spans, fg001, flagged
from property_budget import examples
from relapse.grounding import default_grounding_check
from relapse.grounding._index.unit_lookup import UNRELATED, search_verdict, units_by_number
from relapse.grounding._values.keys import number_key


# from test_quantities.py (issue 21)
class TestUnitsOfOneDimension:
    @pytest.mark.parametrize(
        ("answer", "chunk", "expected"),
        [
            ("It costs 50 cents.", "It costs 50 dollars.", fg001("50")),
            ("It costs 50p.", "It costs \u00a350.", fg001("50")),
            ("It melts at 300 \u00b0C.", "It melts at 300 K.", fg001("300")),
            ("It costs 50 cents.", "It costs 50\u00a2.", PASSES),
            ("It costs 50p.", "It costs 50 pence.", PASSES),
            ("It melts at 300 K.", "It melts at 300 kelvin.", PASSES),
        ],
    )
    def test_units_differ(self, answer: str, chunk: str, expected: object) -> None:
        assert flagged(chunk, answer) == expected


# from test_quantity_writings.py (issue 21)
class TestNumbersOfDatesAndClocksCountNothing:
    """A chunk's ``30`` in ``30 June 2020``, ``2020-06-30`` or ``8:30`` is no ``30 minutes``."""

    @pytest.mark.parametrize(
        "chunk",
        [
            "The law took effect on 30 June 2020.",
            "The law took effect on the 30th of June.",
            "The law took effect on June 30th.",
            "The law took effect on 2020-06-30.",
            "The law took effect on 30/06/2020.",
            "The clinic opens at 8:30.",
            "The law took effect in the '30s.",
            "The law took effect in \u201930.",
        ],
    )
    def test_a_date_does_not_count_minutes(self, chunk: str) -> None:
        assert flagged(chunk, "The procedure takes 30 minutes.") == fg001("30")

    @pytest.mark.parametrize(
        ("answer", "chunk"),
        [
            ("The procedure takes 30 minutes.", "On 30 June 2020 it took 30 minutes."),
            ("It takes 10 minutes.", "It takes between 10-15 minutes."),
            ("The law took effect on 30 June 2020.", "The law took effect on 30 June 2020."),
            ("About 30 people came.", "About 30 people came on 30 June."),
            ("It ran 19 km.", "It was 3/4/19 when it ran 19 km."),
        ],
    )
    def test_the_same_number_elsewhere_still_counts(self, answer: str, chunk: str) -> None:
        assert flagged(chunk, answer) == PASSES


Findings = tuple[tuple[str, tuple[str, ...], tuple[tuple[int, int], ...]], ...]


def findings(chunks: list[str], answer: str, question: str = "") -> Findings:
    """Return ``(code, spans, offsets)`` of every finding of ``answer`` against ``chunks``."""
    result = default_grounding_check(question, chunks, answer)
    return tuple((f.code, f.spans, f.offsets) for f in result.findings)


MINUTES = "It takes 30 minutes."  # "30" at 9 = len("It takes ")


HIRED = "They hired 30 people."  # "30" at 11 = len("They hired ")


# Signs and a unit (findings.md, "Signs" and "Units"): the sign is part of the
# value, and a signed number's unit is compared as an unsigned one's is.
_SIGNS = ("-", "\u2212", "\u2013", "minus ", "negative ")


# from test_bound.py (issue 21)
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


# from test_bound.py (issue 21)
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


# from test_bound.py (issue 21)
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


# from test_bound.py (issue 21)
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

    @settings(max_examples=examples(300), deadline=None)
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


# from test_bound.py (issue 21)
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

    @settings(max_examples=examples(300), deadline=None)
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


# from test_bound.py (issue 21)
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


# from test_units.py
# The kinds of issue 12.
class TestUnits:
    @pytest.mark.parametrize(
        ("chunk", "answer", "expected"),
        [
            ("Water boils at 104 °F here.", "Water boils at 104 °C here.", ("104",)),
            ("It is 104 degrees Fahrenheit.", "It is 104 degrees Celsius.", ("104",)),
            ("The trail is 5 miles long.", "The trail is 5 km long.", ("5",)),
            ("The dose is 5 mg.", "The dose is 5 g.", ("5",)),
            ("It holds 2 gallons.", "It holds 2 liters.", ("2",)),
            ("It took 3 hours.", "It took 3 days.", ("3",)),
            ("It costs €40.", "It costs $40.", ("$40",)),
            ("It costs 40 euros.", "It costs $40.", ("$40",)),
            # The same unit, spelled otherwise, or no unit on one side.
            ("The trail is 5 kilometres long.", "The trail is 5 km long.", ()),
            ("The trail is 5 km long.", "The trail is 5 kilometers long.", ()),
            ("It took 3 hrs.", "It took 3 hours.", ()),
            ("Water boils at 104.", "Water boils at 104 °C.", ()),
            ("Water boils at 104 °C.", "Water boils at 104.", ()),
            ("It costs 40 dollars.", "It costs $40.", ()),
            # A unit of another dimension measures something else: not compared.
            ("Winds of 5 mph.", "Over the next 5 days.", ()),
            # One occurrence with the same unit is enough.
            ("It is 5 miles, or 5 km by road.", "It is 5 km.", ()),
        ],
    )
    def test_units_must_agree(self, chunk: str, answer: str, expected: tuple[str, ...]) -> None:
        """When the answer and the chunk both give a unit, they must be the same unit."""
        assert expected == failing_spans(chunk, answer)

    @pytest.mark.parametrize(
        ("chunk", "answer", "expected"),
        [
            # 104 °C is 219.2 °F: 203 is no conversion of it, nor in the chunk.
            ("It is 40 °C (104 °F).", "It is 104 °C (203 °F).", ("104", "203")),
            # 40 °C is 104 °F, computed.
            ("It is 40 °C.", "It is 40 °C (104 °F).", ()),
            ("It is 40 °C.", "It is 40 °C (100 °F).", ("100",)),
            # 0 °C is 32 °F, the degree sign glued to the unit's name.
            ("It is 0 °C.", "It is 0 °Celsius (32 °Fahrenheit).", ()),
            ("It is 0 °C.", "It is 0 °Celsius (23 °Fahrenheit).", ("23",)),
            # -40 °C is -40 °F.
            ("It is -40 °C.", "It is -40 °C (-40 °F).", ()),
            # 10 km is 6.21 miles.
            ("The race is 10 km.", "The race is 10 km (6.2 miles).", ()),
            ("The race is 10 km.", "The race is 10 km (8 miles).", ("8",)),
            # 5 kg is 11.02 lb.
            ("It weighs 5 kg.", "It weighs 5 kg (11 lb).", ()),
            ("It weighs 5 kg.", "It weighs 5 kg (15 lb).", ("15",)),
            # 2 cups is 473 ml.
            ("Add 2 cups of water.", "Add 2 cups (473 ml) of water.", ()),
            # 90 minutes is 1.5 hours.
            ("It takes 90 minutes.", "It takes 90 minutes (1.5 hours).", ()),
            ("It takes 90 minutes.", "It takes 90 minutes (2.5 hours).", ("2.5",)),
            # A currency conversion is not computed: the amount must be in a chunk.
            ("It costs £10.", "It costs £10 ($13).", ("$13",)),
            ("It costs £10, about $13.", "It costs £10 ($13).", ()),
        ],
    )
    def test_a_parenthesised_conversion_is_a_claim(
        self, chunk: str, answer: str, expected: tuple[str, ...]
    ) -> None:
        """The number in parentheses is supported, or the correct conversion of the one before."""
        assert expected == failing_spans(chunk, answer)

    @pytest.mark.parametrize(
        ("chunk", "answer"),
        [
            (
                "The Amazon discharges 209,000 cubic meters per second.",
                "It discharges 209,000 m3/s.",
            ),
            ("The lake covers 31,500 square kilometers.", "The lake covers 31,500 km2."),
            ("The tank holds 40 cubic centimeters.", "The tank holds 40 cm³."),
        ],
    )
    def test_unit_symbols_with_an_exponent_are_units(self, chunk: str, answer: str) -> None:
        """``m3/s``, ``km2`` and ``cm³`` are units, not the numbers 3 and 2."""
        assert () == failing_spans(chunk, answer)


# from test_units_more.py
class TestNumbersInWordsWithAUnit:
    @pytest.mark.parametrize(
        ("chunk", "answer", "expected"),
        [
            (
                "A first-class stamp costs 85 cents.",
                "It costs eighty-five dollars.",
                ("eighty-five",),
            ),
            ("A stamp costs 85 dollars.", "It costs eighty-five cents.", ("eighty-five",)),
            ("A stamp costs 85 dollars.", "It costs eighty-five dollars.", ()),
            ("The dose is 5 mg.", "The dose is five grams.", ("five",)),
            # No unit on one side: not compared.
            ("A stamp costs 85 dollars.", "It costs eighty-five.", ()),
            ("A stamp costs 85.", "It costs eighty-five dollars.", ()),
        ],
    )
    def test_a_number_in_words_has_its_unit_compared(
        self, chunk: str, answer: str, expected: tuple[str, ...]
    ) -> None:
        """A number in words with a unit is compared with the chunks' digits as digits are."""
        assert failing_spans(chunk, answer) == expected
