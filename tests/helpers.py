"""
Shared test pieces: checks with known verdicts, so loop tests do not depend on
the default check, and assertions on iteration spans read back from a backend.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from opentelemetry.sdk._logs import LoggerProvider, ReadableLogRecord
from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter

import relapse
from relapse import GroundingFinding, GroundingResult
from relapse.checks import LLMJudge, cascade


def forbid(*words: str) -> object:
    """A check that fails any answer containing one of ``words`` (FG001, the word as span)."""

    def check(query: str, chunks: Sequence[str], answer: str) -> GroundingResult:
        bad = tuple(w for w in words if w in answer)
        if not bad:
            return GroundingResult(ok=True)
        return GroundingResult(
            ok=False,
            findings=(GroundingFinding("FG001", f"not in chunks: {list(bad)}", bad),),
        )

    check.name = "forbid"  # type: ignore[attr-defined]
    return check


def assert_rejected_then_grounded(one: Mapping[str, Any], two: Mapping[str, Any]) -> None:
    """
    Assert the attributes of a call's two iteration spans, however the backend decoded them.

    The first iteration was rejected with FG001/FG002 findings, the second was
    grounded with none (an empty code list may come back as ``[]`` or ``()``).
    """
    assert (1, False, 2, True) == (
        one["relapse.iteration"],
        one["relapse.grounded"],
        two["relapse.iteration"],
        two["relapse.grounded"],
    )
    assert one["relapse.findings.codes"]
    assert set(one["relapse.findings.codes"]) <= {"FG001", "FG002"}
    assert one["relapse.findings.count"] >= 1
    assert ((), 0) == (tuple(two["relapse.findings.codes"]), two["relapse.findings.count"])


def decorated(llm: Any, **options: Any) -> Any:
    """``answer(query, docs)`` returning ``llm(query)``, decorated with ``options``.

    The check defaults to ``forbid("WRONG")``.
    """
    options.setdefault("grounding_check", forbid("WRONG"))

    @relapse.grounded(chunks_arg="docs", **options)
    def answer(query: str, docs: Any) -> str:
        return llm(query)  # type: ignore[no-any-return]

    return answer


def in_provider_span(llm: Any, provider: Any, name: str) -> Any:
    """``llm`` called inside a span ``name``, as a provider's own instrumentation would start."""
    from opentelemetry import trace

    tracer = trace.get_tracer("provider", tracer_provider=provider)

    def call(query: str) -> Any:
        with tracer.start_as_current_span(name):
            return llm(query)

    return call


# Module-level decorated functions, so that they pickle by reference and can
# be sent to a process pool (tests/decorator/test_pickling.py).


@relapse.grounded(chunks_arg="docs", grounding_check=forbid("WRONG"))
def echo_answer(query: str, docs: list[str]) -> str:
    """Answer with the query itself: grounded unless the query holds WRONG."""
    return f"echo {query}"


@relapse.grounded(chunks_arg="docs", grounding_check=forbid("WRONG"), on_exhausted="raise")
def never_grounded(query: str, docs: list[str]) -> str:
    """Always hallucinate: raises relapse.NotGroundedError after three calls."""
    return "WRONG"


def flag_42_and_maybe(query: str, chunks: Sequence[str], answer: str) -> GroundingResult:
    """
    A check for scoring tests: each "42" is an FG001 span with offsets; "maybe"
    anywhere adds one LJ001 finding without offsets.
    """
    findings = []
    starts = [i for i in range(len(answer)) if answer.startswith("42", i)]
    if starts:
        findings.append(
            GroundingFinding(
                "FG001",
                "42 is not in the chunks",
                tuple("42" for _ in starts),
                tuple((i, i + 2) for i in starts),
            )
        )
    if "maybe" in answer:
        findings.append(GroundingFinding("LJ001", "the judge doubts it"))
    return GroundingResult(ok=not findings, findings=tuple(findings))


def judge_1999_or_blue(prompt: str) -> dict[str, Any]:
    """
    A scripted judge for cascade scoring tests: rejects an answer holding
    "1999" or "blue", as an OpenAI Chat Completion (JSON form) with usage
    100 prompt + 4 completion tokens.
    """
    answer = prompt.rsplit('Answer to check: "', 1)[1]
    verdict = "UNSUPPORTED" if "1999" in answer or "blue" in answer else "SUPPORTED"
    return {
        "choices": [{"message": {"role": "assistant", "content": verdict}}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 4},
    }


