"""
What a rule of the default check is: a name, codes, a role, a phase, what it reads, a reach.

A rule decides one thing about one claim. Its :attr:`Rule.judge` is called
with what the check prepared (:class:`relapse.grounding.rules._lookup.Lookup`),
the claim read once (:class:`relapse.grounding._read.quantity.Quantity`) and
the verdict so far; it returns None when the claim is none of its business
("not mine") and a verdict when it is. A rule declares the kinds of claim it
may decide (:attr:`Rule.kinds`): a claim is walked through its kind's rules
only. The check walks
:data:`relapse.grounding.rules.RULES` in order (:func:`relapse.grounding.rules.judge`).
"""

from __future__ import annotations

import enum
import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from relapse.grounding._read.quantity import Quantity
from relapse.grounding._read.words import Value
from relapse.grounding._values.keys import Key
from relapse.grounding._values.tags import ALL_KINDS, Kind

if TYPE_CHECKING:
    from relapse.grounding.rules._lookup import Lookup


class Role(enum.Enum):
    """What a rule does to a claim when it decides it."""

    #: The rule finds what states the claim: it passes, maybe with evidence.
    SUPPORTS = "supports"
    #: The rule finds that the texts contradict the claim: it fails.
    VETOES = "vetoes"
    #: The rule finds that the text claims nothing (a list marker, a trivial
    #: number written bare, a quotation of the prompt's refusal): it passes
    #: without evidence.
    EXEMPTS = "exempts"


class Phase(enum.Enum):
    """When in a claim's walk a rule is asked (:func:`relapse.grounding.rules.judge`)."""

    #: Until one rule decides: the first verdict that is not None is the claim's.
    DECIDE = "decide"
    #: On a supported claim: a rule may veto it, or exempt it (no evidence).
    CHECK = "check"
    #: On a failing claim: the first rule that accepts it rescues it.
    RESCUE = "rescue"
    #: Run by a pass of the check over the whole answer (quotations, echoes,
    #: copies, names, the subject of supported numbers), not per claim.
    PASS = "pass"


class Reads(enum.Enum):
    """The claims a rule is asked about: which reader made them."""

    #: Numbers, dates and times in digits (:func:`relapse.grounding._read.scan.scan`).
    DIGITS = "digits"
    #: Numbers, years, times of day and decades in words
    #: (:func:`relapse.grounding._read.word_claims.word_claims`).
    WORDS = "words"
    #: Ordinals up to ``tenth`` in words, judged in their slot only.
    ORDINALS = "ordinals"
    #: Supported numbers in digits, read again in their sentence.
    SUPPORTED = "supported"
    #: Quotations (:func:`relapse.grounding._read.quotes.find_quotations`).
    QUOTATIONS = "quotations"
    #: The answer as a whole (empty, an echo, a copy, names).
    ANSWER = "answer"


class Spelled(NamedTuple):
    """A claim's support: its value, spelled out in words in a chunk (``Seventy`` for 70)."""

    value: Value


class Quoted(NamedTuple):
    """A quotation's support: each fragment's place, as the quotations' index finds it."""

    found: list[tuple[int, int, int] | bool]


#: What supports a claim: the one key the texts hold that supports it, a
#: :class:`Spelled` value, a :class:`Quoted` quotation's fragments, True for a
#: support of no one place (a range's two ends, a hedged number, a ratio, a
#: conversion, a list marker), or False.
Support = Key | Spelled | Quoted | bool

#: A rule's judgement: ``judge(lookup, value, verdict)`` is None ("not
#: mine") or the claim's verdict; ``value`` is the claim read once
#: (:class:`relapse.grounding._read.quantity.Quantity`), ``verdict`` the
#: verdict so far (None while no rule decided).
Judge = Callable[["Lookup", Quantity, "Support | None"], "Support | None"]


