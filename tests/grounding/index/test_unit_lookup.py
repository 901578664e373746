"""The unit lookup: searching for a number's writings and reading every number agree."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import relapse.grounding._index.text_index as index_module
from grounding_verdicts import failing_spans
from relapse._results import GroundingResult
from relapse.grounding import default_grounding_check
from relapse.grounding._index.text_index import TextIndex
from relapse.grounding._index.unit_lookup import (
    AGREE,
    CONFLICT,
    FOREIGN,
    UNRELATED,
    occurrence_starts,
    search_units,
    search_verdict,
    units_by_number,
    verdict_of,
    writings,
)
from relapse.grounding._values.keys import Key, number_key
from relapse.grounding._values.units import SCALE

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


# from test_bound.py (issue 21)
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


# Numbers in the writings the lookup reads (commas, decimals, scale words,
# leading zeros, digits glued to others) and units of several dimensions.
_NUMBERS = ["104", "40", "3,800", "3800", "3.8", "007", "1,234.5", "12 345", "5", "0.5", "2"]


_UNITS = [
    " °F",
    " °C",
    " km",
    " miles",
    " kg",
    "%",
    " million",
    " thousand",
    "",
    " people",
    "m",
    " h",
]


_PIECE = st.one_of(
    st.builds(lambda n, u: n + u, st.sampled_from(_NUMBERS), st.sampled_from(_UNITS)),
    st.sampled_from(
        ["$", "$5", " ", ", ", ". ", "the ", "1", ".", ",", "x", "\n", "page ", "May "]
    ),
    # Signs: glued minus glyphs and the sign words (a sign only where the scanner reads one).
    st.sampled_from(["-", "\u2212", "\u2013", "minus ", "negative ", "(-", "\u2212$"]),
)


_TEXT = st.lists(_PIECE, max_size=30).map("".join)


_KEYS = [number_key("104", "", 0), number_key("38", "", 2), number_key("38", "", 5)]


_KEYS += [number_key("7", "", 0), number_key("12345", "", 0), number_key("5", "", 0)]


_KEYS += [("-n", *key[1:]) for key in _KEYS]  # the same numbers signed


_CANONICAL_UNITS = ["°F", "°C", "km", "mi", "kg", "%", "$", "m", "h", "#people"]


def _key(written: str) -> Key:
    """The key of a plain number written with digits and a point."""
    integer, _, fraction = written.partition(".")
    return number_key(integer, fraction, 0)


@contextmanager
def _reading_every_number() -> Iterator[None]:
    """Make every unit lookup read every number of the chunks (a spent budget)."""
    saved = index_module.SEARCH_BUDGET
    index_module.SEARCH_BUDGET = -1
    try:
        yield
    finally:
        index_module.SEARCH_BUDGET = saved


def _both(chunks: list[str], answer: str) -> tuple[GroundingResult, GroundingResult]:
    """Check with the unit lookup searching, then reading every number."""
    searching = default_grounding_check("q", chunks, answer)
    with _reading_every_number():
        reading = default_grounding_check("q", chunks, answer)
    return searching, reading


# from test_unit_lookup.py
class TestVerdicts:
    @pytest.mark.parametrize(
        ("texts", "unit", "verdict"),
        [
            (["It was 104 °F."], "°F", AGREE),
            (["It was 104 °F."], "°C", CONFLICT),
            (["It was 104."], "°C", AGREE),  # no unit: nothing to disagree with
            (["It was 104 km away."], "°C", FOREIGN),  # plainly another quantity
            (["It was 104 °F.", "Then 104 °C."], "°C", AGREE),
            (["It cost $104."], "$", AGREE),
            (["Room 1104 °F."], "°C", UNRELATED),  # 1104 is not 104
            (["It was 0104 °F."], "°C", UNRELATED),  # nor is 0104: a leading zero
        ],
    )
    def test_by_hand(self, texts: list[str], unit: str, verdict: str) -> None:
        self._assert_both(texts, _key("104"), unit, verdict)

    @pytest.mark.parametrize(
        ("texts", "number"),
        [
            (["Ship 1,1045 kg."], "5"),  # the 5 ends "1,1045", read as 1,104 and 5
            (["Ship 1,23 kg."], "23"),  # the 23 is not a number after "1,"
            (["Ship 2.5 kg."], "5"),
        ],
    )
    def test_digits_that_do_not_start_a_number(self, texts: list[str], number: str) -> None:
        self._assert_both(texts, _key(number), "kg", UNRELATED)

    @staticmethod
    def _assert_both(texts: list[str], key: Key, unit: str, verdict: str) -> None:
        """Assert both ways of the lookup give ``verdict``."""
        assert search_verdict(texts, key, unit) == verdict
        assert verdict_of(units_by_number(texts).get(key, frozenset()), unit) == verdict

    def test_a_number_with_a_scale_word(self) -> None:
        key = number_key("38", "", 5)  # 3,800,000
        # The number, and its mantissa before "hundred", "thousand" and "million".
        assert set(writings(key)) == {
            *("3800000", "3,800,000", "38000", "38,000", "3800", "3,800", "3.8")
        }
        texts = ["Sales were 3.8 million kg."]
        # The mantissa 3.8 is bound to the scale word: no 3.8%.
        mantissa = number_key("3", "8", 0)
        assert units_by_number(texts) == {key: frozenset({"kg"}), mantissa: frozenset({SCALE})}
        assert search_verdict(texts, key, "kg") == AGREE
        assert search_verdict(texts, mantissa, "%") == FOREIGN
        assert search_verdict(texts, mantissa, "kg") == UNRELATED  # a bare 3.8 kg, as before

    @settings(max_examples=600, deadline=None, suppress_health_check=list(HealthCheck))
    @given(
        texts=st.lists(_TEXT, max_size=4),
        key=st.sampled_from(_KEYS),
        unit=st.sampled_from(_CANONICAL_UNITS),
    )
    def test_searching_and_reading_every_number_agree(
        self, texts: list[str], key: Key, unit: str
    ) -> None:
        read = verdict_of(units_by_number(texts).get(key, frozenset()), unit)
        assert search_verdict(texts, key, unit) == read


# from test_unit_lookup.py
class TestInTheCheck:
    def test_a_unit_that_disagrees_is_found_both_ways(self) -> None:
        for result in _both(["It was 104 °F."], "It was 104 °C."):
            assert [finding.code for finding in result.findings] == ["FG001"]

    @settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
    @given(chunks=st.lists(_TEXT, max_size=4), answer=_TEXT)
    def test_the_same_verdicts_both_ways(self, chunks: list[str], answer: str) -> None:
        searching, reading = _both(chunks, answer)
        assert searching == reading


# from test_unit_lookup.py
class TestTheView:
    """``UnitBindings`` gives the occurrences and verdicts that searching every text gives."""

    @settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
    @given(
        # NUL, the chunk separator, inside a text too: positions must still map.
        texts=st.lists(st.one_of(_TEXT, _TEXT.map(lambda text: text + "\x00" + text)), max_size=5),
        key=st.sampled_from(_KEYS),
        unit=st.sampled_from(_CANONICAL_UNITS),
    )
    def test_occurrences_and_verdicts_as_every_text_gives_them(
        self, texts: list[str], key: Key, unit: str
    ) -> None:
        every = [
            (position, start)
            for position, text in enumerate(texts)
            for start in occurrence_starts(text, key)
        ]
        view = TextIndex(texts).units
        assert list(view.occurrences(key)) == every
        assert view.verdict(key, unit) == search_verdict(texts, key, unit)
        assert view.written(key) == search_units(texts, key)

    def test_by_hand(self) -> None:
        # 3,800 is written "3,800" in the second text, "3.8 thousand" in the
        # fourth and "3800" in the last, which the writings "38" (hundred,
        # read on to 3800) and "3800" both find; "38 cats" is another number.
        texts = ["38 cats", "cost 3,800 km", "nothing", "3.8 thousand km", "x3800 kg"]
        view = TextIndex(texts).units
        key = number_key("3800", "", 0)
        assert list(view.occurrences(key)) == [(1, 5), (3, 0), (4, 1), (4, 1)]
        assert view.written(key) == frozenset({"km", "kg"})
