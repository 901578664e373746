"""
``relapse demo``: real questions, real passages, a real local model, the loop.

The bundled items are QA questions and their three MS MARCO passages from
RAGTruth (MIT; see ``relapse/data/README.md``). Each goes through
:func:`relapse.run` with :class:`relapse.llms.local.LocalModel`, and every
attempt's answer and findings are printed (a retry's with what it resolved
and introduced of the previous answer's failures, a grounded answer with
its citation markers when the check gave evidence), then a one-line summary.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Literal, Protocol, TextIO

import relapse
from relapse.evaluation._outcomes import ECHOED, RECOVERED_REFUSAL, outcome_of
from relapse.prompts import rejected_after

if TYPE_CHECKING:
    from opentelemetry import trace
    from opentelemetry.sdk.trace import ReadableSpan

__all__ = ["DemoItem", "DemoModel", "DemoSummary", "load_items", "run_demo"]

#: ``"demo"``: the 12 items ``relapse demo`` runs. ``"dev"``: all 76
#: distinct QA questions of the RAGTruth development sample, used to choose
#: the retry wording.
ItemSet = Literal["demo", "dev"]


class DemoModel(Protocol):
    """What the demo needs from a model: :class:`relapse.llms.local.LocalModel`'s shape."""

    def __call__(self, prompt: str) -> str:
        """Complete ``prompt``."""

    def build_prompt(self, question: str, chunk_texts: Sequence[str]) -> str:
        """Write the prompt for ``question`` over ``chunk_texts``."""


class StreamingDemoModel(DemoModel, Protocol):
    """What ``run_demo(stream=True)`` needs besides: :meth:`LocalModel.stream`'s shape."""

    def stream(self, prompt: str) -> Iterator[str]:
        """Complete ``prompt``, yielding the text piece by piece."""


@dataclass(frozen=True)
class DemoItem:
    """
    One bundled question.

    Attributes:
        id: RAGTruth's ``source_id`` of the question.
        question: The user's question, verbatim.
        passages: The retrieved passages, verbatim (three per question).
    """

    id: str
    question: str
    passages: tuple[str, ...]


@dataclass(frozen=True)
class DemoSummary:
    """
    What a demo run measured.

    Attributes:
        questions: Questions run.
        grounded_first_try: Questions whose first answer passed the check.
        grounded_final: Questions whose returned answer passed the check.
        llm_calls: LLM calls made in total.
        wall_time_s: Wall time of the whole run, in seconds (model loading
            included).
        recovered_refusals: Questions whose first answer failed and whose
            grounded final answer is a refusal ("The context does not
            say."): grounded, but not an answer.
        echoed: Questions whose returned answer is an echo (outcome
            ``echoed``): it copies the context, the question or the
            instructions back, whether or not the check passed it.
        echoed_grounded: Of ``echoed``, those whose first answer failed and
            whose echo passed the check; they are not counted as recovered.
    """

    questions: int
    grounded_first_try: int
    grounded_final: int
    llm_calls: int
    wall_time_s: float
    recovered_refusals: int = 0
    echoed: int = 0
    echoed_grounded: int = 0

    @property
    def recovered(self) -> int:
        """Questions grounded after a failed first answer, refusals included, echoes not."""
        return self.grounded_final - self.grounded_first_try - self.echoed_grounded

    @property
    def first_try_rate(self) -> float:
        """Share of questions grounded on the first call, 0.0 to 1.0."""
        return self.grounded_first_try / self.questions if self.questions else 0.0

    @property
    def final_rate(self) -> float:
        """Share of questions whose final answer is grounded, 0.0 to 1.0."""
        return self.grounded_final / self.questions if self.questions else 0.0

    @property
    def mean_iterations(self) -> float:
        """Mean LLM calls per question."""
        return self.llm_calls / self.questions if self.questions else 0.0

    def line(self) -> str:
        """
        The summary line ``relapse demo`` ends with.

        Returns:
            For example ``"summary: 12 questions, first-try grounded 0.83
            (10/12), final grounded 0.92 (11/12), recovered 1 (1 as a
            refusal), echoed 1, mean iterations 1.25, wall time 21.4 s"``.
        """
        return (
            f"summary: {self.questions} questions,"
            f" first-try grounded {self.first_try_rate:.2f}"
            f" ({self.grounded_first_try}/{self.questions}),"
            f" final grounded {self.final_rate:.2f} ({self.grounded_final}/{self.questions}),"
            f" recovered {self.recovered} ({self.recovered_refusals} as a refusal),"
            f" echoed {self.echoed},"
            f" mean iterations {self.mean_iterations:.2f},"
            f" wall time {self.wall_time_s:.1f} s"
        )


