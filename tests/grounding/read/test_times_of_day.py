"""
Writings of one value that hostile testing found read as another (issue 21).

Clocks (the 24-hour clock's padded hour and ``1700 hours``, British times), eras (after a
grouped year, glued, after a year in words), decimal commas in chunks, scale
letters and words (``8.4M``, ``mln``, ``$4.2MM``), signs and percents in
words, shares, centuries in words, corner bracket forms, and the numbers of
dates and clocks, which count nothing; then what a regression hunt found
these readings must leave alone. Each case is an answer, a chunk and the
verdict a careful reader gives, worked out by hand; they come in pairs where
they can (the same claim against a chunk that supports it and one that does
not).
"""

from __future__ import annotations

import pytest

from grounding_verdicts import PASSES, failing_spans, fg001, fg002, flagged


class TestTheTwentyFourHourClock:
    """A zero-padded hour is the 24-hour clock's: ``08:15`` is 8:15 in the morning only."""

    @pytest.mark.parametrize(
        ("answer", "chunk", "expected"),
        [
            ("The train leaves at 20:15.", "The train leaves at 08:15.", fg001("20:15")),
            ("The train leaves at 8:15 pm.", "The train leaves at 08:15.", fg001("8:15 pm")),
            ("The train leaves at 08:15.", "The train leaves at 20:15.", fg001("08:15")),
            ("The train leaves at 08:15.", "The train leaves at 8:15 pm.", fg001("08:15")),
            ("It closes at 05:00.", "The museum closes at 5 pm.", fg001("05:00")),
            ("Doors open at 00:00.", "Doors open at 12:00 p.m.", fg001("00:00")),
            ("Open 8 a.m. to 8 p.m.", "Open 08:00 to 18:00.", fg001("8 p.m.")),
            ("The train leaves at 8:15 am.", "The train leaves at 08:15.", PASSES),
            ("The train leaves at 8:15.", "The train leaves at 08:15.", PASSES),
            ("The train leaves at 08:15.", "The train leaves at 8:15 am.", PASSES),
            ("Doors open at 00:30.", "Doors open at 12:30 am.", PASSES),
            # Without a leading zero the hour may be either half, as before.
            ("The train leaves at 20:15.", "The train leaves at 8:15.", PASSES),
        ],
    )
    def test_padded_hours(self, answer: str, chunk: str, expected: object) -> None:
        assert flagged(chunk, answer) == expected

    @pytest.mark.parametrize(
        ("answer", "chunk", "expected"),
        [
            # Four digits before "hours": the time after a preposition of time
            # or with a leading zero, else a count; never the year 1700.
            ("The train leaves at 1700 hours.", "The train leaves at 17:00.", PASSES),
            ("The train leaves at 1700 hours.", "The train leaves at 5 pm.", PASSES),
            ("The train leaves at 1700 hours.", "The train leaves at 5 am.", fg001("1700")),
            ("The train leaves at 1700 hours.", "The train leaves at 18:00.", fg001("1700")),
            ("The train leaves at 5 pm.", "The train leaves at 1700 hours.", PASSES),
            ("The train leaves at 5 am.", "The train leaves at 1700 hours.", fg001("5 am")),
            ("Reveille is 0600 hrs.", "Reveille is at 6 am.", PASSES),
            ("Reveille is 0600 hrs.", "Reveille is at 6 pm.", fg001("0600")),
            ("He logged 1700 hours of flight.", "He logged 1,700 hours of flight.", PASSES),
            ("He logged 1800 hours of flight.", "He logged 1,700 hours of flight.", fg001("1800")),
            ("In 1800 the town grew.", "In 1700 the town grew.", fg002("1800")),
        ],
    )
    def test_four_digits_before_hours(self, answer: str, chunk: str, expected: object) -> None:
        assert flagged(chunk, answer) == expected


