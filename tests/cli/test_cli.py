"""The ``relapse`` command line: ``check`` exit codes, text and JSON output, ``demo`` end to end."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from relapse.cli import main

CHUNKS = ["The bridge opened in 1937.", "It is 2,737 metres long and carries 6 lanes."]
GOOD = "It opened in 1937 and is 2,737 metres long."
# 2,900 is in no chunk: one FG001 finding whose span contains "2,900".
BAD = "It opened in 1937 and is 2,900 metres long."

SUMMARY = re.compile(
    r"^summary: (\d+) questions, first-try grounded (\d\.\d\d) \((\d+)/(\d+)\),"
    r" final grounded (\d\.\d\d) \((\d+)/(\d+)\), recovered (\d+) \((\d+) as a refusal\),"
    r" echoed (\d+), mean iterations (\d+\.\d\d),"
    r" wall time (\d+\.\d) s$",
    re.MULTILINE,
)


@pytest.fixture
def runner() -> CliRunner:
    """A runner keeping stdout and stderr apart (click >= 8.2 always does)."""
    return CliRunner()


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


@pytest.fixture(params=["txt", "json", "json-objects", "jsonl", "jsonl-objects"])
def chunks_file(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The same two chunks in each supported file shape."""
    shape = request.param
    if shape == "txt":
        # The second paragraph spans two lines: still one chunk.
        return _write(
            tmp_path,
            "c.txt",
            "The bridge opened in 1937.\n\nIt is 2,737 metres long\nand carries 6 lanes.\n",
        )
    if shape == "json":
        return _write(tmp_path, "c.json", json.dumps(CHUNKS))
    if shape == "json-objects":
        return _write(
            tmp_path, "c.json", json.dumps([{"text": c, "id": i} for i, c in enumerate(CHUNKS)])
        )
    if shape == "jsonl":
        return _write(tmp_path, "c.jsonl", "\n".join(json.dumps(c) for c in CHUNKS) + "\n\n")
    return _write(tmp_path, "c.jsonl", "\n".join(json.dumps({"text": c}) for c in CHUNKS))


class TestCheck:
    def test_grounded_answer_exits_0(self, runner: CliRunner, chunks_file: str) -> None:
        """Every number of the answer is in the chunks: exit 0, 'grounded'."""
        result = runner.invoke(main, ["check", "--chunks", chunks_file, "--answer", GOOD])
        assert 0 == result.exit_code, result.output
        assert "grounded: no findings (2 chunk(s))\n" == result.stdout

    def test_ungrounded_answer_exits_1_with_findings(
        self, runner: CliRunner, chunks_file: str
    ) -> None:
        """An invented number: exit 1, the code, the message and the span are printed."""
        result = runner.invoke(main, ["check", "--chunks", chunks_file, "--answer", BAD])
        assert 1 == result.exit_code, result.output
        lines = result.stdout.splitlines()
        assert "not grounded: 1 finding(s)" == lines[0]
        assert lines[1].startswith("FG001: ")
        assert lines[2].startswith("  span: '")
        assert "2,900" in lines[2]

    def test_answer_dash_reads_stdin(self, runner: CliRunner, tmp_path: Path) -> None:
        """--answer - takes the answer from standard input."""
        path = _write(tmp_path, "c.json", json.dumps(CHUNKS))
        bad = runner.invoke(main, ["check", "--chunks", path, "--answer", "-"], input=BAD)
        good = runner.invoke(main, ["check", "--chunks", path, "--answer", "-"], input=GOOD)
        assert (1, 0) == (bad.exit_code, good.exit_code)

    def test_query_option_is_accepted(self, runner: CliRunner, tmp_path: Path) -> None:
        """--query is passed along; the verdict is about the answer."""
        path = _write(tmp_path, "c.json", json.dumps(CHUNKS))
        result = runner.invoke(
            main, ["check", "--chunks", path, "--answer", GOOD, "--query", "How long is it?"]
        )
        assert 0 == result.exit_code

    @pytest.mark.parametrize(
        ("name", "text", "message"),
        [
            ("c.csv", "a,b", "must end in .txt, .json or .jsonl"),
            ("c.json", "{not json", "invalid JSON"),
            ("c.json", '{"text": "a"}', "expected a JSON list, got dict"),
            ("c.json", '["a", 3]', r"c.json\[1\]: expected a string or an object"),
            ("c.json", '[{"id": 1}]', r"c.json\[0\]: expected a string or an object"),
            ("c.jsonl", '"a"\n[1]\n', r"c.jsonl:2: expected a string or an object"),
            ("c.jsonl", '"a"\n{oops\n', r"c.jsonl:2: invalid JSON"),
        ],
    )
    def test_bad_chunks_file_exits_2(
        self, runner: CliRunner, tmp_path: Path, name: str, text: str, message: str
    ) -> None:
        """A file relapse cannot read as chunks is a usage error naming the problem."""
        path = _write(tmp_path, name, text)
        result = runner.invoke(main, ["check", "--chunks", path, "--answer", "x"])
        assert 2 == result.exit_code
        assert re.search(message, result.stderr), result.stderr

    def test_invalid_utf8_exits_2(self, runner: CliRunner, tmp_path: Path) -> None:
        """Bytes that are not UTF-8 are reported, not a traceback."""
        path = tmp_path / "c.txt"
        path.write_bytes(b"caf\xe9\n")
        result = runner.invoke(main, ["check", "--chunks", str(path), "--answer", "x"])
        assert 2 == result.exit_code
        assert "not valid UTF-8" in result.stderr

    def test_missing_file_exits_2(self, runner: CliRunner, tmp_path: Path) -> None:
        """A chunks path that does not exist is a usage error."""
        result = runner.invoke(
            main, ["check", "--chunks", str(tmp_path / "nope.txt"), "--answer", "x"]
        )
        assert 2 == result.exit_code


