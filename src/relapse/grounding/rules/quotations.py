"""Quotations: verbatim in a chunk (or the question), unless the quotation claims nothing."""

from __future__ import annotations

from relapse.grounding._codes import FG003
from relapse.grounding._index.text_index import TextIndex
from relapse.grounding._read.quantity import Quantity
from relapse.grounding._read.quotes import (
    QUESTION_WINDOW,
    introduces_question,
    occurs_as_words,
    quote_fragments,
    word_count,
)
from relapse.grounding._text import fold
from relapse.grounding.rules._lookup import Lookup
from relapse.grounding.rules._rule import Phase, Quoted, Reads, Role, Support, rule


def short_quotation(lookup: Lookup, value: Quantity, verdict: Support | None) -> Support | None:
    """
    A quotation of fewer than ``min_quote_words`` words (2 by default) is not checked.

    Accepts:
        ``the "best" option``: a single quoted word.

    Why:
        Single quoted words are emphasis far more often than citation. The
        quotation covers nothing: its numbers and dates are still checked.

    Examples:
        | answer | chunks | verdict |
        | --- | --- | --- |
        | `It is the "longest" bridge.` | `The bridge opened in 1937.` | passes |
        | `Being "toned" means ...` | `The bridge opened in 1937.` | passes |
    """
    claim = value.claim
    words = word_count(value.answer[claim.start : claim.end])
    return True if words < lookup.min_quote_words else None


def refusal_quotation(lookup: Lookup, value: Quantity, verdict: Support | None) -> Support | None:
    """
    A quotation holding one of the prompt's refusal phrases is not checked.

    Accepts:
        ``I would say "Unable to answer based on given passages"``: the model
        naming its instruction (``refusal_phrases``, case-folded).

    Why:
        A refusal the prompt asks for verbatim is no claim about the world.

    Examples:
        | answer | chunks | verdict |
        | --- | --- | --- |
        | `I would say "Unable to answer based on given passages".` | `The bridge opened in 1937.`
          | passes |
        | `I would answer "Unable to answer based on given passages."` | `The bridge opened in
          1937.` | passes |
    """
    claim = value.claim
    folded = fold(value.answer[claim.start : claim.end])
    return True if any(refusal in folded for refusal in lookup.refusals) else None


def asked_quotation(lookup: Lookup, value: Quantity, verdict: Support | None) -> Support | None:
    """
    A quotation that restates a question the answer introduces is not checked.

    Accepts:
        ``You asked: "what is the tallest tower?"``: a quotation right after
        words that introduce a question.

    Why:
        Restating the question is not a hallucination, and the question is
        not a chunk.

    Examples:
        | answer | chunks | verdict |
        | --- | --- | --- |
        | `You asked: "when did the bridge open?" It opened in 1937.` | `The bridge opened in
          1937.` | passes |
        | `the answer to the question "What does the color of urine mean?" is` | `The bridge opened
          in 1937.` | passes |
    """
    return True if introduces_question(value.answer, value.claim.start - 1) else None


