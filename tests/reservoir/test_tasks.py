from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.stats import ortho_group

from wirelab.errors import UsageError
from wirelab.reservoir.dynamics import Units
from wirelab.reservoir.ridge import GRID, choose_lambda, edge_warnings, fit_readout
from wirelab.reservoir.tasks import TASKS, Setup, run_plans
from wirelab.reservoir.tasks.mackey_glass import FREE_GRID, validation_starts

memory_capacity = TASKS.get("memory-capacity")  # each entry runs its task alone when called
narma = TASKS.get("narma10")
mackey_glass_task = TASKS.get("mackey-glass")
decision = TASKS.get("decision")
lorenz = TASKS.get("lorenz")


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
        TASKS.get("xor")
    with pytest.raises(UsageError, match="left and right"):
        decision(Setup(small.weights, small.alphas, small.inputs, small.outputs))


SMALL = {
    "memory-capacity": {"k_max": 20, "train": 500, "test": 200, "washout": 50},
    "narma10": {"train": 500, "test": 200, "washout": 50},
    "mackey-glass": {"train": 700, "test": 200, "washout": 50, "segments": 4, "warm": 30},
    "lorenz": {"train": 500, "test": 200, "washout": 50},
    "decision": {"trials": 80},
}


def _same(a: object, b: object) -> None:
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys()
        for k in a:
            _same(a[k], b[k])
    elif isinstance(a, np.ndarray):
        np.testing.assert_array_equal(a, np.asarray(b))
    else:
        assert a == b


@pytest.mark.parametrize("product", ["torch", "scipy"])
def test_a_study_in_one_product_equals_each_task_alone_bit_for_bit(
    small: Setup, product: str
) -> None:
    setup = dataclasses.replace(small, product=product, units=Units("tanh", 1.0, 0.5, 0.1))
    together = run_plans({name: TASKS.get(name) for name in TASKS}, setup, SMALL)
    assert list(together) == list(TASKS)
    for name in TASKS:
        alone = TASKS.get(name)(setup, **SMALL[name])
        np.testing.assert_array_equal(together[name].scores, alone.scores)
        _same(together[name].detail, alone.detail)
        assert together[name].definition == alone.definition


def test_memory_capacity_chooses_lambda_per_delay(small: Setup) -> None:
    res = memory_capacity(small, **SMALL["memory-capacity"])
    lam = res.detail["lambda"]
    assert lam.shape == (2, 2, 20) and np.all(np.isin(lam, GRID))
    assert len(np.unique(lam)) > 1  # not one lambda for every delay
    assert "its own lambda" in res.definition and "warnings" in res.detail


def test_lambda_choice_flags_only_a_binding_edge() -> None:
    grid = np.array([1e-4, 1e-3, 1e-2, 1e-1])
    err = np.array(
        [
            [1.00, 2.0, 5.0, 3.0],  # falling at the low edge: binding
            [1.00, 1.0, 5.0, 2.0],  # flat at the low edge: a plateau (ties: larger lambda)
            [3.00, 2.0, 1.0, 4.0],  # inside
            [5.00, 4.0, 3.0, 1.0],  # falling at the high edge: binding
        ]
    ).T
    idx, edge = choose_lambda(err, grid)
    np.testing.assert_array_equal(idx, [0, 1, 2, 3])
    np.testing.assert_array_equal(edge, [-1, 0, 0, 1])
    warnings = edge_warnings("t", edge, grid)
    assert len(warnings) == 2 and "low edge (1e-04)" in warnings[0] and "1 of 4" in warnings[0]


def test_readout_lambda_is_relative_to_the_state_scale() -> None:
    rng = np.random.default_rng(0)
    x = 0.3 + 1e-3 * rng.standard_normal((400, 12))  # a large mean, a tiny spread
    y = x @ rng.standard_normal(12) * 1e3 + 0.1 * rng.standard_normal(400)
    a = fit_readout(x, y)
    b = fit_readout(1e3 * x, y)  # states 1,000x larger: the same relative lambda and fit
    assert a.lam[0] == b.lam[0] and a.edge[0] == 0
    np.testing.assert_allclose(a.predict(x), b.predict(1e3 * x), rtol=1e-6, atol=1e-6)
    w, c = a.raw()
    np.testing.assert_allclose(x @ w + c, a.predict(x), rtol=1e-6, atol=1e-6)
    # the same estimator as the closed form on the standardised states
    z = (x - x.mean(0)) / np.sqrt(np.mean(x.var(0)))
    zc, yc = z - z.mean(0), y - y.mean()
    coef = np.linalg.solve(zc.T @ zc + a.lam[0] * np.eye(12), zc.T @ yc)
    np.testing.assert_allclose(a.coef[:, 0], coef, rtol=1e-6, atol=1e-8)


def test_lorenz_one_step_prediction_is_accurate_with_a_full_readout() -> None:
    n = 80
    rng = np.random.default_rng(5)
    w = sp.random(n, n, density=0.1, random_state=5, data_rvs=rng.standard_normal)
    from wirelab.reservoir.weights import normalize

    bias = rng.uniform(-0.2, 0.2, n)
    setup = Setup(
        [normalize(w, "spectral")],
        np.array([0.8]),
        np.arange(n),
        np.arange(n),
        units=Units("tanh", 1.0, 0.3, bias),
        seed=1,
    )
    res = lorenz(setup, train=1500, test=300)
    assert res.detail["per_coordinate"].shape == (1, 1, 3)
    assert res.scores[0, 0] < 0.01  # one step of 0.02 time units from 80 units
    assert "sigma 10, rho 28, beta 8/3" in res.definition and "Costi" in res.definition


def test_mackey_glass_free_run_lambda_comes_from_validation_inside_training(
    small: Setup,
) -> None:
    res = mackey_glass_task(small, **SMALL["mackey-glass"])
    free = res.detail["free_running_lambda"]
    assert free.shape == (2, 2) and np.all(np.isin(free, FREE_GRID))
    assert res.detail["free_running_validation_nrmse"].shape == (2, 2, FREE_GRID.size)
    assert res.detail["free_running_nrmse"].shape == (2, 2)
    starts = validation_starts(700, 50, 30, 84, 4)
    assert starts.min() >= 50 and starts.max() + 30 + 84 <= 50 + 700  # inside the training part
    with pytest.raises(UsageError, match="validation segments"):
        mackey_glass_task(small, train=200, test=100)
