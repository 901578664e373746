"""
A quantity: one answer claim, read once into what the rules ask of it.

The scanner and the words reader find claims (:class:`.claims.Claim`: what
an answer needs, what a chunk provides). The rules ask more of an answer's
claim: the hedge before it, where its number starts after a sign, what it
is bound to (a unit, a currency, people, a reference), the unit after it,
whether it is a list marker. Each is read from the answer at most once per
claim, when a rule first asks (most claims are decided by a lookup that
needs none), and every rule after it gets the same reading. The kind of
the claim (:class:`relapse.grounding._values.tags.Kind`) is read at once,
from the claim alone: the check walks a claim only through the rules of its
kind.
"""

from __future__ import annotations

import enum
import re
from typing import NamedTuple

from relapse.grounding._codes import FG002
from relapse.grounding._read.claims import Claim
from relapse.grounding._read.context import hedge, is_list_marker, is_reference
from relapse.grounding._read.numbers import MINUS_SIGNS
from relapse.grounding._values.keys import Key
from relapse.grounding._values.tags import (
    AMBIGUOUS,
    CENTURY,
    CENTURY_BC,
    DECADE,
    MONEY_MARK,
    NEGATIVE,
    ORDINAL_MARK,
    PERCENT_MARK,
    RATIO_MARK,
    SHORT_DECADE,
    TIME_OF_DAY,
    Hedge,
    Kind,
)
from relapse.grounding._values.units import PERCENT_SIGNS, PERCENT_WORDS, binding_of, unit_after
from relapse.grounding._values.units import unit_of as _unit_of


class Binding(NamedTuple):
    """
    What an answer's number is bound to, typed.

    Attributes:
        name: A unit's or a currency's canonical name (``"km"``, ``"$"``,
            ``"%"``), or a binding tag
            (:data:`relapse.grounding._values.tags.BINDING_TAGS`: people, a
            reference, a multiplier).
        ambiguous: The spelling also means something else (``30m``): the
            binding agrees and conflicts as its unit does, but is never
            taken for a quantity of another kind.
    """

    name: str
    ambiguous: bool


#: The marks of a claim that make its kind, by mark.
_MARKED = {
    PERCENT_MARK: Kind.PERCENT,
    MONEY_MARK: Kind.MONEY,
    RATIO_MARK: Kind.RATIO,
    ORDINAL_MARK: Kind.ORDINAL,
}

#: The key tags of periods (decades, centuries): a claim needing one is a date.
_PERIODS = frozenset({DECADE, SHORT_DECADE, CENTURY, CENTURY_BC})


#: The kinds whose claims may have a value key (:attr:`.claims.Claim.key`);
#: the claims of the other kinds have none.
VALUED_KINDS = frozenset({Kind.COUNT, Kind.PERCENT, Kind.RATIO, Kind.MONEY, Kind.TIME, Kind.DATE})

#: The kinds of the digits' claims that may be plain (no currency, percent
#: or scale marks them; a percent in words is plain).
PLAIN_KINDS = frozenset({Kind.COUNT, Kind.DATE, Kind.TIME, Kind.RANGE, Kind.TOKEN})


def kind_of(claim: Claim) -> Kind:
    """
    Return the kind of a digit or word claim, from the claim alone.

    First match wins: two ends make a range; FG002 a date; without a value
    key, a time (it needs a time of day), a date (a decade or a century)
    or a token; then the claim's mark (percent, money, ratio, ordinal);
    then a number that may also be a time of day (``at 19.30``) or a
    decade (``the 80s``) is a time or a date; any other, a count.
    """
    if claim.parts:
        return Kind.RANGE
    if claim.code == FG002:
        return Kind.DATE
    needs = claim.needs
    if claim.key is None:
        # A small ordinal in words is the one claim without a key that is marked.
        return Kind.ORDINAL if claim.unit == ORDINAL_MARK else _keyless_kind(needs)
    unit = claim.unit
    if unit:
        return _MARKED[unit]
    if len(needs) > 1:
        # A number that may be read otherwise: a time of day, a decade.
        kind = _keyless_kind(needs)
        if kind is not Kind.TOKEN:
            return kind
    return Kind.COUNT


def _keyless_kind(needs: tuple[tuple[Key, ...], ...]) -> Kind:
    """Return the kind the needs of a claim make: a time, a date (a period), or a token."""
    for alternative in needs:
        for part in alternative:
            if part[0] == TIME_OF_DAY:
                return Kind.TIME
            if part[0] in _PERIODS:
                return Kind.DATE
    return Kind.TOKEN


# A percent's sign or word at the end of its claim ("62%", "62 per cent"):
# the digits before it are what the percent's binding reads.
_PERCENT_END = re.compile(rf"(?:[\ \u00a0\u202f]?[{PERCENT_SIGNS}]|[\ \u00a0]?{PERCENT_WORDS})\Z")

# "minus" or "negative" and the spaces after it, before a signed number's digits.
_SIGN_WORD = re.compile(r"[^\W\d_]+[\ \u00a0]+")


