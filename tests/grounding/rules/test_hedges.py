"""Hedges and bounds: ``about``, ``at least``, ``up to`` and their rounding (rules/hedges.py)."""

from __future__ import annotations

import pytest

from grounding_verdicts import failing_spans, flagged_spans


# from test_numbers.py
class TestHedges:
    @pytest.mark.parametrize(
        "hedge",
        [
            "about",
            "around",
            "approximately",
            "roughly",
            "nearly",
            "almost",
            "over",
            "more than",
            "some",
            "~",
        ],
    )
    def test_hedged_number_rounds_to_a_chunk_number(self, hedge: str) -> None:
        """``about 1.2 million`` is supported by a chunk's ``1,234,567``."""
        chunk = "The city has 1,234,567 inhabitants."
        assert () == flagged_spans(chunk, f"The city has {hedge} 1.2 million inhabitants.")

    def test_unhedged_rounded_number_is_flagged(self) -> None:
        """Unhedged ``1.2 million`` is not supported by ``1,234,567``."""
        chunk = "The city has 1,234,567 inhabitants."
        assert ("1.2 million",) == flagged_spans(chunk, "The city has 1.2 million inhabitants.")

    def test_hedged_number_outside_the_rounding_is_flagged(self) -> None:
        """``about 1.3 million`` does not round from ``1,234,567``."""
        chunk = "The city has 1,234,567 inhabitants."
        assert ("1.3 million",) == flagged_spans(
            chunk, "The city has about 1.3 million inhabitants."
        )

    def test_hedged_integer_precision_is_its_last_nonzero_digit(self) -> None:
        """``about 30`` covers 25 to 35; ``about 31`` covers 30.5 to 31.5."""
        assert () == flagged_spans("It took 27 minutes.", "It took about 30 minutes.")
        assert ("31",) == flagged_spans("It took 27 minutes.", "It took about 31 minutes.")

    def test_hedged_word_number(self) -> None:
        """``about seventy`` is supported by a chunk's ``72``."""
        assert () == flagged_spans("It held 72 people.", "It held about seventy people.")


# from test_numbers.py
# The kinds of issue 12.
class TestDirectionalHedges:
    @pytest.mark.parametrize(
        ("chunk", "answer", "expected"),
        [
            ("About 150 came.", "At least 200 came.", ("200",)),
            ("About 250 came.", "At least 200 came.", ()),
            ("About 200 came.", "At least 200 came.", ()),
            ("It had 1,900 seats.", "It had more than 2,000 seats.", ("2,000",)),
            ("It had 2,400 seats.", "It had more than 2,000 seats.", ()),
            ("It weighs 46 kg.", "It weighs over 50 kg.", ("50",)),
            ("It weighs 52 kg.", "It weighs over 50 kg.", ()),
            ("It had 150 staff.", "It had fewer than 100 staff.", ("100",)),
            ("It had 80 staff.", "It had fewer than 100 staff.", ()),
            ("It takes 25 minutes.", "It takes under 20 minutes.", ("20",)),
            ("It takes 15 minutes.", "It takes under 20 minutes.", ()),
            ("It holds 35 people.", "It holds up to 30 people.", ("30",)),
            ("It holds 28 people.", "It holds up to 30 people.", ()),
            ("It holds 35 people.", "It holds no more than 30 people.", ("30",)),
            # "about" keeps rounding: about 30 is 25 to 35.
            ("It holds 34 people.", "It holds about 30 people.", ()),
            ("It holds 36 people.", "It holds about 30 people.", ("30",)),
            ("It holds 26 people.", "It holds around 30 people.", ()),
        ],
    )
    def test_bounds_need_a_value_on_their_side(
        self, chunk: str, answer: str, expected: tuple[str, ...]
    ) -> None:
        """A lower bound needs a chunk value at or above it, an upper bound one at or below."""
        assert expected == failing_spans(chunk, answer)