class TestErasOfGroupedYears:
    """An era after a year with a thousands separator is the year's era: ``10,000 BC``."""

    @pytest.mark.parametrize(
        ("answer", "chunk", "expected"),
        [
            ("Farming began in 10,000 AD.", "Farming began in 10,000 BC.", fg002("10,000 AD")),
            ("Farming began in 12,000 BC.", "Farming began 12,000 years ago.", fg002("12,000 BC")),
            (
                "Farming began 3,000 years BC.",
                "Farming began 3,000 years ago.",
                fg002("3,000 years BC"),
            ),
            ("Farming began 12,000 years ago.", "Farming began in 12,000 BC.", fg001("12,000")),
            ("Farming began in 10,000 BCE.", "Farming began in 10000 BCE.", PASSES),
            ("Farming began in 10000 BC.", "Farming began in 10,000 BCE.", PASSES),
            ("It was built in 2560 BC.", "It was built in 2,560 BC.", PASSES),
        ],
    )
    def test_grouped_years(self, answer: str, chunk: str, expected: object) -> None:
        assert flagged(chunk, answer) == expected


class TestADecimalCommaInAChunkIsOneNumber:
    """
    ``2,5`` in a chunk may be the list 2, 5; ``3,75 %``, ``0,25 mm`` and ``1.299,99 €`` may not.

    A number that is plainly one (grouped, a percent, money, with a unit, or
    with a digit no list item starts with) supports neither its integer part
    alone nor its decimals alone.
    """

    @pytest.mark.parametrize(
        ("answer", "chunk", "expected"),
        [
            ("The rate is 75%.", "The rate is 3,75 %.", fg001("75%")),
            ("The rate is 5%.", "Der Zinssatz liegt bei 4,5 %.", fg001("5%")),
            ("The rate is 4%.", "Der Zinssatz liegt bei 4,5 %.", fg001("4%")),
            ("The rate is 4.5%.", "Der Zinssatz liegt bei 4,5 %.", PASSES),
            ("It is 25 mm thick.", "Die Schicht ist 0,25 mm dick.", fg001("25")),
            ("It is 0.25 mm thick.", "Die Schicht ist 0,25 mm dick.", PASSES),
            ("It weighs 75 kg.", "The parcel weighs 2,75 kg.", fg001("75")),
            ("The price is €99.", "Der Preis beträgt 1.299,99 €.", fg001("€99")),
            ("The price is €1,299.", "Der Preis beträgt 1.299,99 €.", fg001("€1,299")),
            ("The price is €1,299.99.", "Der Preis beträgt 1.299,99 €.", PASSES),
            ("The price is €75.", "Le prix est de 2\u202f450,75 €.", fg001("€75")),
            ("The price is €450.", "Le prix est de 2\u00a0450,75 €.", fg001("€450")),
            ("The price is €2,450.75.", "Le prix est de 2\u00a0450,75 €.", PASSES),
            ("It is 5 mm.", "Rainfall is 1 234,5 mm per year.", fg001("5")),
            ("It is 1,234.5 mm.", "Rainfall is 1 234,5 mm per year.", PASSES),
            ("The margin was 5%.", "The margin was 12,5 %.", fg001("5%")),
            # A bare pair of small numbers may still be a list.
            ("See items 2, 5 and 7.", "See items 2,5 and 7.", PASSES),
        ],
    )
    def test_one_number(self, answer: str, chunk: str, expected: object) -> None:
        assert flagged(chunk, answer) == expected


