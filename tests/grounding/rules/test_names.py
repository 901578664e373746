"""FG005 (opt-in): names in the answer that the chunks and the question lack."""

# from test_names.py, moved whole (issue 40's layout)
from __future__ import annotations

import pytest

from grounding_verdicts import failing_spans
from relapse.grounding import ALL_CODES, DEFAULT_CODES, GroundingCheck


# The kinds of issue 12.
class TestNames:
    """FG005, opt-in: capitalised names that neither the chunks nor the question contain."""

    @staticmethod
    def names(chunk: str, answer: str, query: str = "") -> tuple[str, ...]:
        """Return the FG005 spans of the check with every code on."""
        check = GroundingCheck(codes=ALL_CODES)
        result = check(query, [chunk], answer)
        return tuple(span for f in result.findings if f.code == "FG005" for span in f.spans)

    def test_off_by_default(self) -> None:
        """The default check does not report FG005."""
        assert "FG005" not in DEFAULT_CODES
        assert () == failing_spans("Barack Obama was president.", "It was George Bush.")

    @pytest.mark.parametrize(
        ("chunk", "answer", "expected"),
        [
            ("Barack Obama was president.", "The president was George Bush.", ("George Bush",)),
            ("Barack Obama was president.", "The president was Barack Obama.", ()),
            # One unknown word makes the run a new name.
            (
                "Barack Obama was president.",
                "The president was Michelle Obama.",
                ("Michelle Obama",),
            ),
            # Case, accents, apostrophes and plurals are folded.
            ("Zurich lies in SWITZERLAND.", "It lies in Zürich, Switzerland.", ()),
            ("McDonald's sells burgers.", "They went to McDonald\u2019s.", ()),
            ("The Smiths moved.", "It was the Smith family.", ()),
            # Sentence starts, headings, pronouns, months, prompt parts and units.
            ("It is warm.", "Paris is warm. Yes. I think so.", ()),
            ("It is warm.", "## Weather Report\nIt is warm.", ()),
            ("It is warm.", "Summary Of Findings:\nIt is warm.", ()),
            ("It is 5 degrees.", "As Passage 2 says, in May it is 5 degrees Celsius.", ()),
            ("It rains.", "It rains in London, says Passage 1.", ("London",)),
        ],
    )
    def test_names_not_in_the_chunks(
        self, chunk: str, answer: str, expected: tuple[str, ...]
    ) -> None:
        """A run of capitalised words is failing_spans when one word is in no chunk."""
        assert expected == self.names(chunk, answer)

    def test_names_in_the_question_are_supported(self) -> None:
        """Repeating the question's names is not inventing them."""
        assert () == self.names(
            "It is warm.", "It is warm in Wellesley.", query="weather in wellesley"
        )
