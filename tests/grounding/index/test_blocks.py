"""Long answers judged by blocks: the same verdicts as one pass, each distinct block judged once."""

# from test_blocks.py, moved whole (issue 40's layout)
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import relapse.grounding._index.blocks as blocks_module
from grounding_texts import DENSE_TEXT, PIECES, SENTENCES, TEXT
from relapse._results import GroundingResult
from relapse.grounding import ALL_CODES, GroundingCheck, default_grounding_check
from relapse.grounding._read.context import CONTEXT_AFTER, CONTEXT_BEFORE, INLINE_MARKER_WINDOW
from relapse.grounding._read.scan import ScanState

_CHUNKS = [
    "The bridge is 12.5 km long and opened on May 5, 1999, after 10-15 years of work.",
    "Tickets cost $5, a 5% rise; at least 200 people came. Pick 7 of 9 options.",
    'The mayor said "we will finish by 2030" and 3rd-place teams get 1,234,567 points.',
]
_NAMES_CHECK = GroundingCheck(codes=ALL_CODES)


@contextmanager
def _blocks(block: int) -> Iterator[None]:
    """Judge every answer by blocks of ``block`` characters, however short."""
    saved = blocks_module.BLOCKS_FROM, blocks_module.BLOCK
    blocks_module.BLOCKS_FROM, blocks_module.BLOCK = 0, block
    try:
        yield
    finally:
        blocks_module.BLOCKS_FROM, blocks_module.BLOCK = saved


@contextmanager
def _one_pass() -> Iterator[None]:
    """Judge every answer in one pass, however long."""
    saved = blocks_module.BLOCKS_FROM
    blocks_module.BLOCKS_FROM = 1 << 60
    try:
        yield
    finally:
        blocks_module.BLOCKS_FROM = saved


def _both(
    answer: str,
    block: int,
    chunks: list[str] = _CHUNKS,
    check: GroundingCheck = default_grounding_check,
    query: str = "q",
) -> tuple[GroundingResult, GroundingResult]:
    """Return the verdict by blocks and the verdict in one pass."""
    with _blocks(block):
        by_blocks = check(query, chunks, answer)
    with _one_pass():
        whole = check(query, chunks, answer)
    return by_blocks, whole


# Pieces of hostile answers: every kind of claim the scanner reads, some
# supported by _CHUNKS and some not, and claims that straddle a block's end.
_REPEATED = [
    "7 ",
    "3rd ",
    "10-15 ",
    "$5 5% ",
    "May 5, 1999 ",
    "12.5 km ",
    "at least 200 ",
    "between 10 and 15 ",
    "1,234,567 points. ",
    "Sept. 5 and 2019 ",
    "(1) first (2) second. ",
    "-5 °C (23 °F) ",
    'He said "we will finish by 2031" ',
    "seventy-two 72 ",
    "v2.0.1 COVID-19 ",
    "8,22,443 ",
    "1939-45 ",
    "¾ ",
    "2.5 x 10^-3 ",
]