class TestACapitalMGluedIsAMillion:
    """
    ``8.4M residents`` is 8.4 million, as ``$8.4M`` is, and ``3B units`` 3 billion.

    A small ``m`` is a million before people or a unit (``62m users``, ``5m
    tonnes``), and else stays metres (``400m hurdles``).
    """

    @pytest.mark.parametrize(
        ("answer", "chunk", "expected"),
        [
            (
                "The city has 8.4M residents.",
                "The city has 8.4 billion residents.",
                fg001("8.4M"),
            ),
            ("The city has 8.4M residents.", "The city has 8.4 million residents.", PASSES),
            ("Sales totalled 3M units.", "Sales totalled 3 thousand units.", fg001("3M")),
            ("Sales totalled 2.5M units.", "Sales totalled 2,500,000 units.", PASSES),
            ("Sales totalled 0.3M units.", "Sales totalled 300,000 units.", PASSES),
            ("Sales totalled 2.5 million units.", "Sales totalled 2.5M units.", PASSES),
            (
                "Sales totalled 2.5 billion units.",
                "Sales totalled 2.5M units.",
                fg001("2.5 billion"),
            ),
            ("She ran 100m in 10.5 seconds.", "She ran 100 m in 10.5 seconds.", PASSES),
            ("They sold 3B units.", "They sold 3 billion units.", PASSES),
            ("They sold 3B units.", "They sold 3 million units.", fg001("3B")),
            ("They sold 3B units.", "They sold 3 units.", fg001("3B")),
            ("It is worth 1.5B.", "It is worth 1.5 billion.", PASSES),
            ("They sold 3 billion units.", "They sold 3B units.", PASSES),
            ("See Form 3B.", "See Form 3B.", PASSES),  # a label, read as one
            ("The app has 62m users.", "The app has 62 million users.", PASSES),
            ("The app has 62m users.", "The app has 62 users.", fg001("62m")),
            ("The app has 62m users.", "The app has 15 million users.", fg001("62m")),
            ("The app has 62 million users.", "The app has 62m users.", PASSES),
            ("They shipped 5m tonnes.", "They shipped 5 million tonnes.", PASSES),
            ("She won the 400m hurdles.", "She won the 400 metres hurdles.", PASSES),
            ("She won the 400 metres hurdles.", "She won the 400m hurdles.", PASSES),
        ],
    )
    def test_scale_letter(self, answer: str, chunk: str, expected: object) -> None:
        assert flagged(chunk, answer) == expected


class TestErasWrittenOtherwise:
    """An era glued to its year (``44BC``), after a year in words; ``bc`` in lower case is none."""

    @pytest.mark.parametrize(
        ("answer", "chunk", "expected"),
        [
            ("Caesar died in 44BC.", "Caesar died in 44 BC.", PASSES),
            ("Caesar died in 44BC.", "Caesar died in 44 AD.", fg002("44BC")),
            ("It was built in 79AD.", "It was built in 79 AD.", PASSES),
            # Lower case "bc" is "because" as often: no era ("rated it 4 bc the staff").
            ("They rated it 4.", "They rated it 4 bc the staff were nice.", PASSES),
            ("Caesar died in forty-four BC.", "Caesar died in 44 BC.", PASSES),
            ("Caesar died in forty-four BC.", "Caesar died in 44 AD.", fg002("forty-four BC")),
            # "forty-four AD" is 44, which a chunk's 44 BC is not.
            ("Caesar died in forty-four AD.", "Caesar died in 44 BC.", fg001("forty-four")),
            ("Caesar died in forty-four BC.", "Caesar died in forty-four BC.", PASSES),
            (
                "About 12,000 BC Hydro customers lost power.",
                "12,000 customers of BC Hydro lost power.",
                PASSES,
            ),
            (
                "About 12,000 customers lost power.",
                "About 12,000 BC Hydro customers lost power.",
                PASSES,
            ),
        ],
    )
    def test_eras(self, answer: str, chunk: str, expected: object) -> None:
        assert flagged(chunk, answer) == expected


class TestBritishTimes:
    """``9.30am`` is 9:30 in the morning: British English writes the minutes after a point."""

    @pytest.mark.parametrize(
        ("answer", "chunk", "expected"),
        [
            ("It opens at 9.30am.", "The museum opens at 9:30 a.m. daily.", PASSES),
            ("The shop opens at 9.30 pm.", "The shop opens at 21:30.", PASSES),
            ("The shop opens at 9.30 pm.", "The shop opens at 9:30 am.", fg001("9.30 pm")),
            ("The shop opens at 21:30.", "The shop opens at 9.30am.", fg001("21:30")),
            ("The shop opens at 9:30 am.", "The shop opens at 9.30am.", PASSES),
            ("It costs 9.30 dollars.", "It costs 9.30 dollars.", PASSES),
        ],
    )
    def test_point_minutes(self, answer: str, chunk: str, expected: object) -> None:
        assert flagged(chunk, answer) == expected


