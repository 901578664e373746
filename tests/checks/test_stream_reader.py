"""
A check says how its verdicts read a growing answer: the stream reader (issue 40).

The incremental check asks the check's :class:`relapse.checks.StreamReader`
when a sentence's verdict is final and where a verdict's claims are; the
default check supplies its own, whose reach is computed from the rules'
registry; a check that supplies none is read generically, as before.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

import pytest

import relapse
from relapse.checks import (
    ClaimSpans,
    IncrementalCheck,
    ReadsItsStream,
    StreamReader,
    StreamWindow,
    all_of,
    incremental,
    reader_of,
)
from relapse.checks._contract import Verdict, prepare
from relapse.checks._incremental import GENERIC_REACH, GENERIC_READER, ComposedReader
from relapse.grounding import GroundingCheck, default_grounding_check
from relapse.grounding._index.blocks import LOOK_AHEAD, LOOK_BACK
from relapse.grounding._stream import READ_AFTER, READ_BEFORE, WINDOW_BACK, reach
from relapse.grounding.rules import RULES

CHUNKS = ["Paris has 2.1 million residents. The city was founded in 1998 by the Parisii."]
QUERY = "How many people live in Paris?"


def passing(query: str, chunks: Sequence[str], answer: str) -> relapse.GroundingResult:
    """A user's check: everything passes."""
    return relapse.GroundingResult(ok=True)


passing.incremental = True  # type: ignore[attr-defined]


class TestTheHoldBackReachFollowsTheRules:
    def test_the_reach_is_the_registry_s(self) -> None:
        """The stream's reach is computed from RULES (and the readers' windows)."""
        assert (READ_BEFORE, READ_AFTER) == reach(RULES)
        assert READ_AFTER == default_grounding_check.stream_reader().reach
        assert 2 * READ_BEFORE == WINDOW_BACK

    @pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.name)
    def test_no_rule_reads_past_the_hold_back_or_the_window(self, rule: object) -> None:
        before, after = rule.reach  # type: ignore[attr-defined]
        assert after <= READ_AFTER
        assert 2 * before <= WINDOW_BACK

    def test_a_rule_that_reaches_further_moves_the_reach(self) -> None:
        """A rule reading past every window today grows the reach with it, on each side."""
        further = dataclasses.replace(RULES[0], reach=(LOOK_BACK + 300, LOOK_AHEAD + 50))
        assert (LOOK_BACK + 300, LOOK_AHEAD + 50) == reach([*RULES, further])
        shorter = dataclasses.replace(RULES[0], reach=(0, 0))
        # With no rule reading further, the readers' own windows stay the floor.
        assert (LOOK_BACK, LOOK_AHEAD) == reach([shorter])

    def test_today_s_figures(self) -> None:
        """The figures of the registry today, worked out by hand: the marker's 600 + 64, 144."""
        # LOOK_BACK = INLINE_MARKER_WINDOW (600) + 64; LOOK_AHEAD = CONTEXT_AFTER (80) + 64;
        # the furthest rules reach (600, 120): cited-marker and compound-money.
        assert (664, 144) == (READ_BEFORE, READ_AFTER)
        assert (600, 120) == (
            max(rule.reach[0] for rule in RULES),
            max(rule.reach[1] for rule in RULES),
        )

    def test_a_failure_is_final_the_reach_past_its_claim(self) -> None:
        """An unsupported number ending a line fails once READ_AFTER characters follow it."""
        # A line break may be crossed (``3\npassages``): the failure waits the reach.
        text = "It has 9 residents\n" + "And more " * 40
        made = incremental(default_grounding_check, QUERY, CHUNKS)
        assert made is not None
        end = len("It has 9")
        assert made.feed(text[: end + READ_AFTER - 1]).failed is None
        assert made.feed(text[end + READ_AFTER - 1]).failed is not None


