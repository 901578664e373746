"""
The examples under examples/serve/, run as a user would: Node's ``openai`` package and Python's.

The Node client's packages are installed by the test set-up from the pinned
lock file (examples/serve/package-lock.json) with ``npm ci`` into a
temporary directory; Node and npm come from Debian's packages
(``apt-get install nodejs npm``). Against the scripted upstream's model that
needs no script (``scripted-retry``) the printed values are exact.
"""

from __future__ import annotations

from pathlib import Path

from scripted_upstream import RETRY_ANSWERS, RETRYING
from serve_helpers import Server, parsed, run_node, run_python

#: The first attempt's verified sentence, then the retry's.
EXPECTED_TEXT = f"{RETRY_ANSWERS[0].split('. ')[0]}. {RETRY_ANSWERS[1]}"


def check_exact(output: str) -> None:
    text, lines, report = parsed(output)
    assert EXPECTED_TEXT == text
    at = EXPECTED_TEXT.index("1937")
    assert [
        "outcome: recovered, grounded: true, iterations: 2",
        "attempt 1: FG002 1 date(s) not in the retrieved chunks: '1936'",
        'cited: "1937" from golden-gate',
    ] == lines
    assert [[at, at + 4]] == [c["answer_offsets"] for c in report["citations"]]
    # Only the retry's usage chunk was read: the first stream was closed at its failing sentence.
    assert (10, 4, 14, 1) == (
        report["usage"]["prompt_tokens"],
        report["usage"]["completion_tokens"],
        report["usage"]["total_tokens"],
        report["usage"]["attempts_unreported"],
    )


def test_node_client_gets_a_grounded_stream_with_findings_and_citations(
    node_example: Path, gw: Server
) -> None:
    check_exact(run_node(node_example, gw, RETRYING))


def test_python_client_gets_a_grounded_stream_with_findings_and_citations(gw: Server) -> None:
    check_exact(run_python(gw, RETRYING))
