"""relapse.evaluation: strict reading of annotated data, and the scores, worked out by hand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from helpers import SIX, flag_42_and_maybe, record, write
from relapse.evaluation import (
    DatasetError,
    evaluate,
    format_report,
    is_numeric_span,
    load_annotated,
    load_questions,
    resolve_check,
    select_split,
)


@pytest.fixture
def six(tmp_path: Path) -> Path:
    """The six records above as a JSON Lines file."""
    return write(tmp_path, SIX)


class TestScores:
    def test_response_level(self, six: Path) -> None:
        """4 hallucinated, 2 clean; flagged r1 r3 r4: P 2/3, R 2/4, F1 4/7, false alarms 1/2."""
        report = evaluate(load_annotated(six), flag_42_and_maybe)
        overall = report.overall
        assert (6, 4, 2, 2, 1) == (
            overall.responses,
            overall.hallucinated,
            overall.clean,
            overall.flagged_hallucinated,
            overall.flagged_clean,
        )
        assert pytest.approx(2 / 3) == overall.precision
        assert 0.5 == overall.recall
        assert pytest.approx(4 / 7) == overall.f1
        assert 0.5 == overall.false_alarm_rate

    def test_spans_and_numbers(self, six: Path) -> None:
        """Located spans r1 (hit) and r3 (miss); r4's LJ001 has none; numeric r1 caught, r5 not."""
        report = evaluate(load_annotated(six), flag_42_and_maybe)
        assert (2, 1, 0.5, 1) == (
            report.spans,
            report.spans_overlapping,
            report.span_precision,
            report.unlocated_findings,
        )
        assert (2, 1, 0.5) == (report.numeric_spans, report.numeric_caught, report.numeric_recall)
        assert [(5, "r5", ("1999",))] == [(m.line, m.id, m.texts) for m in report.numeric_misses]
        assert [(3, "r3", ("FG001 '42'",))] == [
            (m.line, m.id, m.texts) for m in report.false_alarms
        ]
        assert 6 == report.checks

    def test_per_task_type(self, six: Path) -> None:
        """QA: r1 TP, r3 FP, r6 FN; Summary: r4 TP, r5 FN and no clean record."""
        by_type = evaluate(load_annotated(six), flag_42_and_maybe).by_task_type
        assert ["QA", "Summary"] == list(by_type)
        qa, summary = by_type["QA"], by_type["Summary"]
        assert (4, 2, 0.5, 0.5, 0.5, 0.5) == (
            qa.responses,
            qa.hallucinated,
            qa.precision,
            qa.recall,
            qa.f1,
            qa.false_alarm_rate,
        )
        assert (2, 2, 1.0, 0.5, None) == (
            summary.responses,
            summary.hallucinated,
            summary.precision,
            summary.recall,
            summary.false_alarm_rate,
        )
        assert pytest.approx(2 / 3) == summary.f1

    def test_per_code(self, six: Path) -> None:
        """FG001 fired on r1 (TP) and r3 (FP); LJ001 on r4 (TP) with no span."""
        report = evaluate(load_annotated(six), flag_42_and_maybe)
        assert ["FG001", "LJ001"] == list(report.by_code)
        fg, lj = report.by_code["FG001"], report.by_code["LJ001"]
        assert (0.5, 0.25, 2, 0.5) == (
            fg.precision,
            report.code_recall("FG001"),
            fg.spans,
            fg.span_precision,
        )
        assert (1.0, 0.25, 0, None) == (
            lj.precision,
            report.code_recall("LJ001"),
            lj.spans,
            lj.span_precision,
        )

    def test_json_report_carries_the_same_numbers(self, six: Path) -> None:
        """to_dict() is JSON-serialisable and holds the hand-computed rates."""
        data = json.loads(json.dumps(evaluate(load_annotated(six), flag_42_and_maybe).to_dict()))
        assert (0.5, 0.5, 0.5, 0.25) == (
            data["responses"]["recall"],
            data["span_precision"],
            data["numeric_recall"],
            data["by_code"]["LJ001"]["recall"],
        )
        assert None is data["by_task_type"]["Summary"]["false_alarm_rate"]

    def test_nothing_flagged_leaves_precision_undefined(self, tmp_path: Path) -> None:
        """No flag: precision and F1 are n/a, not 0; recall is 0/1."""
        path = write(tmp_path, [record("It was 7.", ["7"])])
        report = evaluate(load_annotated(path), flag_42_and_maybe)
        assert (None, 0.0, None) == (
            report.overall.precision,
            report.overall.recall,
            report.overall.f1,
        )
        assert "precision n/a, recall 0.000, F1 n/a" in format_report(report)

    def test_default_check_on_a_hand_made_record(self, tmp_path: Path) -> None:
        """'2.1 billion' against '2.1 million': FG001 on exactly the annotated span."""
        line = record(
            "It has 2.1 billion customers.",
            ["2.1 billion"],
            passages=["It has 2.1 million customers."],
        )
        report = evaluate(load_annotated(write(tmp_path, [line])), resolve_check("default"))
        assert (1, 1, 1, 1) == (
            report.overall.flagged_hallucinated,
            report.spans_overlapping,
            report.numeric_caught,
            report.by_code["FG001"].flagged_hallucinated,
        )

    def test_a_check_returning_the_wrong_type_names_the_line(self, six: Path) -> None:
        """The check must return a GroundingResult."""
        with pytest.raises(TypeError, match=r"^line 1: the check returned bool"):
            evaluate(load_annotated(six), lambda q, c, a: True)  # type: ignore[arg-type,return-value]