def load_items(which: ItemSet = "demo") -> list[DemoItem]:
    """
    Read a bundled item set.

    Args:
        which: ``"demo"`` (12 items) or ``"dev"`` (76 items).

    Returns:
        The items in file order.

    Raises:
        ValueError: ``which`` is neither ``"demo"`` nor ``"dev"``.
    """
    if which not in ("demo", "dev"):
        raise ValueError(f"which must be 'demo' or 'dev', got {which!r}")
    text = resources.files("relapse.data").joinpath(f"{which}.jsonl").read_text("utf-8")
    items = []
    for line in text.splitlines():
        if line.strip():
            record = json.loads(line)
            items.append(DemoItem(record["id"], record["question"], tuple(record["passages"])))
    return items


#: The attributes the text tree shows, in this order, when a span has them.
_TREE_ATTRIBUTES = (
    "relapse.outcome",
    "relapse.iterations",
    "relapse.iteration",
    "relapse.grounded",
    "relapse.findings.codes",
    "error.type",
)


def _describe(span: ReadableSpan) -> str:
    """One span as ``name  duration ms  key=value ...``."""
    attributes = span.attributes or {}
    duration_ms = ((span.end_time or 0) - (span.start_time or 0)) / 1e6
    shown = []
    for key in _TREE_ATTRIBUTES:
        if key not in attributes:
            continue
        value = attributes[key]
        # The SDK stores string arrays as tuples; print them as lists.
        if isinstance(value, tuple):
            value = "[" + ", ".join(map(str, value)) + "]"
        elif isinstance(value, bool):
            value = str(value).lower()
        shown.append(f"{key}={value}")
    return f"{span.name}  {duration_ms:.1f} ms  " + " ".join(shown)


def _span_tree(spans: Sequence[ReadableSpan]) -> list[str]:
    """Render finished spans as a tree drawn with box characters, parents first."""
    ids = {span.context.span_id for span in spans if span.context is not None}
    children: dict[int | None, list[ReadableSpan]] = {}
    for span in spans:
        parent = span.parent.span_id if span.parent is not None else None
        # A parent outside this capture (the caller's own span) counts as root.
        children.setdefault(parent if parent in ids else None, []).append(span)
    lines: list[str] = []

    def walk(parent: int | None, prefix: str, root: bool) -> None:
        ordered = sorted(children.get(parent, []), key=lambda s: s.start_time or 0)
        for index, span in enumerate(ordered):
            last = index == len(ordered) - 1
            branch = "" if root else ("└── " if last else "├── ")
            lines.append(f"  {prefix}{branch}{_describe(span)}")
            if span.context is not None:
                extension = "" if root else ("    " if last else "│   ")
                walk(span.context.span_id, prefix + extension, root=False)

    walk(None, "", root=True)
    return lines


def _streamed(
    item: DemoItem,
    model: StreamingDemoModel,
    max_iterations: int,
    provider: trace.TracerProvider | None,
    out: TextIO,
) -> relapse.RelapseResult:
    """One question with ``release="sentence"``: print the released text as it arrives."""
    loop = relapse.Loop(
        release="sentence",
        max_iterations=max_iterations,
        tracer_provider=provider,
    )

    @loop.grounded(chunks_arg="passages")
    def answer(question: str, passages: Sequence[str]) -> Iterator[str]:
        return model.stream(model.build_prompt(question, passages))

    began = time.perf_counter()
    first: float | None = None
    print("  answer: ", end="", file=out, flush=True)
    # A function returning a stream is typed as returning the relapse.GroundedStream.
    stream = answer(item.question, list(item.passages))
    with stream as pieces:
        for piece in pieces:
            if first is None:
                first = time.perf_counter() - began
            print(piece, end="", file=out, flush=True)
    print(file=out)
    when = "nothing shown" if first is None else f"first text after {first:.2f} s"
    print(f"  ({when})", file=out)
    return pieces.result


