"""
Judging many logged answers in worker processes: ``relapse eval --workers N --engine E``.

The records are cut into batches; each worker resolves the check from its
``--check`` text once (a check holding a model or a client need not pickle)
and judges its batches; the verdicts come back in record order and are
scored here, as :func:`relapse.evaluation.evaluate` scores them. Two
engines share the code: ``"process"`` (the default,
:mod:`multiprocessing`'s spawn pool) and ``"ray"`` (``ray.util.multiprocessing.Pool``,
the same interface on a Ray cluster: the one ``ray.init()`` connected to,
else a local one it starts; needs ``pip install 'relapse[ray]'``).
"""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Literal, get_args

from relapse._results import GroundingResult
from relapse.evaluation._data import AnnotatedRecord
from relapse.evaluation._resolve import resolve_check
from relapse.evaluation._score import Check, EvalReport, score_results

__all__ = ["ENGINES", "evaluate_batched"]

#: Where ``relapse eval --workers`` runs its workers.
Engine = Literal["process", "ray"]
ENGINES: tuple[str, ...] = get_args(Engine)

#: One record as a worker needs it: (question, passages, response).
Item = tuple[str, tuple[str, ...], str]

# The check of this worker process, resolved once by the pool's initializer.
# A failure to resolve it is kept and raised by the first batch, so the
# caller gets the real exception rather than a broken pool.
_worker_check: list[Check | Exception] = []


def _start_worker(spec: str) -> None:
    _worker_check.clear()
    try:
        _worker_check.append(resolve_check(spec))
    except Exception as error:
        _worker_check.append(error)


def judge_batch(batch: Sequence[Item]) -> list[tuple[GroundingResult, float]]:
    """
    Judge one batch in a worker: each verdict with the seconds the check took.

    Raises:
        Exception: what resolving the check raised (in the initializer), or
            what the check raises.
    """
    check = _worker_check[0]
    if isinstance(check, Exception):
        raise check
    out: list[tuple[GroundingResult, float]] = []
    for question, passages, response in batch:
        began = time.perf_counter()
        verdict = check(question, passages, response)
        out.append((verdict, time.perf_counter() - began))
    return out


def _pool(engine: Engine, workers: int, spec: str) -> Any:
    """A pool of ``workers`` processes that each resolved ``spec``."""
    if engine == "ray":
        try:
            from ray.util.multiprocessing import Pool
        except ImportError as error:
            raise ModuleNotFoundError(
                f"--engine ray needs Ray ({error}); install it with: pip install 'relapse[ray]'"
            ) from error
        return Pool(processes=workers, initializer=_start_worker, initargs=(spec,))
    context = multiprocessing.get_context("spawn")
    return context.Pool(workers, initializer=_start_worker, initargs=(spec,))


def _batches(records: Sequence[AnnotatedRecord], size: int) -> list[list[Item]]:
    items = [(r.question or "", tuple(r.passages), r.response) for r in records]
    return [items[start : start + size] for start in range(0, len(items), size)]


def evaluate_batched(
    records: Sequence[AnnotatedRecord],
    spec: str,
    *,
    workers: int = 2,
    engine: Engine = "process",
    batch_size: int = 8,
    name: str | None = None,
    progress: Callable[[], None] | None = None,
) -> EvalReport:
    """
    Run the check ``spec`` names over ``records`` in worker processes, in batches, and score.

    Args:
        records: From :func:`relapse.evaluation.load_annotated`.
        spec: The check, as ``--check`` takes it
            (:func:`relapse.evaluation.resolve_check`); each worker resolves
            it once, so it must be importable there (``default``, a
            ``module:attribute`` on the path).
        workers: Worker processes (>= 1).
        engine: ``"process"`` or ``"ray"``.
        batch_size: Records per task sent to a worker (>= 1): large enough
            that sending a task costs little next to judging it.
        name: The check's name in the report; defaults to ``spec``.
        progress: Called once after each record.

    Returns:
        The :class:`relapse.evaluation.EvalReport`, the same counts a
        one-process :func:`relapse.evaluation.evaluate` gives, with
        ``wall_s``, ``workers`` and ``engine`` set (throughput per core).

    Raises:
        ValueError: ``workers`` or ``batch_size`` below 1, ``engine``
            unknown; from :func:`relapse.evaluation.resolve_check` (checked
            here first, before any process starts).
        ModuleNotFoundError: ``engine="ray"`` without Ray installed.
        Exception: what the check raises in a worker, of its own type.
    """
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be an int >= 1, got {workers!r}")
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError(f"batch_size must be an int >= 1, got {batch_size!r}")
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(map(repr, ENGINES))}, got {engine!r}")
    resolve_check(spec)  # a bad spec fails here, named, not in every worker
    began = time.perf_counter()
    batches = _batches(records, batch_size)
    pool = _pool(engine, workers, spec)
    try:
        verdicts: Iterator[list[tuple[GroundingResult, float]]] = pool.imap(judge_batch, batches)

        def judged() -> Iterator[tuple[AnnotatedRecord, object, float]]:
            position = 0
            for batch in verdicts:
                for verdict, seconds in batch:
                    yield records[position], verdict, seconds
                    position += 1

        report = score_results(judged(), name=name or spec, progress=progress)
    finally:
        pool.terminate()
        pool.join()
    report.wall_s = time.perf_counter() - began
    report.workers = workers
    report.engine = engine
    return report