class TestNumericSpans:
    @pytest.mark.parametrize(
        ("response", "numeric"),
        [
            ("It costs $18.60 per hour.", True),
            ("3. Print the form", False),
            ("As passage 2 says, it is blue.", False),
            ("See passages 1 and 3 for 61°F.", True),
        ],
    )
    def test_list_markers_and_passage_references_are_not_numbers(
        self, response: str, numeric: bool
    ) -> None:
        """The whole response as the span: only a real quantity counts."""
        assert numeric == is_numeric_span(response, 0, len(response))


class TestBadInput:
    @pytest.mark.parametrize(
        ("line", "message"),
        [
            ("{not json", r":2: invalid JSON"),
            ("[1, 2]", r":2: expected a JSON object, got list"),
            (
                {"question": "q", "passages": [], "response": "r"},
                r':2: missing field "hallucinated_spans"',
            ),
            (
                {"question": "q", "response": "r", "hallucinated_spans": []},
                r':2: missing field "passages"',
            ),
            (
                {"question": "q", "passages": ["p", 3], "response": "r", "hallucinated_spans": []},
                r":2: passages\[1\] must be a string, got int",
            ),
            (
                {"question": 5, "passages": [], "response": "r", "hallucinated_spans": []},
                r':2: "question" must be a string or null, got int',
            ),
            (
                {
                    "question": "q",
                    "passages": [],
                    "response": "short",
                    "hallucinated_spans": [{"start": 2, "end": 9}],
                },
                r":2: hallucinated_spans\[0\]: end 9 is past the end of response \(5 characters\)",
            ),
            (
                {
                    "question": "q",
                    "passages": [],
                    "response": "short",
                    "hallucinated_spans": [{"start": 3, "end": 3}],
                },
                r":2: hallucinated_spans\[0\]: expected 0 <= start < end, got start 3, end 3",
            ),
            (
                {
                    "question": "q",
                    "passages": [],
                    "response": "short",
                    "hallucinated_spans": [{"start": "0", "end": 2}],
                },
                r":2: hallucinated_spans\[0\]: start must be an integer, got str",
            ),
            (
                {
                    "question": "q",
                    "passages": [],
                    "response": "short",
                    "hallucinated_spans": [{"text": "or", "start": 0, "end": 2}],
                },
                r":2: hallucinated_spans\[0\]: text 'or' is not response\[0:2\] \('sh'\)",
            ),
            (
                {
                    "id": "r-7",
                    "question": "q",
                    "passages": [],
                    "response": "short",
                    "hallucinated_spans": [{"text": "sh"}, {"text": "long"}],
                },
                r":2: hallucinated_spans\[1\]: text 'long' is not in the response of record"
                r" 'r-7'; give \"start\" and \"end\"",
            ),
            (
                {
                    "question": "q",
                    "passages": [],
                    "response": "short",
                    "hallucinated_spans": [{"text": "Short"}],
                },
                r":2: hallucinated_spans\[0\]: text 'Short' is not in the response of record"
                r" 'line 2'",
            ),
            (
                {
                    "question": "q",
                    "passages": [],
                    "response": "short",
                    "hallucinated_spans": [{"text": ""}],
                },
                r":2: hallucinated_spans\[0\]: text is empty",
            ),
            (
                {
                    "question": "q",
                    "passages": [],
                    "response": "short",
                    "hallucinated_spans": [{"text": 5}],
                },
                r":2: hallucinated_spans\[0\]: text must be a string, got int",
            ),
            (
                {
                    "question": "q",
                    "passages": [],
                    "response": "short",
                    "hallucinated_spans": [{"text": "or", "start": 2}],
                },
                r':2: hallucinated_spans\[0\]: missing field "end" \(a span needs "start" and'
                r' "end", or its "text" alone\)',
            ),
        ],
    )
    def test_the_error_names_the_line_and_the_field(
        self, tmp_path: Path, line: Any, message: str
    ) -> None:
        """Line 1 is good; line 2 is refused with its number, nothing skipped."""
        path = write(tmp_path, [SIX[0], line, SIX[1]])
        with pytest.raises(DatasetError, match=message) as caught:
            load_annotated(path)
        assert 2 == caught.value.line

    def test_a_span_given_by_its_text_alone_is_its_first_occurrence(self, tmp_path: Path) -> None:
        """No offsets: the text is located; "42" first occurs at 6 (not at 20), "cats" at 9."""
        response = "I saw 42 cats, then 42 more."
        path = write(
            tmp_path,
            [
                {
                    "question": "q",
                    "passages": ["p"],
                    "response": response,
                    "hallucinated_spans": [{"text": "42"}, {"text": "cats"}],
                },
                {
                    "question": "q",
                    "passages": ["p"],
                    "response": response,
                    # Offsets still pick a later occurrence; text alone and offsets mix.
                    "hallucinated_spans": [
                        {"text": "42", "start": 20, "end": 22},
                        {"text": "more"},
                    ],
                },
            ],
        )
        first, second = load_annotated(path)
        assert ((6, 8), (9, 13)) == first.hallucinated
        assert ((20, 22), (23, 27)) == second.hallucinated
        assert ["42", "cats", "42", "more"] == [
            response[a:b] for a, b in first.hallucinated + second.hallucinated
        ]

    def test_blank_lines_are_not_records_but_count_as_lines(self, tmp_path: Path) -> None:
        """A blank line is skipped; the next bad line keeps its own number."""
        path = write(tmp_path, [SIX[0], "", "{oops"])
        with pytest.raises(DatasetError, match=r":3: invalid JSON"):
            load_annotated(path)

    def test_an_empty_file_is_refused(self, tmp_path: Path) -> None:
        """No records is an error, not a report of zeros."""
        with pytest.raises(DatasetError, match="no records"):
            load_annotated(write(tmp_path, []))

    def test_questions_need_no_response(self, tmp_path: Path) -> None:
        """load_questions reads question-only files such as relapse/data/dev.jsonl."""
        path = write(tmp_path, [{"id": 7, "question": "q", "passages": ["p"]}])
        [only] = load_questions(path)
        assert ("7", "q", ("p",), "unspecified", None) == (
            only.id,
            only.question,
            only.passages,
            only.task_type,
            only.split,
        )


