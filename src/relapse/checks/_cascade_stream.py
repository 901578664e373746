"""
A cascade judging a streamed answer (``release="sentence"``): :class:`CascadeStream`.

Each stage judges the stream as its ``sentence`` setting says
(:func:`relapse.checks.stage`):

* ``"prefix"`` stages (the default check) judge the growing text together,
  through one :class:`relapse.checks.IncrementalCheck`, as a lone default
  check would;
* ``"sentence"`` stages judge each sentence on its own, once the prefix
  stages released it (so only sentences every cheaper stage passed cost a
  model call), and the sentence is released only when they pass it too. A
  sentence's verdict never changes after that: the stage's verdict on the
  whole answer is the union of its verdicts on the sentences, so nothing it
  rejects is ever released;
* ``"end"`` stages judge the whole answer once the stream ended, and
  nothing is released before: the cheaper stages may still stop a bad
  stream at its first failing sentence.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from relapse._read.sentences import sentence_ends, spans_between
from relapse._results import GroundingFinding, GroundingResult, StageRun, total_usage
from relapse.checks._contract import Check, Verdict, all_of, prepare
from relapse.checks._incremental import IncrementalCheck, StreamProgress, incremental
from relapse.checks._stages import Stage, combine, ran, skipped, verified

__all__ = ["CascadeProgress", "CascadeStream"]


def _passes(query: str, chunks: Sequence[str], answer: str) -> GroundingResult:
    """A check that passes everything: the sentence cutter of a cascade without prefix stages."""
    return GroundingResult(ok=True)


_passes.incremental = True  # type: ignore[attr-defined]


@dataclass(frozen=True)
class CascadeProgress(StreamProgress):
    """
    A :class:`relapse.checks.StreamProgress` that also carries the passing verdict.

    Attributes:
        passed: After :meth:`CascadeStream.finish` on an answer every stage
            passed, the cascade's verdict on it (warnings, evidence, every
            stage's run); the loop records it instead of judging the whole
            answer again (which would pay a judge twice). None otherwise.
    """

    passed: GroundingResult | None = None


def synchronous(verdict: object, name: str) -> object:
    """
    ``verdict`` when it is no awaitable; a stream is judged between two pieces, synchronously.

    Raises:
        TypeError: the stage ``name`` answered with an awaitable (closed first,
            so Python does not warn that it was never awaited).
    """
    if isinstance(verdict, GroundingResult) or not hasattr(verdict, "__await__"):
        return verdict
    close = getattr(verdict, "close", None)
    if callable(close):
        close()
    raise TypeError(f"the cascade stage {name!r} is async; release='sentence' needs a sync check")


def _shifted(finding: GroundingFinding, start: int) -> GroundingFinding:
    """``finding`` of a sentence judged alone, its offsets moved into the whole text."""
    if not finding.offsets or not start:
        return finding
    return replace(finding, offsets=tuple((a + start, b + start) for a, b in finding.offsets))


@dataclass
class _Tally:
    """One ``"sentence"`` stage's account over the sentences it judged."""

    stage: Stage
    bound: Callable[[str], Verdict]
    seconds: float = 0.0
    results: tuple[GroundingResult, ...] = ()

    def judge(self, text: str, start: int, end: int) -> GroundingResult:
        """Judge the sentence ``text[start:end]`` alone; offsets in ``text``."""
        began = time.perf_counter()
        verdict = synchronous(self.bound(text[start:end]), self.stage.name)
        graded = self.stage.graded(verified(verdict, self.stage.name))
        self.seconds += time.perf_counter() - began
        result = replace(graded, findings=tuple(_shifted(f, start) for f in graded.findings))
        self.results += (result,)
        return result

    def run(self) -> tuple[StageRun, GroundingResult]:
        """The stage's run and verdict over every sentence it judged."""
        results = self.results
        verdict = GroundingResult(
            all(r.ok for r in results),
            tuple(f for r in results for f in r.findings),
            tuple(e for r in results for e in r.evidence),
            total_usage(r.usage for r in results),
        )
        return ran(self.stage, verdict, self.seconds), verdict


