"""The lazy chunk index: evidence rules, opaque chunks, and verdicts equal to a full reading."""

# from test_lazy_index.py, moved whole (issue 40's layout)
from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from grounding_texts import (
    DENSE_TEXT,
    SENTENCES,
    TEXT,
    fully_read,
    lazily,
    real_texts,
    same,
)
from relapse import Evidence
from relapse.grounding import GroundingCheck
from relapse.grounding._index.prefilter import (
    WrittenNumber,
    date_digest,
    digest,
    evidence,
    interval_evidence,
    is_opaque,
)
from relapse.grounding._read.scan import scan
from relapse.grounding._values.keys import Key


def _passes(item: bytes | re.Pattern[bytes] | object, text: str) -> bool:
    """Tell whether one part of an alternative holds for ``text``."""
    if isinstance(item, bytes):
        return item in digest(text)
    if isinstance(item, re.Pattern) and isinstance(item.pattern, bytes):
        return item.search(date_digest(text)) is not None
    return bool(item.search(text))  # type: ignore[attr-defined]


def _evidenced(key: Key, text: str) -> bool:
    """Tell whether ``text`` satisfies some alternative of the evidence of ``key``."""
    alternatives = evidence(key)
    return alternatives is None or any(
        all(_passes(part, text) for part in alternative) for alternative in alternatives
    )


def _unevidenced(text: str) -> list[tuple[str, Key]]:
    """Return each key a claim of ``text`` provides (or states) that its evidence misses."""
    if is_opaque(text):
        return []
    return [
        (text[claim.start : claim.end], key)
        for claim in scan(text)
        for key in (*claim.provides, *([claim.key] if claim.key is not None else []))
        if not _evidenced(key, text)
    ]


class TestDigests:
    def test_digest_keeps_ascii_letters_digits_and_slash_in_lower_case(self) -> None:
        assert digest("Paid $1,234.5 Million — on 3/4, ½ é") == b"paid12345millionon3/4"

    def test_date_digest_keeps_date_separators_as_slashes(self) -> None:
        assert date_digest("2017-03-04, 4.3.2017 Mar. 3") == b"2017/03/044/3/2017mar/3"


class TestOpaque:
    @pytest.mark.parametrize(
        "text",
        [
            "a 1/4 share",  # the pair provides 0.25
            "24/7",
            "0.5/1/4",  # the scanner reads 0.5, then the fraction 1/4
            "the war of 1939-45",  # 45 stands for 1945
            "1939 \u2013 45",
            "2.0k",  # the digits run into the zeros before the scale
            "$0,50m",
            "3\u00bd cups",
            "\u0661\u0662 items",
            "10\u2079 stars",
            "12\u200b500",
            "3 x 10^8 cells",  # 300,000,000: the digest "3x108" shows no "3e" nor its zeros
            "10^-3 mol",
            "10^(9) stars",
        ],
    )
    def test_writings_the_digest_cannot_show_are_opaque(self, text: str) -> None:
        assert is_opaque(text)

    @pytest.mark.parametrize(
        "text",
        [
            *("on 3/4/2019", "1/2/3", "1939-1945", "20k", "a 0k", "$1,500m", "12 500"),
            *("plain 12,5", "1e6 cells", "2.5E-3 mol", "x^2 + 1", "10^ and"),
        ],
    )
    def test_other_writings_are_not(self, text: str) -> None:
        assert not is_opaque(text)