class TestCheckJson:
    def test_ungrounded_answer_prints_the_findings_as_json(
        self, runner: CliRunner, chunks_file: str
    ) -> None:
        """--json: one object on stdout, exit 1; "2,900" is BAD[25:30], its only failing span."""
        result = runner.invoke(main, ["check", "--chunks", chunks_file, "--answer", BAD, "--json"])
        assert 1 == result.exit_code, result.output
        assert {
            "grounded": False,
            "chunks": 2,
            "findings": [
                {
                    "code": "FG001",
                    "severity": "error",
                    "message": "1 number(s) not in the retrieved chunks: '2,900'",
                    "spans": [{"text": "2,900", "start": 25, "end": 30}],
                }
            ],
        } == json.loads(result.stdout)
        assert "2,900" == BAD[25:30]

    def test_grounded_answer_prints_no_findings(self, runner: CliRunner, chunks_file: str) -> None:
        """--json on a grounded answer: exit 0, grounded true, an empty findings list."""
        result = runner.invoke(main, ["check", "--chunks", chunks_file, "--answer", GOOD, "--json"])
        assert 0 == result.exit_code, result.output
        assert {"grounded": True, "chunks": 2, "findings": []} == json.loads(result.stdout)

    def test_stdin_answer_and_non_ascii_text(self, runner: CliRunner, tmp_path: Path) -> None:
        """--answer - with --json; non-ASCII spans are written as is, offsets in characters."""
        path = _write(tmp_path, "c.json", json.dumps(["Le pont a ouvert en 1937."]))
        answer = 'On l\'appelle "le pont élevé" depuis 1938.'
        result = runner.invoke(
            main, ["check", "--chunks", path, "--answer", "-", "--json"], input=answer
        )
        assert 1 == result.exit_code, result.output
        assert "élevé" in result.stdout  # not \u00e9 escapes
        report = json.loads(result.stdout)
        # The quotation is answer[14:27] (after 'On l'appelle "'), the year answer[36:40].
        assert [
            ("FG002", [{"text": "1938", "start": 36, "end": 40}]),
            ("FG003", [{"text": "le pont élevé", "start": 14, "end": 27}]),
        ] == [(f["code"], f["spans"]) for f in report["findings"]]
        assert ("le pont élevé", "1938") == (answer[14:27], answer[36:40])

    def test_spans_without_offsets_and_warnings(self) -> None:
        """A check's finding without offsets gets null offsets; a warning keeps grounded true."""
        from relapse import GroundingFinding, GroundingResult
        from relapse.cli import _check_report

        result = GroundingResult(
            ok=False,
            findings=(GroundingFinding("X001", "hedged: 'maybe'", ("maybe",), severity="warning"),),
        )
        assert {
            "grounded": True,
            "chunks": 3,
            "findings": [
                {
                    "code": "X001",
                    "severity": "warning",
                    "message": "hedged: 'maybe'",
                    "spans": [{"text": "maybe", "start": None, "end": None}],
                }
            ],
        } == _check_report(result, 3)

    def test_usage_errors_stay_text_on_stderr(self, runner: CliRunner, tmp_path: Path) -> None:
        """A bad chunks file with --json: exit 2, the message on stderr, nothing on stdout."""
        path = _write(tmp_path, "c.json", "{not json")
        result = runner.invoke(main, ["check", "--chunks", path, "--answer", "x", "--json"])
        assert (2, "") == (result.exit_code, result.stdout)
        assert "invalid JSON" in result.stderr