class TestSignWordsBeforeNumbersInWords:
    """``minus twelve degrees`` is -12, as ``minus 12 degrees``; ``twelve minus five`` is a sum."""

    @pytest.mark.parametrize(
        ("answer", "chunk", "expected"),
        [
            (
                "The low was negative twelve degrees.",
                "The low was 12 °C.",
                fg001("negative twelve"),
            ),
            (
                "The fund returned minus eight percent.",
                "The fund returned 8%.",
                fg001("minus eight"),
            ),
            ("The low was minus twelve degrees Celsius.", "The low was -12 °C.", PASSES),
            ("The fund returned minus eight percent.", "The fund returned -8%.", PASSES),
            ("It cost twelve minus five dollars.", "It cost 12 minus 5 dollars.", PASSES),
        ],
    )
    def test_signs(self, answer: str, chunk: str, expected: object) -> None:
        assert flagged(chunk, answer) == expected


class TestCornerBracketForms:
    """The vertical (``﹁…﹂``, ``﹃…﹄``) and half-width (``｢…｣``) corner brackets quote too."""

    CHUNK = "The minister said the plan would be reviewed next year."

    @pytest.mark.parametrize(
        ("opener", "closer"), [("\ufe41", "\ufe42"), ("\ufe43", "\ufe44"), ("\uff62", "\uff63")]
    )
    def test_quotations(self, opener: str, closer: str) -> None:
        wrong = f"He said {opener}the plan would be scrapped next year{closer}."
        assert flagged(self.CHUNK, wrong) == (("FG003", ("the plan would be scrapped next year",)),)
        right = f"He said {opener}the plan would be reviewed next year{closer}."
        assert flagged(self.CHUNK, right) == PASSES


class TestPercentsInWords:
    """``fifty percent`` is the share ``50%`` is: a chunk's ``half`` or ``0.5`` states it."""

    @pytest.mark.parametrize(
        ("answer", "chunk", "expected"),
        [
            ("Fifty percent of voters agreed.", "Half of voters agreed.", PASSES),
            ("Forty percent of voters agreed.", "Half of voters agreed.", fg001("Forty")),
            ("Twenty-five percent of voters agreed.", "A quarter of voters agreed.", PASSES),
            ("Forty percent of voters agreed.", "A quarter of voters agreed.", fg001("Forty")),
            ("Sixty percent of voters agreed.", "The share was 0.6.", PASSES),
            ("Sixty percent of voters agreed.", "The share was 0.6 mm.", fg001("Sixty")),
            ("Thirty-three per cent of voters agreed.", "One third of voters agreed.", PASSES),
            ("Sixty percent of voters agreed.", "60% of voters agreed.", PASSES),
        ],
    )
    def test_shares(self, answer: str, chunk: str, expected: object) -> None:
        assert flagged(chunk, answer) == expected


class TestCenturiesInWordsInAChunk:
    """A chunk's ``nineteenth century`` states the answer's ``19th century``."""

    @pytest.mark.parametrize(
        ("answer", "chunk", "expected"),
        [
            ("It was built in the 21st century.", "Built in the twenty-first century.", PASSES),
            ("It was built in the 21st century.", "Built in the twenty first century.", PASSES),
            ("It emerged in the 19th century.", "It emerged in the Nineteenth Century.", PASSES),
            (
                "It emerged in the 18th century.",
                "It emerged in the nineteenth century.",
                fg002("18th century"),
            ),
            # A count of centuries is no century.
            (
                "It emerged in the 19th century.",
                "It had nineteen centuries.",
                fg002("19th century"),
            ),
        ],
    )
    def test_centuries(self, answer: str, chunk: str, expected: object) -> None:
        assert flagged(chunk, answer) == expected


