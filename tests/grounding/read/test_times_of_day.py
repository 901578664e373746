"""
Times of day as a careful reader reads them: am and pm, the 24-hour clock, British and locale times.

How the cases are made and where they came from: ``tests/grounding/README.md``.
"""

from __future__ import annotations

import pytest

from grounding_verdicts import PASSES, failing_spans, fg001, fg002, flagged


# from test_quantities.py (issue 21)
class TestTimesOfDay:
    @pytest.mark.parametrize(
        ("answer", "chunk", "expected"),
        [
            ("The shop opens at 3 pm.", "The shop opens at 3 am.", fg001("3 pm")),
            ("The shop opens at 3 pm.", "The shop opens at 15:00.", PASSES),
            ("The shop opens at 3:30 p.m.", "The shop opens at 15:30.", PASSES),
            ("The shop opens at 15:30.", "The shop opens at 3:30 PM.", PASSES),
            ("The shop opens at 3 PM.", "The shop opens at 3pm.", PASSES),
            ("The shop opens at 9 am.", "The shop opens at 9:00.", PASSES),
            ("The shop opens at 3:30 pm.", "The shop opens at 3:30 am.", fg001("3:30 pm")),
            ("The shop opens at 4 pm.", "The shop opens at 15:00.", fg001("4 pm")),
        ],
    )
    def test_am_and_pm(self, answer: str, chunk: str, expected: object) -> None:
        assert flagged(chunk, answer) == expected

    @pytest.mark.parametrize(
        ("answer", "chunk", "expected"),
        [
            # A time of day named in a word: noon and midday are 12:00,
            # midnight 00:00, however the chunk writes them.
            ("The meeting starts at noon.", "The meeting starts at 12 pm.", PASSES),
            ("The meeting starts at noon.", "The meeting starts at 12:00.", PASSES),
            ("The meeting starts at noon.", "The meeting starts at midday.", PASSES),
            ("The meeting starts at noon.", "The meeting starts at 12 am.", fg001("noon")),
            ("The meeting starts at noon.", "The meeting starts at 9 am.", fg001("noon")),
            ("The meeting starts at midnight.", "The meeting starts at 00:00.", PASSES),
            ("The meeting starts at midnight.", "The meeting starts at 12 am.", PASSES),
            ("The meeting starts at midnight.", "The meeting starts at noon.", fg001("midnight")),
            ("The meeting starts at Midnight.", "The meeting starts at midnight.", PASSES),
            ("The meeting starts at NOON.", "The meeting starts at 9 am.", fg001("NOON")),
            ("It was a mid-day meal.", "It shipped in 2019.", fg001("mid-day")),
            # "twelve noon" is one time: its "twelve" claims no number.
            ("It starts at twelve noon.", "It starts at noon.", PASSES),
            ("It starts at twelve noon.", "It starts at 9 am.", fg001("twelve noon")),
            ("Twelve noon is the start.", "It starts at noon.", PASSES),
            # Inside another word, no time: "afternoon", "forenoon".
            ("It starts in the afternoon.", "It starts at 9 am.", PASSES),
            # A name copied from a chunk is its words.
            ("The film High Noon won.", "The film High Noon won an award.", PASSES),
        ],
    )
    def test_named_in_a_word(self, answer: str, chunk: str, expected: object) -> None:
        assert flagged(chunk, answer) == expected


# from test_quantity_writings.py (issue 21)
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


# from test_quantity_writings.py (issue 21)
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


# from test_quantity_writings.py (issue 21)
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


# from test_quantity_writings.py (issue 21)
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


# from test_quantity_writings.py (issue 21)
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