class TestEvidence:
    def test_long_digits_are_their_own_needle(self) -> None:
        assert evidence(("n", "12345", -1)) == ((b"12345",),)

    @pytest.mark.parametrize(
        ("key", "written_as", "not_written_as"),
        [
            (("n", "934", -1), "93.4%", "1,293,400"),  # 93.4
            (("n", "5", -1), "0.50 mg", "25 mg"),  # 0.5: one digit
        ],
    )
    def test_short_digits_must_be_written_as_a_number(
        self, key: Key, written_as: str, not_written_as: str
    ) -> None:
        alternatives = evidence(key)
        assert alternatives is not None
        ((needle, written),) = alternatives
        assert needle == str(key[1]).encode("ascii")
        assert isinstance(written, WrittenNumber)
        assert written.digits == key[1]
        assert written.search(written_as)
        assert not written.search(not_written_as)

    def test_a_year_may_be_written_with_two_digits_after_a_slash(self) -> None:
        alternatives = evidence(("n", "2017", 0))
        assert alternatives is not None
        assert (b"/17",) in alternatives

    def test_one_digit_with_zeros_is_searched_with_its_zeros_or_its_scale(self) -> None:
        # 20 is "20", "0.2 hundred" (digest 02hundred), "0.02 thousand"
        # (002thousand), "0.02k" (002k), "0.00002 million"...
        alternatives = evidence(("n", "2", 1))
        assert alternatives is not None
        assert (b"20",) in alternatives
        assert (b"2", b"hundred") in alternatives
        assert (b"02", b"thousand") in alternatives
        assert (b"02k",) in alternatives
        assert (b"00002", b"million") in alternatives

    @pytest.mark.parametrize("key", [("n", "", 0), ("dec2", 4), ("cent", 19), ("d", None, 3, None)])
    def test_keys_without_selective_evidence_have_none(self, key: Key) -> None:
        assert evidence(key) is None

    def test_a_range_needs_both_ends(self) -> None:
        alternatives = evidence(("r", "12345", 0, "67890", 0))
        assert alternatives == ((b"12345", b"67890"),)

    def test_a_full_date_needs_its_year_and_its_day_of_month(self) -> None:
        alternatives = evidence(("d", 2017, 3, 4))
        assert alternatives is not None
        assert [part for part in alternatives[0] if isinstance(part, bytes)] == [b"2017"]
        assert [part for part in alternatives[1] if isinstance(part, bytes)] == [b"/17"]

    def test_a_day_of_month_without_year_is_found_in_every_writing(self) -> None:
        alternatives = evidence(("d", None, 3, 4))
        assert alternatives is not None
        for text in ["on March 4", "4th of March", "Mar. the 4th", "3/4/19", "2019-03-04"]:
            assert any(all(_passes(part, text) for part in alt) for alt in alternatives), text
        for text in ["on March 14", "May 4", "3/14/19"]:
            assert not any(all(_passes(part, text) for part in alt) for alt in alternatives), text

    def test_an_interval_is_searched_by_the_first_digits_it_allows(self) -> None:
        # Every number in [93.35, 93.45] starts with 933 or 934.
        alternatives = interval_evidence(Decimal("93.35"), Decimal("93.45"))
        assert alternatives is not None
        assert [alternative[0] for alternative in alternatives] == [b"933", b"934"]

    def test_an_interval_whose_numbers_share_one_digit_has_none(self) -> None:
        assert interval_evidence(Decimal(25), Decimal(35)) is None
        assert interval_evidence(Decimal(95), Decimal(105)) is None


class TestWrittenNumber:
    @pytest.mark.parametrize(
        ("text", "found"),
        [
            ("1,293,400 people", False),  # inside a longer number
            ("93.45 g", False),  # a longer decimal
            ("93.4%", True),
            ("0.934", True),  # leading zeros
            ("9,340 units", True),  # trailing zeros
            ("from 5 934 to", True),  # after a separator
            ("(934)", True),
        ],
    )
    def test_whole_digits(self, text: str, found: bool) -> None:
        assert WrittenNumber("934").search(text) is found

    def test_first_digits(self) -> None:
        assert WrittenNumber("934", whole=False).search("93.47 g")
        assert not WrittenNumber("934", whole=False).search("1934.7 g")


class TestEveryProvidedKeyHasItsEvidence:
    """The rule the lazy index rests on: a chunk that provides a key shows its evidence."""

    def test_on_the_real_passages_and_answers(self) -> None:
        missed = [miss for text in real_texts() for miss in _unevidenced(text)]
        assert missed == []

    @settings(max_examples=1500, deadline=None, suppress_health_check=list(HealthCheck))
    @given(text=st.one_of(TEXT, DENSE_TEXT, SENTENCES))
    # Found by this test in CI: the scanner reads the product "1 x 1", then the
    # fraction 1/1500, which the date rule for "1/1/1500" hid from the digest.
    @example(text="1 x 1/1/1500")
    @example(text="2\u00d73/4/2019")
    # Found by this test: a power of ten before "pm" was read as an hour (1 pm).
    @example(text="1e6 pm")
    @example(text="2e5 am")
    # Found by this test in the README run: a chunk's "0:0" states 00:00.
    @example(text="0:0")
    @example(text=":0:0")  # and the second README run: its first colon starts no time
    # The writings of other locales read as times and dates (issue 21).
    @example(text="16:30-21:0")
    @example(text="at 19h30")
    @example(text="on 04.03.17, 4-Mar-17, 4. 3. 2017 and 2017. 03. 04.")
    @example(text="on 2017.03.04 or 2017\u5e743\u67084\u65e5")
    def test_on_generated_texts(self, text: str) -> None:
        assert _unevidenced(text) == []


