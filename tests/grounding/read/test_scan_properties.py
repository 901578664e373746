"""The scanner's short paths read what its general path reads (hypothesis)."""

from __future__ import annotations

import re
from itertools import chain

from hypothesis import given, settings

from grounding_texts import DENSE_TEXT
from relapse.grounding._read import scan as scan_module
from relapse.grounding._read.claims import Claim, plain_number_keys
from relapse.grounding._read.scan import _RANGE_JOIN, scan
from relapse.grounding._values.keys import Key


def _index_keys(claims: list[Claim], plain: list[str]) -> set[Key]:
    """The keys the index takes from a scan's claims and plain digit runs."""
    keys = set(chain.from_iterable(claim.provides for claim in claims))
    for raw in plain:
        keys.update(plain_number_keys(raw)[0])
    return keys


# from test_properties.py
class TestProperties:
    @settings(max_examples=500, deadline=None)
    @given(text=DENSE_TEXT)
    def test_short_paths_change_no_result(self, text: str) -> None:
        """The scanner's short paths for bare numbers read exactly what the general path reads."""
        assert scan(text, short_paths=False) == scan(text)

    @settings(max_examples=500, deadline=None)
    @given(text=DENSE_TEXT)
    def test_range_joins_tested_first_miss_none(self, text: str) -> None:
        """Matching the range join before holding a claim back finds every range it found."""

        class _AlwaysMayJoin:
            """The join tested by its first character alone, as before the match was added."""

            def match(self, string: str, pos: int = 0) -> bool:
                return True

            def fullmatch(self, string: str, pos: int, endpos: int) -> re.Match[str] | None:
                return _RANGE_JOIN.fullmatch(string, pos, endpos)

        plain: list[str] = []
        exact = scan(text), scan(text, plain_numbers=plain), list(plain)
        scan_module._RANGE_JOIN = _AlwaysMayJoin()  # type: ignore[assignment]
        try:
            plain.clear()
            first_character = scan(text), scan(text, plain_numbers=plain), list(plain)
        finally:
            scan_module._RANGE_JOIN = _RANGE_JOIN
        assert exact[0] == first_character[0]
        # The index reads as many claims and the same keys, more of them plain.
        assert len(exact[1]) + len(exact[2]) == len(first_character[1]) + len(first_character[2])
        assert _index_keys(*exact[1:]) == _index_keys(*first_character[1:])
