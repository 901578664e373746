"""
Measuring a grounding check, and the loop, on annotated data.

``relapse eval`` and ``benchmarks/eval_ragtruth.py`` both use this package:

* :func:`load_annotated` reads answers with annotated hallucinated spans (the
  RAGTruth sample's JSON Lines format) and refuses a bad line by number;
* :func:`evaluate` runs a check over them and returns an :class:`EvalReport`:
  response-level precision, recall, F1 and false-alarm rate (overall, per
  task type, per finding code), span precision, numeric-span recall and
  milliseconds per check; the check's tokens per answer, and for a
  :func:`relapse.checks.cascade` what each stage judged, caught and cost;
* :func:`evaluate_batched` does the same in worker processes, in batches
  (a model-based stage over many logged answers), on a local process pool
  or a Ray pool, and reports the throughput per core;
* :func:`evaluate_loop` runs a :class:`relapse.Loop` on a real model over each
  distinct question and returns a :class:`LoopReport` (with
  ``release="sentence"``, every call streamed, the time to the first
  released piece and :func:`saved_output_tokens_estimate` too).

>>> from relapse.evaluation import ResponseCounts
>>> counts = ResponseCounts()
>>> counts.add(hallucinated=True, flagged=True)
>>> counts.add(hallucinated=False, flagged=True)
>>> counts.precision, counts.recall, counts.false_alarm_rate
(0.5, 1.0, 1.0)
"""

from __future__ import annotations

from relapse.evaluation._batch import ENGINES, evaluate_batched
from relapse.evaluation._data import (
    AnnotatedRecord,
    DatasetError,
    QuestionRecord,
    load_annotated,
    load_questions,
    select_split,
)
from relapse.evaluation._loop_eval import (
    OUTCOMES,
    LoopModel,
    LoopReport,
    QuestionRun,
    distinct_questions,
    evaluate_loop,
    format_loop_report,
    saved_output_tokens_estimate,
)
from relapse.evaluation._report import format_report, plot_report
from relapse.evaluation._resolve import resolve_check
from relapse.evaluation._score import (
    CodeCounts,
    EvalReport,
    Miss,
    ResponseCounts,
    StageCounts,
    evaluate,
    score_results,
)
from relapse.evaluation._spans import is_numeric_span, overlaps

__all__ = [
    "ENGINES",
    "OUTCOMES",
    "AnnotatedRecord",
    "CodeCounts",
    "DatasetError",
    "EvalReport",
    "LoopModel",
    "LoopReport",
    "Miss",
    "QuestionRecord",
    "QuestionRun",
    "ResponseCounts",
    "StageCounts",
    "distinct_questions",
    "evaluate",
    "evaluate_batched",
    "evaluate_loop",
    "format_loop_report",
    "format_report",
    "is_numeric_span",
    "load_annotated",
    "load_questions",
    "overlaps",
    "plot_report",
    "resolve_check",
    "saved_output_tokens_estimate",
    "score_results",
    "select_split",
]