class TestMoreScalesAndShares:
    """``mln`` and ``$4.2MM`` are scales, ``2,5 × 10⁶`` a decimal comma, ``0.6`` a share."""

    @pytest.mark.parametrize(
        ("answer", "chunk", "expected"),
        [
            ("Revenue was $4.2 mln.", "Revenue was $4.2 billion.", fg001("$4.2 mln")),
            ("Revenue was $4.2 mln.", "Revenue was $4.2 million.", PASSES),
            ("Revenue was $4.2 bln.", "Revenue was $4.2 billion.", PASSES),
            ("Revenue was 4.2 million euros.", "Revenue was 4.2 mln euros.", PASSES),
            ("Revenue was $4.2MM.", "Revenue was $4.2 billion.", fg001("$4.2MM")),
            ("Revenue was $4.2MM.", "Revenue was $4.2 million.", PASSES),
            ("It is 5mm thick.", "It is 5 mm thick.", PASSES),  # no currency: millimetres
            ("The count was 2,5 × 10⁶.", "The count was 2.5 million.", PASSES),
            ("The count was 2,6 × 10⁶.", "The count was 2.5 million.", fg001("2,6 × 10⁶")),
            ("The count was 2,5 × 10⁶.", "The count was 25 million.", fg001("2,5 × 10⁶")),
            ("The share was 0.6.", "60% of voters agreed.", PASSES),
            ("The share was 0.7.", "60% of voters agreed.", fg001("0.7")),
            ("The layer was 0.6 mm.", "60% of voters agreed.", fg001("0.6")),
            ("The share was 0.6.", "60 voters agreed.", fg001("0.6")),
        ],
    )
    def test_writings(self, answer: str, chunk: str, expected: object) -> None:
        assert flagged(chunk, answer) == expected


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


class TestWhatTheseReadingsLeaveAlone:
    """Writings next to the ones above that a careful reader reads otherwise (a regression hunt)."""

    @pytest.mark.parametrize(
        ("answer", "chunk"),
        [
            # Durations written as a clock: 2 hours 30 minutes.
            ("It has a run time of 02:30.", "The film runs 2 hours 30 minutes."),
            ("The race lasted 01:05.", "The race lasted 1 hour 5 minutes."),
            ("The film runs 2 hours 30 minutes.", "The film has a run time of 02:30."),
            ("The film runs 2 hours 30 minutes.", "The film has a run time of 2:30."),
            ("The video is 4 minutes 15 seconds long.", "The video is 4:15 long."),
            # A list of small numbers written without spaces.
            ("Weeks 0, 4 and 8 were measured.", "Weeks 0,4 and 8 were measured."),
            ("Entry (0, 3) is nonzero.", "The matrix entry (0,3) is nonzero."),
            # A capital M glued that is no million: molar, metres, megaohms.
            ("Add 5M HCl to the flask.", "Add 5 M HCl to the flask."),
            ("She won the 100M sprint.", "She won the 100m sprint."),
            ("Use a 10M resistor.", "Use a 10 M resistor."),
            # "minus" and "negative" before a number in words that no sign.
            ("The score was minus three.", "The score was minus three."),
            ("Sentiment turned negative three months ago.", "It turned negative three months ago."),
            ("He got an A minus three times.", "He got an A minus three times."),
        ],
    )
    def test_still_supported(self, answer: str, chunk: str) -> None:
        assert flagged(chunk, answer) == PASSES

    @pytest.mark.parametrize(
        ("answer", "chunk", "expected"),
        [
            ("9 people arrived.", "At 9.30am, 30 people arrived.", fg001("9")),
            ("The meeting lasted 10 hours.", "The meeting began at 10.15am.", fg001("10")),
            (
                "Built in the 5th century AD.",
                "Built in the fifth century BC.",
                fg002("5th century AD"),
            ),
            (
                "The temple dates to the 3rd century BCE.",
                "The temple dates to the third century AD.",
                fg002("3rd century BCE"),
            ),
            ("They upgraded to version 0.6.", "60% of users upgraded.", fg001("0.6")),
            ("The p-value was 0.6.", "The treatment reduced risk by 60%.", fg001("0.6")),
            ("Prices rose 0.6 percentage points.", "Prices rose 60%.", fg001("0.6")),
            ("Battery at 0.6 V.", "Battery at 60%.", fg001("0.6")),
            ("Add 5 million HCl.", "Add 5M HCl to the flask.", fg001("5 million")),
        ],
    )
    def test_still_flagged(self, answer: str, chunk: str, expected: object) -> None:
        assert flagged(chunk, answer) == expected


