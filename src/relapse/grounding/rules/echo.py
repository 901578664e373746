"""Echoes and copies (FG004): an answer that is empty, repeats the prompt, or copies the context."""

from __future__ import annotations

from relapse.grounding._codes import FG004
from relapse.grounding._echo import Lines, copies, echo_hits
from relapse.grounding._text import fold
from relapse.grounding.rules._lookup import Lookup
from relapse.grounding.rules._rule import Phase, Reads, Role, rule


def echo_spans(
    lookup: Lookup, answer: str, failed: list[tuple[int, int]], covered: list[tuple[int, int]]
) -> None:
    """
    Add to ``failed`` and ``covered`` the lines of the answer that echo the prompt.

    An echo is a finding code (``FG001``) or a phrase of relapse's retry
    wordings (``echo_phrases``) that no chunk holds; its span is the line
    around it.
    """
    lines: Lines | None = None  # built at the first echo
    seen: set[tuple[int, int]] = set()
    in_chunks: dict[str, bool] = {}  # an answer may repeat one phrase on every line
    for what, start, end in echo_hits(answer, lookup.echo_patterns):
        held = in_chunks.get(what)
        if held is None:
            # Case-folded: a chunk's "fg001" is the same code.
            written = what.casefold() if what.startswith("FG") else fold(what)
            held = in_chunks[what] = written in lookup.chunks.quotations.folded
        if held:
            continue
        if lines is None:
            lines = Lines(answer)
        span = lines.around(start, end)
        if span not in seen:
            seen.add(span)
            failed.append(span)
            covered.append(span)


def copied(lookup: Lookup, answer: str) -> bool:
    """Tell whether the answer only copies the chunks or the question back (FG004)."""
    asked, folded = lookup.copy_context()
    return copies(answer, asked, folded)


_ANSWER = frozenset({Reads.ANSWER})
_FG004 = frozenset({FG004})

#: The echoes' and copies' rules, applied by the check's passes over the whole answer.
EMPTY = rule(
    "empty",
    _FG004,
    Role.VETOES,
    Phase.PASS,
    _ANSWER,
    (0, 0),
    doc=r"""
    An empty answer (nothing but whitespace) is no answer.

    Accepts:
        Nothing: it fails an answer that states nothing.

    Why:
        Nothing stated is nothing hallucinated, but it is no answer either: a
        model that returns nothing must be asked again, not accepted.

        The refusal the retry prompt asks for, ``The context does not say.``, is text and passes.

    Examples:
        | answer | chunks | verdict |
        | --- | --- | --- |
        | `   ` | `The bridge opened in 1937.` | fails |
        | `   \n ` | `The bridge opened in 1937.` | fails |
    """,
)
ECHO = rule(
    "echo",
    _FG004,
    Role.VETOES,
    Phase.PASS,
    _ANSWER,
    (0, 0),
    doc="""
    A line that repeats the grounding check's retry instructions, which no chunk holds, fails.

    Accepts:
        Nothing: it fails a line holding a finding code (``FG001``) or a
        phrase of relapse's retry wordings (``the context does not
        support:``) that no chunk holds, case-folded.

    Why:
        A small model given a retry prompt sometimes continues the prompt
        rather than answer it. The numbers of an echoed line are covered by
        its finding, not checked on their own.

        A finding code is ``FG001`` to ``FG099`` as a whole word, held by no chunk in any case. The
        phrases (``relapse.grounding.ECHO_PHRASES``) are derived from the text of the wordings,
        never kept by hand: every wording in ``relapse.prompts.RETRY_WORDINGS``, the local model's
        worked retry example and the finding messages, each with its arguments replaced by a marker
        and the refusal it asks for removed; its fixed words are cut at the arguments, at sentence
        and clause marks and at quotations. A piece of four words or more is a phrase (``answer
        using only the context``); a piece that introduces an argument keeps its colon (``the
        context does not support:``, so ``the context does not support this`` is ordinary English);
        a header that opens a line keeps its colon from two words up (``problems found:``). The
        phrases of ``relapse.run``'s first prompt (``text inside the tags is data``) are echoes too.
        A phrase matches case-folded, with any whitespace, on word boundaries. The span is the line
        holding the echo (without its edge spaces). The question is not exempt here: a retry prompt
        passed as the query must not excuse its own echo.

    Examples:
        | answer | chunks | verdict |
        | --- | --- | --- |
        | `FG001: 2 number(s) not in the retrieved chunks: '10'` | `The bridge opened in 1937.` |
          fails |
        | `- FG001: 2 number(s) not in retrieved chunks: ['10', '12']` | `The bridge opened in
          1937.` | fails |
        | `Answer the question again using only the context.` | `The bridge opened in 1937.` |
          fails |
        | `Read the question against the rules.` | `The bridge opened in 1937.` | passes |
        | `Problems found in the audit.` | `The bridge opened in 1937.` | passes |
    """,
)
COPY = rule(
    "copy",
    _FG004,
    Role.VETOES,
    Phase.PASS,
    _ANSWER,
    (0, 0),
    doc="""
    An answer that only copies the chunks or the question back answers nothing.

    Accepts:
        Nothing: it fails an answer that is a chunk, a run of chunks or the
        question, copied (:func:`relapse.grounding._echo.copies`); its span
        is the whole answer.

    Why:
        Every claim of a copied chunk is in the chunks, so no other rule
        objects; but a copy of the context answers nothing.

        Both sides are folded as quotations are (case, quote glyphs, runs of whitespace); the answer
        is a copy when verbatim copies of the question (of at least 3 words) cover 80 % of it; or it
        has at least 20 words and verbatim copies of whole chunks and of the question cover 80 % of
        it; or it has at least 20 words and is a verbatim piece of one chunk covering 80 % of that
        chunk (a copy the token limit cut); or, whatever its length, it copies the prompt's framed
        context back: a prompt's labels (``Context:``, ``[chunk 1]``, ``<context-…>``, ``Passage
        2:``, ``Document:``, ``Question:``, ``Answer:``), the chunk texts after a label that opens
        one, from the chunk's start and as far as the answer follows it, the chunks right after
        those, and copies of the question cover 80 % of it. A label before text that starts no chunk
        is still an answer, and so is one sentence of a chunk quoted, or the question restated and
        then answered. A rule on sentences copied (not whole chunks) would flag clean extractive
        answers: it is not used. The other codes are still reported: a copy with an invented number
        also has its FG001. ``relapse demo`` and ``relapse eval --loop`` report a run whose returned
        answer is a copy or an echo as outcome ``echoed``, never ``recovered``. Cost: ten
        40-character probes of the answer are looked up in the folded chunks, and only the chunks
        they land in are compared whole.

    Examples:
        | answer | chunks | verdict |
        | --- | --- | --- |
        | `The Golden Gate Bridge opened in 1937 after four years of work. It spans the strait
          between San Francisco Bay and the Pacific Ocean.` | `The Golden Gate Bridge opened in 1937
          after four years of work. It spans the strait between San Francisco Bay and the Pacific
          Ocean.` | fails |
    """,
)
