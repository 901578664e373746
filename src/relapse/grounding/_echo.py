"""
Echo (FG004): the answer repeats relapse's own retry instructions instead of answering.

A small model given a retry prompt sometimes continues the prompt rather than
answer it, returning ``- FG001: 2 number(s) not in retrieved chunks: ['10',
'12']``. Such an answer must never count as grounded, whatever its numbers.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

#: Phrases of relapse's retry prompts. An answer holding one (case-folded)
#: that no chunk holds is echoing the prompt. Keep in step with the retry
#: wording in ``relapse._prompts``.
ECHO_PHRASES: tuple[str, ...] = (
    "not supported by the context",
    "your previous answer",
    "answer again using only the context",
    "answer using only the context",
    "previous answer was rejected",
    "states things the context does not support",
    "problems found",
    "the question again",
    # The fixed words of the check's own finding messages, which the retry
    # query quotes: a model that copies a message has not answered.
    "not in the retrieved chunks",
    "not found verbatim in the retrieved chunks",
    "the answer is empty",
    "retry instructions instead of answering",
)

#: A finding code, as the retry prompt cites it.
FINDING_CODE = re.compile(r"\bFG0\d\d\b")


def phrase_pattern(phrase: str) -> re.Pattern[str]:
    """
    Compile a phrase to find in an answer: any case, any run of whitespace.

    Args:
        phrase: An echo phrase.

    Returns:
        The compiled pattern.
    """
    words = phrase.split()
    return re.compile(r"[\s\u00a0]+".join(re.escape(word) for word in words), re.IGNORECASE)


def echo_hits(
    answer: str, patterns: Iterable[tuple[str, re.Pattern[str]]]
) -> Iterator[tuple[str, int, int]]:
    """
    Yield every finding code and echo phrase in the answer.

    Args:
        answer: The answer.
        patterns: ``(folded phrase, compiled pattern)`` pairs.

    Yields:
        ``(what, start, end)``: ``what`` is the code (``"FG001"``) or the folded
        phrase, to be looked up in the chunks.
    """
    if "FG0" in answer:
        for match in FINDING_CODE.finditer(answer):
            yield match.group(), match.start(), match.end()
    folded = " ".join(answer.casefold().split())
    for phrase, pattern in patterns:
        if phrase in folded:  # the regex only runs to locate a phrase that is there
            for match in pattern.finditer(answer):
                yield phrase, match.start(), match.end()


def line_span(answer: str, start: int, end: int) -> tuple[int, int]:
    """
    Return the span of the line(s) holding ``answer[start:end]``, without edge spaces.

    Args:
        answer: The answer.
        start: The hit's start.
        end: The hit's end.

    Returns:
        The echoing text: the whole line, since the echo is the line.
    """
    line_start = answer.rfind("\n", 0, start) + 1
    line_end = answer.find("\n", end)
    if line_end < 0:
        line_end = len(answer)
    while line_start < start and answer[line_start].isspace():
        line_start += 1
    while line_end > end and answer[line_end - 1].isspace():
        line_end -= 1
    return line_start, line_end