def _typed(binding: str | None) -> Binding | None:
    """Return a binding as :func:`relapse.grounding._values.units.binding_of` writes it, typed."""
    if binding is None:
        return None
    typed = _BINDINGS.get(binding)
    if typed is None:
        if binding.startswith(AMBIGUOUS):
            typed = Binding(binding[len(AMBIGUOUS) :], True)
        else:
            typed = Binding(binding, False)
        _BINDINGS[binding] = typed
    return typed


# Each binding typed once: they are the units' names and the binding tags, a
# few hundred at most.
_BINDINGS: dict[str, Binding] = {}


class _Unread(enum.Enum):
    """The value of a reading not made yet (None is a reading: no hedge, no unit)."""

    UNREAD = 0


_UNREAD = _Unread.UNREAD


class Quantity:
    """
    One answer claim and what the rules read around it, each read once.

    Built by the check for each distinct claim in its surroundings (the
    claims' memo) and handed to every rule of the claim's walk. The
    readings after the first three attributes are made on first use.

    Attributes:
        answer: The answer the claim is in.
        claim: The claim, as its reader found it.
        kind: Its kind (:func:`kind_of`); the walk asks only its kind's rules.
    """

    __slots__ = (
        "_binding",
        "_hedge",
        "_marker",
        "_percent_binding",
        "_unit",
        "_unit_after",
        "_unsigned_start",
        "answer",
        "claim",
        "kind",
    )

    def __init__(self, answer: str, claim: Claim, kind: Kind) -> None:
        self.answer = answer
        self.claim = claim
        self.kind = kind
        # The readings, each made on first use.
        self._binding: Binding | _Unread | None = _UNREAD
        self._hedge: Hedge | _Unread | None = _UNREAD
        self._marker: bool | _Unread = _UNREAD
        self._percent_binding: Binding | _Unread = _UNREAD
        self._unit: str | _Unread | None = _UNREAD
        self._unit_after: str | _Unread | None = _UNREAD
        self._unsigned_start: int | _Unread = _UNREAD

    @property
    def hedge(self) -> Hedge | None:
        """The hedge before the number (``about``, ``at least``), or None."""
        found = self._hedge
        if found is _UNREAD:
            found = self._hedge = hedge(self.answer, self.claim.start)
        return found

    @property
    def unsigned_start(self) -> int:
        """Where the number starts after its sign (``-``, ``−``, ``minus``); its start unsigned."""
        found = self._unsigned_start
        if found is _UNREAD:
            claim = self.claim
            found = claim.start
            key = claim.key
            if key is not None and key[0] == NEGATIVE:
                answer = self.answer
                if answer[found] in MINUS_SIGNS:
                    found += 1
                else:
                    word = _SIGN_WORD.match(answer, found, claim.end)
                    found = found if word is None else word.end()
            self._unsigned_start = found
        return found

    @property
    def binding(self) -> Binding | None:
        """
        What the number is bound to (a unit, a currency, people, a reference), or None.

        Read from its unsigned start to its end
        (:func:`relapse.grounding._values.units.binding_of`, no plural noun).
        """
        found = self._binding
        if found is _UNREAD:
            found = self._binding = _typed(
                binding_of(self.answer, self.unsigned_start, self.claim.end, plurals=False)
            )
        return found

    @property
    def percent_binding(self) -> Binding:
        """
        A percent's binding: ``%`` when its digits are bound to the percent, else ambiguous.

        The digits before the percent's sign or word are read; one the
        binding does not read as a percent (``$0%1``) is ``%`` ambiguous:
        never foreign.
        """
        found = self._percent_binding
        if found is _UNREAD:
            answer, start, end = self.answer, self.unsigned_start, self.claim.end
            match = _PERCENT_END.search(answer, start, end)
            digits_end = end if match is None else match.start()
            bound = binding_of(answer, start, digits_end, plurals=False) == PERCENT_MARK
            found = self._percent_binding = Binding(PERCENT_MARK, not bound)
        return found

    @property
    def unit(self) -> str | None:
        """The unit the number is written with (:func:`relapse.grounding._values.units.unit_of`)."""
        found = self._unit
        if found is _UNREAD:
            claim = self.claim
            found = self._unit = _unit_of(self.answer, claim.start, claim.end)
        return found

    @property
    def unit_after(self) -> str | None:
        """The unit written right after the number (``1 kilometer``), or None."""
        found = self._unit_after
        if found is _UNREAD:
            found = self._unit_after = unit_after(self.answer, self.claim.end)
        return found

    @property
    def marker(self) -> bool:
        """Whether the number is a list marker (``3. Print``) or a reference (``passage 2``)."""
        found = self._marker
        if found is _UNREAD:
            answer, start, end = self.answer, self.claim.start, self.claim.end
            found = self._marker = is_list_marker(answer, start, end) or is_reference(
                answer, start, end
            )
        return found
