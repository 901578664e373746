"""The gateway is stateless: two workers (``relapse serve --workers 2``) serve one client run."""

from __future__ import annotations

import concurrent.futures
import time
from pathlib import Path

import openai

from serve_helpers import BAD, CHUNKS, GOOD, QUESTION, Server, ask, gateway, script

MESSAGES = [{"role": "user", "content": QUESTION}]


def _children(pid: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def _one(gw: Server, stream: bool) -> tuple[str, str]:
    client = openai.OpenAI(base_url=gw.v1, api_key="k", max_retries=0, timeout=60)
    # A fresh connection per request, so that the kernel spreads them over the workers.
    scripted = script(BAD, GOOD)
    if not stream:
        response = client.chat.completions.create(
            model="scripted", messages=MESSAGES, extra_body=ask(CHUNKS, scripted)
        )
        client.close()
        return response.choices[0].message.content or "", response.model_extra["relapse"]["outcome"]
    chunks = list(
        client.chat.completions.create(
            model="scripted", messages=MESSAGES, stream=True, extra_body=ask(CHUNKS, scripted)
        )
    )
    client.close()
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    return text, chunks[-1].model_extra["relapse"]["outcome"]


def test_two_workers_serve_one_client_run(upstream: Server) -> None:
    with gateway(upstream.v1, "--workers", "2") as gw:
        # Both workers up: uvicorn's supervisor has two worker processes.
        deadline = time.monotonic() + 30
        while len(_children(gw.process.pid)) < 2:
            assert time.monotonic() < deadline, "two workers did not start"
            time.sleep(0.1)
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            runs = list(pool.map(lambda n: _one(gw, n % 2 == 1), range(40)))
        assert [(GOOD, "recovered")] * 40 == runs
        answered = {gw.get("/health")["pid"] for _ in range(200)}
        assert set(_children(gw.process.pid)) >= answered
        assert 2 == len(answered)
