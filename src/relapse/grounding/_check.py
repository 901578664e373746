"""
The default grounding check: configuration, the passes over an answer, caps, evidence, findings.

The decisions are the rules' (:mod:`relapse.grounding.rules`, one ordered
registry); the readers are :mod:`relapse.grounding._read`'s. This module runs
the passes in their order (echo, quotations, digits, the subject of
supported numbers, words, names, copy), stops a pass at its cap of failing
spans, places the evidence and words the findings.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any, ClassVar

from relapse._read.chunks import chunk_texts
from relapse._results import GroundingFinding, GroundingResult
from relapse.checks._contract import CheckOperators, Verdict
from relapse.grounding._codes import (
    ALL_CODES,
    DEFAULT_CODES,
    EMPTY_MESSAGE,
    FG001,
    FG002,
    FG003,
    FG004,
    FG005,
    STOPPED_MESSAGE,
)
from relapse.grounding._echo import ECHO_PHRASES, phrase_pattern
from relapse.grounding._explain import Trace
from relapse.grounding._findings import MAX_EVIDENCE, Reason, evidence_of, finding
from relapse.grounding._index.blocks import (
    LOOK_AHEAD,
    LOOK_BACK,
    JudgedClaims,
    Supported,
    judge_claims,
)
from relapse.grounding._index.folded import FoldedChunks
from relapse.grounding._index.text_index import TextIndex
from relapse.grounding._memo import MEMO_FROM, ClaimJudge
from relapse.grounding._read.claims import Claim, new_claim
from relapse.grounding._read.quantity import Quantity, kind_of
from relapse.grounding._read.quotes import find_quotations
from relapse.grounding._read.regions import Regions
from relapse.grounding._read.word_claims import SMALL_ORDINAL, word_claims
from relapse.grounding._stream import DefaultStreamReader
from relapse.grounding._text import fold
from relapse.grounding._values.keys import Key, number_key
from relapse.grounding._values.tags import TIME_OF_DAY, Kind
from relapse.grounding.rules import (
    Lookup,
    Quoted,
    Reads,
    Role,
    Rule,
    Spelled,
    Support,
    judge,
    plan,
    plans,
)
from relapse.grounding.rules.echo import COPY, ECHO, EMPTY, copied, echo_spans
from relapse.grounding.rules.names import NAMES, unknown_names
from relapse.grounding.rules.quotations import quotation_place
from relapse.grounding.rules.subjects import SUBJECT, moved
from relapse.grounding.rules.words import ORDINAL_SLOT, ordinal_contradicted

#: Refusals a prompt asks the model to give verbatim. A quotation of one is the
#: model naming its instruction (``I would say "Unable to answer based on given
#: passages"``), not a claim about the world.
REFUSAL_PHRASES: tuple[str, ...] = (
    "unable to answer based on given passages",
    "unable to answer based on the given passages",
    "i don't know",
    "i do not know",
    "not enough information",
    "cannot answer",
    "can't answer",
)


def _trivial_key(value: object) -> Key:
    """Return the key of one configured trivial number."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str, Decimal)):
        raise TypeError(f"trivial_numbers must hold numbers, got {type(value).__name__}")
    try:
        number = abs(Decimal(str(value).replace(",", "")))
    except InvalidOperation:
        raise ValueError(f"trivial_numbers holds {value!r}, which is not a number") from None
    if not number.is_finite():
        raise ValueError(f"trivial_numbers holds {value!r}, which is not finite")
    integer, _, fraction = format(number, "f").partition(".")
    return number_key(integer, fraction)


