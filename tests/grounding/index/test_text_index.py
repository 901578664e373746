"""The text index reads plain digit runs as the claims do (hypothesis)."""

from __future__ import annotations

from itertools import chain

from hypothesis import given, settings

from grounding_texts import DENSE_TEXT
from relapse.grounding._index.text_index import TextIndex
from relapse.grounding._read.scan import scan


# from test_properties.py
class TestProperties:
    @settings(max_examples=300, deadline=None)
    @given(text=DENSE_TEXT)
    def test_index_reads_plain_numbers_as_the_claims_do(self, text: str) -> None:
        """The index's shortcut for plain digit runs keeps every key and drops no claim."""
        claims = scan(text)
        plain: list[str] = []
        kept = scan(text, plain_numbers=plain)
        assert len(claims) == len(kept) + len(plain)
        keys = set(chain.from_iterable(claim.provides for claim in claims))
        assert keys == TextIndex([text]).keys
