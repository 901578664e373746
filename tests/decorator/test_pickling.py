"""Decorated functions and their results pickle, as multiprocessing and caches need."""

from __future__ import annotations

import copy
import multiprocessing
import pickle
from concurrent.futures import ProcessPoolExecutor

import pytest

import relapse
from contract_cases import DOCS
from helpers import decorated, echo_answer, never_grounded
from relapse.testing import ScriptedLLM


def _raise_not_grounded(query: str) -> str:
    return never_grounded(query, DOCS)


# Found by hostile testing of the loop's contract.
class TestPickling:
    def test_not_grounded_error_round_trips(self) -> None:
        """NotGroundedError unpickles with its result and message."""
        with pytest.raises(relapse.NotGroundedError) as caught:
            never_grounded("q", DOCS)
        again = pickle.loads(pickle.dumps(caught.value))
        assert (str(caught.value), 3, "exhausted") == (
            str(again),
            again.result.iterations,
            again.result.outcome,
        )

    @pytest.mark.skipif(
        "fork" not in multiprocessing.get_all_start_methods(), reason="needs the fork start method"
    )
    def test_worker_raising_it_does_not_break_the_pool(self) -> None:
        """A process-pool worker raising NotGroundedError hands it back; the pool lives on."""
        # fork: the worker inherits the test modules, so functions unpickle by name.
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(1, mp_context=context) as pool:
            error = pool.submit(_raise_not_grounded, "q").exception(timeout=60)
            assert isinstance(error, relapse.NotGroundedError)
            assert 3 == error.result.iterations
            assert "echo still alive" == pool.submit(echo_answer, "still alive", DOCS).result(60)

    def test_decorated_module_function_pickles_and_copies(self) -> None:
        """A decorated module-level function pickles by reference; copies are itself."""
        assert pickle.loads(pickle.dumps(echo_answer)) is echo_answer
        assert copy.copy(echo_answer) is echo_answer
        assert copy.deepcopy(echo_answer) is echo_answer
        assert "echo q" == pickle.loads(pickle.dumps(echo_answer))("q", DOCS)

    def test_decorated_closure_says_why_it_cannot_pickle(self) -> None:
        """A closure cannot pickle, as with plain functions, and the error says why."""
        with pytest.raises(pickle.PicklingError, match="module level"):
            pickle.dumps(decorated(ScriptedLLM(["x"])))