class TestSameVerdictsAsOnePass:
    @pytest.mark.parametrize("piece", _REPEATED)
    @pytest.mark.parametrize("block", [1, 5, 64, 2048])
    def test_on_repeated_claims(self, piece: str, block: int) -> None:
        answer = piece * (6_000 // len(piece))
        by_blocks, whole = _both(answer, block)
        assert by_blocks == whole

    @pytest.mark.parametrize("piece", ["7 ", "10-15 ", "May 5, 1999 ", "at least 200 "])
    def test_on_repeated_claims_with_the_real_block_size(self, piece: str) -> None:
        answer = piece * (blocks_module.BLOCKS_FROM * 2 // len(piece))
        with _one_pass():
            whole = default_grounding_check("q", _CHUNKS, answer)
        assert default_grounding_check("q", _CHUNKS, answer) == whole

    @pytest.mark.parametrize(
        "long_claim",
        ["1" * 3_000, "3" + "rd" * 1_500, "1." * 1_500 + "1", "$" + "9" * 2_500 + " million"],
    )
    def test_on_claims_longer_than_the_margins(self, long_claim: str) -> None:
        answer = ("7 May 5, 1999 " * 40 + long_claim + " 10-15 ") * 8
        by_blocks, whole = _both(answer, 512)
        assert by_blocks == whole

    def test_on_quotations_and_numbers_in_words(self) -> None:
        # Failing quotations cover their digits; numbers in words skip the
        # digits the blocks found.
        answer = ('He said "we will finish by 2031" in 2.1 billion seventy ways. ' * 300) + (
            'Then "we will finish by 2030" came.'
        )
        by_blocks, whole = _both(answer, 100)
        assert by_blocks == whole
        assert {finding.code for finding in whole.findings} == {"FG001", "FG003"}

    def test_with_the_names_check_and_dates_only(self) -> None:
        answer = "Paris has 7 bridges since May 5, 1999 and 10-15 parks. " * 200
        for check in (_NAMES_CHECK, GroundingCheck(codes={"FG002"})):
            by_blocks, whole = _both(answer, 300, check=check)
            assert by_blocks == whole

    @settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
    @given(
        piece=st.one_of(TEXT, DENSE_TEXT, SENTENCES),
        times=st.integers(1, 60),
        tail=TEXT,
        block=st.sampled_from([1, 3, 16, 100]),
    )
    def test_on_generated_repetitions(self, piece: str, times: int, tail: str, block: int) -> None:
        by_blocks, whole = _both(piece * times + tail, block)
        assert by_blocks == whole

    @settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
    @given(
        answer=st.lists(st.one_of(PIECES, st.sampled_from(_REPEATED)), max_size=200).map("".join),
        chunks=st.lists(st.one_of(TEXT, SENTENCES), max_size=4),
        block=st.sampled_from([1, 2, 7, 50]),
    )
    def test_on_generated_answers(self, answer: str, chunks: list[str], block: int) -> None:
        by_blocks, whole = _both(answer, block, chunks=chunks, query="What happened in 2019?")
        assert by_blocks == whole


class TestEachDistinctBlockOnce:
    def test_a_repeated_claim_is_scanned_in_three_blocks(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        # "7 " * 100,000 is 200,000 characters: 98 blocks of 2,048 (the last
        # one 1,344). Every block starts at an even offset, on a "7", with
        # the same state. Three blocks differ in their margins: the first
        # (no margin before it), the last (the text ends inside it) and the
        # second (the first with a whole margin each side); blocks 3 to 97
        # repeat the second.
        assert (blocks_module.BLOCK, blocks_module.MARGIN) == (2_048, 1_024)
        scanned: list[int] = []
        original = blocks_module.scan_block

        def counting(text: str, state: ScanState, stop: int) -> object:
            scanned.append(stop)
            return original(text, state, stop)

        monkeypatch.setattr(blocks_module, "scan_block", counting)
        result = default_grounding_check("q", _CHUNKS, "7 " * 100_000)
        assert result.ok  # "7" is in a chunk
        assert scanned == [2_048, 4_096, 200_000]

    def test_the_failing_claims_are_reported_at_their_offsets(self) -> None:
        answer = "10-15 " * 20_000  # 120,000 characters, 20,000 unsupported ranges
        result = default_grounding_check("q", ["It took 12 years."], answer)
        (finding,) = result.findings
        assert finding.code == "FG001"
        # The first 1,000 (MAX_FAILING_SPANS); the 1,001st starts at 6,000.
        assert finding.offsets == tuple((6 * i, 6 * i + 5) for i in range(1_000))
        assert set(finding.spans) == {"10-15"}
        assert finding.message.endswith("at character 6,000 of 120,000)")


class TestResultsThatReadPastTheMargins:
    # With blocks of one character every offset starts a block, so the two
    # occurrences below meet blocks whose text, margins and state are the
    # same, though the claims they start end differently (or begin
    # differently) outside the margins: such results must not be reused.

    def test_a_claim_that_ends_past_the_margin(self) -> None:
        first = "7 " * 600 + "9" * 3_000 + " million "
        answer = first + "7 " * 600 + "9" * 3_000 + "% "
        with _blocks(1):
            result = default_grounding_check("q", _CHUNKS, answer)
        (finding,) = result.findings
        # 1,200 characters of "7 ", then 3,000 nines and " million" (3,008),
        # then " " and 1,200 more; the percentage is 3,001 characters long.
        second = len(first) + 1_200
        assert finding.offsets == ((1_200, 4_208), (second, second + 3_001))

    def test_a_range_that_starts_before_the_margin(self) -> None:
        # A reference to a passage is no claim; a range of amounts is.
        reference = "passage " + "9" * 3_000 + "-15 " + "7 " * 600
        answer = reference + "amount " + "9" * 3_000 + "-15 " + "7 " * 600
        with _blocks(1):
            result = default_grounding_check("q", _CHUNKS, answer)
        (finding,) = result.findings
        start = len(reference) + 7
        assert finding.offsets == ((start, start + 3_003),)


class TestWindows:
    def test_the_margins_hold_every_window_a_rule_reads(self) -> None:
        assert blocks_module.LOOK_BACK >= max(CONTEXT_BEFORE, INLINE_MARKER_WINDOW)
        assert blocks_module.LOOK_AHEAD >= CONTEXT_AFTER
        assert blocks_module.MARGIN >= max(blocks_module.LOOK_BACK, blocks_module.LOOK_AHEAD)