def run_demo(
    limit: int | None = None,
    max_iterations: int = 3,
    trace: bool = False,
    out: TextIO | None = None,
    *,
    model: DemoModel | None = None,
    stream: bool = False,
) -> DemoSummary:
    """
    Run the bundled demo items through :func:`relapse.run` on the local model.

    Prints, per question, the question, each attempt's answer and findings
    (code and failing spans) and the outcome; then :meth:`DemoSummary.line`.

    Args:
        limit: Run only the first ``limit`` items; all 12 when None.
        max_iterations: LLM calls allowed per question, at least 1.
        trace: After each question, print its span tree (span names,
            durations in milliseconds, ``relapse.findings.codes``) captured
            by an in-memory exporter on a private tracer provider; the global
            provider is never touched. Needs ``opentelemetry-sdk``.
        out: Where to print; ``sys.stdout`` as it is at call time when None
            (so a redirected or captured stdout is honoured).
        model: The model to use (anything with ``__call__(prompt)`` and
            ``build_prompt(question, chunk_texts)``, and ``stream(prompt)``
            with ``stream=True``); a new
            :class:`~relapse.llms.local.LocalModel` when None (loading it
            counts towards the wall time).
        stream: Stream each answer with ``release="sentence"``: the
            released text is printed as it passes the check, sentence by
            sentence; then, per attempt, what it released and what of it was
            rejected and never shown, with the findings.

    Returns:
        The :class:`DemoSummary`.

    Raises:
        relapse.llms.LocalModelUnavailable: the ``local`` extra is missing.
        ImportError: ``trace=True`` without ``opentelemetry-sdk``.
        ValueError: ``limit`` < 0 or ``max_iterations`` < 1.
        TypeError: ``stream=True`` with a model that has no ``stream``.
    """
    if limit is not None and limit < 0:
        raise ValueError(f"limit must be >= 0, got {limit}")
    if max_iterations < 1:
        raise ValueError(f"max_iterations must be >= 1 (it counts LLM calls), got {max_iterations}")
    if out is None:
        out = sys.stdout
    if stream and model is not None and not callable(getattr(model, "stream", None)):
        raise TypeError(
            "run_demo(stream=True) needs a model with stream(prompt) -> iterator of str,"
            f" got {type(model).__name__}"
        )
    started = time.monotonic()
    if model is None:
        from relapse.llms.local import RETRY_TEMPERATURE, LocalModel

        # Retries sample (a new seed each) instead of repeating a rejected
        # greedy answer byte for byte; benchmarks/loop_settings.py measured it.
        model = LocalModel(retry_temperature=RETRY_TEMPERATURE)
    provider = exporter = None
    if trace:
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import (
            InMemorySpanExporter,
        )

        exporter = InMemorySpanExporter()
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(exporter))

    items = load_items("demo")[:limit]
    first = final = calls = refusals = echoed = echoed_grounded = 0
    for number, item in enumerate(items, 1):
        print(f"[{number}/{len(items)}] {item.question}", file=out)
        if stream:
            result = _streamed(item, model, max_iterations, provider, out)  # type: ignore[arg-type]  # checked above
        else:
            result = relapse.run(
                item.question,
                item.passages,
                call_llm=model,
                build_prompt=model.build_prompt,
                max_iterations=max_iterations,
                tracer_provider=provider,
            )
        shown = ""  # release="sentence": what earlier attempts released
        for record in result.transcript:
            verdict = "grounded" if record.grounded else "NOT grounded"
            if stream:
                hidden = rejected_after(record.answer, shown + record.released)
                print(
                    f"  attempt {record.iteration} ({verdict}): shown {record.released!r}", file=out
                )
                if hidden:
                    print(f"    never shown: {hidden!r}", file=out)
                shown += record.released
            else:
                print(f"  attempt {record.iteration} ({verdict}): {record.answer}", file=out)
            for finding in record.findings:
                spans = ", ".join(repr(s) for s in finding.spans)
                print(f"    {finding.code} {spans}", file=out)
            # What the retry fixed of the previous answer's failures, and what it added.
            lineage = (("resolved", record.resolved), ("introduced", record.introduced))
            for kind, findings in lineage:
                for finding in findings:
                    spans = ", ".join(repr(s) for s in finding.spans)
                    print(f"    {kind} {finding.code} {spans}", file=out)
            if record.grounded and record.evidence:
                print(f"    cited: {relapse.cite(record.answer, record.evidence)}", file=out)
        outcome = outcome_of(result, item.question, item.passages)
        print(f"  outcome: {outcome}", file=out)
        if exporter is not None:
            print("  spans:", file=out)
            for line in _span_tree(exporter.get_finished_spans()):
                print(line, file=out)
            exporter.clear()
        first += result.transcript[0].grounded
        final += result.grounded
        calls += result.iterations
        refusals += outcome == RECOVERED_REFUSAL
        echoed += outcome == ECHOED
        echoed_grounded += (
            outcome == ECHOED and result.grounded and not result.transcript[0].grounded
        )
    if provider is not None:
        provider.shutdown()
    summary = DemoSummary(
        len(items),
        first,
        final,
        calls,
        time.monotonic() - started,
        refusals,
        echoed,
        echoed_grounded,
    )
    print(summary.line(), file=out)
    return summary
