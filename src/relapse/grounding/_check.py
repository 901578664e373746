"""The default grounding check: configuration, preparation over chunks, verdict per answer."""

from __future__ import annotations

import heapq
import re
from bisect import bisect_left, bisect_right
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any, ClassVar, NamedTuple

from relapse._read.chunks import chunk_texts
from relapse._results import Evidence, GroundingFinding, GroundingResult
from relapse.checks._contract import CheckOperators
from relapse.grounding._codes import (
    ALL_CODES,
    COPY_MESSAGE,
    DEFAULT_CODES,
    EMPTY_MESSAGE,
    FG001,
    FG002,
    FG003,
    FG004,
    FG005,
    MESSAGES,
    STOPPED_MESSAGE,
)
from relapse.grounding._echo import (
    ECHO_PHRASES,
    Lines,
    asked_text,
    copies,
    echo_hits,
    phrase_pattern,
)
from relapse.grounding._index.blocks import (
    LOOK_AHEAD,
    LOOK_BACK,
    Failing,
    JudgedClaims,
    Supported,
    judge_claims,
)
from relapse.grounding._index.folded import FoldedChunks
from relapse.grounding._index.text_index import TextIndex
from relapse.grounding._index.unit_lookup import AGREE, CONFLICT, FOREIGN, UNRELATED
from relapse.grounding._names import name_spans, vocabulary
from relapse.grounding._read.claims import Claim, new_claim
from relapse.grounding._read.context import (
    CONTEXT_AFTER,
    CONTEXT_BEFORE,
    CONVERSION_WINDOW,
    INLINE_MARKER_WINDOW,
    converted_from,
    hedge,
    is_list_marker,
    is_reference,
)
from relapse.grounding._read.dates import CENTURY_BC, decade_claim, era_claim
from relapse.grounding._read.money import compound_amount
from relapse.grounding._read.numbers import (
    ERA_WORDS,
    MINUS_SIGNS,
    NOON_MIDNIGHT,
    sign_word,
    signed_claim,
    time_key,
)
from relapse.grounding._read.ordinal_slots import (
    MAX_SLOT_WORDS,
    ordinal_value,
    ordinals_after,
    slot_word_before,
)
from relapse.grounding._read.quotes import (
    find_quotations,
    introduces_question,
    occurs_as_words,
    quote_fragments,
    word_count,
)
from relapse.grounding._read.subjects import (
    Sentences,
    may_tell_kind,
    other_kind,
    shares_kind,
    subject,
    words_of,
)
from relapse.grounding._read.words import (
    Value,
    ordinal_spellings,
    read_run,
    run_start,
    word_numbers,
)
from relapse.grounding._text import fold
from relapse.grounding._values.keys import (
    Key,
    int_key,
    key_decimal,
    key_int,
    key_value,
    number_key,
    value_key,
)
from relapse.grounding._values.units import (
    AMBIGUOUS,
    PERCENT_SIGNS,
    PERCENT_WORDS,
    UNITS,
    binding_of,
    convert,
    unit_after,
    unit_of,
)

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

#: Significant digits up to which a number written in digits is also looked
#: up spelled out in the chunks.
MAX_SPELLED_DIGITS = 3
#: The unit that marks a claim of an ordinal up to ``tenth`` in words, which
#: only the chunks' ordinals in its slot judge (:meth:`BoundGroundingCheck._ordinal_contradicted`).
SMALL_ORDINAL = "#ordinal"
#: Decimal places up to which a decimal written in digits is also looked up
#: spelled out, after ``point`` (``66.7``: ``sixty-six point seven``).
DECIMAL_SPELLED_PLACES = 3
#: Spans quoted in a finding's message, and characters kept of each.
PREVIEW_SPANS = 5
PREVIEW_CHARS = 60


class _Spelled(NamedTuple):
    """A claim's support: its value, spelled out in words in a chunk (``Seventy`` for 70)."""

    value: Value