class TestCenturiesOfAnEra:
    """``the 5th century BC`` is another century than the 5th of ours, as ``753 BC`` is no 753."""

    @pytest.mark.parametrize(
        ("answer", "chunk", "expected"),
        [
            ("It was the 5th century BC.", "It was the 5th century BC.", PASSES),
            ("It was the 5th century BC.", "It was the 5th century BCE.", PASSES),
            ("It was the 5th century BC.", "It was the fifth century B.C.", PASSES),
            ("It was the 5th century BC.", "It was the 5th century AD.", fg002("5th century BC")),
            ("It was the 5th century AD.", "It was the 5th century BC.", fg002("5th century AD")),
            ("It was the 5th century BC.", "It was the 5th century.", fg002("5th century BC")),
            ("It was the 5th century.", "It was the 5th century BC.", fg002("5th century")),
            ("It was the 5th century BC.", "It was the 6th century BC.", fg002("5th century BC")),
            ("It was the 5th century BC.", "It was the fifth century.", fg002("5th century BC")),
            # Our era said or not, one century.
            ("It was the 5th century CE.", "It was the 5th century.", PASSES),
            ("It was the 5th century.", "It was the 5th century AD.", PASSES),
        ],
    )
    def test_era_after_a_century(self, answer: str, chunk: str, expected: object) -> None:
        assert flagged(chunk, answer) == expected


class TestLocaleTimesAndDates:
    """What Babel writes in other locales: times and numeric dates a careful reader reads."""

    @pytest.mark.parametrize(
        ("answer", "chunk", "expected"),
        [
            ("It opens at 07:30\u202fpm.", "It opens at 19:30.", PASSES),
            ("It opens at 07:30\u202fpm.", "It opens at 07:30.", fg001("07:30\u202fpm")),
            ("It opens at 19.30.", "It opens at 7:30 pm.", PASSES),
            ("It opens at 19.30.", "It opens at 18:30.", fg001("19.30")),
            ("It opens Kl. 19.30.", "It opens at 19:30.", PASSES),
            ("It weighs 19.30 kg.", "It opens at 19:30.", fg001("19.30")),  # a unit: no time
            ("It opens at 19h30.", "It opens at 19:30.", PASSES),
            ("It opens at 19h30.", "It opens at 18:30.", fg001("19h30")),
            ("It opens at 下午7:30.", "It opens at 19:30.", PASSES),
            ("It opens at 下午7:30.", "It opens at 18:30.", fg001("7:30")),
            ("It opens at 12:30.", "It opens at 00:30.", PASSES),  # 12:30 am
            ("It opens at 1:00.", "It opens at 01:01.", fg001("1:00")),
            ("It opens at 3:00.", "It opens at 03:01.", fg001("3:00")),
            ("It lasted 2:30.", "It lasted 2 hours and 30 minutes.", PASSES),
            # Data writes one digit of minutes ("16:30-21:0", RAGTruth's Yelp passages).
            ("Open until 21:00.", "'Tuesday': '16:30-21:0'", PASSES),
            ("Open until 22:00.", "'Tuesday': '16:30-21:0'", fg001("22:00")),
        ],
    )
    def test_times(self, answer: str, chunk: str, expected: object) -> None:
        assert flagged(chunk, answer) == expected

    @pytest.mark.parametrize(
        ("answer", "chunk", "expected"),
        [
            ("It opened on 04.03.17.", "It opened on 2017-03-04.", PASSES),
            ("It opened on 04.03.17.", "It opened on 2018-03-04.", fg002("04.03.17")),
            ("It opened on 04-03-17.", "It opened on 4 March 2017.", PASSES),
            ("It opened on 4. 3. 2017.", "It opened on 2017-03-04.", PASSES),
            ("It opened on 4. 3. 17.", "It opened on 2017-03-04.", PASSES),
            ("It opened on 2017. 03. 04.", "It opened on 2017-03-04.", PASSES),
            ("It opened on 2017.03.04.", "It opened on 2017-03-04.", PASSES),
            ("It opened on 2017.03.04.", "It opened on 2017-03-05.", fg002("2017.03.04")),
            ("It opened on 2017年3月4日.", "It opened on 2017-03-04.", PASSES),
            ("It opened on 04-Mar-2017.", "It opened on 2017-03-04.", PASSES),
            ("It opened on 04-Mar-2017.", "It opened on 2017-04-03.", fg002("04-Mar-2017")),
            ("It opened on 4-Mar-17.", "It opened on March 4, 2017.", PASSES),
            # Still numbers: an address, a version's chain, a list after a full stop.
            ("The host is 10.1.1.1.", "The host is 10.1.1.1.", PASSES),
            ("See items 4. 3 more follow.", "See items 4. 3 more follow.", PASSES),
        ],
    )
    def test_numeric_dates(self, answer: str, chunk: str, expected: object) -> None:
        assert flagged(chunk, answer) == expected

    @pytest.mark.parametrize(
        ("answer", "chunk", "expected"),
        [
            ("Growth was 1.234 %.", "Growth was 1234%.", PASSES),  # a point grouping thousands
            ("Growth was 1.234 %.", "Growth was 1.234%.", PASSES),  # or the decimal
            ("Growth was 1.234 %.", "Growth was 1235%.", fg001("1.234 %")),
        ],
    )
    def test_percents(self, answer: str, chunk: str, expected: object) -> None:
        assert flagged(chunk, answer) == expected


