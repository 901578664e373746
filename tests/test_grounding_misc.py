"""FG004 echoes, the public API, errors, RAGTruth's false-alarm kinds and hostile input."""

from __future__ import annotations

import time
from types import MappingProxyType

import pytest

import relapse
from relapse import Evidence, GroundingFinding, GroundingResult
from relapse.grounding import (
    ALL_CODES,
    ECHO_PHRASES,
    BoundGroundingCheck,
    GroundingCheck,
    _echo,
    default_grounding_check,
)
from relapse.testing import attempt_after

#: Wall-time bound for hostile inputs, in seconds: far above the linear cost
#: (tens of milliseconds), far below a quadratic one (minutes).
HOSTILE_SECONDS = 10.0


def codes_and_spans(result: GroundingResult) -> list[tuple[str, tuple[str, ...]]]:
    """Return ``(code, spans)`` of every finding."""
    return [(finding.code, finding.spans) for finding in result.findings]


class TestEcho:
    def test_observed_echo_of_findings(self) -> None:
        """The small model's echo of its findings is FG004, its numbers are not FG001."""
        answer = "- FG001: 2 number(s) not in retrieved chunks: ['10', '12']"
        result = default_grounding_check("How warm is it?", ["It is 78 degrees."], answer)
        assert [("FG004", (answer,))] == codes_and_spans(result)

    @pytest.mark.parametrize("phrase", ECHO_PHRASES)
    def test_each_echo_phrase(self, phrase: str) -> None:
        """Each retry phrase in an answer, in any case, is FG004."""
        answer = f"Sure.\n{phrase.upper()} is what I was told.\nIt is 78 degrees."
        result = default_grounding_check("", ["It is 78 degrees."], answer)
        assert [("FG004", (f"{phrase.upper()} is what I was told.",))] == codes_and_spans(result)

    @pytest.mark.parametrize(
        "wording", [relapse.compact_retry, relapse.instruction_retry, relapse.spans_only_retry]
    )
    def test_every_retry_wording_holds_an_echo_phrase(self, wording: object) -> None:
        """An answer that copies a retry query, whatever the wording, is FG004."""
        assert _echo.ECHO_PHRASES is ECHO_PHRASES
        finding = GroundingFinding("FG001", "1 number not in the chunks: '78'", ("78",))
        retry = wording(attempt_after("how warm is it", "It is 78 degrees.", [finding]))
        result = relapse.default_grounding_check("how warm is it", ["It is mild."], retry)
        assert "FG004" in [f.code for f in result.findings]

    def test_phrase_in_a_chunk_is_no_echo(self) -> None:
        """A phrase the chunks hold is the context, not an echo."""
        chunk = "Tip: never repeat your previous answer verbatim."
        answer = "Never repeat your previous answer verbatim."
        assert default_grounding_check("", [chunk], answer).ok

    def test_code_in_a_chunk_is_no_echo(self) -> None:
        """A finding code the chunks hold is the context (a form named FG012)."""
        assert default_grounding_check("", ["File form FG012 by May."], "File FG012.").ok

    def test_code_lookalikes_are_no_echo(self) -> None:
        """``FG0123`` and ``xFG001`` are not finding codes."""
        assert default_grounding_check("", ["Parts FG0123, xFG001."], "Parts FG0123, xFG001.").ok

    def test_phrase_split_across_lines(self) -> None:
        """A phrase broken by a line break is still found."""
        answer = "Your previous\nanswer was rejected."
        result = default_grounding_check("", ["Nothing."], answer)
        assert ["FG004"] == [finding.code for finding in result.findings]

    def test_echo_phrases_are_configurable(self) -> None:
        """``echo_phrases`` replaces the phrases."""
        check = GroundingCheck(echo_phrases=("use only the passages",))
        assert check("", ["x"], "Your previous answer was fine.").ok
        assert not check("", ["x"], "I will USE ONLY THE PASSAGES.").ok


