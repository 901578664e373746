"""Names (FG005, opt-in): a capitalised name neither the chunks nor the question hold."""

from __future__ import annotations

from relapse.grounding._codes import FG005
from relapse.grounding._names import name_spans
from relapse.grounding._read.regions import Regions
from relapse.grounding.rules._lookup import Lookup
from relapse.grounding.rules._rule import Phase, Reads, Role, rule


def unknown_names(
    lookup: Lookup, answer: str, echoes: list[tuple[int, int]]
) -> list[tuple[int, int]]:
    """Return the spans of the answer's names the texts do not hold, outside its echoed lines."""
    lines = Regions(echoes)
    return [span for span in name_spans(answer, lookup.names()) if not lines.overlaps(*span)]


#: The names' rule, applied by the check's pass over the whole answer.
NAMES = rule(
    "names",
    frozenset({FG005}),
    Role.VETOES,
    Phase.PASS,
    frozenset({Reads.ANSWER}),
    (0, 0),
    doc="""
    A name the chunks and the question never write fails (opt-in: ``codes=ALL_CODES``).

    Accepts:
        Nothing: it fails a capitalised word or run of them whose folded
        words the chunks and the question do not hold
        (:func:`relapse.grounding._names.name_spans`).

    Why:
        A name the context never mentions is the commonest hallucination a
        number check cannot see; but answers name things in their own words,
        so it raises too many false alarms to be on by default
        (docs/benchmarks.md).

        Words, not phrases: each capitalised word is looked up among the words of the chunks and the
        question, folded like quotations (case, quote glyphs, apostrophes, a plural or possessive
        ``s``) and without accents; the span is the whole run of capitalised words holding an
        unknown one. Not names: the first word of a sentence (after ``.``, ``!``, ``?``, ``:``,
        ``;``, a line break, a quotation mark, a bracket, a bullet or a number), words of heading
        lines (``#`` lines, bold lines, lines ending in ``:``), ``I`` and its contractions, weekdays
        and months, the parts of the prompt and the answer (``Passage``, ``Document``, ``Source``,
        ``Option``, ``Step``, ``Question``, ``Answer``...) and units named after people
        (``Celsius``, ``Fahrenheit``, ``Kelvin``). Words with digits are FG001 tokens.

    Examples:
        | answer | chunks | verdict |
        | --- | --- | --- |
        | `The bridge was designed by Joseph Strauss.` | `The bridge opened in 1937.` | fails |
        | `The president was George Bush.` | `Barack Obama was president.` | fails |
        | `The president was Michelle Obama.` | `Barack Obama was president.` | fails |
        | `It lies in Zürich, Switzerland.` | `Zurich lies in SWITZERLAND.` | passes |
        | `It was the Smith family.` | `The Smiths moved.` | passes |
        | `Paris is warm. I think so.` | `The bridge opened in 1937.` | passes |
        | `## Weather Report` | `The bridge opened in 1937.` | passes |
    """,
)