@dataclass(frozen=True)
class GroundingCheck(CheckOperators):
    """
    The deterministic grounding check, configured.

    Numbers (FG001), dates (FG002) and quotations (FG003) in the answer must be
    supported by the retrieved chunks, and the answer must be one (FG004): not
    empty, not an echo of relapse's own instructions, not a copy of the
    chunks or the question. ``docs/findings.md`` explains every rule.

    Call it like a function, ``check(query, chunks, answer)``; or, in a loop
    that checks several answers against the same chunks, index the chunks once
    with :meth:`prepare` and call :meth:`BoundGroundingCheck.check` per answer.

    Every claim a chunk supports gets its :class:`relapse.Evidence`, found by
    the lookup that judged it (no second search): ``kind`` ``"number"``,
    ``"date"``, ``"time"`` or ``"quotation"``, the claim's offsets in the
    answer, and the chunk and the offsets in its text of the claim that
    provides the value (``1200`` for ``1,200``), or of the quoted text.
    Claims no one chunk place supports get none: trivial numbers written
    bare, claims only the question holds, and those a rule accepts without
    one occurrence (a range whose ends are stated apart, a hedged or
    converted number, a ratio, a list marker). ``docs/findings.md``,
    "Evidence", says which chunk is cited when several hold the claim.

    Attributes:
        trivial_numbers: Numbers never flagged when written plain (no
            currency, percent or scale): they are everywhere and claim little.
        exempt_question: Numbers, dates and quotations that appear in the
            question are supported: repeating the question is not a
            hallucination.
        refusal_phrases: A quotation containing one of these (case-folded) is
            the prompt's own refusal instruction, not a claim.
        echo_phrases: Phrases of the retry prompt; an answer holding one that
            no chunk holds echoes the prompt (FG004).
        min_quote_words: Quotations with fewer words are not checked: single
            quoted words are emphasis far more often than citation.
        codes: The finding codes to report: by default FG001 to FG004;
            ``ALL_CODES`` adds the opt-in names check FG005.
        name: The check's name, as telemetry reports it.
        preview: Also apply the preview rules: rules added after the rule
            registry, off by default until ``relapse eval`` on the RAGTruth
            dev half and a hand-made case table show they flag no clean answer
            (``docs/findings.md``, "Preview rules"; the CHANGELOG says when one
            is promoted).

    .. versionadded:: 0.2.0
    """

    trivial_numbers: Collection[int | float | str | Decimal] = frozenset({0, 1, 2})
    exempt_question: bool = True
    refusal_phrases: tuple[str, ...] = REFUSAL_PHRASES
    echo_phrases: tuple[str, ...] = ECHO_PHRASES
    min_quote_words: int = 2
    codes: Collection[str] = DEFAULT_CODES
    name: str = "relapse.default"
    preview: bool = False
    #: The check judges a growing text sentence by sentence (``release="sentence"``,
    #: see :func:`relapse.checks.incremental`): every rule reads a bounded window.
    incremental: ClassVar[bool] = True
    _trivial_keys: frozenset[Key] = field(init=False, repr=False, compare=False)
    _refusals: tuple[str, ...] = field(init=False, repr=False, compare=False)
    _echo_patterns: tuple[Any, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        """
        Validate the configuration and precompute what each check needs.

        Raises:
            TypeError: ``trivial_numbers`` holds a non-number, or ``preview``
                is not a bool.
            ValueError: ``trivial_numbers`` holds a non-finite number, or
                ``codes`` an unknown code.

        """
        unknown = set(self.codes) - ALL_CODES
        if unknown:
            raise ValueError(f"unknown finding codes {sorted(unknown)}; known: {sorted(ALL_CODES)}")
        object.__setattr__(
            self, "_trivial_keys", frozenset(_trivial_key(value) for value in self.trivial_numbers)
        )
        object.__setattr__(
            self, "_refusals", tuple(f for p in self.refusal_phrases if (f := fold(p).strip()))
        )
        if not isinstance(self.preview, bool):
            raise TypeError(f"preview must be a bool, got {type(self.preview).__name__}")
        object.__setattr__(
            self,
            "_echo_patterns",
            tuple(
                (folded, phrase_pattern(folded))
                for phrase in self.echo_phrases
                if (folded := " ".join(phrase.casefold().split()))
            ),
        )

    def prepare(self, query: str, chunks: Sequence[str | Mapping[str, Any]]) -> BoundGroundingCheck:
        """
        Index the question and the chunks once, for any number of answers.

        Args:
            query: The user's question.
            chunks: The retrieved chunks: ``str`` or mappings with a ``"text"``
                key.

        Returns:
            A :class:`BoundGroundingCheck` whose ``check(answer)`` gives the verdict.

        Raises:
            TypeError: ``query`` is not a ``str``, or ``chunks`` is not a
                sequence of chunks; the message names the offending index and
                type.
        """
        if not isinstance(query, str):
            raise TypeError(f"query must be a str, got {type(query).__name__}")
        return BoundGroundingCheck(self, query, chunk_texts(chunks, "chunks"))

    def __call__(
        self,
        query: str,
        chunks: Sequence[str | Mapping[str, Any]],
        answer: str,
        *,
        explain: bool = False,
    ) -> GroundingResult:
        """
        Check one answer: ``prepare(query, chunks).check(answer, explain=explain)``.

        Args:
            query: The user's question.
            chunks: The retrieved chunks.
            answer: The answer to check.
            explain: Also say why each claim was judged as it was
                (:attr:`relapse.GroundingResult.trace`).

        Returns:
            The verdict and its findings.

        Raises:
            TypeError: see :meth:`prepare` and :meth:`BoundGroundingCheck.check`.
        """
        return self.prepare(query, chunks).check(answer, explain=explain)

    def stream_reader(self) -> DefaultStreamReader:
        """
        How this check's verdicts read a growing answer (``release="sentence"``).

        The :class:`relapse.checks.StreamReader` that
        :class:`relapse.checks.IncrementalCheck` asks: when a sentence's
        verdict is final (the rules' reach, from
        :data:`relapse.grounding.rules.RULES`), where a verdict's failing
        claims are (an echo's phrases, a copy about the whole answer), and,
        for a long answer, a window to judge instead of the whole text.

        Returns:
            A :class:`relapse.grounding._stream.DefaultStreamReader`.
        """
        return DefaultStreamReader(
            self._echo_patterns,
            names=FG005 in self.codes,
            own=_own_check,
            failing_cap=MAX_FAILING_SPANS,
        )


class BoundGroundingCheck:
    """
    A :class:`GroundingCheck` bound to one call, its question and chunks indexed.

    What :meth:`GroundingCheck.prepare` returns: a :class:`relapse.checks.BoundCheck`.
    """

    __slots__ = ("_chunks", "_config", "_digits", "_lookup", "_ordinals", "_words")

    def __init__(self, config: GroundingCheck, query: str, texts: list[str]) -> None:
        """
        Index ``texts`` and ``query``; prefer :meth:`GroundingCheck.prepare`.

        Args:
            config: The check's configuration.
            query: The user's question.
            texts: The chunk texts.
        """
        self._config = config
        self._chunks = TextIndex(texts, lazy=True, places=True)
        question = TextIndex([query], eager_words=True) if config.exempt_question else None
        self._lookup = Lookup(
            self._chunks,
            question,
            query,
            config._trivial_keys,
            config._refusals,
            config.min_quote_words,
            config._echo_patterns,
        )
        # The rules of each reader's claims, by the claim's kind.
        self._digits = plans(Reads.DIGITS, config.preview)
        self._words = plans(Reads.WORDS, config.preview)

    def check(self, answer: str, *, explain: bool = False) -> GroundingResult:
        """
        Check one answer against the indexed chunks.

        Args:
            answer: The answer to check.
            explain: Also say why each claim was judged as it was: the
                result's ``trace`` holds a :class:`relapse.ClaimTrace` per
                claim (the reader, the rule, the outcome, the evidence).

        Returns:
            ``GroundingResult(ok, findings, evidence)``: one finding per code
            that failed, in code order, each listing its failing spans and
            their offsets in answer order; and one :class:`relapse.Evidence`
            per supported claim a chunk states (see :class:`GroundingCheck`),
            in answer order, none sharing a character with a failing span.
            An answer with more than :data:`MAX_FAILING_SPANS` failing spans
            is reported up to its first 1,000 (all codes together), and
            every message says where the check stopped; the evidence of at
            most :data:`MAX_EVIDENCE` claims, the first ones, is listed.

        Raises:
            TypeError: ``answer`` is not a ``str``.
        """
        return self.judged(answer, copies=True, explain=explain)

    def judged(self, answer: str, *, copies: bool, explain: bool = False) -> GroundingResult:
        """
        :meth:`check`, with or without the rule that an answer copying the chunks is none.

        The incremental check (``release="sentence"``) judges a window of a
        streamed answer with ``copies=False``: whether the answer is a copy
        is a verdict on the whole answer, which it judges apart.

        Args:
            answer: The answer to check.
            copies: Apply FG004's copy rule (:meth:`check` does).
            explain: Also trace each claim (see :meth:`check`).

        Returns:
            The verdict, as :meth:`check` gives it.

        Raises:
            TypeError: ``answer`` is not a ``str``.
        """
        if not isinstance(answer, str):
            raise TypeError(f"answer must be a str, got {type(answer).__name__}")
        codes = self._config.codes
        trace: Trace | None = Trace() if explain else None
        if FG004 in codes and not answer.strip():
            # Nothing stated is nothing hallucinated, but it is no answer either:
            # a model that returns nothing must be asked again, not accepted.
            empty = GroundingFinding(FG004, EMPTY_MESSAGE, (answer,), ((0, len(answer)),))
            if trace is not None:
                trace.add(FG004, 0, len(answer), "answer", EMPTY, False)
            traced = () if trace is None else trace.done(answer, ())
            return GroundingResult(ok=False, findings=(empty,), trace=traced)
        failed: dict[str, list[tuple[int, int]]] = {code: [] for code in sorted(ALL_CODES)}
        # Why a failing span fails, when it is not that no chunk holds it.
        reasons: dict[tuple[int, int], str] = {}
        # Text regions whose numbers are not checked on their own: echoed
        # instructions and failing quotations, whose findings cover their
        # digits. Without FG003 reported, a quotation covers nothing.
        covered: list[tuple[int, int]] = []
        # Each pass below stops at its (MAX_FAILING_SPANS + 1)-th failing
        # span, and the next ones read only the answer before it.
        limit = len(answer)
        # What the chunks support, as (kind, start, end, (chunk, start, end)).
        placed: list[tuple[str, int, int, tuple[int, int, int]]] = []
        if FG004 in codes:
            self._echo(answer, failed[FG004], covered)
            if trace is not None:
                for start, end in failed[FG004]:
                    trace.add(FG004, start, end, "answer", ECHO, False)
        if FG003 in codes:
            limit = self._quotations(answer, failed[FG003], covered, placed, trace)
        regions = Regions(covered)
        judged = None
        if FG001 in codes or FG002 in codes:
            judge = ClaimJudge(self, answer, trace)
            judged = judge_claims(
                answer,
                judge,
                until=limit,
                enough=MAX_FAILING_SPANS,
                keep=(lambda span: not regions.covers(span[1], span[2])) if covered else None,
                most_supported=MAX_EVIDENCE,
            )
            if len(judged.failing) > MAX_FAILING_SPANS:
                limit = min(limit, judged.failing[MAX_FAILING_SPANS][1])
            for code, start, end in judged.failing:
                failed[code].append((start, end))
                if isinstance(code, Reason):
                    reasons[(start, end)] = code.rule
            supported = judged.supported[:MAX_EVIDENCE]
            if FG001 in codes and supported:
                moved = self._moved(answer, supported)
                if moved:
                    failed[FG001] = sorted({*failed[FG001], *moved})
                    supported = [claim for claim in supported if claim[1:3] not in moved]
                    reasons.update(dict.fromkeys(moved, SUBJECT.name))
            self._place_claims(supported, placed)
        if FG001 in codes:
            limit = self._numbers_in_words(
                answer, failed, covered, judged, limit, placed, reasons, trace
            )
        if FG005 in codes:
            failed[FG005] = unknown_names(self._lookup, answer, failed[FG004])
            if trace is not None:
                for start, end in failed[FG005]:
                    trace.add(FG005, start, end, "answer", NAMES, False)
        cut = _cut(failed, limit, len(answer))
        note = ""
        if cut < len(answer):
            note = STOPPED_MESSAGE.format(limit=MAX_FAILING_SPANS, cut=cut, length=len(answer))
        if copies and FG004 in codes and self._copies(answer):
            # Every claim of a copied chunk is in the chunks, so no other rule
            # objects; but a copy of the context or the question answers
            # nothing. Its span is the whole answer, which holds any echo.
            failed[FG004] = [(len(answer) - len(answer.lstrip()), len(answer.rstrip()))]
            copied = True
            if trace is not None:
                trace.add(FG004, *failed[FG004][0], "answer", COPY, False)
        else:
            copied = False
        reported = {
            code: sorted(span for span in spans if span[0] < cut) for code, spans in failed.items()
        }
        findings = tuple(
            finding(code, answer, spans, note, copied and code == FG004, reasons)
            for code, spans in reported.items()
            if spans
        )
        failing = [span for spans in reported.values() for span in spans]
        evidence = evidence_of(placed, [*covered, *failing], cut, copied)
        return GroundingResult(
            ok=not findings,
            findings=findings,
            evidence=evidence,
            trace=(
                ()
                if trace is None
                else trace.done(answer, evidence, reported, covered, moved_to=reasons, cut=cut)
            ),
        )

    def _echo(
        self, answer: str, failed: list[tuple[int, int]], covered: list[tuple[int, int]]
    ) -> None:
        """The echo pass (FG004): :func:`relapse.grounding.rules.echo.echo_spans`."""
        echo_spans(self._lookup, answer, failed, covered)

    def _copies(self, answer: str) -> bool:
        """The copy pass (FG004): :func:`relapse.grounding.rules.echo.copied`."""
        return copied(self._lookup, answer)

    def _moved(self, answer: str, supported: list[Supported]) -> set[tuple[int, int]]:
        """The subject pass (FG001): :func:`relapse.grounding.rules.subjects.moved`."""
        return moved(self._lookup, answer, supported)

    def _place_claims(
        self,
        supported: list[Supported],
        placed: list[tuple[str, int, int, tuple[int, int, int]]],
    ) -> None:
        """Add the chunks' place of each supported digit claim's support to ``placed``."""
        places: dict[object, tuple[int, int, int] | None] = {}  # claims repeat their keys
        for code, start, end, support in supported:
            if support in places:
                where = places[support]
            else:
                where = places[support] = self._place_of(support)
            if where is not None:
                kind = _KINDS[code]
                if isinstance(support, tuple) and support[0] == TIME_OF_DAY:
                    kind = "time"
                placed.append((kind, start, end, where))

    def _place_of(self, support: object) -> tuple[int, int, int] | None:
        """Return the chunks' place of a key or a spelled value: (chunk, start, end), or None."""
        if isinstance(support, Spelled):
            return self._chunks.words.place(support.value)
        if isinstance(support, tuple):
            chunks = self._chunks
            where = chunks.place(support)
            if where is None and not chunks.complete and chunks.has(support):
                # Held by the question before the chunks that hold it were read.
                where = chunks.place(support)
            return where
        return None

    def copy_context(self) -> tuple[str, FoldedChunks]:
        """
        What FG004's copy rule compares an answer with (built on first use).

        Returns:
            ``(asked, chunks)``: see :meth:`relapse.grounding.rules.Lookup.copy_context`.
        """
        return self._lookup.copy_context()

    @property
    def codes(self) -> frozenset[str]:
        """The finding codes this check reports."""
        return frozenset(self._config.codes)

    def _numbers_in_words(
        self,
        answer: str,
        failed: dict[str, list[tuple[int, int]]],
        covered: list[tuple[int, int]],
        judged: JudgedClaims | None,
        limit: int,
        placed: list[tuple[str, int, int, tuple[int, int, int]]],
        reasons: dict[tuple[int, int], str] | None = None,
        trace: Trace | None = None,
    ) -> int:
        """
        Find the numbers written in words (``seventy``, FG001) before ``limit``.

        Years in words (``nineteen forty-five``) are dates: FG002, when
        reported. The chunks' place of each supported one goes to ``placed``;
        the rule of each failing one that is not a lack of support, to ``reasons``.

        Returns:
            Where the pass stopped: the start of its (MAX_FAILING_SPANS +
            1)-th failing number, or ``limit``.
        """
        # Digit claims own their words ("2.1 billion"): this pass skips them.
        digit_regions: Regions | None = None  # built at the first number in words
        failing = placed_words = 0
        ranks: dict[str, frozenset[int]] = {}  # the chunks' ordinals after each word, once
        # Each claim in context, once: every rule reads the answer within
        # LOOK_BACK and LOOK_AHEAD of it. A short answer goes without (see
        # MEMO_FROM): its few claims rarely repeat.
        verdicts: dict[tuple[object, ...], tuple[Support, Rule | None]] = {}
        memo = len(answer) >= MEMO_FROM
        codes = self._config.codes
        lookup = self._lookup
        for claim in word_claims(answer):
            if claim.start >= limit:
                break
            if claim.code not in codes:
                continue
            if digit_regions is None:
                digit_regions = Regions([*covered, *(judged.spans() if judged else ())])
            if digit_regions.overlaps(claim.start, claim.end):
                continue
            if claim.unit == SMALL_ORDINAL:
                contradicted = ordinal_contradicted(lookup, answer, claim, ranks)
                if trace is not None:
                    trace.add(
                        claim.code,
                        claim.start,
                        claim.end,
                        "ordinals",
                        ORDINAL_SLOT,
                        not contradicted,
                    )
                if contradicted:
                    failed[claim.code].append((claim.start, claim.end))
                    if reasons is not None:
                        reasons[(claim.start, claim.end)] = ORDINAL_SLOT.name
                    failing += 1
                    if failing > MAX_FAILING_SPANS:
                        return claim.start
                continue
            if memo:
                context = (
                    claim[3:],
                    answer[max(0, claim.start - LOOK_BACK) : claim.start],
                    answer[claim.start : claim.end + LOOK_AHEAD],
                )
                judged_words = verdicts.get(context)
                if judged_words is None:
                    judged_words = verdicts[context] = self._word_verdict(answer, claim)
            else:
                judged_words = self._word_verdict(answer, claim)
            support, rule = judged_words
            if trace is not None:
                trace.add(claim.code, claim.start, claim.end, "words", rule, support)
            if rule is not None and rule.role is Role.EXEMPTS and support:
                continue  # a trivial number, a list marker: it claims nothing
            if support:
                if placed_words < MAX_EVIDENCE:
                    placed_words += 1
                    self._place_claims([(claim.code, claim.start, claim.end, support)], placed)
                continue
            failed[claim.code].append((claim.start, claim.end))
            if reasons is not None and rule is not None and rule.role is Role.VETOES:
                reasons[(claim.start, claim.end)] = rule.name
            failing += 1
            if failing > MAX_FAILING_SPANS:
                return claim.start
        return limit

    def _word_verdict(self, answer: str, claim: Claim) -> tuple[Support, Rule | None]:
        """Walk a claim in words through the words' rules of its kind: its verdict and the rule."""
        kind = kind_of(claim)
        return judge(self._words[kind], self._lookup, Quantity(answer, claim, kind))

    def _quotations(
        self,
        answer: str,
        failed: list[tuple[int, int]],
        covered: list[tuple[int, int]],
        placed: list[tuple[str, int, int, tuple[int, int, int]]],
        trace: Trace | None = None,
    ) -> int:
        """
        Find FG003: quotations not verbatim in any chunk (nor in the question).

        Each quotation is walked through the quotations' rules
        (:mod:`relapse.grounding.rules.quotations`). A quotation whose
        fragments one chunk holds goes to ``placed``, with the span of that
        chunk's text from its first fragment to its last.

        Returns:
            Where the pass stopped: the start of its (MAX_FAILING_SPANS +
            1)-th failing quotation, or the answer's length.
        """
        quoted = 0  # supported quotations placed
        lookup = self._lookup
        walk = plan(Reads.QUOTATIONS, self._config.preview)
        for start, end in find_quotations(answer):
            claim = new_claim(Claim, (FG003, start, end, (), (), None, 0, False, (), ""))
            support, rule = judge(walk, lookup, Quantity(answer, claim, Kind.QUOTATION))
            if trace is not None:
                trace.add(FG003, start, end, "quotations", rule, support)
            if isinstance(support, Quoted):
                if quoted < MAX_EVIDENCE:
                    quoted += 1
                    where = quotation_place(self._chunks, support.found)
                    if where is not None:
                        placed.append(("quotation", start, end, where))
                continue
            if support:
                # A quotation that is exempt covers nothing: its numbers and
                # dates are still checked.
                continue
            failed.append((start, end))
            covered.append((start, end))
            if len(failed) > MAX_FAILING_SPANS:
                return start
        return len(answer)


#: The kind of an :class:`relapse.Evidence`, by the code of the claim it supports.
_KINDS = {FG001: "number", FG002: "date", FG003: "quotation"}


#: Failing spans a check reports at most. An answer with more (a generated
#: or hostile one: thousands of unsupported claims) is read only up to the
#: next one, and every finding's message says where it stopped: its verdict
#: cannot change, and reading on would cost time linear in the answer for
#: spans no one reads.
MAX_FAILING_SPANS = 1_000


def _cut(failed: Mapping[str, list[tuple[int, int]]], limit: int, length: int) -> int:
    """
    Return where the reported findings end: the answer's length unless it holds too many.

    Every pass found every failing span that starts before ``limit``; when
    those are more than :data:`MAX_FAILING_SPANS`, the first ones are
    reported, up to the start of the next.
    """
    starts = sorted(start for spans in failed.values() for start, _ in spans if start < limit)
    if len(starts) > MAX_FAILING_SPANS:
        return starts[MAX_FAILING_SPANS]
    return limit if limit < length else length


def _own_check(bound: Callable[[str], Verdict]) -> BoundGroundingCheck | None:
    """
    The bound default check whose plain ``check`` ``bound`` is, or None.

    A streamed answer is judged by windows only through the check's own
    verdicts (:meth:`BoundGroundingCheck.judged`): a wrapper's may differ.
    """
    owner = getattr(bound, "__self__", None)
    if isinstance(owner, BoundGroundingCheck) and (
        getattr(bound, "__func__", None) is BoundGroundingCheck.check
    ):
        return owner
    return None


#: The default grounding check of :func:`relapse.run` and :func:`relapse.grounded`:
#: ``GroundingCheck()``. Call it as ``default_grounding_check(query, chunks,
#: answer)``; a loop indexes the chunks once with
#: ``default_grounding_check.prepare(query, chunks)`` and calls ``.check(answer)``
#: per attempt. ``docs/findings.md`` explains each finding code (FG001 numbers,
#: FG002 dates, FG003 quotations, FG004 an echo of the retry instructions).
default_grounding_check = GroundingCheck()
