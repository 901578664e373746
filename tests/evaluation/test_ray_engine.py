"""relapse eval --engine ray: the same report from a Ray pool, against a local ray.init()."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("ray", reason="the ray extra: pip install 'relapse[ray]'")
import ray

from helpers import SIX, STAGED, write
from relapse.evaluation import evaluate, evaluate_batched, load_annotated

TESTS = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    """A local Ray of 2 CPUs whose workers can import tests/helpers.py; shut down after."""
    path = os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={"env_vars": {"PYTHONPATH": path}},
    )
    try:
        yield
    finally:
        ray.shutdown()


def test_a_ray_pool_gives_the_same_report(tmp_path: Path, local_ray: None) -> None:
    """2 Ray workers, batches of 2: the counts, stages and tokens of the one-process run."""
    records = load_annotated(write(tmp_path, SIX))
    alone = evaluate(records, STAGED).to_dict()
    pooled = evaluate_batched(records, "helpers:STAGED", workers=2, engine="ray", batch_size=2)
    batched = pooled.to_dict()
    for key in ("responses", "by_code", "input_tokens", "output_tokens", "tokens_per_answer"):
        assert alone[key] == batched[key]
    for name in ("flag_42_and_maybe", "judge"):
        for field in ("judged", "flagged_hallucinated", "flagged_clean", "input_tokens"):
            assert alone["stages"][name][field] == batched["stages"][name][field]
    assert (2, "ray") == (pooled.workers, pooled.engine)
