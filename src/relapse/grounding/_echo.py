"""
Echo (FG004): the answer repeats the prompt instead of answering.

A small model given a retry prompt sometimes continues the prompt rather than
answer it, returning ``- FG001: 2 number(s) not in retrieved chunks: ['10',
'12']``. Such an answer must never count as grounded, whatever its numbers.
Nor must an answer that only copies the context or the question back: every
claim of a copied chunk is in the chunks, so it passes every other rule, but
it answers nothing (:func:`is_copy`); nor an answer that copies the prompt's
framed context back (``Context: ...``, ``[chunk 1] ...``), however short the
piece of a passage the token limit left.
"""

from __future__ import annotations

import functools
import re
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Protocol

from relapse.grounding._codes import COPY_MESSAGE, EMPTY_MESSAGE, MESSAGES, REASON_MESSAGES
from relapse.grounding._text import CHUNK_SEPARATOR, fold
from relapse.prompts import NO_ANSWER, prompt_texts

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
    texts = prompt_texts(_SENTINEL)
    # The finding messages, which the retry query quotes.
    texts += [
        template.format(count=_SENTINEL, spans=_SENTINEL)
        for template in (*MESSAGES.values(), *REASON_MESSAGES.values())
    ]
    texts += [EMPTY_MESSAGE, COPY_MESSAGE.format(spans=_SENTINEL)]
    return [text.replace(NO_ANSWER, _SENTINEL) for text in texts]


#: Phrases of relapse's retry wordings (``relapse.prompts.RETRY_WORDINGS``),
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
    # casefold() is lower() on ASCII, and slower there.
    casefolded = answer.lower() if answer.isascii() else answer.casefold()
    folded: str | None = None
    held: dict[str, bool] = {}  # phrases share their longest words
    for phrase, pattern in patterns:
        # Wherever the phrase is, its longest word is in the answer case-folded:
        # one search for it costs less than making every answer's words one
        # string of single spaces, which a long answer of short words makes slow.
        word = _longest_word(phrase)
        found = held.get(word)
        if found is None:
            found = held[word] = word in casefolded
        if not found:
            continue
        if folded is None:
            folded = " ".join(casefolded.split())
        if phrase in folded:  # the regex only runs to locate a phrase that is there
            for match in pattern.finditer(answer):
                yield phrase, match.start(), match.end()


@functools.lru_cache(maxsize=256)
def _longest_word(phrase: str) -> str:
    """The longest word of a phrase (the first of the longest), the most selective to search."""
    return max(phrase.split(), key=len)


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


#: Share of an answer (folded, see :func:`relapse.grounding._text.fold`) that
#: verbatim copies of whole chunks and of the question must cover for the
#: answer to be a copy; or share of one chunk that an answer copied from it
#: must cover. On the RAGTruth development half no answer comes near: the
#: most any covers with whole passages is none, with the question 0.31.
COPY_SHARE = 0.8
#: Fewest words a chunk has for a copy of it to be no answer: a copy of a
#: one-sentence chunk ("The archive holds 987654 letters.") answers with it.
MIN_COPY_WORDS = 20
#: Fewest words a question has for a copy of it to be no answer.
MIN_QUESTION_WORDS = 3
#: Probes of the answer looked up in the chunks before any chunk is compared
#: whole, and their length: a copy must show in several of them, so the work
#: stays linear in the answer and the chunks whatever their number.
COPY_PROBES = 10
PROBE_CHARS = 40
#: Probes at least this many of which must be found for a copy to be looked for.
MIN_PROBES_FOUND = 3


#: The labels a prompt frames its context and question with, in any case:
#: relapse's own (``<context-MARKER>``, ``[chunk 1]``, ``Question:``,
#: ``Answer:``, :func:`relapse.prompts.context_prompt`), the local model's
#: (``Context:``) and the usual others (``Passage 2:``, ``Document:``). Those
#: of group ``intro`` open a chunk's text.
FRAME_LABEL = re.compile(
    r"(?P<intro><context(?:-[0-9a-f]{12})?>|\[chunk\s{0,3}\d{1,4}\]"
    r"|(?<![^\W_])(?:context|passages?|documents?)(?:\s{1,3}\d{1,4})?\s{0,3}:)"
    r"|</context(?:-[0-9a-f]{12})?>|(?<![^\W_])(?:question|answer)\s{0,3}:",
    re.IGNORECASE,
)
#: More characters than the longest text :data:`FRAME_LABEL` matches, with
#: the one its look-behind reads: a stream's look for a label in the text as
#: written searches back this far from the new text.
MAX_LABEL_CHARS = 40
# What every label starts with, in lower case: the pattern is tried only
# where one of these is (a search of every offset costs half a second a
# megabyte; these searches are C).
_LABEL_STARTS = (
    *("context", "passage", "document", "question", "answer"),
    *("[chunk", "<context", "</context"),
)


