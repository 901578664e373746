"""
Pluggable grounding checks beyond the default one.

* :class:`LLMJudge`: asks a judge model whether the answer is supported.
* :func:`all_of`: runs several checks; the answer passes when all pass.
* :func:`cascade`: runs checks as stages, cheapest first, a costlier stage
  only for answers the cheaper ones passed; :func:`stage` sets a stage's
  cost, score threshold and warning band, and how it judges a stream.

The contract is three ``typing.Protocol``s: any callable
``check(query, chunks, answer) -> GroundingResult`` is a :class:`Check`; a
:class:`PreparableCheck` also offers ``prepare(query, chunks)`` returning a
:class:`BoundCheck` with ``check(answer)``, so work on the chunks is done
once per call instead of once per iteration (the default check does).
Checks built here (and the default one) compose with ``&``:
``default_grounding_check & LLMJudge(judge)`` is ``all_of(...)`` of both.
:func:`incremental` judges a streamed answer sentence by sentence
(``release="sentence"``), for a check that :func:`can_judge_incrementally`.
A check says how its verdicts read a growing answer by supplying a
:class:`StreamReader` (:class:`ReadsItsStream`: a ``stream_reader()``
method, as the default check does); :func:`reader_of` gives the one the
incremental check uses.
"""

from __future__ import annotations

from relapse.checks._cascade import MODES, Cascade, cascade
from relapse.checks._contract import (
    BoundCheck,
    Check,
    CheckOperators,
    ClaimSpans,
    PreparableCheck,
    ReadsItsStream,
    StreamReader,
    StreamWindow,
    WindowVerdict,
    all_of,
    can_judge_incrementally,
)
from relapse.checks._incremental import IncrementalCheck, StreamProgress, incremental, reader_of
from relapse.checks._judge import JUDGE_PROMPT, LLMJudge, locate, parse_verdict
from relapse.checks._stages import SENTENCE_MODES, Stage, stage

__all__ = [
    "JUDGE_PROMPT",
    "MODES",
    "SENTENCE_MODES",
    "BoundCheck",
    "Cascade",
    "Check",
    "CheckOperators",
    "ClaimSpans",
    "IncrementalCheck",
    "LLMJudge",
    "PreparableCheck",
    "ReadsItsStream",
    "Stage",
    "StreamProgress",
    "StreamReader",
    "StreamWindow",
    "WindowVerdict",
    "all_of",
    "can_judge_incrementally",
    "cascade",
    "incremental",
    "locate",
    "parse_verdict",
    "reader_of",
    "stage",
]