class TestApi:
    def test_default_check_is_exported(self) -> None:
        """``relapse.default_grounding_check`` is this check."""
        assert relapse.default_grounding_check is default_grounding_check

    def test_default_check_is_a_configured_check(self) -> None:
        """The default check is a ``GroundingCheck`` with defaults: it has ``prepare``."""
        assert GroundingCheck() == default_grounding_check
        prepared = default_grounding_check.prepare("", ["It cost $5."])
        assert prepared.check("It cost $5.").ok

    def test_name(self) -> None:
        """The default check is named ``relapse.default``."""
        assert "relapse.default" == GroundingCheck().name

    def test_call_equals_prepare_then_check(self) -> None:
        """``check(q, c, a)`` == ``check.prepare(q, c).check(a)``."""
        check = GroundingCheck()
        chunks = ["Revenue was $3.8 billion in 2021."]
        answer = "Revenue was $4 billion in 2020."
        assert check.prepare("", chunks).check(answer) == check("", chunks, answer)

    def test_prepared_check_is_reusable(self) -> None:
        """One prepared index checks many answers."""
        prepared = GroundingCheck().prepare("", ["Revenue was $3.8 billion in 2021."])
        assert isinstance(prepared, BoundGroundingCheck)
        assert not prepared.check("Revenue was $4 billion.").ok
        assert prepared.check("Revenue was $3.8 billion.").ok
        assert not prepared.check("It was 2020.").ok

    def test_mapping_chunks(self) -> None:
        """Chunks may be mappings with a ``"text"`` key."""
        chunks = [{"text": "It cost $5.", "id": 1}, MappingProxyType({"text": "In 1999."})]
        assert default_grounding_check("", chunks, "It cost $5 in 1999.").ok

    def test_codes_select_what_is_reported(self) -> None:
        """``codes`` limits the check to some finding codes."""
        check = GroundingCheck(codes=frozenset({"FG002"}))
        result = check("", ["Nothing."], 'It cost $5 in 1999, "said someone there".')
        assert [("FG002", ("1999",))] == codes_and_spans(result)
        assert frozenset({"FG001", "FG002", "FG003", "FG004", "FG005"}) == ALL_CODES

    def test_result_shape(self) -> None:
        """Findings come in code order; spans and offsets are parallel and exact."""
        answer = 'In 1999 it cost $7 and "a lot of money", then $9.'
        result = default_grounding_check("", ["It cost $5."], answer)
        assert not result.ok
        assert ["FG001", "FG002", "FG003"] == [finding.code for finding in result.findings]
        for finding in result.findings:
            assert isinstance(finding, GroundingFinding)
            assert len(finding.spans) == len(finding.offsets)
            assert list(finding.spans) == [answer[start:end] for start, end in finding.offsets]
        assert ("$7", "$9") == result.findings[0].spans
        assert "2 number(s) not in the retrieved chunks: '$7', '$9'" == result.findings[0].message

    def test_grounded_answer(self) -> None:
        """A grounded answer has ``ok`` True and no findings."""
        cost = (len("It cost "), len("It cost $5"))  # the amount, its sign included
        evidence = (Evidence("number", cost, 0, cost),)
        assert GroundingResult(ok=True, findings=(), evidence=evidence) == default_grounding_check(
            "", ["It cost $5."], "It cost $5."
        )

    def test_long_message_is_shortened(self) -> None:
        """The message quotes five spans at most; ``spans`` holds all of them."""
        answer = " ".join(f"{n} units." for n in range(10, 20))
        (finding,) = default_grounding_check("", ["None."], answer).findings
        assert 10 == len(finding.spans)
        assert finding.message.endswith("and 5 more")

    def test_same_span_twice_is_listed_twice(self) -> None:
        """Each occurrence is listed, at its own offsets."""
        (finding,) = default_grounding_check("", ["None."], "It was 77, yes 77.").findings
        assert ("77", "77") == finding.spans
        assert ((7, 9), (15, 17)) == finding.offsets


