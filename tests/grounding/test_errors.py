"""The default check's errors: bad arguments named, with what was expected."""

from __future__ import annotations

import pytest

from relapse.grounding import (
    GroundingCheck,
    default_grounding_check,
)


class TestErrors:
    def test_bad_chunk_names_index_and_type(self) -> None:
        """A chunk that is neither str nor mapping raises TypeError naming index and type."""
        with pytest.raises(TypeError, match=r"chunks\[1\] is int"):
            default_grounding_check("", ["ok", 42], "answer")

    def test_mapping_without_text(self) -> None:
        """A mapping without a string ``"text"`` raises TypeError naming its index."""
        with pytest.raises(TypeError, match=r"chunks\[0\]"):
            default_grounding_check("", [{"body": "x"}], "answer")

    def test_single_string_is_not_a_list_of_chunks(self) -> None:
        """A bare ``str`` as chunks raises TypeError."""
        with pytest.raises(TypeError, match="single str"):
            default_grounding_check("", "one chunk", "answer")  # type: ignore[arg-type]

    def test_answer_must_be_a_string(self) -> None:
        """A non-str answer raises TypeError."""
        with pytest.raises(TypeError, match="answer must be a str, got NoneType"):
            default_grounding_check("", ["x"], None)  # type: ignore[arg-type]

    def test_query_must_be_a_string(self) -> None:
        """A non-str query raises TypeError."""
        with pytest.raises(TypeError, match="query must be a str, got bytes"):
            default_grounding_check(b"q", ["x"], "a")  # type: ignore[arg-type]

    def test_unknown_code(self) -> None:
        """An unknown finding code is a ValueError."""
        with pytest.raises(ValueError, match="FG999"):
            GroundingCheck(codes=frozenset({"FG999"}))

    def test_bad_trivial_numbers(self) -> None:
        """Trivial numbers must be finite numbers."""
        with pytest.raises(ValueError, match="not a number"):
            GroundingCheck(trivial_numbers=frozenset({"many"}))
        with pytest.raises(ValueError, match="not finite"):
            GroundingCheck(trivial_numbers=frozenset({float("inf")}))
        with pytest.raises(TypeError, match="NoneType"):
            GroundingCheck(trivial_numbers=frozenset({None}))  # type: ignore[arg-type]