class TestTheDefaultCheckSuppliesItsReader:
    def test_it_implements_the_protocols(self) -> None:
        assert isinstance(default_grounding_check, ReadsItsStream)
        reader = default_grounding_check.stream_reader()
        assert isinstance(reader, StreamReader)
        bound = prepare(default_grounding_check, QUERY, CHUNKS)
        assert isinstance(reader.window(bound), StreamWindow)

    def test_a_wrapper_of_its_check_gets_no_window(self) -> None:
        """Only the check's own verdicts are judged by windows: a wrapper's may differ."""
        bound = prepare(default_grounding_check, QUERY, CHUNKS)
        reader = default_grounding_check.stream_reader()
        assert reader.window(lambda answer: bound(answer)) is None

    def test_its_reader_knows_a_claim_free_sentence_is_final_at_once(self) -> None:
        """A sentence with no claim-like text is final at its end; a generic one 144 past it."""
        text = "Paris is a city. It"
        end = len("Paris is a city.")
        assert end == default_grounding_check.stream_reader().final_from(text, 0, end)
        assert end + GENERIC_REACH == GENERIC_READER.final_from(text, 0, end)


class TestAUsersCheck:
    def test_a_check_with_no_reader_is_read_generically(self) -> None:
        assert GENERIC_READER is reader_of(passing)
        made = incremental(passing, QUERY, CHUNKS)
        assert made is not None
        # Released GENERIC_REACH characters past the sentence's end, not at once.
        assert 0 == made.feed("Fine. " + "X" * (GENERIC_REACH - 2)).releasable
        assert len("Fine.") == made.feed("X").releasable

    def test_a_check_may_supply_its_own_reader(self) -> None:
        """A reader that knows a verdict is final at the sentence's end releases it at once."""

        class AtTheEnd:
            reach = 10

            def final_from(self, text: str, start: int, end: int) -> int | None:
                return end

            def fails_for_good(self, text: str, sentence: tuple[int, int], start: int) -> bool:
                return True

            def held_from(self, text: str) -> int | None:
                return None

            def claims(self, verdict: relapse.GroundingResult, text: str) -> ClaimSpans:
                return ClaimSpans((), not verdict.ok)

            def narrowed(
                self,
                finding: relapse.GroundingFinding,
                text: str,
                offsets: Sequence[tuple[int, int]],
            ) -> relapse.GroundingFinding:
                return finding

            def window(self, bound: Callable[[str], Verdict]) -> StreamWindow | None:
                return None

        class Mine:
            incremental = True

            def __call__(
                self, query: str, chunks: Sequence[str], answer: str
            ) -> relapse.GroundingResult:
                return relapse.GroundingResult(ok=True)

            def stream_reader(self) -> StreamReader:
                return AtTheEnd()

        check = Mine()
        assert isinstance(check, ReadsItsStream)
        assert isinstance(check.stream_reader(), StreamReader)
        made = incremental(check, QUERY, CHUNKS)
        assert made is not None
        # The quotation mark would hold a generic reader's release; this one holds nothing.
        assert len('Fine "and.') == made.feed('Fine "and. More').releasable


class TestCompositions:
    def test_of_default_checks_is_read_by_their_readers(self) -> None:
        reader = reader_of(all_of(default_grounding_check, GroundingCheck(name="other")))
        assert isinstance(reader, ComposedReader)
        text = "Paris is a city. It"
        end = len("Paris is a city.")
        assert end == reader.final_from(text, 0, end)
        assert READ_AFTER == reader.reach

    def test_with_a_check_with_no_reader_waits_the_generic_reach(self) -> None:
        """The verdict is final when every part's is: the user's check's after GENERIC_REACH."""
        reader = reader_of(default_grounding_check & passing)
        text = "Paris is a city. It"
        end = len("Paris is a city.")
        assert end + GENERIC_REACH == reader.final_from(text, 0, end)
        # Where the claims are is still the default check's reading: an echo's phrase.
        phrase = "answer the question again using only the context"
        answer = f"Paris is a city. Now {phrase}."
        verdict = default_grounding_check(QUERY, CHUNKS, answer)
        at = len("Paris is a city. Now ")
        assert ClaimSpans(((at, at + len(phrase), 0),), False) == reader.claims(verdict, answer)

    def test_judges_no_window(self) -> None:
        check = all_of(default_grounding_check, default_grounding_check)
        made = IncrementalCheck(prepare(check, QUERY, CHUNKS), reader_of(check))
        made.feed("Paris is a city. " * 200)
        assert 0 == made.window_checks