#: What supports a claim: the one key the texts hold that supports it, a
#: :class:`_Spelled` value, True for a support of no one place (a range's two
#: ends, a hedged number, a ratio, a conversion, a list marker), or False.
Support = Key | _Spelled | bool


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

    .. versionadded:: 0.2.0
    """

    trivial_numbers: Collection[int | float | str | Decimal] = frozenset({0, 1, 2})
    exempt_question: bool = True
    refusal_phrases: tuple[str, ...] = REFUSAL_PHRASES
    echo_phrases: tuple[str, ...] = ECHO_PHRASES
    min_quote_words: int = 2
    codes: Collection[str] = DEFAULT_CODES
    name: str = "relapse.default"
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
            TypeError: ``trivial_numbers`` holds a non-number.
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
        self, query: str, chunks: Sequence[str | Mapping[str, Any]], answer: str
    ) -> GroundingResult:
        """
        Check one answer: ``prepare(query, chunks).check(answer)``.

        Args:
            query: The user's question.
            chunks: The retrieved chunks.
            answer: The answer to check.

        Returns:
            The verdict and its findings.

        Raises:
            TypeError: see :meth:`prepare` and :meth:`BoundGroundingCheck.check`.
        """
        return self.prepare(query, chunks).check(answer)


class BoundGroundingCheck:
    """
    A :class:`GroundingCheck` bound to one call, its question and chunks indexed.

    What :meth:`GroundingCheck.prepare` returns: a :class:`relapse.checks.BoundCheck`.
    """

    __slots__ = (
        "_chunk_sentences",
        "_chunks",
        "_config",
        "_copy_context",
        "_known_words",
        "_percents_in_words",
        "_question",
        "_question_text",
    )

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
        self._question_text = query
        self._question = TextIndex([query], eager_words=True) if config.exempt_question else None
        self._known_words: frozenset[str] | None = None
        # The folded question and chunks FG004's copy rule compares (built on first use).
        self._copy_context: tuple[str, FoldedChunks] | None = None
        # The percents the chunks and the question write in words ("sixty
        # percent"), read when a fraction first asks for them.
        self._percents_in_words: frozenset[Value] | None = None
        # The sentence ends of the chunks the subject rule reads, by position
        # (each found on first use, once).
        self._chunk_sentences: dict[int, Sentences] = {}

    def _names(self) -> frozenset[str]:
        """Return the folded words of the chunks and the question (FG005; built on first use)."""
        known = self._known_words
        if known is None:
            known = vocabulary([*self._chunks.texts, self._question_text])
            self._known_words = known
        return known

    def check(self, answer: str) -> GroundingResult:
        """
        Check one answer against the indexed chunks.

        Args:
            answer: The answer to check.

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
        return self.judged(answer, copies=True)

    def judged(self, answer: str, *, copies: bool) -> GroundingResult:
        """
        :meth:`check`, with or without the rule that an answer copying the chunks is none.

        The incremental check (``release="sentence"``) judges a window of a
        streamed answer with ``copies=False``: whether the answer is a copy
        is a verdict on the whole answer, which it judges apart.

        Args:
            answer: The answer to check.
            copies: Apply FG004's copy rule (:meth:`check` does).

        Returns:
            The verdict, as :meth:`check` gives it.

        Raises:
            TypeError: ``answer`` is not a ``str``.
        """
        if not isinstance(answer, str):
            raise TypeError(f"answer must be a str, got {type(answer).__name__}")
        codes = self._config.codes
        if FG004 in codes and not answer.strip():
            # Nothing stated is nothing hallucinated, but it is no answer either:
            # a model that returns nothing must be asked again, not accepted.
            empty = GroundingFinding(FG004, EMPTY_MESSAGE, (answer,), ((0, len(answer)),))
            return GroundingResult(ok=False, findings=(empty,))
        failed: dict[str, list[tuple[int, int]]] = {code: [] for code in sorted(ALL_CODES)}
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
        if FG003 in codes:
            limit = self._quotations(answer, failed[FG003], covered, placed)
        regions = _Regions(covered)
        judged = None
        if FG001 in codes or FG002 in codes:
            judged = judge_claims(
                answer,
                _ClaimJudge(self, answer),
                until=limit,
                enough=MAX_FAILING_SPANS,
                keep=(lambda span: not regions.covers(span[1], span[2])) if covered else None,
                most_supported=MAX_EVIDENCE,
            )
            if len(judged.failing) > MAX_FAILING_SPANS:
                limit = min(limit, judged.failing[MAX_FAILING_SPANS][1])
            for code, start, end in judged.failing:
                failed[code].append((start, end))
            supported = judged.supported[:MAX_EVIDENCE]
            if FG001 in codes and supported:
                moved = self._moved(answer, supported)
                if moved:
                    failed[FG001] = sorted({*failed[FG001], *moved})
                    supported = [claim for claim in supported if claim[1:3] not in moved]
            self._place_claims(supported, placed)
        if FG001 in codes:
            limit = self._numbers_in_words(answer, failed, covered, judged, limit, placed)
        if FG005 in codes:
            echoes = _Regions(failed[FG004])
            failed[FG005] = [
                span for span in name_spans(answer, self._names()) if not echoes.overlaps(*span)
            ]
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
        else:
            copied = False
        reported = {
            code: sorted(span for span in spans if span[0] < cut) for code, spans in failed.items()
        }
        findings = tuple(
            _finding(code, answer, spans, note, copied and code == FG004)
            for code, spans in reported.items()
            if spans
        )
        failing = [span for spans in reported.values() for span in spans]
        return GroundingResult(
            ok=not findings,
            findings=findings,
            evidence=_evidence(placed, [*covered, *failing], cut, copied),
        )

    def _moved(self, answer: str, supported: list[Supported]) -> set[tuple[int, int]]:
        """
        Return the spans of supported numbers that every chunk states of another kind of subject.

        ``Monozygotic (identical) twins occur ... within 8 days``, against a
        chunk's only ``Conjoined twins: ... within 8 days of fertilization``:
        the digits and the unit are the chunk's, the subject is not. A number
        (FG001) supported by a key of the chunks fails when its answer
        sentence opens with a run of words (:func:`.subjects.subject`) and
        every occurrence of the number in the chunks, in digits, is in a
        sentence whose run names another kind of the same thing
        (:func:`.subjects.other_kind`), and the chunks name the answer's kind
        with that thing elsewhere (:meth:`_names_kind`). It passes when the
        question states the number, a chunk spells it out, it occurs more
        than :data:`MAX_SUBJECT_OCCURRENCES` times, or a sentence is too long
        to read (:data:`.subjects.SENTENCE_WINDOW`): when in doubt, pass.

        Args:
            answer: The answer.
            supported: The supported digit claims, as the judge gives them.

        Returns:
            The ``(start, end)`` spans that fail.
        """
        moved: set[tuple[int, int]] = set()
        runs: dict[tuple[int, int], tuple[tuple[str, ...], frozenset[str]]] = {}
        verdicts: dict[tuple[Key, tuple[int, int]], bool] = {}
        question = self._question
        sentences: Sentences | None = None  # found at the first number the rule reads
        for code, start, end, support in supported:
            if (
                code != FG001
                or not isinstance(support, tuple)
                or support[0] != "n"
                or (question is not None and support in question.keys)
            ):
                continue
            if sentences is None:
                sentences = Sentences(answer)
            sentence = sentences.at(start, end)
            if sentence is None:
                continue
            read = runs.get(sentence)
            if read is None:
                run = subject(answer, *sentence)
                # The answer is read at most CONTEXT_AFTER past the number,
                # as every rule reads it: a streamed sentence's verdict is
                # final once the text reaches that far.
                read = runs[sentence] = (
                    run,
                    words_of(answer, sentence[0], min(sentence[1], end + CONTEXT_AFTER))
                    if may_tell_kind(run)
                    else _NO_WORDS,
                )
            run, words = read
            if not words:
                continue
            verdict = verdicts.get((support, sentence))
            if verdict is None:
                verdict = verdicts[(support, sentence)] = self._other_kind_only(support, run, words)
            if verdict:
                moved.add((start, end))
        return moved

    def _other_kind_only(self, key: Key, run: tuple[str, ...], words: frozenset[str]) -> bool:
        """Tell whether every chunk occurrence of ``key`` is in a sentence about another kind."""
        chunks = self._chunks
        kinds: set[tuple[tuple[str, ...], str]] = set()
        for count, (position, start) in enumerate(chunks.units.occurrences(key)):
            if count == MAX_SUBJECT_OCCURRENCES:
                return False
            text = chunks.texts[position]
            sentence = self._sentence_in_chunk(position, start, start + 1)
            if sentence is None:
                return False
            chunk_run = subject(text, *sentence)
            if not shares_kind(run, chunk_run):
                return False
            kind = other_kind(run, words, chunk_run, words_of(text, *sentence))
            if kind is None:
                return False
            kinds.add(kind)
        if not kinds:
            return False
        value = key_value(key)
        if value is None or chunks.words.has(value):
            return False
        return all(self._names_kind(mods, head) for mods, head in kinds)

    def _sentence_in_chunk(self, position: int, start: int, end: int) -> tuple[int, int] | None:
        """Return the sentence of chunk ``position`` holding ``start:end`` (``Sentences.at``)."""
        sentences = self._chunk_sentences.get(position)
        if sentences is None:
            sentences = self._chunk_sentences[position] = Sentences(self._chunks.texts[position])
        return sentences.at(start, end)

    def _names_kind(self, mods: tuple[str, ...], head: str) -> bool:
        """
        Tell whether the chunks name each of ``mods`` in a sentence with ``head``.

        The answer's kind (``monozygotic``) must be one the chunks tell of the
        thing (``twins``) somewhere: a modifier the chunks never use is the
        answer's own wording of theirs, and may be a synonym of the chunk's.
        It must be written in lower case there, as a common word, or
        capitalised as a sentence's first word: a name (``Apple``) elsewhere
        is a subject of its own, which the chunk's sentence may call ``the
        company``.
        Each modifier's first :data:`MAX_SUBJECT_OCCURRENCES` occurrences are
        looked at.
        """
        texts = self._chunks.texts
        for mod in mods:
            # In lower case, as a common word; capitalised only as a
            # sentence's first word ("Private schools enrolled fewer"), where
            # every word is.
            written = re.escape(mod)
            opening = re.escape(mod[:1].upper()) + re.escape(mod[1:])
            pattern = re.compile(
                rf"(?<![^\W_])(?:{written}|(?P<opening>{opening}))(?:e?s)?(?![^\W_])"
            )
            seen = 0
            named = False
            for position, text in enumerate(texts):
                for match in pattern.finditer(text):
                    seen += 1
                    sentence = self._sentence_in_chunk(position, match.start(), match.end())
                    if (
                        sentence is not None
                        and (
                            match["opening"] is None
                            or not text[sentence[0] : match.start()].strip(_OPENING_MARKS)
                        )
                        and head in words_of(text, *sentence)
                    ):
                        named = True
                        break
                    if seen == MAX_SUBJECT_OCCURRENCES:
                        return False
                if named:
                    break
            if not named:
                return False
        return True

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
                if isinstance(support, tuple) and support[0] == "tod":
                    kind = "time"
                placed.append((kind, start, end, where))

    def _place_of(self, support: object) -> tuple[int, int, int] | None:
        """Return the chunks' place of a key or a spelled value: (chunk, start, end), or None."""
        if isinstance(support, _Spelled):
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
            ``(asked, chunks)``: the question as
            :func:`relapse.grounding._echo.asked_text` gives it, and the
            chunk texts, folded when asked for (one
            :class:`~relapse.grounding._index.folded.FoldedChunks` per
            prepare, shared by every answer checked and by
            :class:`relapse.checks._window.CopyWatch`, so a chunk is folded
            once).
        """
        context = self._copy_context
        if context is None:
            # Once per prepare; the chunks are folded as the answers' probes
            # need them, once each. Their UTF-8 is the index's, which the
            # word numbers' lookup also searches.
            chunks = self._chunks
            context = self._copy_context = (
                asked_text(self._question_text),
                FoldedChunks(chunks.texts, chunks.joined, chunks.digests, lambda: chunks.encoded),
            )
        return context

    @property
    def codes(self) -> frozenset[str]:
        """The finding codes this check reports."""
        return frozenset(self._config.codes)

    def _copies(self, answer: str) -> bool:
        """Tell whether the answer only copies the chunks or the question back (FG004)."""
        asked, folded = self.copy_context()
        return copies(answer, asked, folded)

    def _echo(
        self, answer: str, failed: list[tuple[int, int]], covered: list[tuple[int, int]]
    ) -> None:
        """Find FG004: finding codes and retry phrases that no chunk holds."""
        lines: Lines | None = None  # built at the first echo
        seen: set[tuple[int, int]] = set()
        in_chunks: dict[str, bool] = {}  # an answer may repeat one phrase on every line
        for what, start, end in echo_hits(answer, self._config._echo_patterns):
            held = in_chunks.get(what)
            if held is None:
                # Case-folded: a chunk's "fg001" is the same code.
                written = what.casefold() if what.startswith("FG") else fold(what)
                held = in_chunks[what] = written in self._chunks.quotations.folded
            if held:
                continue
            if lines is None:
                lines = Lines(answer)
            span = lines.around(start, end)
            if span not in seen:
                seen.add(span)
                failed.append(span)
                covered.append(span)

    def _numbers_in_words(
        self,
        answer: str,
        failed: dict[str, list[tuple[int, int]]],
        covered: list[tuple[int, int]],
        judged: JudgedClaims | None,
        limit: int,
        placed: list[tuple[str, int, int, tuple[int, int, int]]],
    ) -> int:
        """
        Find the numbers written in words (``seventy``, FG001) before ``limit``.

        Years in words (``nineteen forty-five``) are dates: FG002, when
        reported. The chunks' place of each supported one goes to ``placed``.

        Returns:
            Where the pass stopped: the start of its (MAX_FAILING_SPANS +
            1)-th failing number, or ``limit``.
        """
        # Digit claims own their words ("2.1 billion"): this pass skips them.
        digit_regions: _Regions | None = None  # built at the first number in words
        failing = placed_words = 0
        ranks: dict[str, frozenset[int]] = {}  # the chunks' ordinals after each word, once
        verdicts: dict[tuple[object, ...], Support | None] = {}  # each claim in context, once
        codes = self._config.codes
        for claim in _word_claims(answer):
            if claim.start >= limit:
                break
            if claim.code not in codes:
                continue
            if digit_regions is None:
                digit_regions = _Regions([*covered, *(judged.spans() if judged else ())])
            if digit_regions.overlaps(claim.start, claim.end):
                continue
            if claim.unit == SMALL_ORDINAL:
                if self._ordinal_contradicted(answer, claim, ranks):
                    failed[claim.code].append((claim.start, claim.end))
                    failing += 1
                    if failing > MAX_FAILING_SPANS:
                        return claim.start
                continue
            # One verdict per distinct claim in its surroundings: every rule
            # below reads the answer within LOOK_BACK and LOOK_AHEAD of it.
            context = (
                claim[3:],
                answer[max(0, claim.start - LOOK_BACK) : claim.start],
                answer[claim.start : claim.end + LOOK_AHEAD],
            )
            if context in verdicts:
                support = verdicts[context]
            else:
                support = verdicts[context] = self._word_verdict(answer, claim)
            if support is None:
                continue
            if support:
                if placed_words < MAX_EVIDENCE:
                    placed_words += 1
                    self._place_claims([(claim.code, claim.start, claim.end, support)], placed)
                continue
            failed[claim.code].append((claim.start, claim.end))
            failing += 1
            if failing > MAX_FAILING_SPANS:
                return claim.start
        return limit

    def _word_verdict(self, answer: str, claim: Claim) -> Support | None:
        """
        Judge a number in words: what supports it, False, or None (no claim).

        None for a trivial number, a list marker or a reference to the
        context, which claim nothing.
        """
        if self._trivial(answer, claim):
            return None
        support = self._supported(answer, claim)
        # "eighty-five dollars" is not supported by a chunk's "85 cents":
        # its unit is compared as a number in digits' is.
        if support and not self._units_agree(answer, claim):
            support = False
        if not support and (
            self._phrase_held(answer, claim)
            or self._in_other_money_unit(answer, claim)
            or self._compound_money_held(answer, claim)
        ):
            # "minus three", "forty-four BC" copied from a chunk's words;
            # "seventy-five cents" of a chunk's "$0.75".
            support = True
        if not support and _not_a_claim(answer, claim):
            return None
        return support

    def _ordinal_contradicted(
        self, answer: str, claim: Claim, ranks: dict[str, frozenset[int]]
    ) -> bool:
        """
        Tell whether the chunks write other ordinals than a small one after the same word (FG001).

        ``She finished fourth`` against a chunk's ``She finished 3rd``: the
        chunks (or the question) rank the same thing otherwise. With no
        ordinal after the same word there, or its own among them, the
        ordinal passes (:mod:`relapse.grounding._read.ordinal_slots`).
        ``ranks`` keeps what the chunks write after each word, searched once
        per answer: past :data:`MAX_SLOT_WORDS` words, an ordinal after a new
        one passes, so the searches stay linear in the chunks.
        """
        before = slot_word_before(answer, claim.start)
        value = ordinal_value(answer[claim.start : claim.end])
        if before is None or value is None:
            return False
        found = ranks.get(before)
        if found is None:
            if len(ranks) >= MAX_SLOT_WORDS:
                return False
            texts = [self._chunks.joined]
            if self._question is not None:
                texts.append(self._question.joined)
            found = ranks[before] = frozenset().union(
                *(ordinals_after(text, before) for text in texts)
            )
        return bool(found) and value not in found

    def _phrase_held(self, answer: str, claim: Claim) -> bool:
        """
        Tell whether a signed number or an era year in words is a chunk's phrase, as words.

        A chunk's ``minus three`` or ``forty-four BC`` is read as a number in
        words alone (3, 44), which no signed or era claim is; the same words
        copied into the answer state what the chunk states.
        """
        written = answer[claim.start : claim.end]
        if claim.key is not None and claim.key[0] == "n" and claim.code == FG001:
            return False  # a plain number in words: looked up by value
        return occurs_as_words(self._chunks.quotations.folded, fold(written))

    def _quotations(
        self,
        answer: str,
        failed: list[tuple[int, int]],
        covered: list[tuple[int, int]],
        placed: list[tuple[str, int, int, tuple[int, int, int]]],
    ) -> int:
        """
        Find FG003: quotations not verbatim in any chunk (nor in the question).

        A quotation whose fragments one chunk holds goes to ``placed``, with
        the span of that chunk's text from its first fragment to its last.

        Returns:
            Where the pass stopped: the start of its (MAX_FAILING_SPANS +
            1)-th failing quotation, or the answer's length.
        """
        config = self._config
        quoted = 0  # supported quotations placed
        for start, end in find_quotations(answer):
            text = answer[start:end]
            if word_count(text) < config.min_quote_words:
                continue
            folded = fold(text)
            # A quotation that passes, quotes a refusal or restates the question
            # covers nothing: its numbers and dates are still checked.
            if any(refusal in folded for refusal in config._refusals):
                continue
            if introduces_question(answer, start - 1):
                continue
            fragments = quote_fragments(text)
            found = [self._quoted(fragment) for fragment in fragments]
            if all(found):
                if quoted < MAX_EVIDENCE:
                    quoted += 1
                    where = _quotation_place(self._chunks, found)
                    if where is not None:
                        placed.append(("quotation", start, end, where))
                continue
            failed.append((start, end))
            covered.append((start, end))
            if len(failed) > MAX_FAILING_SPANS:
                return start
        return len(answer)

    def _quoted(self, fragment: str) -> tuple[int, int, int] | bool:
        """
        Tell where a folded quotation fragment is in a chunk, as words, or if in the question.

        Returns:
            ``(chunk, start, end)`` in that chunk folded (the chunk -1 when
            it cannot be told); True when only the question holds it; False.
        """
        found = self._chunks.quotations.find(fragment)
        if found is not None:
            return found
        return self._question is not None and occurs_as_words(
            self._question.quotations.folded, fragment
        )

    def _has(self, key: Key, plain: bool) -> bool:
        """Tell whether the chunks (or the question, or the trivial set) hold ``key``."""
        if self._known(key, plain):
            return True
        return self._chunks.has(key)

    def _known(self, key: Key, plain: bool) -> bool:
        """Tell whether ``key`` is held without reading more chunks."""
        if key in self._chunks.keys:
            return True
        if self._question is not None and key in self._question.keys:
            return True
        return plain and key in self._config._trivial_keys

    def _claim_holds(self, answer: str, claim: Claim) -> Support:
        """Tell what supports a digit claim (True: no claim about the world), or False."""
        support = self._supported(answer, claim)
        if support and self._units_agree(answer, claim):
            if (
                support is not True
                and claim.plain
                and claim.end - claim.start <= MAX_MARKER_CHARS
                and _not_a_claim(answer, claim)
            ):
                # A list marker ("3) Use ...") or a reference ("passage 2")
                # that a chunk happens to hold claims nothing: it is cited
                # nowhere. Only short numbers are tested (markers have at
                # most three digits), since the rules cost regex searches.
                return True
            return support
        # The context rules cost regex searches: only for what failed.
        return claim.code == FG001 and (
            (claim.plain and _not_a_claim(answer, claim))
            or _correct_conversion(answer, claim)
            or self._in_other_money_unit(answer, claim)
            or self._in_another_unit(answer, claim)
            or self._compound_money_held(answer, claim)
        )

    def _compound_money_held(self, answer: str, claim: Claim) -> bool:
        """
        Tell whether the amount a number is a part of is the texts' (``2 dollars and 50 cents``).

        The answer's ``two dollars and fifty cents``, ``$2 and 50 cents`` or
        ``3 pounds 20 pence`` is the amount ``$2.50`` or ``£3.20``
        (:func:`relapse.grounding._read.money.compound_amount`): each of its
        numbers holds when the chunks (or the question) write that amount
        with its currency.
        """
        # A part of such an amount is money ("$2") or has its unit's name
        # right after it ("2 dollars", "50 cents"): its initial, then one
        # anchored match, before the amount is read.
        if claim.code != FG001 or claim.precision < 0:
            return False  # each part is a whole number: "$4,812.37" is none
        if claim.unit != "$" and (
            answer[claim.end : claim.end + 2].lstrip(" \u00a0")[:1] not in _MONEY_PART_INITIALS
            or _MONEY_PART_AFTER.match(answer, claim.end) is None
        ):
            return False
        found = compound_amount(answer, claim.start, claim.end)
        if found is None:
            return False
        key, currency = found
        return self._has(key, plain=False) and any(
            written is not None and written.removeprefix(AMBIGUOUS) == currency
            for index in (self._chunks, self._question)
            if index is not None
            for written in index.units.written(key)
        )

    def _in_another_unit(self, answer: str, claim: Claim) -> bool:
        """
        Tell whether the texts state a quantity in another unit that the answer's converts.

        ``100 °C`` is a chunk's ``373 K``, ``100 km`` its ``62 miles``, ``90
        minutes`` its ``1.5 hours``: a number the chunks write with another
        unit of the same dimension whose conversion to the answer's unit is
        within :data:`CONVERSION_TOLERANCE` of it (or half a unit of its last
        decimal). Currencies are
        not converted, nor degrees whose scale is not said; the chunks'
        numbers below zero are not looked for.
        """
        key = claim.key
        if key is None or key[0] != "n" or not claim.plain:
            return False
        target = unit_after(answer, claim.end)
        unit = UNITS.get(target) if target is not None else None
        value = key_decimal(key)
        if unit is None or not unit.factor or value is None:
            return False
        stated = float(value)
        # The answer rounds the converted value: to half a unit of its last
        # written decimal ("0.0500" has four), or within the tolerance's share
        # of it (not a unit: "2 years" is no "12 months").
        places = -claim.precision if claim.precision < 0 else 0
        rounding = 0.5 * 10.0**-places if places else 0.0
        tolerance = max(rounding, CONVERSION_TOLERANCE * stated)
        indexes = [index for index in (self._chunks, self._question) if index is not None]
        for other in _CONVERTIBLE[unit.dimension]:
            if other == unit.name:
                continue
            low = convert(stated - tolerance, unit.name, other)
            high = convert(stated + tolerance, unit.name, other)
            if low is None or high is None or high < 0:
                continue
            low = max(low, 0.0)  # the chunks' numbers below zero are not looked for
            for index in indexes:
                for number in index.numbers.numbers_between(
                    Decimal(repr(low)), Decimal(repr(high))
                ):
                    if any(
                        written is not None and written.removeprefix(AMBIGUOUS) == other
                        for written in index.units.written(number)
                    ):
                        return True
        return False

    def _in_other_money_unit(self, answer: str, claim: Claim) -> bool:
        """
        Tell whether the texts state an amount of money in its minor or major unit.

        ``75 cents`` is ``$0.75`` and ``50p`` is ``£0.50``: the amount a
        hundred times smaller (or larger) is looked for, written with a
        currency of the other unit (:data:`_MINOR_UNITS`); ``75 cents`` is
        still no ``$75``, nor a bare ``0.75``.
        """
        key = claim.key
        if key is None or key[0] not in ("n", "-n") or not isinstance(key[2], int):
            return False
        # Money has its symbol before it, or a minor unit after it ("cents",
        # "85c", "50p", "pence", "paise", "¢"): the binding's searches only then.
        if claim.unit != "$" and _MINOR_UNIT_LETTERS.isdisjoint(
            answer[claim.end : claim.end + _MINOR_UNIT_PEEK]
        ):
            return False
        start = _unsigned_start(answer, claim) if key[0] == "-n" else claim.start
        unit = binding_of(answer, start, claim.end, plurals=False)
        other = _MINOR_UNITS.get(unit.removeprefix(AMBIGUOUS)) if unit is not None else None
        if other is None:
            return False
        shift, units = other
        scaled: Key = (key[0], key[1], key[2] + shift)
        # "50p", "85c": a letter glued is ambiguous, and still the unit here.
        return self._has(scaled, plain=False) and any(
            written is not None and written.removeprefix(AMBIGUOUS) in units
            for index in (self._chunks, self._question)
            if index is not None
            for written in index.units.written(scaled)
        )

    def _trivial(self, answer: str, claim: Claim) -> bool:
        """
        Tell whether a claim is a trivial number written bare (``2 ways``).

        A trivial number measures something when a unit follows it (``1
        kilometer``, ``2%``): then it is a claim like any other.
        """
        return (
            claim.plain
            and claim.key in self._config._trivial_keys
            and unit_after(answer, claim.end) is None
        )

    def _supported(self, answer: str, claim: Claim) -> Support:
        """
        Tell what supports a claim: an alternative of its needs held, or a fallback.

        Returns:
            The key held, when one alone supports it (the chunks' place of
            it is the claim's evidence); a :class:`_Spelled` value when the
            chunks spell it out; True for a support of no one place (both
            ends of a range, a hedged number, a ratio); False for none.
        """
        plain = self._trivial(answer, claim) if claim.key is not None else claim.plain
        needs = claim.needs
        # First what the chunks read so far hold; only then read the chunks
        # that may hold each part, dates last (their evidence is a pattern,
        # slower to search than a number's digits).
        for position, alternative in enumerate(needs):
            if all(self._known(part, plain) for part in alternative):
                if position and not self._chunks.complete:
                    # A full reading returns the first alternative held: an
                    # earlier one held by a chunk not read yet is the claim's
                    # support (and its evidence) there, so it must be here.
                    for earlier in needs[:position]:
                        if all(self._has(part, plain) for part in sorted(earlier, key=_is_date)):
                            return self._one_key(earlier, plain)
                return self._one_key(alternative, plain)
        if not self._chunks.complete:
            for alternative in needs:
                parts = sorted(alternative, key=_is_date) if len(alternative) > 1 else alternative
                if all(self._has(part, plain) for part in parts):
                    return self._one_key(alternative, plain)
        if claim.parts and claim.plain:
            # Each end stated on its own, or spelled out ("three to four weeks"
            # grounds "3-4 weeks").
            return all(self._range_end(part) for part in claim.parts)
        key = claim.key
        named = [
            _NAMED_TIMES[alternative[0]]
            for alternative in needs
            if len(alternative) == 1 and alternative[0] in _NAMED_TIMES
        ]
        if named:
            # "12 pm" in the answer, "noon" in a chunk; "12 am", "midnight".
            return any(self._time_named(pattern) for pattern in named)
        decades = [
            alternative[0]
            for alternative in needs
            if len(alternative) == 1 and alternative[0][0] in ("dec", "dec2")
        ]
        if decades and self._decade_stated(decades[0]):
            return True
        if key is None:
            century = needs[0][0] if len(needs) == 1 and len(needs[0]) == 1 else None
            # "the 19th century" in the answer, "the nineteenth century" in a chunk.
            return (
                century is not None
                and century[0] in ("cent", CENTURY_BC)
                and self._century_spelled(century)
            )
        if claim.code == FG001:
            direction = hedge(answer, claim.start)
            if direction is not None and any(
                index is not None and _hedged_support(index, key, claim.precision, direction)
                for index in (self._chunks, self._question)
            ):
                return True
            if claim.unit in ("%", "/") and self._ratio(key, claim.unit):
                return True
            if not claim.unit and _bare_share(answer, claim, key) and self._ratio(key, "/"):
                return True  # "a share of 0.6": a chunk's 60% states it
        elif answer[claim.start : claim.start + 1].isdecimal() or key[0] != "n":
            # A date pattern, or a year in digits: chunks write dates in digits
            # (a year in words, "nineteen forty-five", grounds words only).
            return False
        # "70" in the answer, "Seventy" in a chunk. Prose spells out numbers of
        # up to three significant digits ("two hundred and twelve", "three
        # thousand five hundred") and years ("nineteen forty-five"); a claim in
        # words is always looked up, so that words copied from a chunk are
        # found there.
        value = key_value(key)
        if value is None:
            return False
        spelled = answer[claim.start : claim.start + 1].isalpha()
        if not spelled and claim.code == FG001:
            # A decimal's places are spelled one by one after "point": three
            # more digits than a whole number's ("nine hundred point two five").
            places = DECIMAL_SPELLED_PLACES if isinstance(value, Fraction) else 0
            if len(str(key[1])) > MAX_SPELLED_DIGITS + places:
                return False
            if isinstance(value, Fraction) and not _spelled_out_decimal(value):
                return False
            if (
                isinstance(value, Fraction)
                and _spelled_with_point_only(value)
                and not self._chunks.words.spells_decimals()
            ):
                return False  # only "point" could spell it ("sixty-six point seven")
        return _Spelled(value) if self._chunks.words.has(value) else False

    def _time_named(self, pattern: re.Pattern[str]) -> bool:
        """Tell whether the chunks or the question name a time of day in words (``noon``)."""
        return any(
            index is not None and pattern.search(index.joined) is not None
            for index in (self._chunks, self._question)
        )

    def _decade_stated(self, decade: Key) -> bool:
        """
        Tell whether the texts state a decade an answer names, in words or as an age.

        ``the 80s`` (``("dec2", 8)``) is a chunk's ``eighties``, or an age in
        them (``aged 85``: ``in his 80s``); ``the 1980s`` (``("dec", 198)``)
        a chunk's ``eighties`` too, whose century it leaves unsaid.

        Args:
            decade: A decade key.

        Returns:
            True when a chunk or the question writes the decade's word, or,
            for a decade without its century, a number from its first year
            to its last (80 to 89).
        """
        tens = decade[1]
        if not isinstance(tens, int):
            return False
        tens %= 10
        indexes = [index for index in (self._chunks, self._question) if index is not None]
        # Ages from the twenties: "in her teens" is how the 10s of an age are said.
        if (
            decade[0] == "dec2"
            and tens >= 2
            and any(
                index.numbers.has_number_between(Decimal(tens * 10), Decimal(tens * 10 + 9))
                for index in indexes
            )
        ):
            return True
        pattern = _DECADE_SEARCHES.get(tens)
        return pattern is not None and any(
            pattern.search(index.joined) is not None for index in indexes
        )

    def _century_spelled(self, century: Key) -> bool:
        """
        Tell whether the chunks or the question spell out a century (``nineteenth century``).

        Args:
            century: A century key, ``("cent", 18)`` for the 19th (the years 1800 to
                1899), or ``("cent_bc", 5)`` for the 5th before Christ.

        Returns:
            True when the ordinal in words stands before ``century`` or
            ``centuries``, in any case. One search of the texts, made only for
            a century no chunk writes in digits.
        """
        before_christ = century[0] == CENTURY_BC
        number = century[1]
        if not isinstance(number, int):
            return False
        spellings = ordinal_spellings(number if before_christ else number + 1)
        if not spellings:
            return False
        # A century before Christ is spelled with its era, and one of ours without it.
        era = (
            f"(?={_ERA_BEFORE_CHRIST.pattern})"
            if before_christ
            else (f"(?!{_ERA_BEFORE_CHRIST.pattern})")
        )
        pattern = re.compile(
            rf"(?<![^\W\d_])(?:{'|'.join(spellings)})[\s\u00a0-]+centur(?:y|ies)(?![^\W\d_])" + era,
            re.IGNORECASE,
        )
        return any(
            index is not None and pattern.search(index.joined) is not None
            for index in (self._chunks, self._question)
        )

    def _one_key(self, alternative: tuple[Key, ...], plain: bool) -> Key | bool:
        """
        Return the key of an alternative held alone, whose place is the claim's evidence.

        True (held, no one place) for several keys, and for a trivial number
        written plain: it is exempt, not looked up, so whether its place is
        known would depend on what the chunks read so far hold.
        """
        if len(alternative) != 1:
            return True
        key = alternative[0]
        return True if plain and key in self._config._trivial_keys else key

    def _ratio(self, key: Key, unit: str) -> bool:
        """
        Tell whether the texts state a percent's ratio, or a ratio's percent.

        ``45%`` is the ratio 0.45: a chunk's ``0.45`` written without a unit
        supports it (``0.45 mm`` measures something else), and so does a
        fraction stated as a fraction (``9/20``, ``a quarter`` for ``25%``).
        A fraction without an exact decimal (1/3, 2/3, 1/7) has no exact
        percent either: a percent is supported by it when it is the
        fraction rounded to the percent's last written digit (``33%``,
        ``33.3%`` for one third; not ``34%`` nor ``33.4%``). The other way
        round, ``two thirds`` (unit ``"/"``: a fraction in words) is
        supported by a chunk's percent that is it, so rounded.
        """
        indexes = [index for index in (self._chunks, self._question) if index is not None]
        if unit == "%":
            percent = key_decimal(key)
            if percent is None:
                return False
            ratio: Key = ("n", key[1], key[2] - 2)  # type: ignore[operator]
            if self._has(ratio, plain=False) and any(
                None in index.units.written(ratio) for index in indexes
            ):
                return True
            exponent = key[2]
            assert isinstance(exponent, int)  # number keys: ("n", digits, exponent)
            written = Fraction(percent)
            # The fractions within half a unit of the last written digit, found
            # by bisection in the sorted percents, then tested exactly.
            half = float(Fraction(10) ** min(exponent, 0)) / 2 + 1e-9
            low = bisect_left(_FRACTION_PERCENTS, float(written) - half)
            high = bisect_right(_FRACTION_PERCENTS, float(written) + half)
            return any(
                _rounds_to_percent(fraction, written, min(exponent, 0))
                and self._states_fraction(fraction)
                for fraction in _FRACTIONS[low:high]
            )
        value = key_value(key)
        if value is None:
            return False
        percents = _percents_of(Fraction(value))
        if any(
            self._has(percent, plain=False)
            and any("%" in index.units.written(percent) for index in indexes)
            for percent in percents
        ):
            return True
        # "three fifths" of a chunk's "sixty percent".
        in_words = self._percents_in_words
        if in_words is None:
            in_words = self._percents_in_words = frozenset(
                value for index in indexes for value in percents_in_words(index.joined)
            )
        return any(key_value(percent) in in_words for percent in percents)

    def _states_fraction(self, fraction: Fraction) -> bool:
        """Tell whether the texts state ``fraction`` as a fraction: in words, or ``n/d``."""
        if self._chunks.words.has(fraction):
            return True
        written: Key = ("t", f"{fraction.numerator}/{fraction.denominator}")
        key = value_key(fraction)
        exact = key is not None and key[0] == "q" and self._has(key, plain=False)
        return exact or self._has(written, plain=False)

    def _units_agree(self, answer: str, claim: Claim) -> bool:
        """
        Tell whether a supported number's unit agrees with the chunks' writing of it.

        ``104 °C`` is not supported by ``104 °F``: when the answer and the
        texts both give the number a unit of one dimension (temperature,
        length, money...), some occurrence must give the same unit, or none.
        A number the texts do not write in digits is not compared.

        A number is bound to what it counts: when every occurrence of it in
        the chunks is bound to something plainly else (``page 30``, ``May
        30``, ``30 people`` or ``30 kg`` for ``30 minutes``;
        :func:`relapse.grounding._values.units.foreign`), it is no support, unless a chunk spells it
        out (``thirty minutes``) or the question states it bound to the
        same or to nothing. An
        answer's number bound by an ambiguous spelling (``30m``) or to
        nothing the check reads is never judged foreign.
        """
        key = claim.key
        if key is None or claim.code != FG001 or claim.parts:
            return True
        # A signed number ("-5", "−$30", "minus 5") is bound as its digits
        # are; the lookup reads the chunks' signs as the scanner does.
        start = _unsigned_start(answer, claim) if key[0] == "-n" else claim.start
        percent = claim.unit == "%"
        if percent:
            # The scanner's percent, its sign or word read after the digits;
            # one the binding does not read the same way ("$0%1") is judged
            # as before, never foreign.
            match = _PERCENT_END.search(answer, start, claim.end)
            end = claim.end if match is None else match.start()
            unit: str | None = "%" if binding_of(answer, start, end, plurals=False) == "%" else "?%"
        elif self._trivial(answer, claim):
            # "2 people": a trivial number bare of a unit claims little.
            unit = unit_of(answer, start, claim.end)
        else:
            unit = binding_of(answer, start, claim.end, plurals=False)
        if unit is None or unit.startswith("#reference"):
            return True
        ambiguous = unit.startswith(AMBIGUOUS)
        unit = unit.removeprefix(AMBIGUOUS)
        question = self._question
        verdicts = [self._chunks.units.verdict(key, unit)]
        if verdicts[0] == AGREE:
            return True
        verdicts.append(question.units.verdict(key, unit) if question is not None else UNRELATED)
        if verdicts[1] == AGREE:
            return True
        if CONFLICT in verdicts:
            return False
        if verdicts[0] != FOREIGN or ambiguous:
            return True
        # Bound elsewhere in every chunk occurrence in digits: still supported
        # when a chunk spells it out, or the question states it unbound by
        # anything the lookup reads (in words, say).
        value = key_value(key)
        return (
            (value is not None and self._chunks.words.has(value))
            or (question is not None and verdicts[1] == UNRELATED and key in question.keys)
            # "45%" of a chunk's "a share of 0.45", beside its "45 minutes".
            or (percent and self._ratio(key, "%"))
        )

    def _range_end(self, part: Key) -> bool:
        """Tell whether one end of a plain range is stated alone, or in words."""
        if self._has(("s", *part[1:]), plain=True):
            return True
        value = key_int(part)
        return value is not None and (
            self._chunks.words.has(value)
            or (self._question is not None and int_key(value) in self._question.keys)
        )


class _ClaimJudge:
    """
    Verdicts on an answer's digit claims, each distinct claim in its surroundings judged once.

    Every rule reads the answer only within a bounded window around the
    claim (:data:`CONTEXT_BEFORE`, :data:`CONTEXT_AFTER`, and the inline
    enumeration's look-back for a number before "." or ")"), so an answer
    that repeats a claim ("7 7 7 ...") is judged once per distinct context.
    """

    __slots__ = ("_answer", "_check", "_codes", "_verdicts", "_warmed")

    def __init__(self, check: BoundGroundingCheck, answer: str) -> None:
        self._check = check
        self._answer = answer
        self._codes = check._config.codes
        self._verdicts: dict[tuple[object, ...], Support] = {}
        self._warmed = check._chunks.complete

    def __call__(self, claims: list[Claim]) -> tuple[list[Failing], list[Supported]]:
        """
        Judge claims of the answer (of the codes reported).

        Returns:
            The claims that fail, as (code, start, end), and the ones a key
            or a spelling of the texts supports, as (code, start, end,
            support): the support's place is their evidence.
        """
        check, answer, codes, verdicts = self._check, self._answer, self._codes, self._verdicts
        if not self._warmed:
            self._warmed = True
            check._chunks.warm(claim.needs[0] for claim in claims[:MAX_WARMED_CLAIMS])
        failing: list[Failing] = []
        supported: list[Supported] = []
        for claim in claims:
            code, start, end = claim[:3]
            if code not in codes:
                continue
            context = (
                code,
                claim[3:],
                answer[max(0, start - CONTEXT_BEFORE) : start],
                answer[start : end + CONTEXT_AFTER],
                # Only a number before "." or ")" may continue an inline
                # enumeration, whose previous marker is looked for far back.
                answer[max(0, start - INLINE_MARKER_WINDOW) : start]
                if answer[end : end + 1] in (".", ")")
                else "",
            )
            verdict = verdicts.get(context)
            if verdict is None:
                verdict = check._claim_holds(answer, claim)
                verdicts[context] = verdict
            if not verdict:
                failing.append((code, start, end))
            elif verdict is not True:
                supported.append((code, start, end, verdict))
        return failing, supported


class _Regions:
    """Disjoint, sorted text regions, for "is this span inside one?" lookups."""

    __slots__ = ("_ends", "_starts")

    def __init__(self, spans: list[tuple[int, int]]) -> None:
        merged: list[list[int]] = []
        for start, end in sorted(spans):
            if merged and start <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        self._starts = [start for start, _ in merged]
        self._ends = [end for _, end in merged]

    def covers(self, start: int, end: int) -> bool:
        """Tell whether ``start:end`` lies within one region."""
        index = bisect_right(self._starts, start) - 1
        return index >= 0 and end <= self._ends[index]

    def overlaps(self, start: int, end: int) -> bool:
        """Tell whether ``start:end`` shares a character with a region."""
        index = bisect_right(self._starts, end - 1) - 1
        return index >= 0 and start < self._ends[index]


#: The kind of an :class:`relapse.Evidence`, by the code of the claim it supports.
_KINDS = {FG001: "number", FG002: "date", FG003: "quotation"}


def _quotation_place(
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


def _evidence(
    placed: list[tuple[str, int, int, tuple[int, int, int]]],
    covered: list[tuple[int, int]],
    cut: int,
    copied: bool,
) -> tuple[Evidence, ...]:
    """
    Build the evidence of the supported claims, in answer order.

    A claim that shares a character with a failing span (an echo, a failing
    quotation, a failing token around its digits) or starts after where the
    check stopped reading has none, and neither has any claim of an answer
    that copies the chunks (its finding spans the whole answer).
    """
    if copied or not placed:
        return ()
    regions = _Regions(covered) if covered else None
    placed.sort(key=lambda item: (item[1], item[2]))
    return tuple(
        Evidence(kind, (start, end), where[0], (where[1], where[2]))
        for kind, start, end, where in placed[:MAX_EVIDENCE]
        if start < cut and (regions is None or not regions.overlaps(start, end))
    )


def _is_date(key: Key) -> bool:
    """Tell whether ``key`` is a date pattern."""
    return key[0] == "d"


def _bare_share(answer: str, claim: Claim, key: Key) -> bool:
    """
    Tell whether a digit claim is a decimal between 0 and 1 with no unit: a share (``0.6``).

    ``0.6`` written alone states the share ``60%`` does; ``0.6 mm`` measures
    something else, and ``0`` and ``1`` are no shares.
    """
    if key[0] != "n" or not isinstance(key[2], int) or key[2] >= 0:
        return False
    value = key_value(key)
    return (
        value is not None
        and 0 < value < 1
        and binding_of(answer, claim.start, claim.end, plurals=False) is None
        # Said of a share ("the share was 0.6"), and nothing after it that it
        # measures ("a p-value of 0.6", "version 0.6", "0.6 percentage points").
        and _SHARE_BEFORE.search(answer, max(0, claim.start - SHARE_WINDOW), claim.start)
        is not None
        and _NOTHING_MEASURED_AFTER.match(answer, claim.end) is not None
    )


#: The times of day words name, by key, and the words: noon (or midday) and midnight.
_NAMED_TIMES: dict[Key, re.Pattern[str]] = {
    time_key(NOON_MIDNIGHT["noon"]): re.compile(r"(?<![^\W\d_])(?i:noon|mid-?day)(?![^\W\d_])"),
    time_key(NOON_MIDNIGHT["midnight"]): re.compile(r"(?<![^\W\d_])(?i:midnight)(?![^\W\d_])"),
}

# An era before Christ after a century ("the fifth century BC").
_ERA_BEFORE_CHRIST = re.compile(r"[\ \u00a0]*(?:BCE?|B\.C\.(?:E\.)?|before[\ \u00a0]Christ)")

#: Characters before a bare decimal searched for the word of a share.
SHARE_WINDOW = 40
_SHARE_BEFORE = re.compile(r"(?i)(?<![^\W\d_])(?:share|proportion|fraction)(?![^\W\d_])")
_NOTHING_MEASURED_AFTER = re.compile(
    r"[\ \u00a0]*(?:[.,;:!?)\]]|$|(?:of|and|or|in|for|among)(?![^\W\d_]))"
)


#: The words of a time of day alone, each with its time: noon and midday are
#: 12:00, midnight 00:00 (``12 noon`` is read with its digits).
_TIME_WORDS = {"noon": "noon", "midday": "noon", "mid-day": "noon", "midnight": "midnight"}
_TIME_WORD = re.compile(
    r"(?<![^\W\d_-])(?:(?:twelve|Twelve|TWELVE)[\ \u00a0])?"
    r"(?P<word>noon|Noon|NOON|mid-?day|Mid-?day|MID-?DAY|midnight|Midnight|MIDNIGHT)(?![^\W\d_])"
)
# Pieces every spelling _TIME_WORD matches holds in lower case, which
# str.find finds in C: most answers hold none, and the pattern is not tried.
_TIME_WORD_PIECES = ("oon", "idday", "id-day", "idnight")


def _time_word_claims(answer: str, lowered: str) -> list[Claim]:
    """
    Return a claim for each time of day an answer names in a word: ``at noon``, ``by midnight``.

    Each needs the time (FG001): a chunk's ``12 pm``, ``12:00``, ``noon`` or
    ``midday`` grounds ``noon``, its ``12 am`` or ``midnight`` does not.
    ``twelve noon`` is one claim, whose ``twelve`` claims no number of its own.
    ``lowered`` is ``answer`` in lower case, searched first.
    """
    if not any(piece in lowered for piece in _TIME_WORD_PIECES):
        return []
    claims = []
    for match in _TIME_WORD.finditer(answer):
        word = match.group("word").lower()
        key = time_key(NOON_MIDNIGHT[_TIME_WORDS[word]])
        claims.append(
            new_claim(
                Claim,
                (FG001, match.start(), match.end(), ((key,),), (key,), None, 0, False, (), ""),
            )
        )
    return claims


#: The decades in words, by their tens: ``eighties`` is 8 (the 80s).
DECADE_WORDS = {
    "twenties": 2,
    "thirties": 3,
    "forties": 4,
    "fifties": 5,
    "sixties": 6,
    "seventies": 7,
    "eighties": 8,
    "nineties": 9,
}
_CENTURY_WORDS = {"eighteen": 18, "nineteen": 19, "twenty": 20}
#: The decades' words searched in the texts, by their tens (``eighties``: 8), in any case.
_DECADE_SEARCHES = {
    tens: re.compile(rf"(?<![^\W\d_])(?i:{word})(?![^\W\d_])")
    for word, tens in DECADE_WORDS.items()
}

_DECADE_WORD = re.compile(
    r"(?<![^\W\d_-])(?:(?P<century>(?:eighteen|nineteen|twenty|Eighteen|Nineteen|Twenty"
    r"|EIGHTEEN|NINETEEN|TWENTY))[\ \u00a0-])?"
    rf"(?P<word>(?i:{'|'.join(DECADE_WORDS)}))(?![^\W\d_])"
)


def _decade_word_claims(answer: str, lowered: str) -> list[Claim]:
    """
    Return a claim for each decade an answer names in words: ``the eighties``, ``nineteen-sixties``.

    ``the eighties`` is claimed as ``the 80s`` is (FG001: a decade, or ages,
    ``in his eighties``); with its century (``the nineteen eighties``) it is
    ``the 1980s`` (FG002), whose ``nineteen`` claims no number of its own.
    ``lowered`` is ``answer`` in lower case, searched first.
    """
    if "ties" not in lowered:
        return []
    claims = []
    for match in _DECADE_WORD.finditer(answer):
        tens = DECADE_WORDS[match.group("word").lower()]
        century = match.group("century")
        written = f"{_CENTURY_WORDS[century.lower()]}{tens}0" if century else f"{tens}0"
        claim = decade_claim(match.start(), match.end(), written)
        if claim is not None:
            claims.append(claim)
    return claims


def _word_claims(answer: str) -> Iterator[Claim]:
    """
    Yield a claim for each number or time of day written in words that an answer claims, in order.

    ``seventy``, ``a dozen``, ``two thirds``, ``half a million`` (FG001);
    ``nineteen forty-five`` (FG002, a year); ``noon``, ``midnight`` (FG001,
    :func:`_time_word_claims`). Ordinals up to ten and ``half`` or ``a
    quarter`` alone claim nothing (see
    :class:`relapse.grounding._read.words.WordNumber`).
    """
    # The words are looked for in lower case, one search for each piece.
    lowered = answer.lower()
    times = sorted(
        [*_time_word_claims(answer, lowered), *_decade_word_claims(answer, lowered)],
        key=lambda claim: claim.start,
    )
    if not times:
        yield from _number_word_claims(answer)
        return
    spans = _Regions([(claim.start, claim.end) for claim in times])
    numbers = (
        claim for claim in _number_word_claims(answer) if not spans.overlaps(claim.start, claim.end)
    )
    yield from heapq.merge(numbers, times, key=lambda claim: claim.start)


def _number_word_claims(answer: str) -> Iterator[Claim]:
    """Yield the claims of :func:`_word_claims` of the numbers in words, in order."""
    previous_end = -1  # where the last number in words ends
    for word in word_numbers(answer):
        before, previous_end = previous_end, word.end
        if not word.claim:
            if word.kind == "ordinal":
                # "fourth": judged against the chunks' ordinals in its slot only.
                yield new_claim(
                    Claim,
                    (FG001, word.start, word.end, (), (), None, 0, True, (), SMALL_ORDINAL),
                )
            continue
        key = value_key(word.value)
        if key is None:
            continue
        code = FG002 if word.kind == "year" else FG001
        if code == FG001 and word.kind == "cardinal" and isinstance(word.value, int):
            # "forty-four BC": a year of an era, as "44 BC" is.
            era = _ERA_AFTER_WORDS.match(answer, word.end)
            # Only an era before Christ changes the year: "nineteen AD" is 19.
            if era is not None and "B" in era.group().upper():
                yield era_claim(word.start, era.end(), str(word.value), era.group().strip())
                continue
        precision = word.precision
        if key[0] == "n" and isinstance(key[2], int) and key[2] < 0:
            precision = key[2]  # "two and a half": its last decimal
        # A fraction below one is a ratio (unit "/"): a chunk's percent may state it.
        ratio = "/" if isinstance(word.value, Fraction) and word.value < 1 else ""
        if not ratio and _PERCENT_AFTER_WORDS.match(answer, word.end):
            ratio = "%"  # "fifty percent": a chunk's "half" or 0.5 may state it, as for "50%"
        claim = new_claim(
            Claim,
            (code, word.start, word.end, ((key,),), (key,), key, precision, True, (), ratio),
        )
        sign = sign_word(answer, word.start) if code == FG001 else None
        if sign is not None and before >= 0 and not answer[before:sign].strip():
            sign = None  # arithmetic in words: "twelve minus five"
        if sign is not None and not _SIGNED_QUANTITY_AFTER.match(answer, word.end):
            # Only a temperature or a change in percent is signed in words:
            # "turned negative three months ago", "an A minus three times".
            sign = None
        # "minus twelve degrees" is -12, as "minus 12 degrees" is.
        yield claim if sign is None else signed_claim(claim, sign)


# What a number in words after "minus" or "negative" is a signed quantity of:
# degrees (of temperature) and percent.
_SIGNED_QUANTITY_AFTER = re.compile(
    rf"[\ \u00a0]?(?:[{PERCENT_SIGNS}]|\u00b0"
    rf"|(?:(?i:degrees?|percentage[\ \u00a0]points?)|{PERCENT_WORDS})(?![^\W\d_]))"
)

# A percent after a number in words ("fifty percent", "twenty per cent", "ten %").
_PERCENT_AFTER_WORDS = re.compile(
    rf"[\ \u00a0]?[{PERCENT_SIGNS}]|[\ \u00a0]{PERCENT_WORDS}(?![^\W\d_])"
)

# An era after a number in words ("forty-four BC"), as the scanner reads one after digits.
_ERA_AFTER_WORDS = re.compile(rf"[\ \u00a0](?:{ERA_WORDS})")


#: Failing spans a check reports at most. An answer with more (a generated
#: or hostile one: thousands of unsupported claims) is read only up to the
#: next one, and every finding's message says where it stopped: its verdict
#: cannot change, and reading on would cost time linear in the answer for
#: spans no one reads.
MAX_FAILING_SPANS = 1_000

#: Occurrences of a number in the chunks, and of a modifier, that the
#: subject rule (:meth:`BoundGroundingCheck._moved`) reads at most: a number
#: stated more often than that is taken as supported.
MAX_SUBJECT_OCCURRENCES = 8

_NO_WORDS: frozenset[str] = frozenset()

#: What may stand before a sentence's first word: space, opening quotes and
#: brackets (a capitalised modifier there is an ordinary word, not a name).
_OPENING_MARKS = " \t\r\n\"'\u201c\u2018([\u00ab"

#: Supported claims an answer's evidence lists at most: its first ones, in
#: answer order. A generated or hostile answer repeating a supported claim
#: (a megabyte of ``$5 5%``) would otherwise cost a citation object per
#: repetition, which no reader of citations wants.
MAX_EVIDENCE = 1_000

#: Characters of a supported plain number tested for a list marker or a
#: reference before it is cited (:func:`relapse.grounding._read.context.is_list_marker` reads at
#: most three digits).
MAX_MARKER_CHARS = 3

#: Claims of an answer whose most selective keys are looked up first (see
#: :meth:`TextIndex.warm`); beyond them the search budget rules.
MAX_WARMED_CLAIMS = 256

#: How far a written conversion may be from the computed one: one unit of its
#: last decimal place (one unit for a whole number), or this share of the
#: value, whichever is more. "58 °F (15 °C)" (14.4 °C) and "6 feet (1.8 m)"
#: (1.83 m) pass; "104 °C (203 °F)" (219.2 °F) does not.
CONVERSION_TOLERANCE = 0.03
# The number (with its sign) that a parenthesised conversion follows.
_CONVERTED = re.compile(r"[-\u2212]?\d[\d,]*(?:\.\d+)?")


#: The units with a computed conversion, by dimension (``"length"``: km, m, mi...).
_CONVERTIBLE: dict[str, tuple[str, ...]] = {}
for _unit in UNITS.values():
    if _unit.factor:
        _CONVERTIBLE[_unit.dimension] = (*_CONVERTIBLE.get(_unit.dimension, ()), _unit.name)

#: The money units a hundredth or a hundred times another's, by the answer's
#: unit: the power of ten to the other's amount, and the other units. A cent
#: (or paisa) is a hundredth of a dollar, a euro or a rupee; a penny of a pound.
_MINOR_UNITS: dict[str, tuple[int, frozenset[str]]] = {
    "¢": (-2, frozenset({"$", "€", "₹"})),
    "p": (-2, frozenset({"£"})),
    "$": (2, frozenset({"¢"})),
    "€": (2, frozenset({"¢"})),
    "₹": (2, frozenset({"¢"})),
    "£": (2, frozenset({"p"})),
}


# Every spelling of a minor unit after a number holds one of these letters
# within this many characters ("50 euro cents", "99 PAISE", "85c", "75¢").
_MINOR_UNIT_LETTERS = frozenset("cpCP\u00a2")
# A unit's name right after a part of an amount in two units ("2 dollars",
# "50 cents", "20p"): the test before the amount is read.
_MONEY_PART_INITIALS = frozenset("dDpPeEcC\u00a2")
_MONEY_PART_AFTER = re.compile(
    r"[\ \u00a0]?(?:(?i:dollars?|pounds?|euros?|cents?|pence)|[pc\u00a2])(?![^\W_])"
)
_MINOR_UNIT_PEEK = 12


def _correct_conversion(answer: str, claim: Claim) -> bool:
    """
    Tell whether a parenthesised number correctly converts the quantity before it.

    ``40 °C (104 °F)``: the number in parentheses, with a unit, right after a
    number with a unit of the same dimension (temperature, length, area,
    volume, mass, time, speed) is supported when it equals the computed
    conversion within :data:`CONVERSION_TOLERANCE`. Currencies are not
    converted: an amount in another currency must be in the chunks.
    """
    quantity_end = converted_from(answer, claim.start, claim.end)
    key = claim.key
    if quantity_end is None or key is None:
        return False
    target = unit_of(answer, claim.start, claim.end)
    value = key_decimal(("n", *key[1:]))
    if target is None or value is None:
        return False
    # The converted quantity: the number ending at quantity_end, and its unit.
    low = max(0, quantity_end - CONVERSION_WINDOW)
    numbers = list(_CONVERTED.finditer(answer, low, quantity_end))
    if not numbers or numbers[-1].end() != quantity_end:
        return False
    written = numbers[-1].group()
    source = unit_of(answer, numbers[-1].start(), quantity_end)
    if source is None or source == target:
        return False
    try:
        original = float(written.replace(",", "").replace("\u2212", "-"))
    except ValueError:
        return False
    expected = convert(original, source, target)
    if expected is None:
        return False
    stated = float(value) * (-1 if key[0] == "-n" else 1)
    exponent = key[2]
    places = -exponent if isinstance(exponent, int) and exponent < 0 else 0
    tolerance = max(10.0**-places, CONVERSION_TOLERANCE * abs(expected))
    return abs(stated - expected) <= tolerance


#: Denominators of the fractions a percent may restate (``one third``, ``9/20``).
_DENOMINATORS = (*range(2, 13), 16, 20)

#: The proper fractions of those denominators, in lowest terms.
_FRACTIONS = tuple(
    sorted(
        {
            Fraction(numerator, denominator)
            for denominator in _DENOMINATORS
            for numerator in range(1, denominator)
        }
    )
)

#: Their percents, as floats in the same order, for a bisection.
_FRACTION_PERCENTS = [float(fraction * 100) for fraction in _FRACTIONS]

#: Decimal places a percent of a fraction without an exact decimal is looked for with.
_PERCENT_PLACES = (0, 1, 2)


# The parts of a whole that prose spells out after a number ("two and a half").
_SPELLED_PARTS = frozenset({Fraction(1, 2), Fraction(1, 4), Fraction(3, 4)})


def _spelled_out_decimal(value: Fraction) -> bool:
    """
    Tell whether a decimal written in digits is looked up in words too.

    A ratio below one (``0.75``: ``three quarters``), a whole and a half or
    a quarter (``2.5``: ``two and a half``), or a decimal below a thousand
    of up to three places, which prose and transcripts spell with ``point``
    (``66.7``: ``sixty-six point seven``; the words reader reads no
    ``four thousand ... point three``).
    """
    return not _spelled_with_point_only(value) or (
        value < 1000 and 10**DECIMAL_SPELLED_PLACES % value.denominator == 0
    )


def _spelled_with_point_only(value: Fraction) -> bool:
    """Tell whether only ``point`` spells ``value``: from one up, no half or quarter past one."""
    return value >= 1 and value - (value.numerator // value.denominator) not in _SPELLED_PARTS


def _ends(value: Fraction) -> bool:
    """Tell whether ``value`` has an exact decimal value (its denominator divides 10**k)."""
    denominator = value.denominator
    for prime in (2, 5):
        while denominator % prime == 0:
            denominator //= prime
    return denominator == 1


def _rounds_to_percent(fraction: Fraction, percent: Fraction, exponent: int) -> bool:
    """
    Tell whether ``percent`` is ``fraction`` as a percent: exactly, or rounded when it cannot be.

    Args:
        fraction: A ratio.
        percent: The percent written (``33`` for ``33%``).
        exponent: The power of ten of its last written digit (0 for ``33%``,
            -1 for ``33.3%``).
    """
    exact = fraction * 100
    if _ends(exact):
        return exact == percent
    return abs(exact - percent) * 2 <= Fraction(10) ** exponent


# A percent's word after a number in words: " percent", " per cent", " pct".
_PERCENT_WORD_AFTER = re.compile(rf"[\ \u00a0](?:{PERCENT_WORDS})(?![^\W\d_])")
# The word right before it.
_LAST_WORD = re.compile(r"[^\W\d_]+\Z")
#: Characters a run of number words before a percent word is read back at most.
PERCENT_RUN_WINDOW = 120


def percents_in_words(text: str) -> Iterator[Value]:
    """
    Yield the percents ``text`` writes in words: ``sixty percent`` gives 60.

    Each percent word after a number word ends a run of number words, read
    whole as the answer's words are (``sixty-six point seven percent``).

    Args:
        text: A chunk text, or the chunks joined.

    Yields:
        The value of each percent written so.
    """
    for match in _PERCENT_WORD_AFTER.finditer(text):
        end = match.start()
        word = _LAST_WORD.search(text, max(0, end - 40), end)
        if word is None:
            continue
        start = run_start(text, word.start(), PERCENT_RUN_WINDOW)
        if start is None:
            continue
        numbers, _ = read_run(text, start, end)
        for number in numbers:
            if number.end == end:
                yield number.value


def _percents_of(fraction: Fraction) -> list[Key]:
    """Return the keys of the percents that state ``fraction``: its exact one, or its roundings."""
    exact = fraction * 100
    if exact < 0:
        return []
    if _ends(exact):
        key = value_key(exact)
        return [key] if key is not None else []
    percents: list[Key] = []
    for places in _PERCENT_PLACES:
        scale = 10**places
        rounded = Fraction(int(exact * scale + Fraction(1, 2)), scale)  # half up
        key = value_key(rounded)
        if key is not None:
            percents.append(key)
    return percents


def _hedged_support(index: TextIndex, key: Key, precision: int, direction: str) -> bool:
    """
    Tell whether the texts support a hedged number.

    ``about 1.2 million``: some number rounds to it (within half a unit of
    its last written digit). ``at least 200``: a number at or above it;
    ``up to 30``: at or below it (see
    :meth:`relapse.grounding._index.number_line.NumberLine.bounds`).
    """
    if direction == "about":
        return index.numbers.rounds_to(key, precision)
    return index.numbers.bounds(key, direction)


# A percent's sign or word at the end of its claim ("62%", "62 per cent"):
# the digits before it are what the binding reads.
_PERCENT_END = re.compile(rf"(?:[\ \u00a0\u202f]?[{PERCENT_SIGNS}]|[\ \u00a0]?{PERCENT_WORDS})\Z")
# "minus" or "negative" and the spaces after it, before a signed number's digits.
_SIGN_WORD = re.compile(r"[^\W\d_]+[\ \u00a0]+")


def _unsigned_start(answer: str, claim: Claim) -> int:
    """Return where a signed claim's number starts after its sign (``-``, ``−``, ``minus``)."""
    start = claim.start
    if answer[start] in MINUS_SIGNS:
        return start + 1
    word = _SIGN_WORD.match(answer, start, claim.end)
    return start if word is None else word.end()


def _not_a_claim(answer: str, claim: Claim) -> bool:
    """Tell whether a plain number is a list marker or a reference to the context."""
    return is_list_marker(answer, claim.start, claim.end) or is_reference(
        answer, claim.start, claim.end
    )


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


def _preview(spans: Sequence[str]) -> str:
    """The spans a message quotes: the first few, each cut, and how many more."""
    preview = ", ".join(
        repr(span if len(span) <= PREVIEW_CHARS else span[: PREVIEW_CHARS - 1] + "…")
        for span in spans[:PREVIEW_SPANS]
    )
    if len(spans) > PREVIEW_SPANS:
        preview += f" and {len(spans) - PREVIEW_SPANS} more"
    return preview


def _finding(
    code: str, answer: str, offsets: list[tuple[int, int]], note: str = "", copy: bool = False
) -> GroundingFinding:
    """Build one finding from its failing spans; ``note`` ends its message; ``copy``: FG004's."""
    spans = tuple(answer[start:end] for start, end in offsets)
    template = COPY_MESSAGE if copy else MESSAGES[code]
    message = template.format(count=len(spans), spans=_preview(spans)) + note
    return GroundingFinding(code=code, message=message, spans=spans, offsets=tuple(offsets))


#: The default grounding check of :func:`relapse.run` and :func:`relapse.grounded`:
#: ``GroundingCheck()``. Call it as ``default_grounding_check(query, chunks,
#: answer)``; a loop indexes the chunks once with
#: ``default_grounding_check.prepare(query, chunks)`` and calls ``.check(answer)``
#: per attempt. ``docs/findings.md`` explains each finding code (FG001 numbers,
#: FG002 dates, FG003 quotations, FG004 an echo of the retry instructions).
default_grounding_check = GroundingCheck()
