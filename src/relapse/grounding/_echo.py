"""
Echo (FG004): the answer repeats relapse's own retry instructions instead of answering.

A small model given a retry prompt sometimes continues the prompt rather than
answer it, returning ``- FG001: 2 number(s) not in retrieved chunks: ['10',
'12']``. Such an answer must never count as grounded, whatever its numbers.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable, Iterator

from relapse.grounding._codes import EMPTY_MESSAGE, MESSAGES

#: Fewest words an echo phrase has, unless it is a header (``Problems
#: found:``): shorter pieces of the wording are ordinary English.
MIN_ECHO_WORDS = 4
# Where the fixed words of a wording break into phrases: the places its
# arguments go (marked by a sentinel) and sentence punctuation.
_SENTINEL = "\x00"
_BREAKS = re.compile(r"[\x00.;:,()\[\]\"\n?!][\x00.;:,()\[\]\"\n?! ]*")
_QUOTED = re.compile(r"\"[^\"]*\"|'[^'\s][^']*'|\[[^\]]*\]")


def wording_phrases(texts: Iterable[str], exclude: Iterable[str] = ()) -> tuple[str, ...]:
    """
    Split the fixed words of retry wordings into the phrases FG004 looks for.

    A phrase is a run of words between two breaks (an argument's place, a
    sentence or clause mark, a quotation) with at least
    :data:`MIN_ECHO_WORDS` words, or a header of two or more words that opens
    a line and ends in a colon (``Problems found:``), kept with its colon.

    Args:
        texts: Wordings with their arguments replaced by the NUL character.
        exclude: Text to drop first, such as the refusal the wording asks
            for (saying it is an answer, not an echo).

    Returns:
        The phrases, case-folded with single spaces, in first-seen order.
    """
    phrases: dict[str, None] = {}
    for text in texts:
        for excluded in exclude:
            text = text.replace(excluded, _SENTINEL)
        text = _QUOTED.sub(_SENTINEL, text)
        position = 0
        for match in _BREAKS.finditer(text + _SENTINEL):
            piece = " ".join(text[position : match.start()].casefold().split())
            words = len(piece.split())
            colon = match.group().startswith(":")
            if colon and position and text[position - 1] == "\n" and words >= 2:
                phrases.setdefault(piece + ":", None)  # a header: "Problems found:"
            elif words >= MIN_ECHO_WORDS:
                # Before an argument ("does not support: <findings>") the
                # colon is part of the phrase: without it, the words are
                # ordinary English ("the context does not support this").
                introduces = colon and _SENTINEL in match.group()
                phrases.setdefault(piece + ":" if introduces else piece, None)
            position = match.end()
    return tuple(phrases)


def _relapse_wordings() -> list[str]:
    """Return every retry wording relapse writes, its arguments replaced by the sentinel."""
    # Imported here: the prompts and the local adapter import nothing of the
    # check, but keeping these imports local keeps the dependency one-way.
    from relapse._prompts import NO_ANSWER, RETRY_WORDINGS
    from relapse._types import GroundingFinding
    from relapse.llms.local import RETRY_EXAMPLE_QUESTION

    finding = GroundingFinding(_SENTINEL, _SENTINEL, (_SENTINEL,))
    texts = [wording(_SENTINEL, _SENTINEL, [finding]) for wording in RETRY_WORDINGS]
    # The local model's worked example: its retry note, after the question.
    texts.append(RETRY_EXAMPLE_QUESTION[RETRY_EXAMPLE_QUESTION.find("(") + 1 :])
    # The finding messages, which the retry query quotes.
    texts += [template.format(count=_SENTINEL, spans=_SENTINEL) for template in MESSAGES.values()]
    texts.append(EMPTY_MESSAGE)
    return [text.replace(NO_ANSWER, _SENTINEL) for text in texts]


#: Phrases of relapse's retry wordings (``relapse._prompts.RETRY_WORDINGS``),
#: of the local model's worked retry example and of the finding messages,
#: derived from their text by :func:`wording_phrases`. An answer holding one
#: (case-folded, on word boundaries) that no chunk holds is echoing the prompt.
ECHO_PHRASES: tuple[str, ...] = wording_phrases(_relapse_wordings())

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
    body = r"[\s\u00a0]+".join(re.escape(word) for word in words)
    # On word boundaries: "the question again" is not in "the question against".
    before = r"(?<![^\W_])" if phrase[:1].isalnum() else ""
    after = r"(?![^\W_])" if phrase[-1:].isalnum() else ""
    return re.compile(before + body + after, re.IGNORECASE)


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


_NEWLINE = re.compile("\n")


class Lines:
    """The lines of an answer: the line around a hit in logarithmic time."""

    __slots__ = ("_answer", "_breaks")

    def __init__(self, answer: str) -> None:
        """Find the answer's line breaks (once: an answer may hold thousands of hits)."""
        self._answer = answer
        self._breaks = [match.start() for match in _NEWLINE.finditer(answer)]

    def around(self, start: int, end: int) -> tuple[int, int]:
        """
        Return the span of the line(s) holding ``answer[start:end]``, without edge spaces.

        Args:
            start: The hit's start.
            end: The hit's end.

        Returns:
            The echoing text: the whole line, since the echo is the line.
        """
        answer, breaks = self._answer, self._breaks
        before = bisect_left(breaks, start)
        line_start = breaks[before - 1] + 1 if before else 0
        after = bisect_left(breaks, end)
        line_end = breaks[after] if after < len(breaks) else len(answer)
        while line_start < start and answer[line_start].isspace():
            line_start += 1
        while line_end > end and answer[line_end - 1].isspace():
            line_end -= 1
        return line_start, line_end
