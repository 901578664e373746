"""Properties of the default check, over generated chunks and answers (hypothesis)."""

from __future__ import annotations

import re
from itertools import chain

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grounding_texts import DENSE_TEXT, SENTENCES, TRICKY
from relapse import GroundingResult
from relapse.grounding import default_grounding_check
from relapse.grounding._index.text_index import TextIndex
from relapse.grounding._read import scan as scan_module
from relapse.grounding._read.claims import Claim, plain_number_keys
from relapse.grounding._read.scan import _RANGE_JOIN, scan
from relapse.grounding._values.keys import Key

_CHUNKS = st.lists(st.lists(SENTENCES, min_size=1, max_size=5), min_size=1, max_size=4)


def _fg001_spans(result: GroundingResult) -> tuple[tuple[str, ...], tuple[tuple[int, int], ...]]:
    """Return FG001's spans and offsets, or empty tuples."""
    for finding in result.findings:
        if finding.code == "FG001":
            return finding.spans, finding.offsets
    return (), ()


def _index_keys(claims: list[Claim], plain: list[str]) -> set[Key]:
    """The keys the index takes from a scan's claims and plain digit runs."""
    keys = set(chain.from_iterable(claim.provides for claim in claims))
    for raw in plain:
        keys.update(plain_number_keys(raw)[0])
    return keys


class TestProperties:
    @settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(chunks=_CHUNKS, data=st.data())
    def test_verbatim_sentences_are_grounded(
        self, chunks: list[list[str]], data: st.DataObject
    ) -> None:
        """
        An answer made only of sentences copied verbatim from the chunks claims nothing unsupported.

        It may copy whole chunks, which FG004 reports as no answer (tests in
        ``tests/grounding/test_echo.py``): the claims are what this property is about.
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
