"""Properties of the default check, over generated chunks and answers (hypothesis)."""

from __future__ import annotations

from itertools import chain

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from relapse import GroundingResult
from relapse.grounding import default_grounding_check
from relapse.grounding._index import TextIndex
from relapse.grounding._scan import scan

# Sentences mix the formats the check reads: numbers with separators,
# decimals, units and scales, number words, dates, decades, ranges, tokens
# and quotations. Sentences end with a period and never with a month name,
# so that copying some of them next to each other creates no new claim.
_WORDS = st.sampled_from(
    ["the", "report", "says", "about", "in", "costs", "rose", "people", "were", "counted", "and"]
)
_NUMBERS = st.one_of(
    st.integers(0, 10**6).map(str),
    st.integers(1000, 10**9).map(lambda n: f"{n:,}"),
    st.integers(1000, 10**6).map(lambda n: f"{n:,}".replace(",", "\u202f")),
    st.decimals(0, 1000, places=2, allow_nan=False).map(str),
    st.integers(0, 100).map(lambda n: f"{n}%"),
    st.integers(1, 999).map(lambda n: f"${n}.{n % 10} billion"),
    st.integers(0, 99).map(lambda n: f"{n} per cent"),
    st.integers(1, 31).map(lambda n: f"{n}th"),
)
_FORMS = st.one_of(
    _NUMBERS,
    st.sampled_from(["seventy-seven", "a dozen", "twelve", "three hundred and five", "ninety"]),
    st.builds(
        "{} {}, {}".format,
        st.sampled_from(["January", "Sept.", "July", "MAY"]),
        st.integers(1, 28),
        st.integers(1500, 2099),
    ),
    st.builds(
        "{}-{:02d}-{:02d}".format, st.integers(1500, 2099), st.integers(1, 12), st.integers(1, 28)
    ),
    st.builds("{}/{}/{}".format, st.integers(1, 12), st.integers(1, 28), st.integers(1500, 2099)),
    st.integers(150, 209).map(lambda n: f"the {n}0s"),
    st.builds("{}–{}".format, st.integers(1500, 1999), st.integers(2000, 2099)),
    st.builds("{}-{}".format, st.integers(3, 50), st.integers(51, 99)),
    st.sampled_from(["COVID-19", "GPT-4", "ISO 9001", "v2.0.1", "4x4s", "10:30"]),
    st.builds("{} {}/{}".format, st.integers(1, 12), st.integers(1, 7), st.sampled_from([3, 4, 8])),
    st.sampled_from(["3/4", "the 19th century", "a 20th-century house", "the 1800s"]),
    st.builds('"{} {}"'.format, _WORDS, _WORDS),
    st.builds("\u201c{} {} {}\u201d".format, _WORDS, _WORDS, _WORDS),
)
_SENTENCES = st.lists(st.one_of(_WORDS, _FORMS), min_size=1, max_size=8).map(
    lambda parts: " ".join(parts).capitalize() + " done."
)
# The check's own delimiters and keywords, "|"-separated (some are spaces).
_TRICKY_TEXT = (
    "1|12|2019|,|.|-|–|/|:| |\u00a0|%|$|'|\"|“|”|‘|’|«|»|„|x|by|s|th|k|m|bn|million|Sept.|July"
    "|of|the|seventy|-seven|a dozen|and|about|passage|[|]|(|)|\n|FG001|GPT|١٢|１２|…|...|between|to"
    "|May|MARCH|Aug|5May|US$"
    "|pm|a.m.|3pm|minus|–5|BC|B.C.|years BC|AD|CE|1e6|2.5E-3|29'000|1’234|1.234.567|1.234,5"
    "|12\u2009345|8,22,443|③|①②|half a million|a quarter of a|two thirds|third|twenty-first"
    "|nineteen forty-five|15:00|3:30 pm|50 cents|50p|300 K|「|」|\u200e"
)
_TRICKY = _TRICKY_TEXT.split("|")
# Texts dense in claims, delimiters and keywords, for the scanner's properties.
_DENSE_TEXT = st.lists(
    st.one_of(st.sampled_from(_TRICKY), _FORMS, st.text(max_size=3)), max_size=40
).map(" ".join)
_CHUNKS = st.lists(st.lists(_SENTENCES, min_size=1, max_size=5), min_size=1, max_size=4)


def _fg001_spans(result: GroundingResult) -> tuple[tuple[str, ...], tuple[tuple[int, int], ...]]:
    """Return FG001's spans and offsets, or empty tuples."""
    for finding in result.findings:
        if finding.code == "FG001":
            return finding.spans, finding.offsets
    return (), ()


class TestProperties:
    @settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(chunks=_CHUNKS, data=st.data())
    def test_verbatim_sentences_are_grounded(
        self, chunks: list[list[str]], data: st.DataObject
    ) -> None:
        """
        An answer made only of sentences copied verbatim from the chunks claims nothing unsupported.

        It may copy whole chunks, which FG004 reports as no answer (tests in
        ``test_grounding_kinds.py``): the claims are what this property is about.
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
                st.sampled_from(_TRICKY),
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
    @given(text=_DENSE_TEXT)
    def test_short_paths_change_no_result(self, text: str) -> None:
        """The scanner's short paths for bare numbers read exactly what the general path reads."""
        assert scan(text, short_paths=False) == scan(text)

    @settings(max_examples=300, deadline=None)
    @given(text=_DENSE_TEXT)
    def test_index_reads_plain_numbers_as_the_claims_do(self, text: str) -> None:
        """The index's shortcut for plain digit runs keeps every key and drops no claim."""
        claims = scan(text)
        plain: list[str] = []
        kept = scan(text, plain_numbers=plain)
        assert len(claims) == len(kept) + len(plain)
        keys = set(chain.from_iterable(claim.provides for claim in claims))
        assert keys == TextIndex([text]).keys
