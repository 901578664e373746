"""
atheris fuzz target: the default check, the prompt builders and argument binding.

Run (libFuzzer flags pass through)::

    .venv/bin/python fuzz/fuzz_check.py -max_total_time=600 -rss_limit_mb=4096

libFuzzer prints ``Done N runs in S second(s)`` at the end: N is the number of
inputs tried. Any exception other than the documented ``TypeError`` /
``ValueError`` from the API (or a broken prompt invariant, as
``AssertionError``) is a crash and is saved as ``crash-<sha1>``.
"""

from __future__ import annotations

import sys
from typing import Any

import atheris

with atheris.instrument_imports():
    import relapse
    from relapse.prompts import (
        compact_retry,
        context_prompt,
        inline,
        parse_context_prompt,
        spans_only_retry,
    )
    from relapse.testing import attempt_after


#: Digit runs up to this long are spliced into the text: longer than the
#: 4,300 digits ``int()`` reads from a string, which short fuzz inputs never
#: reach on their own.
LONG_DIGITS = 6_000
#: What may sit around a long digit run: the scanner reads each differently.
_GLUE = ("", " ", "/", ":", "May ", "Sept. ", ",", ".", "-", "$", "\uff11", " 1/", "th")


def _text(data: atheris.FuzzedDataProvider, limit: int) -> str:
    # Unicode with surrogates: ConsumeUnicode yields any code point.
    text = str(data.ConsumeUnicode(data.ConsumeIntInRange(0, limit)))
    for _ in range(data.ConsumeIntInRange(0, 2)):
        # A long run of one digit between two glue strings, at a fuzzed place.
        digit = "0123456789\u0661"[data.ConsumeIntInRange(0, 10)]
        run = digit * data.ConsumeIntInRange(0, LONG_DIGITS)
        glue = _GLUE[data.ConsumeIntInRange(0, len(_GLUE) - 1)]
        after = _GLUE[data.ConsumeIntInRange(0, len(_GLUE) - 1)]
        at = data.ConsumeIntInRange(0, len(text))
        text = text[:at] + glue + run + after + text[at:]
    return text


def _check_and_prompts(data: atheris.FuzzedDataProvider) -> None:
    query = _text(data, 64)
    chunks = [_text(data, 256) for _ in range(data.ConsumeIntInRange(0, 6))]
    answer = _text(data, 512)
    verdict = relapse.default_grounding_check(query, chunks, answer)
    assert isinstance(verdict, relapse.GroundingResult)
    assert verdict.ok == (not verdict.findings)
    for finding in verdict.findings:
        for span in finding.spans:
            assert span in answer, (span, answer)
    sections = parse_context_prompt(context_prompt(query, chunks))
    assert sections.question == inline(query, keep_quotes=True)
    assert sections.context == "\n\n".join(f"[chunk {i}] {c}" for i, c in enumerate(chunks, 1))
    for rewrite in (compact_retry, spans_only_retry):
        retry = rewrite(attempt_after(query, answer, verdict.findings))
        assert len(retry.splitlines()) <= 1, retry


def _binding(data: atheris.FuzzedDataProvider) -> None:
    seen: list[tuple[Any, Any]] = []
    fail_first = data.ConsumeBool()

    def check(q: str, c: Any, a: str) -> relapse.GroundingResult:
        return relapse.GroundingResult(a != "bad")

    @relapse.grounded(chunks_arg="docs", grounding_check=check, max_iterations=2)
    def answer(query: str, docs: Any, extra: int = 0, *, flag: bool = False) -> str:
        seen.append((query, docs))
        return "bad" if fail_first and len(seen) == 1 else "good"

    query: Any = _text(data, 32) if data.ConsumeBool() else data.ConsumeInt(2)
    kind = data.ConsumeIntInRange(0, 4)
    docs: Any = [
        [_text(data, 16)],
        ({"text": _text(data, 16)} for _ in range(2)),
        _text(data, 8),
        None,
        [{"nottext": 1}],
    ][kind]
    by_keyword = data.ConsumeBool()
    try:
        result = answer.run(query, docs=docs) if by_keyword else answer.run(query, docs)
    except TypeError:
        # Documented: a non-str query, or chunks of the wrong shape.
        assert kind >= 2 or not isinstance(query, str)
        return
    assert result.iterations == (2 if fail_first else 1)
    assert seen[0][0] is query
    assert all(d is seen[0][1] for _, d in seen)


def test_one_input(raw: bytes) -> None:
    """Fuzz entry point: pick a target by the first byte, feed it the rest."""
    data = atheris.FuzzedDataProvider(raw)
    if data.ConsumeBool():
        _check_and_prompts(data)
    else:
        _binding(data)


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