class TestErrors:
    def test_bad_chunk_names_index_and_type(self) -> None:
        """A chunk that is neither str nor mapping raises TypeError naming index and type."""
        with pytest.raises(TypeError, match=r"chunks\[1\] is int"):
            default_grounding_check("", ["ok", 42], "answer")

    def test_mapping_without_text(self) -> None:
        """A mapping without a string ``"text"`` raises TypeError naming its index."""
        with pytest.raises(TypeError, match=r"chunks\[0\]"):
            default_grounding_check("", [{"body": "x"}], "answer")

    def test_single_string_is_not_a_list_of_chunks(self) -> None:
        """A bare ``str`` as chunks raises TypeError."""
        with pytest.raises(TypeError, match="single str"):
            default_grounding_check("", "one chunk", "answer")  # type: ignore[arg-type]

    def test_answer_must_be_a_string(self) -> None:
        """A non-str answer raises TypeError."""
        with pytest.raises(TypeError, match="answer must be a str, got NoneType"):
            default_grounding_check("", ["x"], None)  # type: ignore[arg-type]

    def test_query_must_be_a_string(self) -> None:
        """A non-str query raises TypeError."""
        with pytest.raises(TypeError, match="query must be a str, got bytes"):
            default_grounding_check(b"q", ["x"], "a")  # type: ignore[arg-type]

    def test_unknown_code(self) -> None:
        """An unknown finding code is a ValueError."""
        with pytest.raises(ValueError, match="FG999"):
            GroundingCheck(codes=frozenset({"FG999"}))

    def test_bad_trivial_numbers(self) -> None:
        """Trivial numbers must be finite numbers."""
        with pytest.raises(ValueError, match="not a number"):
            GroundingCheck(trivial_numbers=frozenset({"many"}))
        with pytest.raises(ValueError, match="not finite"):
            GroundingCheck(trivial_numbers=frozenset({float("inf")}))
        with pytest.raises(TypeError, match="NoneType"):
            GroundingCheck(trivial_numbers=frozenset({None}))  # type: ignore[arg-type]


class TestRagTruthKinds:
    @pytest.mark.parametrize(
        "answer",
        [
            "Steps:\n3. Print the schedule.\n4. Post it.\n5) Send it.",
            "**7.** Print the schedule.",
            "- 8. Print the schedule.",
        ],
    )
    def test_list_markers_are_not_claims(self, answer: str) -> None:
        """Line-leading list markers order the answer; they claim nothing."""
        assert default_grounding_check("", ["Print the schedule."], answer).ok

    def test_line_leading_quantity_is_a_claim(self) -> None:
        """A line that starts with a quantity is not a list marker."""
        result = default_grounding_check("", ["Add flour."], "Add:\n300 grams of flour.")
        assert [("FG001", ("300",))] == codes_and_spans(result)

    @pytest.mark.parametrize(
        "answer",
        [
            "Print it (Passage 3).",
            "Passage 4 and passage 5 say so.",
            "Both passages 3, 4, and 5 agree.",
            "It is printed [4].",
            "It is printed [3, 5].",
            "As Document 7 says, print it.",
            "Print it (Passage 1, step 6).",
            "All three provided passages agree.",
            "Question 3: how is it printed?",
            "Repeat step 4 and 5.",
            "[chunk 3] says print it.",
        ],
    )
    def test_references_to_the_context_are_not_claims(self, answer: str) -> None:
        """``(Passage 3)``, ``passage 2 and passage 3``, ``[2]``... name the prompt's parts."""
        assert default_grounding_check("", ["Print the schedule."], answer).ok

    def test_question_quotation_and_year(self) -> None:
        """Quoted question text and the question's year are supported."""
        query = "how to replace the battery of a 2006 chevy impala"
        answer = 'To "replace the battery of a 2006 Chevy Impala", open the hood.'
        assert default_grounding_check(query, ["Open the hood."], answer).ok


