"""
Ratios and shares: a percent is its ratio, a share in words its percent, a multiplier a ratio.

How the cases are made and where they came from: ``tests/grounding/README.md``.
"""

from __future__ import annotations

import pytest

from grounding_verdicts import PASSES, fg001, flagged
from relapse.grounding._values.units import MULTIPLIER, PEOPLE, binding_of, foreign


# from test_quantities.py (issue 21)
class TestPercentsAndRatios:
    """``45%`` is the ratio 0.45; ``33%`` is one third rounded to the percent."""

    @pytest.mark.parametrize(
        ("answer", "chunk", "expected"),
        [
            ("Turnout was 45%.", "Turnout was a share of 0.45.", PASSES),
            ("Turnout was 33%.", "One third voted.", PASSES),
            ("Turnout was 67%.", "Two thirds voted.", PASSES),
            # A fraction stated by a chunk's percent in words.
            ("Three fifths voted.", "Sixty percent voted.", PASSES),
            ("Two thirds voted.", "Sixty-seven per cent voted.", PASSES),
            ("Three fifths voted.", "Forty percent voted.", fg001("Three fifths")),
            ("Three quarters voted.", "Seventy-five people voted.", fg001("Three quarters")),
            ("Turnout was 33.3%.", "One third voted.", PASSES),
            ("Turnout was 25%.", "A quarter voted.", PASSES),
            ("Turnout was 50%.", "Half of them voted.", PASSES),
            ("Turnout was 45%.", "Turnout was a share of 0.46.", fg001("45%")),
            ("Turnout was 34%.", "One third voted.", fg001("34%")),
            ("Turnout was 33.4%.", "One third voted.", fg001("33.4%")),
            ("Turnout was 45%.", "It is 0.45 mm thick.", fg001("45%")),
            ("Turnout was 45%.", "Turnout was 9/20.", PASSES),
            # The other way round: a fraction in words, a chunk's percent.
            ("Two thirds voted.", "Turnout was 67%.", PASSES),
            ("One third voted.", "Turnout was 33.3%.", PASSES),
            ("Two thirds voted.", "Turnout was 60%.", fg001("Two thirds")),
            ("Two thirds voted.", "Turnout was 67 people.", fg001("Two thirds")),
            ("One third voted.", "Turnout was 1/3.", PASSES),
        ],
    )
    def test_percent_of_a_ratio(self, answer: str, chunk: str, expected: object) -> None:
        assert flagged(chunk, answer) == expected


# from test_quantity_writings.py (issue 21)
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


# from test_bound.py (issue 21)
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
