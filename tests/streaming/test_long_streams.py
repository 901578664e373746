"""
Long streamed answers, judged by a window past ``WINDOW_BACK`` characters (issue 38).

Found by hostile testing: past about 1,300 characters the streamed check
judged a window of the answer, and the small-ordinal rule, which reads the
chunks after the first 16 distinct words an answer ranks after, read other
words there than in the whole answer. The caller was handed ``She finished
fourth.``, which the whole answer flags; the retry re-checked the released
prefix in one piece, failed at once, and the caller's loop got
``RuntimeError: feed() after a sentence failed``.
"""

from __future__ import annotations

from collections.abc import Iterator

import relapse

DOCS = ["In the 2019 race she finished 3rd."]
#: 16 words the chunks rank nothing after; with "finished", 17 distinct words.
_WORDS = (
    *("came", "placed", "ranked", "rated", "scored", "ended", "started", "stood"),
    *("sat", "rode", "ran", "swam", "jumped", "threw", "won", "lost"),
)
_RANKS = " ".join(f"The team {word} second." for word in _WORDS)
_FILLER = (
    "Visitors like the view from the hills on the northern side of the river, where the whole"
    " city and the water below can be seen at once on a clear day."
)
#: Everything before the failing rank: what the caller may read of attempt 1.
LEAD = " ".join(["She finished third.", _RANKS, *[_FILLER] * 10, _RANKS]) + " "
FIRST = LEAD + "She finished fourth. That is all. " + _FILLER
RETRY = "She finished third in 2019."


def _pieces(text: str) -> Iterator[str]:
    for at in range(0, len(text), 7):
        yield text[at : at + 7]


class TestARankPastTheWindow:
    def test_the_caller_never_reads_the_flagged_rank_and_the_retry_goes_on(self) -> None:
        """Attempt 1 stops at ``She finished fourth.``; the retry continues after ``LEAD``."""
        answers = [FIRST, RETRY]

        @relapse.grounded(chunks_arg="docs", release="sentence", max_iterations=2)
        def answer(query: str, docs: list[str]) -> Iterator[str]:
            yield from _pieces(answers.pop(0))

        with answer("How did she do?", DOCS) as stream:
            read = "".join(stream)
        assert LEAD + RETRY == read
        result = stream.result
        assert ("recovered", LEAD + RETRY) == (result.outcome, result.answer)
        # LEAD's last space came in the piece with "She fi" (never released):
        # the retry is joined to the prefix with one.
        assert [LEAD[:-1], " " + RETRY] == [record.released for record in result.transcript]
        assert [("FG001", ("fourth",))] == [
            (finding.code, finding.spans) for finding in result.transcript[0].findings
        ]