class TestVerdictsEqualAFullReading:
    @settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
    @given(
        chunks=st.lists(st.one_of(TEXT, SENTENCES), max_size=6),
        answer=TEXT,
        query=st.sampled_from(["", "What happened in 2019?"]),
    )
    def test_on_generated_chunks_and_answers(
        self, chunks: list[str], answer: str, query: str
    ) -> None:
        assert same(lazily(query, chunks, answer), fully_read(query, chunks, answer))

    @settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
    @given(
        query=st.text(st.characters(exclude_categories=())),
        chunks=st.lists(st.text(st.characters(exclude_categories=())), max_size=4),
        answer=st.text(st.characters(exclude_categories=())),
    )
    def test_on_arbitrary_unicode(self, query: str, chunks: list[str], answer: str) -> None:
        """Surrogates, other scripts' digits, invisible characters: never a raise nor a change."""
        assert same(lazily(query, chunks, answer), fully_read(query, chunks, answer))

    @settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
    @given(chunks=st.lists(SENTENCES, min_size=1, max_size=6), data=st.data())
    def test_on_answers_copied_from_the_chunks(
        self, chunks: list[str], data: st.DataObject
    ) -> None:
        answer = " ".join(data.draw(st.lists(st.sampled_from(chunks), max_size=3)))
        answer += data.draw(TEXT)
        assert same(lazily("", chunks, answer), fully_read("", chunks, answer))

    def test_an_earlier_alternative_in_a_chunk_not_read_yet_is_the_support(self) -> None:
        # "4x4s" is supported by the dimension 4x4 or by a 4 and a 4. The
        # prefilter reads "3/4" first (it holds a 4): a 4 and a 4 are then
        # known, but a full reading finds the dimension first, in chunk 1, at
        # 0..4, and cites it; the lazy reading must too, not a support of no
        # one place.
        chunks = ["3/4 done.", "4x4s done."]
        expected = (Evidence("number", (0, 4), 1, (0, 4), None),)
        assert fully_read("", chunks, "4x4s done.").evidence == expected
        assert lazily("", chunks, "4x4s done.").evidence == expected


def _counts(size: int) -> list[str]:
    """
    Chunks each stating one count (1000, 1007, 1014, ...), long and dense enough to be read lazily.

    The filler's zeros hold no digit of the counts (and 0 is trivial).
    """
    filler = " ".join(["0000"] * 30)
    return [f"Chunk {n} says the count was {1000 + 7 * n}. {filler}" for n in range(size)]


class TestQuotationsInALazyIndex:
    def test_a_quotation_is_found_in_the_chunk_that_holds_it(self) -> None:
        chunks = ["It rained.", 'The mayor said the plan was "approved in full".', "Then 12."]
        answer = 'The mayor said it was "approved in full".'
        assert lazily("", chunks, answer).ok

    def test_a_chunk_that_folding_turns_into_ascii_letters_is_searched(self) -> None:
        # "STRASSE" folds to "strasse", as does "Straße": the digest of the
        # chunk (which drops ß) does not show it, so the chunk is searched.
        chunks = ["Noise 12.", "Die Straße ist lang."]
        assert lazily("", chunks, 'It said "die STRASSE ist lang".').ok
        assert not lazily("", chunks, 'It said "die STRASSE ist kurz".').ok

    def test_near_misses_in_other_chunks_do_not_count(self) -> None:
        chunks = ["she is guilty of fraud", "He left."]
        assert not lazily("", chunks, 'It said "he is guilty of fraud".').ok


class TestReading:
    def test_a_supported_number_reads_the_one_chunk_that_holds_it(self) -> None:
        prepared = GroundingCheck().prepare("", _counts(100))
        # 1350 = 1000 + 7 * 50: only chunk 50 writes 135 as a number.
        assert prepared.check("The count was 1350.").ok
        assert prepared._chunks._read == bytearray(1 if n == 50 else 0 for n in range(100))

    def test_an_unsupported_number_no_chunk_writes_reads_nothing(self) -> None:
        prepared = GroundingCheck().prepare("", _counts(100))
        result = prepared.check("The count was 9999.")
        assert [finding.code for finding in result.findings] == ["FG001"]
        assert not any(prepared._chunks._read)

    def test_many_distinct_unsupported_numbers_read_every_chunk_once(self) -> None:
        chunks = _counts(200)
        # As many as a finding lists (MAX_FAILING_SPANS).
        answer = " ".join(f"{20_000 + 3 * n}" for n in range(1000))
        prepared = GroundingCheck().prepare("", chunks)
        result = prepared.check(answer)
        assert prepared._chunks.complete  # past the search budget
        assert same(result, fully_read("", chunks, answer))
        assert len(result.findings[0].spans) == 1000

    def test_opaque_chunks_are_read_up_front(self) -> None:
        chunks = _counts(100)
        chunks[7] = "It grew by 1/4."
        prepared = GroundingCheck().prepare("", chunks)
        assert prepared._chunks._read == bytearray(1 if n == 7 else 0 for n in range(100))

    def test_short_chunks_are_read_at_once(self) -> None:
        prepared = GroundingCheck().prepare("", ["It cost 5 dollars.", "It grew by 12."])
        assert prepared._chunks.complete

    def test_prose_with_few_digits_is_read_at_once(self) -> None:
        prose = "The survey went on for weeks across the whole region, said the 3 teams. " * 3
        prepared = GroundingCheck().prepare("", [prose] * 100)
        assert prepared._chunks.complete

    def test_concurrent_checks_of_one_prepared_check_agree_with_a_full_reading(self) -> None:
        chunks = _counts(300)
        answers = [f"The count was {1000 + 7 * n} and then {1003 + 7 * n}." for n in range(300)]
        prepared = GroundingCheck().prepare("", chunks)
        with ThreadPoolExecutor(max_workers=8) as pool:
            results = list(pool.map(prepared.check, answers))
        assert results == [fully_read("", chunks, answer) for answer in answers]
