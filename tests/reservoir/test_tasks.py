from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.stats import ortho_group

from wirelab.errors import UsageError
from wirelab.reservoir.dynamics import Units
from wirelab.reservoir.tasks import (
    Setup,
    decision,
    mackey_glass_task,
    memory_capacity,
    narma,
    run_task,
)


def test_linear_orthogonal_reservoir_memory_capacity_near_its_size() -> None:
    # theory (Jaeger 2001; White, Lee & Sompolinsky 2004): MC <= N, close to N for a linear
    # network with an orthogonal matrix scaled just below 1
    n = 20
    q = sp.csr_matrix(ortho_group.rvs(n, random_state=0))
    setup = Setup([q], np.array([0.95]), np.arange(n), np.arange(n), units=Units("linear"), seed=1)
    mc = memory_capacity(setup, k_max=60, train=2000, test=1000).scores[0, 0]
    assert 0.9 * n < mc < n + 0.5
    # a tanh network of the same size remembers less, and MC per delay is within [0, 1]
    res = memory_capacity(
        Setup([q], np.array([0.95]), np.arange(n), np.arange(n), seed=1), k_max=60
    )
    assert res.scores[0, 0] < mc
    assert np.all((res.detail["per_delay"] >= 0) & (res.detail["per_delay"] <= 1))


@pytest.fixture(scope="module")
def small() -> Setup:
    rng = np.random.default_rng(0)
    n = 60
    w = sp.random(n, n, density=0.1, random_state=1, data_rvs=rng.standard_normal)
    from wirelab.reservoir.weights import normalize

    return Setup(
        [normalize(w, "spectral"), normalize(w.T, "spectral")],
        np.array([0.5, 0.9]),
        np.arange(20),
        np.arange(30, 60),
        left=np.arange(10),
        right=np.arange(10, 20),
        seed=2,
    )


def test_tasks_return_paired_scores_for_every_network_and_gain(small: Setup) -> None:
    nar = narma(small, train=500, test=200)
    assert nar.scores.shape == (2, 2) and np.all(nar.scores > 0) and not nar.higher_is_better
    assert "0.3y(t)" in nar.definition
    mg = mackey_glass_task(small, train=500, test=200, segments=4, warm=30)
    assert mg.scores.shape == (2, 2) and np.all(mg.scores < 0.2)  # one step ahead is easy
    assert mg.detail["free_running_nrmse"].shape == (2, 2)
    dec = decision(small, trials=80)
    assert dec.scores.shape == (2, 2) and np.all((dec.scores >= 0) & (dec.scores <= 1))
    assert dec.detail["accuracy_by_strength"].shape == (2, 2, 4)
    # paired: the same seed gives the same inputs, hence the same score
    again = narma(small, train=500, test=200)
    np.testing.assert_array_equal(again.scores, nar.scores)


def test_decision_is_above_chance_with_direct_readout() -> None:
    # inputs read out directly (input and output populations overlap): strong evidence is easy
    n = 20
    w = sp.csr_matrix((n, n))
    setup = Setup(
        [w],
        np.array([1.0]),
        np.arange(n),
        np.arange(n),
        left=np.arange(10),
        right=np.arange(10, 20),
        seed=0,
    )
    res = decision(setup, trials=400, read=5)
    assert res.detail["accuracy_by_strength"][0, 0, -1] > 0.8
    assert res.scores[0, 0] > 0.6


def test_bad_task_and_missing_populations(small: Setup) -> None:
    with pytest.raises(UsageError, match=r"unknown task 'xor'; choose one of: memory-capacity"):
        run_task("xor", small)
    with pytest.raises(UsageError, match="left and right"):
        decision(Setup(small.weights, small.alphas, small.inputs, small.outputs))