class TestDecades:
    """``the '80s`` and ``the eighties`` are the 1980s, or ages from 80 to 89."""

    @pytest.mark.parametrize(
        ("answer", "chunk", "expected"),
        [
            ("It happened in the '80s.", "It happened in the 1980s.", PASSES),
            ("It happened in the eighties.", "It happened in the 1980s.", PASSES),
            ("It happened in the Eighties.", "It happened in 1985.", PASSES),
            ("It happened in the '80s.", "It happened in the eighties.", PASSES),
            ("It happened in the 1980s.", "It happened in the eighties.", PASSES),
            ("It happened in the eighties.", "It happened in the 1990s.", fg001("eighties")),
            ("It happened in the EIGHTIES.", "It happened in the 1990s.", fg001("EIGHTIES")),
            # With its century it is the decade of that century, a date.
            ("It happened in the nineteen eighties.", "It happened in the 1980s.", PASSES),
            (
                "It happened in the nineteen eighties.",
                "It happened in the 1880s.",
                fg002("nineteen eighties"),
            ),
            ("It happened in the Nineteen-Eighties.", "It happened in 1985.", PASSES),
            # Ages: a number in the decade states it.
            ("He is in his eighties.", "He is 85 years old.", PASSES),
            ("He is in his 80s.", "He is 85 years old.", PASSES),
            ("He is in his eighties.", "He is 75 years old.", fg001("eighties")),
            ("He is in his eighties.", "He is in his 80s.", PASSES),
            ("It happened in the 10s.", "It took 15 days.", fg001("10s")),  # ages from 20
            # "ties" inside other words names no decade.
            ("The parties and activities grew.", "Nothing here.", PASSES),
        ],
    )
    def test_decade(self, answer: str, chunk: str, expected: object) -> None:
        assert flagged(chunk, answer) == expected