#: flag_42_and_maybe, then (on what it passed) judge_1999_or_blue: on SIX
#: the judge judges r2, r5 and r6, and rejects r2 (clean) and r5 (hallucinated).
STAGED = cascade(flag_42_and_maybe, LLMJudge(judge_1999_or_blue, name="judge"))


#: An answer with a number no test passage holds.
INVENTED = "It is 987654."


class LoopFake:
    """
    A loop-evaluation model whose answers depend on the record's first passage.

    ``build_prompt`` writes the first passage's key and ``F`` (first call) or
    ``R`` (a retry, whose query quotes the invented number), padded to 100 or
    150 characters, so every retry prompt is 1.5 times its first prompt. Each
    call counts 10 prompt tokens and 2 completion tokens.

    Keys: ``first`` answers plainly; ``recovers`` invents then answers;
    ``refuses`` invents then refuses; ``stubborn`` always invents;
    ``echoes`` invents then repeats the retry query's instruction.
    """

    def __init__(self) -> None:
        self.prompt_tokens = 0
        self.completion_tokens = 0

    @staticmethod
    def build_prompt(question: str, chunk_texts: Sequence[str]) -> str:
        kind = "R" if "987654" in question else "F"
        return f"{chunk_texts[0]}|{kind}".ljust(100 if kind == "F" else 150, ".")

    def __call__(self, prompt: str) -> str:
        self.prompt_tokens += 10
        self.completion_tokens += 2
        key, kind = prompt.rstrip(".").split("|")
        if key == "first" or (kind == "R" and key == "recovers"):
            return "Fine."
        if kind == "R" and key == "refuses":
            return "The context does not say."
        if kind == "R" and key == "echoes":
            return "Answer using only the context."
        return INVENTED


def record(response: str, spans: list[str], task_type: str = "QA", **extra: Any) -> dict[str, Any]:
    """One RAGTruth-format record whose spans are the first occurrences of ``spans``."""
    hallucinated = []
    for text in spans:
        start = response.index(text)
        hallucinated.append({"text": text, "start": start, "end": start + len(text)})
    return {
        "id": extra.pop("id", response[:8]),
        "task_type": task_type,
        "question": extra.pop("question", "What?"),
        "passages": extra.pop("passages", ["A passage."]),
        "response": response,
        "hallucinated_spans": hallucinated,
        **extra,
    }


def write(tmp_path: Path, lines: list[Any], name: str = "data.jsonl") -> Path:
    """Write each item as one JSON line (strings are written verbatim)."""
    path = tmp_path / name
    path.write_text(
        "".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines),
        encoding="utf-8",
    )
    return path


#: Six records, scored with flag_42_and_maybe (FG001 on "42" with
#: offsets, LJ001 on "maybe" without):
#: 1 QA hallucinated "42", flagged at it         -> TP, span hit, numeric caught
#: 2 QA clean, not flagged                        -> TN
#: 3 QA clean, "42" flagged                       -> FP, span miss
#: 4 Summary hallucinated "Paris", LJ001 only     -> TP, unlocated, not numeric
#: 5 Summary hallucinated "1999", not flagged     -> FN, numeric missed
#: 6 QA hallucinated list item "1. Mix well."     -> FN, not numeric (list marker)
SIX = [
    record("The answer is 42 units.", ["42"], id="r1"),
    record("It is blue.", [], id="r2"),
    record("It costs 42 dollars.", [], id="r3"),
    record("Paris is maybe in France.", ["Paris"], "Summary", id="r4", question=None),
    record("Founded in 1999 by Ann.", ["1999"], "Summary", id="r5", question=None),
    record("Steps:\n1. Mix well.", ["1. Mix well."], id="r6"),
]


def refuse_to_load() -> LoopFake:
    """A model factory that fails as a missing extra does."""
    raise ImportError("the model's package is not installed")


@dataclass
class CapturedLogs:
    """The provider to pass as ``logger_provider=`` and the log records it exported."""

    provider: LoggerProvider
    exporter: InMemoryLogRecordExporter

    @property
    def records(self) -> tuple[ReadableLogRecord, ...]:
        """Every log record exported, in order (each ``.log_record`` holds its fields)."""
        return tuple(self.exporter.get_finished_logs())