class TestHostileInput:
    @pytest.mark.parametrize(
        "answer",
        [
            "7" * 200_000,
            "1," * 100_000,
            "1." * 100_000,
            "1-" * 100_000,
            "111 " * 50_000,
            '"' + "word " * 40_000,
            '"a ' * 66_000,
            "\u2018" + "x" * 200_000,
            "seventy " * 25_000,
            "passage 1 and " * 15_000,
            "Sept. " * 33_000,
            "$" * 200_000,
            "-" * 200_000,
        ],
        ids=[
            "digit-run",
            "comma-list",
            "dot-chain",
            "hyphen-chain",
            "space-groups",
            "unclosed-quote",
            "many-openers",
            "unclosed-single",
            "number-words",
            "references",
            "months",
            "currency",
            "dashes",
        ],
    )
    def test_200_kb_answer_in_linear_time(self, answer: str) -> None:
        """A 200 KB hostile answer is checked without catastrophic backtracking."""
        started = time.perf_counter()
        result = default_grounding_check("q", ["Some 5 context."], answer)
        assert time.perf_counter() - started < HOSTILE_SECONDS
        assert isinstance(result, GroundingResult)

    def test_200_kb_hostile_chunk(self) -> None:
        """Hostile chunks are indexed in linear time too."""
        chunks = ["7" * 200_000, "1," * 100_000, '"' + "x " * 100_000, "seventy " * 25_000]
        started = time.perf_counter()
        assert default_grounding_check("", chunks, "It is seventy, or 1.").ok
        assert time.perf_counter() - started < HOSTILE_SECONDS

    def test_ten_thousand_chunks(self) -> None:
        """10,000 chunks are one index."""
        chunks = [f"Chunk {n} says {n * 7} units." for n in range(10_000)]
        started = time.perf_counter()
        result = default_grounding_check("", chunks, "It says 69993 units, not 69994.")
        assert time.perf_counter() - started < HOSTILE_SECONDS
        assert [("FG001", ("69994",))] == codes_and_spans(result)

    def test_surrogates_and_controls(self) -> None:
        """Lone surrogates, NULs and odd marks never raise."""
        weird = "\ud800\udfff\x00\u200b\u202e\ufffe 12\u0301 «\ud83d» ١٬٢٣٤"
        result = default_grounding_check(weird, [weird, {"text": weird}], weird + " 9999")
        assert ["FG001"] == [finding.code for finding in result.findings]


class TestNotAnAnswer:
    @pytest.mark.parametrize("answer", ["", "   ", "\n\t"])
    def test_empty_answer_is_fg004(self, answer: str) -> None:
        """An empty or blank answer answers nothing: FG004 spanning the whole answer."""
        result = relapse.default_grounding_check("q", ["The sky is blue."], answer)
        (finding,) = result.findings
        assert (False, "FG004", (answer,), ((0, len(answer)),)) == (
            result.ok,
            finding.code,
            finding.spans,
            finding.offsets,
        )

    @pytest.mark.parametrize(
        "echo",
        [
            '"It is 5 m." states things the context does not support: FG001',
            "Answer the question again using only the context.",
            "Problems found: none",
            "Answer using only the context.",
            "The answer is empty.",
            "- 2 number(s) not in the retrieved chunks: '10', '12'",
        ],
    )
    def test_retry_wording_echoes_are_fg004(self, echo: str) -> None:
        """Phrases of the retry wordings that the demo model echoed are FG004."""
        result = relapse.default_grounding_check("how deep is it", ["It is 5 m deep."], echo)
        assert ["FG004"] == [f.code for f in result.findings]

    def test_the_sanctioned_refusal_passes(self) -> None:
        """The refusal the retry query asks for is an answer, not an echo."""
        assert relapse.default_grounding_check("q", ["x"], "The context does not say.").ok


class TestInlineEnumerations:
    @pytest.mark.parametrize(
        "answer",
        [
            "Causes include 1. hormones 2. genes 3. diet 4. sun exposure.",
            "1) Use a towel. 2) Use a hair dryer. 3) Comb it.",
        ],
    )
    def test_counting_markers_are_not_claims(self, answer: str) -> None:
        """Markers that count up from 1 on one line order the answer; no FG001."""
        chunks = ["Hormones, genes, diet and sun exposure. Use a towel, a hair dryer, a comb."]
        assert relapse.default_grounding_check("why", chunks, answer).ok

    @pytest.mark.parametrize(
        ("answer", "span"),
        [("It has 4. Then it stops.", "4"), ("Steps 1. towel 2. dryer and 3 hours rest.", "3")],
    )
    def test_a_number_that_does_not_continue_the_count_is_a_claim(
        self, answer: str, span: str
    ) -> None:
        """Without the previous marker, or without the marker shape, the number is checked."""
        result = relapse.default_grounding_check("q", ["Use a towel and a dryer."], answer)
        assert [("FG001", (span,))] == [(f.code, f.spans) for f in result.findings]
