"""
Check answers through `relapse mcp`, as any MCP client would: runs offline.

Starts `relapse mcp` over stdio with the official MCP SDK's client, checks a
first answer that states a length the passages do not hold, then the
corrected answer under the call_id the first check returned::

    pip install 'relapse[mcp]'
    python examples/integrations/mcp_client.py
"""

from __future__ import annotations

import asyncio
import sys

from mcp import Client, StdioServerParameters

PASSAGES = [
    "The Golden Gate Bridge opened to traffic on May 27, 1937.",
    "Its main span is 1,280 metres long.",
]
QUESTION = "How long is the main span?"
# `relapse mcp` with this interpreter (an installed relapse has the `relapse` command).
SERVER = StdioServerParameters(
    command=sys.executable, args=["-c", "from relapse.cli import main; main()", "mcp"]
)


async def main() -> None:
    async with Client(SERVER) as client:
        # Your model's answers; the token counts it reported are optional.
        answers = [("Its main span is 1,500 metres long.", 410, 12),
                   ("Its main span is 1,280 metres long.", 480, 11)]  # fmt: skip
        call_id = None
        for answer, tokens_in, tokens_out in answers:
            arguments = {"question": QUESTION, "chunks": PASSAGES, "answer": answer,
                         "call_id": call_id, "input_tokens": tokens_in,
                         "output_tokens": tokens_out}  # fmt: skip
            called = await client.call_tool("check_answer", arguments)
            report = called.structured_content or {}
            spans = [s["text"] for f in report["findings"] for s in f["spans"]]
            print(f"attempt {report['iteration']}: {answer!r} grounded={report['grounded']}"
                  f" spans={spans}")  # fmt: skip
            if report["retry_note"] is None:
                print(f"outcome: {report['outcome']}, tokens: {report['input_tokens']} in,"
                      f" {report['output_tokens']} out")  # fmt: skip
                break
            print(f"  retry note: {report['retry_note'][:80]}...")
            call_id = report["call_id"]


if __name__ == "__main__":
    asyncio.run(main())