def verbatim(lookup: Lookup, value: Quantity, verdict: Support | None) -> Support | None:
    """
    A quotation holds when every fragment of it is in a chunk, as words, or in the question.

    Accepts:
        ``"the quick brown fox"`` when a chunk says ``The quick brown fox
        jumps``: case, punctuation and spacing folded, on word boundaries;
        an ellipsis splits the quotation into fragments, each of which must be
        found. When one chunk holds every fragment in order, that chunk's span
        is the evidence. The verdict is final: a quotation not found fails.

    Why:
        A quotation claims the source's exact words; any fragment no text
        holds is words the model put in the source's mouth.

        Typography is not content: case, runs of whitespace, quote glyphs and apostrophes, dash
        styles (``-``, ``--``, ``–``, ``—``) and spacing around dashes, ellipses (``…``, ``...``,
        ``. . .``, in the answer and in the chunks) and punctuation at the edges of the quotation
        (which American style puts inside the quotes) are folded on both sides. A quotation whose
        first or last character is a letter or digit must not continue a longer word of the chunk at
        that edge (``"legal under state law"`` is not in ``illegal under state law``), except at an
        edge in Han or kana, which has no word boundary. The span is the quotation's text, without
        its delimiters. Digits inside a failing quotation are covered by its finding; a quotation
        that passes, quotes a refusal or restates the question covers nothing: its numbers and dates
        are checked like any other.

    Examples:
        | answer | chunks | verdict |
        | --- | --- | --- |
        | `It "opened in 1937".` | `The bridge opened in 1937.` | passes |
        | `It "opened in May 1937".` | `The bridge opened in 1937.` | fails |
        | `the memo said “the plan was rejected”` | `the plan — reviewed twice — was approved` |
          fails |
        | `it said “the plan ... by the council”` | `the plan ... was approved... by the board` |
          fails |
        | `It said “the plan was rejected" then.` | `the plan was rejected` | passes |
        | `It said "the plan was rejected” then.` | `the plan was rejected` | passes |
        | `He said ﹁the plan was rejected﹂.` | `the plan was approved` | fails |
        | `He said ﹃the plan was rejected﹄.` | `the plan was approved` | fails |
        | `He said ｢the plan was rejected｣.` | `the plan was approved` | fails |
        | `He said ﹁the plan was approved﹂.` | `the plan was approved` | passes |
        | `“THE PLAN — REVIEWED TWICE — WAS APPROVED”` | `the plan -- reviewed twice -- was
          approved...` | passes |
        | `It said “the plan … by the board”.` | `the plan ... was approved... by the board` |
          passes |
        | `"No Taxation without Representation"` | `No Taxation without… Representation` | passes |
    """
    claim = value.claim
    quoted = value.answer[claim.start : claim.end]
    found = [_quoted(lookup, fragment) for fragment in quote_fragments(quoted)]
    return Quoted(found) if all(found) else False


def _quoted(lookup: Lookup, fragment: str) -> tuple[int, int, int] | bool:
    """
    Tell where a folded quotation fragment is in a chunk, as words, or if in the question.

    Returns:
        ``(chunk, start, end)`` in that chunk folded (the chunk -1 when
        it cannot be told); True when only the question holds it; False.
    """
    found = lookup.chunks.quotations.find(fragment)
    if found is not None:
        return found
    return lookup.question is not None and occurs_as_words(
        lookup.question.quotations.folded, fragment
    )


def quotation_place(
    chunks: TextIndex, found: list[tuple[int, int, int] | bool]
) -> tuple[int, int, int] | None:
    """
    Return the place in a chunk of a quotation's fragments, all of them in that chunk in order.

    Args:
        chunks: The chunks' index.
        found: Each fragment's place, as :meth:`BoundGroundingCheck._quoted` gives it.

    Returns:
        ``(chunk, start, end)`` in the chunk's text as written, from the first
        fragment's start to the last one's end; None when a fragment is only
        in the question, in another chunk, or before the one preceding it.
    """
    chunk = -1
    low = high = 0
    for place in found:
        if not isinstance(place, tuple):
            return None
        where, start, end = place
        if where < 0 or (chunk >= 0 and (where != chunk or start < high)):
            return None
        if chunk < 0:
            chunk, low = where, start
        high = end
    if chunk < 0:
        return None
    span = chunks.quotations.unfolded(chunk, low, high)
    return None if span is None else (chunk, *span)


_QUOTATIONS = frozenset({Reads.QUOTATIONS})
_FG003 = frozenset({FG003})

#: The quotations' rules, in the order the quotations pass asks them.
SHORT_QUOTATION = rule(
    "short-quotation", _FG003, Role.EXEMPTS, Phase.DECIDE, _QUOTATIONS, (0, 0), short_quotation
)
REFUSAL_QUOTATION = rule(
    "refusal-quotation", _FG003, Role.EXEMPTS, Phase.DECIDE, _QUOTATIONS, (0, 0), refusal_quotation
)
ASKED_QUOTATION = rule(
    "asked-quotation",
    _FG003,
    Role.EXEMPTS,
    Phase.DECIDE,
    _QUOTATIONS,
    (QUESTION_WINDOW, 0),
    asked_quotation,
)
VERBATIM = rule("verbatim", _FG003, Role.SUPPORTS, Phase.DECIDE, _QUOTATIONS, (0, 0), verbatim)