@dataclass(frozen=True, slots=True)
class Rule:
    """
    One rule of the default check.

    Attributes:
        name: A stable name (``"units-agree"``): what ``explain=True`` and
            ``relapse check --explain`` report, and the docs list.
        codes: The finding codes of the claims it decides.
        role: What it does when it decides (:class:`Role`).
        phase: When it is asked (:class:`Phase`).
        reads: The readers whose claims it is asked about (:class:`Reads`).
        reach: ``(before, after)``: how many characters of the answer before
            the claim's start and after its end it reads at most.
        judge: Its judgement (:data:`Judge`); None for a rule a pass of the
            check applies over the whole answer (:attr:`Phase.PASS`).
        preview: A rule added after the registry: off unless the check is
            configured with ``preview=True`` (docs/findings.md, "Preview rules").
        kinds: The kinds of claim it may decide
            (:class:`relapse.grounding._values.tags.Kind`): of a claim of
            another kind, its judgement is None in the decide phase and
            falsy in the rescue phase, so the walk does not ask it.
        doc: Its specification: the judgement's docstring, with the sections
            Accepts, Why and Examples (a table of answer, chunks and verdict
            that a test runs).
    """

    name: str
    codes: frozenset[str]
    role: Role
    phase: Phase
    reads: frozenset[Reads]
    reach: tuple[int, int]
    judge: Judge | None
    doc: str
    preview: bool = False
    kinds: frozenset[Kind] = ALL_KINDS


def rule(
    name: str,
    codes: frozenset[str],
    role: Role,
    phase: Phase,
    reads: frozenset[Reads],
    reach: tuple[int, int],
    judge: Judge | None = None,
    *,
    doc: str | None = None,
    preview: bool = False,
    kinds: frozenset[Kind] = ALL_KINDS,
) -> Rule:
    """
    Build a :class:`Rule` whose specification is its judgement's docstring (or ``doc``).

    Raises:
        ValueError: neither ``judge`` nor ``doc`` gives a specification.
    """
    text = doc if doc is not None else inspect.getdoc(judge) if judge is not None else None
    if not text:
        raise ValueError(f"rule {name!r} needs a docstring: its specification")
    return Rule(
        name, codes, role, phase, reads, reach, judge, inspect.cleandoc(text), preview, kinds
    )


class Example(NamedTuple):
    """One row of a rule's Examples table: an answer, the chunks, the check's verdict."""

    answer: str
    chunks: tuple[str, ...]
    #: ``"passes"`` or ``"fails"``.
    verdict: str


#: Separates the chunks of an Examples row's chunks cell.
CHUNK_SEPARATOR = " \u2016 "
# A row of an Examples table: | `answer` | `chunks` | passes |.
_ROW = re.compile(
    r"^\|\s*`(?P<answer>[^`]*)`\s*\|\s*`(?P<chunks>[^`]*)`\s*\|\s*(?P<verdict>passes|fails)\s*\|$"
)


def example_rows(doc: str) -> list[str]:
    """
    Return the rows of a specification's Examples table, each on one line.

    A row may be wrapped over several lines of the docstring: a line that does
    not open a row (with ``| `` and a code span, or a header) continues the
    row before it (joined by one space).
    """
    rows: list[str] = []
    inside = False
    for line in doc.splitlines():
        stripped = line.strip()
        if stripped == "Examples:":
            inside = True
        elif inside and stripped in ("Accepts:", "Why:"):
            break
        elif inside and stripped:
            if stripped.startswith(("| `", "| ---", "| answer")) or not rows:
                rows.append(stripped)
            else:
                rows[-1] += " " + stripped
    return rows


def examples(rule: Rule) -> list[Example]:
    r"""
    Return the rows of a rule's Examples table (the header rows left out).

    In a cell, ``\\n`` is a line break, and the chunks are separated by
    :data:`CHUNK_SEPARATOR`.

    Raises:
        ValueError: a row is not ``| `answer` | `chunks` | passes |`` (or
            ``fails``); the message names the rule and the row.
    """
    found: list[Example] = []
    for row in example_rows(rule.doc)[2:]:
        match = _ROW.match(row)
        if match is None:
            raise ValueError(
                f"rule {rule.name!r}: an Examples row must be | `answer` | `chunks` |"
                f" passes or fails |, got {row!r}"
            )
        answer = match["answer"].replace("\\n", "\n")
        chunks = tuple(
            chunk.replace("\\n", "\n") for chunk in match["chunks"].split(CHUNK_SEPARATOR)
        )
        found.append(Example(answer, chunks, match["verdict"]))
    return found