class CascadeStream:
    """
    One streamed answer judged by a cascade, sentence by sentence.

    Fed like :class:`relapse.checks.IncrementalCheck` (:meth:`feed` each
    piece's new text, :meth:`finish` at the end); not thread-safe, not
    reusable. The promise, for every stage: no claim a stage rejects is in
    the released text (``releasable``), and after :meth:`finish` the answer
    passed iff every stage passed it. The stream stops at the first failing
    sentence whatever the cascade's mode.

    Args:
        stages: The cascade's stages, in order.
        query: The user's question.
        chunks: The chunk texts.

    Attributes:
        sentence_checks: Calls made to ``"sentence"`` stages (one per stage
            and sentence judged).

    Raises:
        TypeError: from a stage's ``prepare`` (a bad ``query`` or ``chunks``).
    """

    def __init__(self, stages: Sequence[Stage], query: str, chunks: Sequence[str]) -> None:
        self._stages = tuple(stages)
        self._query = query
        self._chunks = chunks
        prefix = [s for s in stages if s.sentence == "prefix"]
        whole: Check = (
            _passes
            if not prefix
            else prefix[0].check
            if len(prefix) == 1
            else all_of(*(s.check for s in prefix))
        )
        # An IncrementalCheck, or (a cascade as a stage) a CascadeStream.
        inner: IncrementalCheck | CascadeStream | None = incremental(whole, query, chunks)
        if inner is None:
            raise TypeError(
                f"the cascade's prefix stages ({', '.join(s.name for s in prefix)}) cannot"
                " judge a prefix of this call; give them sentence='sentence' or 'end'"
            )
        self._inner = inner
        self._prefix_s = 0.0
        self._tallies = [
            _Tally(s, prepare(s.check, query, chunks)) for s in stages if s.sentence == "sentence"
        ]
        self._end = [s for s in stages if s.sentence == "end"]
        #: Stages bound for the whole answer at the end, each once (by id).
        self._whole: dict[int, Callable[[str], Verdict]] = {}
        #: Where the "sentence" stages have judged up to (a sentence end).
        self._judged = 0
        self._failed: GroundingResult | None = None
        self._failing: tuple[int, int] | None = None
        self._progress = CascadeProgress(0, None, None, 0, 0)
        self.sentence_checks = 0

    @property
    def text(self) -> str:
        """The text fed so far."""
        return self._inner.text

    def feed(self, text: str) -> CascadeProgress:
        """
        Add the new characters of the stream and judge what they complete.

        Raises:
            TypeError: ``text`` is not a ``str``, or a stage returned no
                :class:`relapse.GroundingResult` (or an awaitable).
            RuntimeError: a sentence already failed, or :meth:`finish` was called.
        """
        began = time.perf_counter()
        progress = self._inner.feed(text)
        self._prefix_s += time.perf_counter() - began
        return self._advance(progress, final=False)

    def finish(self) -> CascadeProgress:
        """
        End of the stream: judge what is left, and the ``"end"`` stages on the whole answer.

        Returns:
            The final progress; ``failed`` the verdict when a stage rejected,
            else ``passed`` the cascade's verdict and ``releasable`` the
            whole text.
        """
        if self._failed is not None:
            return self._progress
        began = time.perf_counter()
        progress = self._inner.finish()
        self._prefix_s += time.perf_counter() - began
        return self._advance(progress, final=True)

    def _advance(self, progress: StreamProgress, *, final: bool) -> CascadeProgress:
        text = self._inner.text
        if progress.failed is not None:
            # A prefix stage rejected: nothing after it runs.
            runs = [
                StageRun(s.name, True, False, self._prefix_s, None, progress.failed.findings)
                if s.sentence == "prefix"
                else StageRun(s.name, ran=False)
                for s in self._stages
            ]
            verdict = replace(progress.failed, stages=tuple(runs))
            return self._stop(progress, verdict, progress.failing)
        upto = progress.releasable
        if self._tallies and upto > self._judged:
            failing = self._judge_sentences(text, self._judged, upto)
            if failing is not None:
                return self._stop(progress, self._sentence_failure(), failing)
            self._judged = upto
        releasable = upto if self._tallies else progress.releasable
        if not final:
            self._progress = CascadeProgress(
                0 if self._end else releasable,
                None,
                None,
                progress.sentences_checked,
                0 if self._end else progress.sentences_released,
            )
            return self._progress
        return self._finished(progress, text)

    def _judge_sentences(self, text: str, start: int, end: int) -> tuple[int, int] | None:
        """Judge the sentences in ``text[start:end]`` with each ``"sentence"`` stage in turn."""
        segment = text[start:end]
        ends, _ = sentence_ends(segment, 0, final=True)
        for low, high in spans_between(segment, 0, [*ends, len(segment)]):
            for tally in self._tallies:
                self.sentence_checks += 1
                if not tally.judge(text, start + low, start + high).ok:
                    return start + low, start + high
        return None

    def _sentence_failure(self) -> GroundingResult:
        """The verdict when a ``"sentence"`` stage rejected a sentence."""
        runs: list[StageRun] = []
        results: list[GroundingResult] = []
        tallies = {id(t.stage): t for t in self._tallies}
        stopped = False
        for current in self._stages:
            tally = tallies.get(id(current))
            if current.sentence == "prefix":
                runs.append(StageRun(current.name, True, True, self._prefix_s))
            elif tally is not None and tally.results and not stopped:
                run, verdict = tally.run()
                runs.append(run)
                results.append(verdict)
                stopped = not verdict.ok
            else:
                runs.append(StageRun(current.name, ran=False))
        return combine(runs, results)

    def _finished(self, progress: StreamProgress, text: str) -> CascadeProgress:
        """Every prefix and sentence stage passed the whole text: run the end stages."""
        runs: list[StageRun] = []
        results: list[GroundingResult] = []
        tallies = {id(t.stage): t for t in self._tallies}
        for current in self._stages:
            tally = tallies.get(id(current))
            if current.sentence == "prefix":
                began = time.perf_counter()
                verdict = current.graded(verified(self._judge_whole(current, text), current.name))
                runs.append(ran(current, verdict, self._prefix_s + time.perf_counter() - began))
            elif tally is not None:
                run, verdict = tally.run()
                runs.append(run)
            else:
                if not all(r.ok for r in results):
                    runs.extend(skipped([current]))
                    continue
                began = time.perf_counter()
                verdict = current.graded(verified(self._judge_whole(current, text), current.name))
                runs.append(ran(current, verdict, time.perf_counter() - began))
            results.append(verdict)
        verdict = combine(runs, results)
        if not verdict.ok:
            failing = (0, len(text)) if self._end else (progress.releasable, len(text))
            return self._stop(progress, verdict, failing)
        self._progress = CascadeProgress(
            len(text), None, None, progress.sentences_checked, progress.sentences_released, verdict
        )
        return self._progress

    def _judge_whole(self, current: Stage, text: str) -> object:
        """``current``'s check on the whole ``text``: a synchronous verdict, or a TypeError."""
        bound = self._whole.get(id(current))
        if bound is None:
            bound = self._whole[id(current)] = prepare(current.check, self._query, self._chunks)
        return synchronous(bound(text), current.name)

    def _stop(
        self,
        progress: StreamProgress,
        verdict: GroundingResult,
        failing: tuple[int, int] | None,
    ) -> CascadeProgress:
        self._failed = verdict
        self._failing = failing
        releasable = 0 if self._end else min(progress.releasable, self._judged or 0)
        if not self._tallies:
            releasable = 0 if self._end else progress.releasable
        if failing is not None:
            releasable = min(releasable, failing[0])
        self._progress = CascadeProgress(
            releasable, verdict, failing, progress.sentences_checked, progress.sentences_released
        )
        return self._progress
