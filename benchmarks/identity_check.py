"""
Dump or compare every verdict of the default check on the RAGTruth dev answers, for two trees.

A refactoring of the default check must give the same findings: every code,
span, offset and message, and every citation (kind, offsets, chunk, place in
it), span for span. This script runs one tree's check over the 445 answers of
the RAGTruth sample under several configurations and writes what it found as
JSON lines; given two trees, it runs itself under each (``PYTHONPATH``) with
one ``PYTHONHASHSEED`` and prints the differences.

Configurations, each over every answer:

- ``default``: ``default_grounding_check``;
- ``all-codes``: ``GroundingCheck(codes=ALL_CODES)`` (the names check too);
- ``no-question``: ``GroundingCheck(exempt_question=False)``;
- ``preview``: ``GroundingCheck(preview=True)`` (when the tree has it and
  ``IDENTITY_NO_PREVIEW`` is not set);
- ``other-passages``: each answer against the next record's passages;
- ``self``: each record's passages, joined, against themselves;
- ``windowed``: the streaming check's windowed judge,
  ``prepare(...).judged(answer, copies=False)``.

Usage::

    python benchmarks/identity_check.py dump OUT.jsonl [PATH_TO_JSONL]
    python benchmarks/identity_check.py diff BASE_SRC NEW_SRC [PATH_TO_JSONL]

``dump`` uses whatever ``relapse`` is importable; ``diff`` runs ``dump`` under
each tree's ``src`` directory and exits 1 when any line differs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = ROOT / ".." / "shared" / "data" / "ragtruth-sample" / "ragtruth_sample.jsonl"
#: One hash seed for both trees: a set's order must not tell them apart.
HASH_SEED = "0"
#: Set (to anything) to leave the ``preview`` configuration out: to compare
#: with a tree from before the preview switch.
NO_PREVIEW = "IDENTITY_NO_PREVIEW"


def _records(path: Path) -> list[dict[str, Any]]:
    """Read the sample's records (one JSON object a line)."""
    with path.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def _result(result: Any) -> dict[str, Any]:
    """Return a result's findings and citations as plain data."""
    return {
        "ok": result.ok,
        "findings": [
            [f.code, f.message, list(f.spans), [list(o) for o in f.offsets]]
            for f in result.findings
        ],
        "evidence": [
            [e.kind, list(e.answer_span), e.chunk_index, list(e.chunk_span), e.chunk_id]
            for e in result.evidence
        ],
    }


def _cases(records: list[dict[str, Any]]) -> Iterator[tuple[str, str, Any]]:
    """Yield (configuration, record id, result) for every check, in order."""
    from relapse.grounding import ALL_CODES, GroundingCheck, default_grounding_check

    checks: dict[str, Any] = {
        "default": default_grounding_check,
        "all-codes": GroundingCheck(codes=ALL_CODES),
        "no-question": GroundingCheck(exempt_question=False),
    }
    if "preview" in GroundingCheck.__dataclass_fields__ and not os.environ.get(NO_PREVIEW):
        checks["preview"] = GroundingCheck(preview=True)  # type: ignore[call-arg]
    for number, record in enumerate(records):
        question = record.get("question") or ""
        passages = list(record["passages"])
        answer = record["response"]
        rid = str(record.get("id", number))
        for name, check in checks.items():
            yield name, rid, check(question, passages, answer)
        other = list(records[(number + 1) % len(records)]["passages"])
        yield "other-passages", rid, default_grounding_check(question, other, answer)
        yield "self", rid, default_grounding_check(question, passages, "\n".join(passages))
        windowed = default_grounding_check.prepare(question, passages)
        yield "windowed", rid, windowed.judged(answer, copies=False)


def dump(out: Path, data: Path) -> int:
    """Write one JSON line per check of the importable tree to ``out``; return the count."""
    count = 0
    with out.open("w", encoding="utf-8") as lines:
        for name, rid, result in _cases(_records(data)):
            line = {"config": name, "id": rid, **_result(result)}
            lines.write(json.dumps(line, ensure_ascii=False, sort_keys=True) + "\n")
            count += 1
    return count


def _run_dump(src: Path, out: Path, data: Path) -> None:
    """Run ``dump`` in a subprocess importing ``relapse`` from ``src``."""
    env = {**os.environ, "PYTHONPATH": str(src.resolve()), "PYTHONHASHSEED": HASH_SEED}
    subprocess.run(
        [sys.executable, __file__, "dump", str(out), str(data)],
        check=True,
        env=env,
        cwd=tempfile.gettempdir(),  # never the working tree's src by accident
    )


def diff(base: Path, new: Path, data: Path) -> int:
    """Dump both trees and print every differing check; return the number of differences."""
    with tempfile.TemporaryDirectory() as folder:
        outs = [Path(folder) / "base.jsonl", Path(folder) / "new.jsonl"]
        for src, out in zip((base, new), outs, strict=True):
            _run_dump(src, out, data)
        base_lines, new_lines = (out.read_text(encoding="utf-8").splitlines() for out in outs)
    if len(base_lines) != len(new_lines):
        print(f"different numbers of checks: {len(base_lines)} and {len(new_lines)}")
        return max(len(base_lines), len(new_lines))
    differences = 0
    spans = citations = 0
    for before, after in zip(base_lines, new_lines, strict=True):
        old, now = json.loads(before), json.loads(after)
        spans += sum(len(f[2]) for f in old["findings"])
        citations += len(old["evidence"])
        if old != now:
            differences += 1
            print(f"{old['config']} {old['id']}:")
            print(f"  base: {json.dumps(old, ensure_ascii=False)[:2000]}")
            print(f"  new:  {json.dumps(now, ensure_ascii=False)[:2000]}")
    print(
        f"{len(base_lines)} checks, {spans} failing spans, {citations} citations:"
        f" {differences} differences"
    )
    return differences


def main(argv: Sequence[str] | None = None) -> int:
    """Dump one tree's verdicts, or diff two trees'."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) in (2, 3) and args[0] == "dump":
        data = Path(args[2]) if len(args) == 3 else DEFAULT_DATA
        print(f"{dump(Path(args[1]), data)} checks", file=sys.stderr)
        return 0
    if len(args) in (3, 4) and args[0] == "diff":
        data = Path(args[3]) if len(args) == 4 else DEFAULT_DATA
        return 1 if diff(Path(args[1]), Path(args[2]), data.resolve()) else 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
