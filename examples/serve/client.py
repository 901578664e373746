"""
A Python client of ``relapse serve``: the official ``openai`` SDK, pointed at the gateway.

Start an upstream and the gateway (docs/serve.md), then::

    RELAPSE_GATEWAY_URL=http://127.0.0.1:8080/v1 python examples/serve/client.py

It streams a grounded answer sentence by verified sentence, then prints what
the gateway found: the outcome, each rejected attempt's findings, the
citations and the usage summed over the attempts. The ``relapse`` request
object travels in ``extra_body``; the report comes back on the last chunk.
Environment: ``RELAPSE_GATEWAY_URL``, ``RELAPSE_MODEL`` (default
``gemma-3-270m``), ``OPENAI_API_KEY`` (sent to the upstream, or the gateway's
key when it has keys).
"""

from __future__ import annotations

import json
import os

from openai import OpenAI

client = OpenAI(
    base_url=os.environ.get("RELAPSE_GATEWAY_URL", "http://127.0.0.1:8080/v1"),
    api_key=os.environ.get("OPENAI_API_KEY", "no-key"),
    max_retries=0,
)
chunks = [
    {
        "id": "golden-gate",
        "text": "The Golden Gate Bridge opened in 1937. It is painted international orange.",
    }
]
context = "\n\n".join(chunk["text"] for chunk in chunks)

stream = client.chat.completions.create(
    model=os.environ.get("RELAPSE_MODEL", "gemma-3-270m"),
    messages=[
        {"role": "system", "content": f"Answer from this context only:\n{context}"},
        {"role": "user", "content": "When did the bridge open?"},
    ],
    stream=True,
    stream_options={"include_usage": True},
    max_tokens=64,
    extra_body={"relapse": {"chunks": chunks, "max_iterations": 3, "release": "sentence"}},
)
text = ""
report = None
for chunk in stream:
    delta = chunk.choices[0].delta.content or "" if chunk.choices else ""
    text += delta
    print(delta, end="", flush=True)
    # The last chunk carries the relapse object beside the summed usage.
    report = (chunk.model_extra or {}).get("relapse", report)
print()
if report is None:
    raise SystemExit("the stream ended without its relapse object")
print(
    f"outcome: {report['outcome']}, grounded: {str(report['grounded']).lower()},"
    f" iterations: {report['iterations']}"
)
for finding in report["findings"]:
    print(f"attempt {finding['iteration']}: {finding['code']} {finding['message']}")
for citation in report["citations"]:
    start, end = citation["answer_offsets"]
    print(f"cited: {json.dumps(text[start:end])} from {citation['chunk_id']}")
print(f"relapse: {json.dumps(report, separators=(',', ':'))}")