def frame_labels(text: str, start: int = 0) -> list[re.Match[str]]:
    """
    Return the labels :data:`FRAME_LABEL` finds in ``text`` from ``start``, in order.

    The pattern is tried only where the text, in lower case, holds a word a
    label starts with; a text whose lower case moves offsets is searched
    whole.

    Args:
        text: Any text, as written or folded.
        start: Where to look from (the look-behind reads the character before).

    Returns:
        The matches, in text order, none overlapping.
    """
    region = text[start:].lower()
    if len(region) != len(text) - start:
        return list(FRAME_LABEL.finditer(text, start))
    found: dict[int, re.Match[str]] = {}
    for word in _LABEL_STARTS:
        at = region.find(word)
        while at >= 0:
            match = FRAME_LABEL.match(text, start + at)
            if match is not None:
                found[start + at] = match
            at = region.find(word, at + 1)
    labels: list[re.Match[str]] = []
    for at in sorted(found):
        if not labels or at >= labels[-1].end():
            labels.append(found[at])
    return labels


def _common_prefix(text: str, start: int, chunk: str) -> int:
    """How many characters ``text`` from ``start`` shares with the start of ``chunk``."""
    low, high = 0, min(len(chunk), len(text) - start)
    while low < high:  # the longest shared length, by halving: each test is C
        middle = (low + high + 1) // 2
        if text.startswith(chunk[:middle], start):
            low = middle
        else:
            high = middle - 1
    return low


def _framed_copy(text: str, asked: str, starting: Callable[[str], Iterable[str]]) -> bool:
    """
    Tell whether the folded ``text`` copies a prompt's framed context back.

    Only an answer that holds a label as written (:data:`FRAME_LABEL`, not
    only once folded) is read so: the labels, the chunk texts that follow
    a label that opens one, from the chunk's start and as far as the answer
    follows it (a copy the token limit cut anywhere: ``Context: <61% of a
    passage>``), the chunks that follow those directly, and copies of the
    question cover :data:`COPY_SHARE` of it. A real answer quoting the start
    of a passage carries no label before it.

    Args:
        text: The answer, folded.
        asked: The question, as :func:`asked_text` gives it.
        starting: Gives the folded chunks that start with a fragment
            (maybe others too: each is compared).

    Returns:
        True for a copy of the prompt.
    """
    spans: list[tuple[int, int]] = []
    for label in frame_labels(text):
        spans.append(label.span())
        if label.group("intro") is None:
            continue
        position = label.end()
        while True:
            position += text.startswith(" ", position)
            probe = text[position : position + PROBE_CHARS]
            if not probe:
                break
            shared = max(
                (_common_prefix(text, position, chunk) for chunk in starting(probe)), default=0
            )
            if shared < len(probe):
                break  # not a chunk's start: a word of the answer's own
            spans.append((position, position + shared))
            position += shared
    if not spans:
        return False
    if asked:
        at = text.find(asked)
        while at >= 0:
            spans.append((at, at + len(asked)))
            at = text.find(asked, at + len(asked))
    covered, reach = 0, 0
    for start, end in sorted(spans):
        if end > reach:
            covered += end - max(start, reach)
            reach = end
    return covered >= COPY_SHARE * len(text)


