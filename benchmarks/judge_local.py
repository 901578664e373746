r"""
The LLM judge over a local OpenAI-compatible server, as ``relapse eval --check`` names it.

``judge`` is :class:`relapse.checks.LLMJudge` asking the model that
``python -m llama_cpp.server`` serves (the bundled Gemma 3 270M, see
``benchmarks/judge_ragtruth.py``, which starts it on loopback) through the
``openai`` client; the client's Chat Completion is the judge's reply, so its
tokens are the judge's usage. ``default_then_judge`` is the cascade: the
default check first, the judge on what it passed; ``default_and_judge_all``
the same stages in mode ``"all"``, to measure both in one run. Point it elsewhere with
``RELAPSE_JUDGE_BASE_URL`` and ``RELAPSE_JUDGE_MODEL``::

    RELAPSE_JUDGE_BASE_URL=http://127.0.0.1:8765/v1 python -m relapse.cli eval \\
        ../shared/data/ragtruth-sample/ragtruth_sample.jsonl \\
        --check 'default > benchmarks.judge_local:judge'
"""

from __future__ import annotations

import os

import openai

from relapse import default_grounding_check
from relapse.checks import LLMJudge, cascade

BASE_URL = os.environ.get("RELAPSE_JUDGE_BASE_URL", "http://127.0.0.1:8765/v1")
MODEL = os.environ.get("RELAPSE_JUDGE_MODEL", "gemma-3-270m")
#: Enough for the verdict and a claim or two; a small model left unbounded rambles.
MAX_TOKENS = int(os.environ.get("RELAPSE_JUDGE_MAX_TOKENS", "48"))

_client = openai.OpenAI(base_url=BASE_URL, api_key="unused", timeout=600.0, max_retries=0)


def ask(prompt: str) -> object:
    """One judge call at temperature 0: the server's Chat Completion (text and usage)."""
    return _client.chat.completions.create(
        model=MODEL,
        messages=[{"role": "user", "content": prompt}],
        temperature=0.0,
        max_tokens=MAX_TOKENS,
    )


judge = LLMJudge(ask, name="judge")
default_then_judge = cascade(default_grounding_check, judge)
#: Both stages on every answer: the judge's row is the judge alone, the
#: verdict is the escalate cascade's (a rejection by either), and the default
#: check's share of passes is the share the judge judges in mode "escalate".
default_and_judge_all = cascade(default_grounding_check, judge, mode="all")
