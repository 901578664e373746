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

    Examples:
        | answer | chunks | verdict |
        | --- | --- | --- |
        | `The Golden Gate Bridge opened in 1937 after four years of work. It spans the strait
          between San Francisco Bay and the Pacific Ocean.` | `The Golden Gate Bridge opened in 1937
          after four years of work. It spans the strait between San Francisco Bay and the Pacific
          Ocean.` | fails |
    """,
)