def _covered(text: str, pieces: Iterable[str]) -> int:
    """How many characters of ``text`` the occurrences of ``pieces`` cover (their union)."""
    spans: list[tuple[int, int]] = []
    for piece in pieces:
        if not piece:
            # An empty piece covers nothing, and find("") matches at every
            # offset without moving on: chunks split at a separator they
            # hold themselves give empty pieces.
            continue
        at = text.find(piece)
        while at >= 0:
            spans.append((at, at + len(piece)))
            at = text.find(piece, at + len(piece))
    covered, reach = 0, 0
    for start, end in sorted(spans):
        if end > reach:
            covered += end - max(start, reach)
            reach = end
    return covered


def asked_text(question: str) -> str:
    """
    The question as :func:`is_copy` compares it.

    Folded, or ``""`` when it has fewer than :data:`MIN_QUESTION_WORDS`
    words (a copy of so short a question says nothing).
    """
    asked = fold(question)
    return asked if len(asked.split()) >= MIN_QUESTION_WORDS else ""


def is_copy(answer: str, asked: str, chunks: Sequence[str], folded_chunks: str) -> bool:
    """
    Tell whether ``answer`` only copies the context or the question back.

    After folding (case, quote glyphs, runs of whitespace), the answer is a
    copy when verbatim copies of the question (of at least
    :data:`MIN_QUESTION_WORDS` words) cover :data:`COPY_SHARE` of it; when,
    holding at least :data:`MIN_COPY_WORDS` words, it is covered to that
    share by verbatim copies of whole chunks and of the question; or when it
    is a verbatim piece of one chunk covering that share of the chunk (a
    copy the token limit cut); or, whatever its length, when it copies the
    prompt's framed context back (``Context: <a passage cut anywhere>``,
    :func:`_framed_copy`). A real answer quoting a sentence of a chunk,
    or restating the question before answering it, is not a copy; nor is an
    answer of fewer words copying a one-sentence chunk whole.

    Only the chunks holding one of the answer's probes (:data:`COPY_PROBES`)
    are compared whole with it, and at least :data:`MIN_PROBES_FOUND` of
    them must be in the chunks or the question. This is the reference, every
    chunk folded: :func:`copies` gives its verdict folding only the chunks
    that may hold a probe.

    Args:
        answer: The answer, as written.
        asked: The question, as :func:`asked_text` gives it (computed once
            per question, not per answer).
        chunks: The chunk texts, folded, in order.
        folded_chunks: The same, joined by :data:`CHUNK_SEPARATOR`.

    Returns:
        True for a copy. Linear in the answer's and the chunks' lengths.
    """
    text = fold(answer)
    if frame_labels(answer) and _framed_copy(
        text, asked, lambda probe: (chunk for chunk in chunks if chunk.startswith(probe))
    ):
        return True
    decided = _decided(text, asked)
    if decided is not None:
        return decided
    return _copied(text, asked, chunks, folded_chunks)


def _decided(text: str, asked: str) -> bool | None:
    """The verdict on the folded ``text`` before any chunk is read, or None."""
    if not text:
        return False
    if asked and _covered(text, [asked]) >= COPY_SHARE * len(text):
        return True
    # Counted only as far as the least: a long answer is not split whole.
    if len(text.split(None, MIN_COPY_WORDS - 1)) < MIN_COPY_WORDS:
        return False
    return None


