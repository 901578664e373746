"""
A bounded load test on loopback: 60 concurrent streaming clients, three rounds.

Every stream must be complete and well formed (chunks of one completion, the
finish chunk, the ``relapse`` object, ``[DONE]``), carry only verified
sentences (each first attempt fails at a sentence whose date the chunks do
not hold: that sentence must never reach a client), and the gateway's memory
must stay flat from the second round to the third. Bounded: 60 clients x 3
rounds, each round within ``ROUND_LIMIT_S``; CI runs it (marker ``load``).
"""

from __future__ import annotations

import asyncio
import time

import openai
import pytest

import relapse
from serve_helpers import CHUNKS, QUESTION, Server, ask, gateway, script

CLIENTS = 60
ROUNDS = 3
ROUND_LIMIT_S = 120.0
FIRST = "It is painted international orange."
FAILING = "It opened in 1936."
RETRY = "It opened in 1937."
#: How much the gateway's resident memory may grow from round 2 to round 3.
FLAT_KIB = 8 * 1024


async def _client(gw: Server, number: int) -> tuple[str, list[str], str, bool]:
    async with openai.AsyncOpenAI(
        base_url=gw.v1, api_key="k", max_retries=0, timeout=ROUND_LIMIT_S
    ) as client:
        stream = await client.chat.completions.create(
            model="scripted",
            messages=[{"role": "user", "content": f"{QUESTION} ({number})"}],
            stream=True,
            stream_options={"include_usage": True},
            extra_body=ask(CHUNKS, script(f"{FIRST} {FAILING} It is long.", RETRY, pace=0.001)),
        )
        chunks = [chunk async for chunk in stream]
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    ids = sorted({c.id for c in chunks})
    finish = chunks[-2].choices[0].finish_reason if chunks[-2].choices else ""
    report = chunks[-1].model_extra.get("relapse") or {}
    return text, ids, f"{finish}/{report.get('outcome')}", chunks[-1].usage is not None


async def _round(gw: Server) -> list[tuple[str, list[str], str, bool]]:
    return await asyncio.wait_for(
        asyncio.gather(*(_client(gw, n) for n in range(CLIENTS))), ROUND_LIMIT_S
    )


@pytest.mark.load
async def test_sixty_concurrent_streaming_clients(upstream: Server) -> None:
    with gateway(upstream.v1, "--max-concurrent", "64", "--log-level", "warning") as gw:
        rss = []
        for _ in range(ROUNDS):
            began = time.perf_counter()
            results = await _round(gw)
            elapsed = time.perf_counter() - began
            rss.append(gw.rss_kib())
            for text, ids, ending, usage in results:
                assert f"{FIRST} {RETRY}" == text
                assert FAILING not in text
                # Every sentence a client read passes the check.
                assert relapse.default_grounding_check(QUESTION, CHUNKS, text).ok
                assert 1 == len(ids)
                assert ("stop/recovered", True) == (ending, usage)
            health = gw.get("/health")
            assert (0, 0) == (health["in_flight"], health["upstream_streams_open"])
            print(f"{CLIENTS} streams in {elapsed:.2f} s; gateway RSS {rss[-1]} KiB")
        assert rss[2] - rss[1] < FLAT_KIB, rss