class TestDemo:
    def test_missing_local_extra_names_install_command_and_exits_2(
        self, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Without llama_cpp, demo says which command installs it on stderr and exits 2."""
        # A None entry in sys.modules makes `import llama_cpp` raise ImportError.
        monkeypatch.setitem(sys.modules, "llama_cpp", None)
        result = runner.invoke(main, ["demo", "--limit", "1"])
        assert 2 == result.exit_code
        assert "pip install 'relapse[local]'" in result.stderr
        assert "" == result.stdout

    @pytest.mark.slow
    @pytest.mark.skipif(
        importlib.util.find_spec("llama_cpp") is None,
        reason="llama_cpp is not importable; pip install 'relapse[local]'",
    )
    def test_demo_limit_2_end_to_end(self, runner: CliRunner) -> None:
        """Two real questions on the real model: per-question outcomes and the summary."""
        result = runner.invoke(main, ["demo", "--limit", "2"])
        assert 0 == result.exit_code, result.output
        out = result.stdout
        assert 2 == len(re.findall(r"^\[\d/2\] ", out, re.MULTILINE))
        outcomes = re.findall(r"^  outcome: (\w+)$", out, re.MULTILINE)
        assert 2 == len(outcomes)
        assert set(outcomes) <= {
            "grounded_first_try",
            "recovered",
            "recovered_refusal",
            "echoed",
            "exhausted",
        }
        match = SUMMARY.search(out)
        assert match is not None, out
        (
            questions,
            first_rate,
            first_n,
            first_d,
            final_rate,
            final_n,
            final_d,
            recovered,
            refusals,
            echoed,
            mean,
            _,
        ) = match.groups()
        assert ("2", "2", "2") == (questions, first_d, final_d)
        # The rates are the printed counts over 2; the final count includes the first.
        assert f"{int(first_n) / 2:.2f}" == first_rate
        assert f"{int(final_n) / 2:.2f}" == final_rate
        assert int(first_n) == outcomes.count("grounded_first_try")
        assert int(recovered) == outcomes.count("recovered") + outcomes.count("recovered_refusal")
        assert int(refusals) == outcomes.count("recovered_refusal")
        assert int(echoed) == outcomes.count("echoed")
        assert int(final_n) == outcomes.count("grounded_first_try") + int(recovered)
        attempts = re.findall(r"^  attempt (\d) ", out, re.MULTILINE)
        assert f"{len(attempts) / 2:.2f}" == mean
        assert out.rstrip("\n").endswith(match.group(0))


class TestCheckExplain:
    def test_explain_names_the_rule_of_each_claim(
        self, runner: CliRunner, chunks_file: str
    ) -> None:
        """--explain: after the findings, one line per claim; 2,900 (BAD[25:30]) fails."""
        result = runner.invoke(
            main, ["check", "--chunks", chunks_file, "--answer", BAD, "--explain"]
        )
        assert 1 == result.exit_code, result.output
        assert [
            "not grounded: 1 finding(s)",
            "FG001: 1 number(s) not in the retrieved chunks: '2,900'",
            "  span: '2,900'",
            "claims: 2",
            "  [13:17] '1937' FG002 read by digits: supported by held (chunk 0 [21:25])",
            "  [25:30] '2,900' FG001 read by digits: fails by spelled-out",
        ] == result.stdout.splitlines()

    def test_explain_json_adds_the_trace(self, runner: CliRunner, chunks_file: str) -> None:
        """--explain --json on a grounded answer: exit 0 and a "trace" list."""
        result = runner.invoke(
            main, ["check", "--chunks", chunks_file, "--answer", GOOD, "--json", "--explain"]
        )
        assert 0 == result.exit_code, result.output
        trace = json.loads(result.stdout)["trace"]
        assert {
            "code": "FG001",
            "start": 25,
            "end": 30,
            "text": "2,737",
            "reader": "digits",
            "rule": "held",
            "outcome": "supported",
            "evidence": {"chunk": 1, "start": 6, "end": 11},
        } == trace[1]
        assert ["1937", "2,737"] == [item["text"] for item in trace]
