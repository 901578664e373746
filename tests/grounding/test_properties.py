"""Properties of the default check, over generated chunks and answers (hypothesis)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grounding_texts import SENTENCES, TRICKY
from relapse import GroundingResult
from relapse.grounding import default_grounding_check

_CHUNKS = st.lists(st.lists(SENTENCES, min_size=1, max_size=5), min_size=1, max_size=4)


def _fg001_spans(result: GroundingResult) -> tuple[tuple[str, ...], tuple[tuple[int, int], ...]]:
    """Return FG001's spans and offsets, or empty tuples."""
    for finding in result.findings:
        if finding.code == "FG001":
            return finding.spans, finding.offsets
    return (), ()


# from test_properties.py
class TestProperties:
    @settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(chunks=_CHUNKS, data=st.data())
    def test_verbatim_sentences_are_grounded(
        self, chunks: list[list[str]], data: st.DataObject
    ) -> None:
        """
        An answer made only of sentences copied verbatim from the chunks claims nothing unsupported.

        It may copy whole chunks, which FG004 reports as no answer (tests in
        ``tests/grounding/rules/test_echo.py``): the claims are what this property is about.
        """
        sentences = [sentence for chunk in chunks for sentence in chunk]
        picked = data.draw(st.lists(st.sampled_from(sentences), min_size=1, max_size=6))
        answer = " ".join(picked)
        result = default_grounding_check("", [" ".join(chunk) for chunk in chunks], answer)
        assert [] == [f for f in result.findings if f.code != "FG004"]
        for finding in result.findings:
            assert "copies the retrieved chunks" in finding.message

    @settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(
        chunks=_CHUNKS,
        data=st.data(),
        # Above every value the chunk strategies make ($999.9 billion at most).
        value=st.integers(10**13, 10**15),
        style=st.sampled_from(["{:d}", "{:,}", "${:,}", "{:,}.5", "{:d} percent"]),
    )
    def test_inserted_unsupported_number_is_fg001(
        self,
        chunks: list[list[str]],
        data: st.DataObject,
        value: int,
        style: str,
    ) -> None:
        """A number whose value is in no chunk, inserted in a grounded answer, is FG001."""
        sentences = [sentence for chunk in chunks for sentence in chunk]
        picked = data.draw(st.lists(st.sampled_from(sentences), min_size=1, max_size=6))
        where = data.draw(st.integers(0, len(picked)))
        number = style.format(value)
        inserted = f"It weighs {number} tonnes."
        before = " ".join(picked[:where])
        answer = " ".join([*picked[:where], inserted, *picked[where:]])
        start = len(before) + (1 if before else 0) + len("It weighs ")
        result = default_grounding_check("", [" ".join(chunk) for chunk in chunks], answer)
        assert ((number,), ((start, start + len(number)),)) == _fg001_spans(result)

    @settings(max_examples=300, deadline=None)
    @given(
        query=st.text(st.characters(exclude_categories=())),
        chunks=st.lists(st.text(st.characters(exclude_categories=())), max_size=4),
        answer=st.text(st.characters(exclude_categories=())),
    )
    def test_never_raises_on_arbitrary_unicode(
        self, query: str, chunks: list[str], answer: str
    ) -> None:
        """Arbitrary Unicode, surrogates included, never makes the check raise."""
        result = default_grounding_check(query, chunks, answer)
        for finding in result.findings:
            assert list(finding.spans) == [answer[s:e] for s, e in finding.offsets]

    @settings(max_examples=300, deadline=None)
    @given(
        pieces=st.lists(
            st.one_of(
                st.sampled_from(TRICKY),
                st.text(max_size=3),
            ),
            max_size=60,
        ),
        chunk_pieces=st.lists(
            st.sampled_from(["12", "2019", " ", "July", "seventy", ","]), max_size=30
        ),
    )
    def test_never_raises_on_tricky_tokens(
        self, pieces: list[str], chunk_pieces: list[str]
    ) -> None:
        """Dense mixes of the check's own delimiters and keywords never make it raise."""
        answer = "".join(pieces)
        result = default_grounding_check(answer[:20], ["".join(chunk_pieces)], answer)
        for finding in result.findings:
            assert list(finding.spans) == [answer[s:e] for s, e in finding.offsets]