class TestSplit:
    def test_split_field_or_meta_split(self, tmp_path: Path) -> None:
        """Top-level split wins; meta.split (RAGTruth's own) is the fallback."""
        path = write(
            tmp_path,
            [
                record("a", [], split="dev"),
                record("b", [], split="heldout"),
                record("c", [], meta={"split": "dev"}),
            ],
        )
        records = load_annotated(path)
        assert ["a", "c"] == [r.response for r in select_split(path, records, "dev")]
        assert 3 == len(select_split(path, records, "all"))

    def test_a_record_without_split_is_named(self, tmp_path: Path) -> None:
        """--split needs the field on every record: the first one without it is named."""
        path = write(tmp_path, [record("a", [], split="dev"), record("b", [])])
        with pytest.raises(DatasetError, match=r":2: --split dev needs a \"split\""):
            select_split(path, load_annotated(path), "dev")

    def test_an_absent_split_lists_those_present(self, tmp_path: Path) -> None:
        """No record of the split: the error lists the splits and their counts."""
        path = write(tmp_path, [record("a", [], split="test"), record("b", [], split="test")])
        with pytest.raises(
            DatasetError, match=r"no record of split 'dev'; splits present: test \(2\)"
        ):
            select_split(path, load_annotated(path), "dev")


class TestResolveCheck:
    def test_default_and_module_attribute(self) -> None:
        """'default' and a module:attribute path name the same check."""
        import relapse

        assert relapse.default_grounding_check is resolve_check("default")
        assert flag_42_and_maybe is resolve_check("helpers:flag_42_and_maybe")

    def test_composition_runs_both(self) -> None:
        """'a & b' is all_of(a, b): the default check passes '42', the helper does not."""
        check = resolve_check("default & helpers:flag_42_and_maybe")
        result = check("q", ["It is 42."], "It is 42.")
        assert (False, ("FG001",)) == (result.ok, tuple(f.code for f in result.findings))
        assert "relapse.default & flag_42_and_maybe" == check.name  # type: ignore[attr-defined]

    @pytest.mark.parametrize(
        ("spec", "message"),
        [
            ("nonsense", r"expected 'default', 'module:attribute'"),
            ("no_such_module_xyz:check", r"cannot import 'no_such_module_xyz'"),
            ("relapse:no_such_check", r"relapse has no attribute 'no_such_check'"),
            ("default & ", r"expected 'default'"),
        ],
    )
    def test_bad_specs_are_named(self, spec: str, message: str) -> None:
        """Each malformed part gets a message naming it."""
        with pytest.raises(ValueError, match=message):
            resolve_check(spec)

    def test_a_value_that_is_not_a_check(self) -> None:
        """An attribute that is not callable is a TypeError naming its type."""
        with pytest.raises(TypeError, match=r"'relapse:__all__' is list; expected a callable"):
            resolve_check("relapse:__all__")
