r"""
Do two source trees write the same retry notes for the answers a real loop run rejected?

``relapse eval --loop --json LOOP.json`` keeps every attempt's answer of every
question. A retry's query is the question plus a note quoting the rejected
answer and the check's findings (``relapse.prompts.compact_retry``); with the
bundled model's sampling seeded, the same notes make the same retries. So
when a change rewords findings (issue 40 made the messages say truthfully
which rule fired), the question "what does the rewording do to recovery" is
first: on which retried answers does the note change at all?

For each question LOOP.json ran more than once, every answer but the last is
checked (default check, the record's question and passages) and its retry
note written, once with each tree on ``PYTHONPATH`` in a child process under
one ``PYTHONHASHSEED``. The script prints how many notes each tree wrote and
every note that differs, with both trees' findings.

Usage::

    python benchmarks/retry_notes_ab.py BASE_SRC NEW_SRC LOOP.json DATASET.jsonl

for instance, after ``git archive 2df1526 src | tar -x -C /tmp/base`` and
``relapse eval --loop ../shared/data/ragtruth-sample/ragtruth_sample.jsonl
--json /tmp/loop.json``::

    python benchmarks/retry_notes_ab.py /tmp/base/src src /tmp/loop.json \
        ../shared/data/ragtruth-sample/ragtruth_sample.jsonl

Exit status 0 when every note is the same, 1 when any differs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

#: Run in the child, with the tree under test first on ``sys.path``.
#: ``_note`` is the note of ``compact_retry`` without the question, in both trees.
CHILD = r"""
import json, sys
from relapse.grounding import default_grounding_check
from relapse.prompts import _note

loop_json, dataset = sys.argv[1], sys.argv[2]
lines = open(dataset, encoding="utf-8").read().splitlines()
notes = []
for run in json.load(open(loop_json, encoding="utf-8"))["runs"]:
    record = json.loads(lines[run["line"] - 1])
    for attempt, answer in enumerate(run["answers"][:-1], start=1):
        result = default_grounding_check(record["question"], record["passages"], answer)
        errors = [f for f in result.findings if f.severity == "error"]
        notes.append({
            "id": run["id"],
            "attempt": attempt,
            "note": _note(answer, errors),
            "findings": [[f.code, f.message, list(f.spans)] for f in result.findings],
        })
json.dump(notes, sys.stdout)
"""


def notes_of(source: Path, loop_json: Path, dataset: Path) -> list[dict[str, Any]]:
    """The retry notes the tree at ``source`` writes, one per rejected attempt."""
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(loop_json), str(dataset)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(source), "PYTHONHASHSEED": "0"},
    )
    notes: list[dict[str, Any]] = json.loads(done.stdout)
    return notes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].strip())
    parser.add_argument("base", type=Path, help="the base tree's src/")
    parser.add_argument("new", type=Path, help="the new tree's src/")
    parser.add_argument("loop_json", type=Path, help="relapse eval --loop --json output")
    parser.add_argument("dataset", type=Path, help="the dataset the loop ran on")
    args = parser.parse_args()
    base = notes_of(args.base, args.loop_json, args.dataset)
    new = notes_of(args.new, args.loop_json, args.dataset)
    if [(n["id"], n["attempt"]) for n in base] != [(n["id"], n["attempt"]) for n in new]:
        print("the trees read different attempts: the loop JSON or dataset changed between runs")
        return 1
    differ = [(old, now) for old, now in zip(base, new, strict=True) if old != now]
    retried = len({note["id"] for note in base})
    print(f"{len(base)} retry notes over {retried} retried questions; {len(differ)} differ")
    for old, now in differ:
        print(f"question {old['id']}, after attempt {old['attempt']}:")
        print(f"  base: {old['findings']}")
        print(f"  new:  {now['findings']}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