def _probes(text: str) -> list[str]:
    """The :data:`COPY_PROBES` probes of the folded ``text``, evenly spread, the first its start."""
    width = min(PROBE_CHARS, len(text))
    step = max(1, (len(text) - width) // (COPY_PROBES - 1))
    return [text[i : i + width] for i in range(0, len(text) - width + 1, step)][:COPY_PROBES]


def _copied(text: str, asked: str, chunks: Sequence[str], folded_chunks: str) -> bool:
    """:func:`is_copy` on the folded ``text``, past :func:`_decided`."""
    probes = _probes(text)
    # The answer cut from one chunk: one search of all the chunks.
    at = folded_chunks.find(text)
    if at >= 0:
        chunk = chunks[min(folded_chunks.count(CHUNK_SEPARATOR, 0, at), len(chunks) - 1)]
        if len(text) >= COPY_SHARE * len(chunk):
            return True
    # Copies of whole chunks: only the chunks some probe of the answer is in.
    candidates: set[int] = set()
    found = 0
    for probe in probes:
        at = folded_chunks.find(probe)
        if at >= 0:
            candidates.add(min(folded_chunks.count(CHUNK_SEPARATOR, 0, at), len(chunks) - 1))
        found += at >= 0 or (bool(asked) and probe in asked)
    if found < min(MIN_PROBES_FOUND, len(probes)):
        return False
    pieces = [chunks[i] for i in sorted(candidates)]
    if asked:
        pieces.append(asked)
    return _covered(text, pieces) >= COPY_SHARE * len(text)


class ChunkLookup(Protocol):
    """
    The folded chunks :func:`copies` reads, folded as it asks for them.

    Positions are those of the pieces :meth:`every` gives; the candidates
    of a fragment may hold pieces that do not hold it, never miss one that
    does. :class:`relapse.grounding._index.folded.FoldedChunks` is one.
    """

    def every(self) -> tuple[Sequence[str], str]:
        """Every chunk folded, split at :data:`CHUNK_SEPARATOR` (the pieces), and joined."""
        ...

    def candidates(self, fragment: str, start: int = 0, /) -> Iterator[int]:
        """Yield positions from ``start`` on, increasing: the candidates of ``fragment``."""
        ...

    def folded(self, position: int, /) -> str:
        """The piece at ``position``."""
        ...


def copies(answer: str, asked: str, chunks: ChunkLookup) -> bool:
    """
    :func:`is_copy`, folding only the chunks that may hold the answer's probes.

    The rule reads only the first chunk holding each probe, the first one
    holding the whole answer (which holds every probe) and the question; a
    chunk holding a probe is among its :meth:`ChunkLookup.candidates`, and
    those are folded one by one until one holds it. So few probes found
    among the candidates (or in the question) that the rule's minimum
    (:data:`MIN_PROBES_FOUND`) cannot be met decide before anything is
    folded: the verdict is the one every chunk folded gives.

    Args:
        answer: The answer, as written.
        asked: The question, as :func:`asked_text` gives it.
        chunks: The folded chunks (see :class:`ChunkLookup`).

    Returns:
        True for a copy.
    """
    text = fold(answer)
    if frame_labels(answer) and _framed_copy(text, asked, lambda probe: _starting(chunks, probe)):
        return True
    decided = _decided(text, asked)
    if decided is not None:
        return decided
    if CHUNK_SEPARATOR in text:
        # An occurrence of the answer may cross from one chunk into the
        # next, as the reference finds it in the chunks joined.
        return _copied(text, asked, *chunks.every())
    probes = _probes(text)
    least = min(MIN_PROBES_FOUND, len(probes))
    # A probe in a chunk is among that chunk's candidates: counting the
    # probes with a candidate bounds the probes found from above.
    searches = [chunks.candidates(probe) for probe in probes]
    firsts: list[int] = []
    may_find = 0
    for number, (probe, search) in enumerate(zip(probes, searches, strict=True)):
        first = next(search, -1)
        firsts.append(first)
        may_find += first >= 0 or (bool(asked) and probe in asked)
        if may_find + len(probes) - 1 - number < least:
            return False  # the minimum is out of reach, even for a piece of one chunk
    if -1 not in firsts:
        # A chunk holding the answer holds every probe: it is a candidate
        # of each, so none before the last probe's first candidate.
        for position in chunks.candidates(text, max(firsts)):
            chunk = chunks.folded(position)
            if text in chunk:
                if len(text) >= COPY_SHARE * len(chunk):
                    return True
                break  # the reference compares the first chunk holding it
    held: set[int] = set()
    found = 0
    for number, (probe, search, first) in enumerate(zip(probes, searches, firsts, strict=True)):
        position = first
        while position >= 0 and probe not in chunks.folded(position):
            position = next(search, -1)
        if position >= 0:
            held.add(position)
        found += position >= 0 or (bool(asked) and probe in asked)
        if found + len(probes) - 1 - number < least:
            return False
    pieces = [chunks.folded(position) for position in sorted(held)]
    if asked:
        pieces.append(asked)
    return _covered(text, pieces) >= COPY_SHARE * len(text)


def _starting(chunks: ChunkLookup, probe: str) -> Iterator[str]:
    """The folded chunks that start with ``probe``, folding only its candidates."""
    for position in chunks.candidates(probe):
        chunk = chunks.folded(position)
        if chunk.startswith(probe):
            yield chunk
