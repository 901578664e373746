"""
``relapse serve`` in front of a real upstream: llama-cpp-python's server with the bundled model.

Both servers are child processes started and stopped by the tests by
process id. The model's words cannot be known in advance; what must hold
whatever it says: the response has the upstream's shape and the ``relapse``
object, the outcome and ``grounded`` agree, usage is the sum of the
attempts', and every sentence a stream delivered passes the check.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openai
import pytest

import relapse
from llama_server import MODEL, LlamaServer
from relapse.grounding import GroundingCheck
from serve_helpers import Server, gateway, parsed, run_node, run_python

CHUNKS = [
    {
        "id": "golden-gate",
        "text": "The Golden Gate Bridge opened in 1937. It is painted international orange.",
    }
]
QUESTION = "When did the bridge open?"
MESSAGES = [
    {"role": "system", "content": f"Answer from this context only:\n{CHUNKS[0]['text']}"},
    {"role": "user", "content": QUESTION},
]
OUTCOMES = {"grounded_first_try", "recovered", "exhausted", "stalled", "timeout", "budget"}
TEXTS = [chunk["text"] for chunk in CHUNKS]
RELAPSE: dict[str, Any] = {"chunks": CHUNKS, "max_iterations": 2}
#: What examples/serve/client.py and client.mjs ask for.
EXAMPLE_MAX_ITERATIONS = 3
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def real(llama_server: LlamaServer) -> Iterator[Server]:
    with gateway(llama_server.base_url, "--upstream-timeout", "300") as server:
        yield server


def check_report(report: dict[str, Any], max_iterations: int = RELAPSE["max_iterations"]) -> None:
    assert report["checked"] is True
    assert report["outcome"] in OUTCOMES
    assert report["grounded"] == (report["outcome"] in {"grounded_first_try", "recovered"})
    assert 1 <= report["iterations"] <= max_iterations
    assert len(report["attempts"]) == report["iterations"]
    reported = [a["usage"] for a in report["attempts"] if a["usage"] is not None]
    for name in ("prompt_tokens", "completion_tokens", "total_tokens"):
        assert sum(u[name] for u in reported) == report["usage"][name]
    for finding in report["findings"]:
        assert {"iteration", "code", "message", "severity", "spans", "offsets"} == set(finding)


def client(real: Server) -> openai.OpenAI:
    return openai.OpenAI(base_url=real.v1, api_key="no-key", max_retries=0, timeout=600)


def check_delivered(text: str, report: dict[str, Any], release: str) -> None:
    """What the client read, against the outcome.

    A grounded outcome's text passes the whole check. Otherwise, with
    ``release="sentence"``, the client read the verified prefix: no number,
    date or quotation in it is unsupported, though the prefix as a whole
    may still be no answer (FG004: empty, or the question echoed by what a
    retry added), which is why the outcome is not grounded. With
    ``release="answer"`` and ``on_exhausted="return"`` it read the last
    answer, whose findings the report carries.
    """
    if report["grounded"]:
        assert relapse.default_grounding_check(QUESTION, TEXTS, text).ok
    elif release == "sentence":
        claims = GroundingCheck(codes=frozenset({"FG001", "FG002", "FG003"}))
        assert claims(QUESTION, TEXTS, text).ok
    else:
        last = report["iterations"]
        assert [f for f in report["findings"] if f["iteration"] == last]


def test_sync_non_streaming(real: Server) -> None:
    response = client(real).chat.completions.create(
        model=MODEL,
        messages=MESSAGES,
        max_tokens=48,
        temperature=0,
        extra_body={"relapse": RELAPSE},
    )
    report = response.model_extra["relapse"]
    check_report(report)
    answer = response.choices[0].message.content or ""
    assert report["grounded"] == relapse.default_grounding_check(QUESTION, TEXTS, answer).ok
    assert response.usage is not None
    assert report["usage"]["total_tokens"] == response.usage.total_tokens


async def test_async_streaming(real: Server) -> None:
    async with openai.AsyncOpenAI(
        base_url=real.v1, api_key="no-key", max_retries=0, timeout=600
    ) as aclient:
        stream = await aclient.chat.completions.create(
            model=MODEL,
            messages=MESSAGES,
            max_tokens=48,
            temperature=0,
            stream=True,
            stream_options={"include_usage": True},
            extra_body={"relapse": RELAPSE},
        )
        chunks = [chunk async for chunk in stream]
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    report = chunks[-1].model_extra["relapse"]
    check_report(report)
    check_delivered(text, report, "answer")


def test_sync_streaming_and_models(real: Server) -> None:
    assert MODEL in [model.id for model in client(real).models.list()]
    chunks = list(
        client(real).chat.completions.create(
            model=MODEL,
            messages=MESSAGES,
            max_tokens=48,
            temperature=0,
            stream=True,
            extra_body={"relapse": {**RELAPSE, "retry_sampling": {"temperature": 0.7}}},
        )
    )
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    check_report(chunks[-1].model_extra["relapse"])
    check_delivered(text, chunks[-1].model_extra["relapse"], "answer")


def test_node_client(node_example: Path, real: Server) -> None:
    text, _, report = parsed(run_node(node_example, real, MODEL))
    check_report(report, EXAMPLE_MAX_ITERATIONS)
    check_delivered(text, report, "sentence")


def test_python_client(real: Server) -> None:
    text, _, report = parsed(run_python(real, MODEL))
    check_report(report, EXAMPLE_MAX_ITERATIONS)
    check_delivered(text, report, "sentence")
    assert json.loads(json.dumps(report)) == report
