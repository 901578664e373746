"""Writings read through a rewrite (vulgar fractions, powers, invisible characters)."""

# from test_rewrites.py, moved whole (issue 40's layout)
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from relapse.grounding._read.scan import scan


# The kinds of issue 12.
class TestRewriteOnDemand:
    """The scanner rescans a rewritten copy only when it meets a character to rewrite."""

    @settings(max_examples=1000, deadline=None)
    @given(
        text=st.lists(
            st.sampled_from(
                [
                    *"0123456789 ,./-x",
                    "\u00bd",
                    "\u00be",
                    "\u00b2",
                    "\u00b3",
                    "\u2079",
                    "\u207b",
                    "\u200b",
                    "\u00ad",
                    "\u2044",
                    "10",
                    "cm",
                    "May ",
                    "km",
                    "3rd",
                    "GPT-",
                    "$",
                    "Sept. ",
                    "\u0661",
                    "B",
                    "rd",
                    "th",
                    "\u2212",
                    "^",
                    "10^",
                    "(",
                    ")",
                    "{",
                    "}",
                    "+",
                ]
            ),
            max_size=30,
        ).map("".join)
    )
    def test_same_claims_as_the_general_path(self, text: str) -> None:
        """The short paths, stopping at a rewrite, read what the general path reads."""
        assert scan(text) == scan(text, short_paths=False)
        plain: list[str] = []
        claims = scan(text, plain_numbers=plain)
        assert len(claims) + len(plain) == len(scan(text))
