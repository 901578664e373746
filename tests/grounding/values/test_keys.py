"""Value keys: a fraction's key is its decimals' key."""

from __future__ import annotations

import pytest

from relapse.grounding._values.keys import fraction_key


# from test_numbers.py
class TestFractions:
    @pytest.mark.parametrize(
        ("whole", "numerator", "denominator", "key"),
        [
            (0, 3, 4, ("n", "75", -2)),
            (0, 1, 8, ("n", "125", -3)),
            (2, 1, 4, ("n", "225", -2)),
            (0, 1, 64, ("n", "15625", -6)),
            (0, 1, 3, None),
            (0, 1, 128, None),  # 0.0078125: seven places
        ],
    )
    def test_fraction_keys(
        self, whole: int, numerator: int, denominator: int, key: tuple[object, ...] | None
    ) -> None:
        """The key of a fraction is the key of its decimals, when they end within six places."""
        assert key == fraction_key(whole, numerator, denominator)