class TestNoonAndMidnight:
    """``12 noon`` is 12 pm and ``12 midnight`` 12 am; a chunk's ``noon`` names 12 pm."""

    @pytest.mark.parametrize(
        ("chunk", "answer", "expected"),
        [
            ("Lunch is served at 12 noon.", "Lunch is served at 12 pm.", ()),
            ("Lunch is served at 12 pm.", "Lunch is served at 12 noon.", ()),
            ("Lunch is served at 12:00 noon.", "Lunch is served at 12:00 p.m.", ()),
            ("Lunch is at 12 Noon.", "Lunch is at 12:00 pm.", ()),
            ("The shop opens at 12 midnight.", "The shop opens at 12 am.", ()),
            ("Lunch is at noon.", "Lunch is at 12 pm.", ()),
            ("Lunch is at midday.", "Lunch is at 12 pm.", ()),
            ("It closes at midnight.", "It closes at 12 am.", ()),
            ("It closes at midnight.", "It closes at 00:00.", ()),
            # The other half of the day.
            ("Lunch is served at 12 noon.", "Lunch is served at 12 am.", ("12 am",)),
            ("The shop opens at 12 midnight.", "The shop opens at 12 pm.", ("12 pm",)),
            ("Lunch is at noon.", "Lunch is at 12 am.", ("12 am",)),
            # A word holding "noon" names no time; "3 noon" is no time.
            ("The afternoon is hot.", "It closes at 12 pm.", ("12 pm",)),
            ("It opens at 3 noon.", "It opens at 3 pm.", ("3 pm",)),
        ],
    )
    def test_noon_and_midnight(self, chunk: str, answer: str, expected: tuple[str, ...]) -> None:
        assert failing_spans(chunk, answer) == expected


class TestTwentyFourHundred:
    """``24:00`` is midnight, the day's end: ``00:00``, ``12 am``."""

    @pytest.mark.parametrize(
        ("chunk", "answer", "expected"),
        [
            ("The curfew starts at midnight.", "The curfew starts at 24:00.", ()),
            ("The curfew starts at 00:00.", "The curfew starts at 24:00.", ()),
            ("The curfew starts at 24:00.", "The curfew starts at 12 am.", ()),
            ("The curfew starts at 24:00.", "The curfew starts at 12 pm.", ("12 pm",)),
            ("The curfew starts at 12 noon.", "The curfew starts at 24:00.", ("24:00",)),
        ],
    )
    def test_midnight(self, chunk: str, answer: str, expected: tuple[str, ...]) -> None:
        assert failing_spans(chunk, answer) == expected


class TestTrillionAbbreviated:
    """``trn`` and ``trln`` (news agencies) are trillions, as ``tn`` is."""

    @pytest.mark.parametrize("written", ["trn", "trln", "tn"])
    def test_trillion(self, written: str) -> None:
        chunk = f"Debt hit $3 {written} this year."
        assert failing_spans(chunk, "Debt hit $3 trillion.") == ()
        assert failing_spans(chunk, "Debt hit $3,000 billion.") == ()
        assert failing_spans("Debt hit $3 billion.", f"Debt hit $3 {written}.") == (
            f"$3 {written}",
        )


class TestTimesJoinedByAHyphen:
    """``9am-5pm`` is two times of day, as ``9 am to 5 pm`` is, not a token."""

    @pytest.mark.parametrize(
        ("chunk", "answer", "expected"),
        [
            ("Open 9 a.m. to 5 p.m.", "Open 9am-5pm.", ()),
            ("Open 8am-8pm.", "Open 8 am to 8 pm.", ()),
            ("Open 9:30am-5pm.", "Open 9:30 am to 5 pm.", ()),
            ("Open 10PM-2AM.", "Open 10 pm to 2 am.", ()),
            ("Open 9am-5pm.", "Open 9am-6pm.", ("6pm",)),
            # A word with digits before a hyphen is still a token.
            ("The GPT-4 model.", "The GPT-5 model.", ("GPT-5",)),
        ],
    )
    def test_times(self, chunk: str, answer: str, expected: tuple[str, ...]) -> None:
        assert failing_spans(chunk, answer) == expected
