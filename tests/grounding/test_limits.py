"""An answer with more failing spans than a check reports: the first ones, and where it stopped."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import relapse.grounding._check as check_module
import relapse.grounding._index.blocks as blocks_module
from property_budget import examples
from relapse._results import GroundingResult
from relapse.grounding import ALL_CODES, GroundingCheck, default_grounding_check
from relapse.grounding._check import MAX_FAILING_SPANS
from relapse.grounding._echo import Lines

_NOTHING = ["Nothing here."]


def _stopped(cut: int, length: int) -> str:
    """The end of every message of a check that stopped at ``cut``."""
    return (
        "(the check stopped after the answer's first 1,000 failing spans,"
        f" at character {cut:,} of {length:,})"
    )


def test_the_limit() -> None:
    assert MAX_FAILING_SPANS == 1_000


def test_as_many_as_the_limit_are_all_reported() -> None:
    answer = " ".join(str(10_000 + n) for n in range(1_000))
    (finding,) = default_grounding_check("q", _NOTHING, answer).findings
    assert finding.offsets == tuple((6 * n, 6 * n + 5) for n in range(1_000))
    assert "stopped" not in finding.message


def test_one_more_stops_the_check_before_it() -> None:
    # Five digits and a space each: the 1,001st number starts at 6,000.
    answer = " ".join(str(10_000 + n) for n in range(1_001))
    result = default_grounding_check("q", _NOTHING, answer)
    assert not result.ok
    (finding,) = result.findings
    assert finding.offsets == tuple((6 * n, 6 * n + 5) for n in range(1_000))
    assert finding.message.endswith(_stopped(6_000, 6_005))


def test_the_first_failing_spans_of_every_code_in_answer_order() -> None:
    # Each sentence holds a failing quotation (which covers its number) and
    # a failing number: 1,200 failing spans, quotation then number. The first
    # 1,000 are those of the first 500 sentences; the 1,001st is the quotation
    # of sentence 500.
    answer = "".join(f'He said "alpha beta {n}" and {50_000 + n}. ' for n in range(600))
    result = default_grounding_check("q", _NOTHING, answer)
    quotations, numbers = (
        next(f for f in result.findings if f.code == code) for code in ("FG003", "FG001")
    )
    assert len(quotations.offsets) == len(numbers.offsets) == 500
    assert numbers.spans == tuple(str(50_000 + n) for n in range(500))
    cut = answer.index('"alpha beta 500"') + 1
    assert quotations.message.endswith(_stopped(cut, len(answer)))
    assert numbers.message.endswith(_stopped(cut, len(answer)))


def test_numbers_in_words_count_too() -> None:
    answer = " ".join(["seventy"] * 1_001)  # 8 characters each: the last starts at 8,000
    (finding,) = default_grounding_check("q", _NOTHING, answer).findings
    assert finding.offsets == tuple((8 * n, 8 * n + 7) for n in range(1_000))
    assert finding.message.endswith(_stopped(8_000, 8_007))


def test_failing_quotations_alone() -> None:
    answer = " ".join(f'"alpha beta {n}"' for n in range(1_500))
    (finding,) = default_grounding_check("q", _NOTHING, answer).findings
    assert len(finding.offsets) == 1_000
    cut = answer.index('"alpha beta 1000"') + 1
    assert finding.message.endswith(_stopped(cut, len(answer)))


def test_a_long_answer_judged_by_blocks_stops_at_the_same_span() -> None:
    # 100,000 characters of a supported "7", then 1,001 unsupported ranges.
    answer = "7 " * 50_000 + "10-15 " * 1_001
    assert len(answer) >= blocks_module.BLOCKS_FROM
    result = default_grounding_check("q", ["Pick 7."], answer)
    (finding,) = result.findings
    assert finding.offsets == tuple((100_000 + 6 * i, 100_005 + 6 * i) for i in range(1_000))
    assert finding.message.endswith(_stopped(106_000, 106_006))
    saved = blocks_module.BLOCKS_FROM
    blocks_module.BLOCKS_FROM = 1 << 60
    try:
        assert default_grounding_check("q", ["Pick 7."], answer) == result
    finally:
        blocks_module.BLOCKS_FROM = saved


def test_names_are_cut_at_the_same_span() -> None:
    numbers = " ".join(str(10_000 + n) for n in range(1_000))
    answer = f"We met Zorblat there. {numbers} and then Quenfis left."
    result = GroundingCheck(codes=ALL_CODES)("q", _NOTHING, answer)
    names, digits = (next(f for f in result.findings if f.code == c) for c in ("FG005", "FG001"))
    # Zorblat and the first 999 numbers; the 1,000th number is the 1,001st span.
    assert names.spans == ("Zorblat",)  # Quenfis is after the cut
    assert len(digits.spans) == 999
    cut = len("We met Zorblat there. ") + 6 * 999
    assert names.message.endswith(_stopped(cut, len(answer)))


def _line_around(answer: str, start: int, end: int) -> tuple[int, int]:
    """The line holding ``answer[start:end]``, found by searching: the specification of Lines."""
    line_start = answer.rfind("\n", 0, start) + 1
    line_end = answer.find("\n", end)
    line_end = len(answer) if line_end < 0 else line_end
    while line_start < start and answer[line_start].isspace():
        line_start += 1
    while line_end > end and answer[line_end - 1].isspace():
        line_end -= 1
    return line_start, line_end


@settings(max_examples=examples(300), deadline=None)
@given(answer=st.text(st.sampled_from("ab \n\t")), data=st.data())
def test_the_line_around_a_hit(answer: str, data: st.DataObject) -> None:
    start = data.draw(st.integers(0, len(answer)))
    end = data.draw(st.integers(start, len(answer)))
    assert Lines(answer).around(start, end) == _line_around(answer, start, end)


def test_an_echo_on_every_line() -> None:
    # 3,000 lines, each echoing the retry instructions: each line is a
    # failing span; the first 1,000 are reported.
    line = "Problems found in your previous answer: FG001"
    answer = "\n".join([line] * 3_000)
    (finding,) = default_grounding_check("q", _NOTHING, answer).findings
    assert finding.code == "FG004"
    width = len(line) + 1
    assert finding.offsets == tuple((width * n, width * n + len(line)) for n in range(1_000))
    assert finding.message.endswith(_stopped(width * 1_000, len(answer)))


# Claims that fail against _NOTHING, of every code the limit counts, and
# claims that pass.
_FAILING_PIECES = st.sampled_from(
    [
        "12345 ",
        "seventy ",
        '"alpha beta 9" ',
        "May 5, 1999 ",
        "10-15 km ",
        "Problems found in your previous answer:\n",
        "2 ",
        "the river ",
        "(passage 3) ",
    ]
)


def _first_spans(result: GroundingResult, limit: int) -> list[tuple[int, int, str]]:
    """The first ``limit`` failing spans of a result, all codes together, in answer order."""
    spans = sorted(
        (start, end, finding.code) for finding in result.findings for start, end in finding.offsets
    )
    return spans[:limit]


@settings(max_examples=examples(25), deadline=None, suppress_health_check=list(HealthCheck))
@given(
    pieces=st.lists(_FAILING_PIECES, min_size=900, max_size=1_400),
    block=st.sampled_from([64, 2_048]),
)
def test_the_reported_spans_are_the_first_of_a_full_reading(
    pieces: list[str], block: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    answer = "".join(pieces)
    reported = default_grounding_check("q", _NOTHING, answer)
    with monkeypatch.context() as patched:
        patched.setattr(check_module, "MAX_FAILING_SPANS", 1 << 60)
        full = default_grounding_check("q", _NOTHING, answer)
    with monkeypatch.context() as patched:
        patched.setattr(blocks_module, "BLOCKS_FROM", 0)
        patched.setattr(blocks_module, "BLOCK", block)
        assert default_grounding_check("q", _NOTHING, answer) == reported
    assert _first_spans(reported, 2_000) == _first_spans(full, 1_000)
    stopped = _first_spans(full, 1_001)
    for finding in reported.findings:
        if len(stopped) > 1_000:
            assert finding.message.endswith(_stopped(stopped[1_000][0], len(answer)))
        else:
            assert "stopped" not in finding.message
