"""Open-loop regression tasks: memory capacity, NARMA-10 and Lorenz-63 one-step prediction.

Each is a plan (`task_base`): it yields its input block, fits ridge readouts on the recorded
states of every network and gain, and returns ``scores`` ``(M, G)``.

- ``memory-capacity`` (Jaeger 2001): ``u ~ U[-0.8, 0.8]``; for each delay k = 1..k_max a ridge
  readout (its own CV lambda: per delay) outputs ``u(t-k)``;
  ``MC = sum_k corr(y_k, u(t-k))^2`` on held-out steps.
- ``narma10``: input ``u``, target ``y(t+1)`` of `timeseries.narma10`; NRMSE on held-out steps.
- ``lorenz``: Lorenz-63 (sigma 10, rho 28, beta 8/3; RK4 at dt 0.01, sampled every 0.02 time
  units, `timeseries.lorenz63`), each coordinate z-scored on the training part and fed on its own
  input channel (the same input neurons, independent U[-1, 1] weights per channel); the readout
  predicts all three coordinates one sample (0.02 time units) ahead, a lambda per coordinate;
  the score is the NRMSE averaged over x, y, z on held-out steps. The task family of Costi et
  al. 2025 (Biomimetics 10:341; adult fly connectome, topology-only and weights-only hybrids)
  and of the six-species connectome-ESN comparison of arXiv:2606.09902 (MC, NARMA-10,
  Mackey-Glass, Lorenz); their reservoirs (FlyWire subsets read out in full; region-level
  connectomes) differ from a larval readout population, so their figures are not comparable.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from wirelab.reservoir.engine import Block
from wirelab.reservoir.task_base import (
    TRAIN,
    Plan,
    Setup,
    TaskResult,
    fit_readout,
    input_weights,
    lambda_detail,
    nrmse,
)
from wirelab.reservoir.timeseries import lorenz63, narma10_series


def memory_capacity_plan(
    setup: Setup,
    *,
    k_max: int = 50,
    train: int = TRAIN,
    test: int = 400,
    washout: int = 100,
    folds: int = 3,
) -> Plan:
    rng = np.random.default_rng(setup.seed)
    length = washout + k_max + train + test
    u = rng.uniform(-0.8, 0.8, length)
    w_in = input_weights(setup.n, [setup.inputs], setup.seed, True)
    (run,) = yield [Block(w_in, u[:, None, None], record=setup.outputs)]
    states = run.states[:, :, :, 0]  # (T, M, G, P)
    t0 = washout + k_max
    delays = np.stack([np.roll(u, k) for k in range(1, k_max + 1)], 1)  # (T, k_max): u(t-k)
    target = delays[t0 + train :]
    m_, g_ = states.shape[1:3]
    per_delay = np.zeros((m_, g_, k_max))
    lam = np.zeros((m_, g_, k_max))
    edge = np.zeros((m_, g_, k_max), dtype=np.int64)
    for m in range(m_):
        for g in range(g_):
            x = states[:, m, g].astype(np.float64)
            model = fit_readout(
                x[t0 : t0 + train], delays[t0 : t0 + train], folds=folds, per_output=True
            )
            lam[m, g], edge[m, g] = model.lam, model.edge
            pred = model.predict(x[t0 + train :])
            for k in range(k_max):
                c = np.corrcoef(pred[:, k], target[:, k])[0, 1]
                per_delay[m, g, k] = 0.0 if not np.isfinite(c) else c * c
    return TaskResult(
        "memory-capacity",
        "MC",
        f"MC = sum_(k=1..{k_max}) corr(y_k(t), u(t-k))^2 on {test} held-out steps after "
        f"{train} training steps, u ~ U[-0.8, 0.8]; one ridge readout per delay, each with "
        f"its own lambda chosen by {folds}-fold CV (Jaeger 2001)",
        True,
        per_delay.sum(-1),
        {"per_delay": per_delay, **lambda_detail("memory-capacity", lam, edge)},
    )


def narma_plan(
    setup: Setup, *, train: int = TRAIN, test: int = 400, washout: int = 100, folds: int = 3
) -> Plan:
    length = washout + train + test + 1
    u, y = narma10_series(length, setup.seed)
    w_in = input_weights(setup.n, [setup.inputs], setup.seed, True)
    (run,) = yield [Block(w_in, ((u - 0.25) * 4.0)[:, None, None], record=setup.outputs)]
    states = run.states[:-1, :, :, 0]  # (T - 1, M, G, P): step t predicts y(t+1)
    target = y[1:]
    train_s, test_s = slice(washout, washout + train), slice(washout + train, length - 1)
    scores = np.zeros(states.shape[1:3])
    lam = np.zeros(states.shape[1:3])
    edge = np.zeros(states.shape[1:3], dtype=np.int64)
    for m in range(scores.shape[0]):
        for g in range(scores.shape[1]):
            x = states[:, m, g].astype(np.float64)
            model = fit_readout(x[train_s], target[train_s], folds=folds)
            lam[m, g], edge[m, g] = model.lam[0], model.edge[0]
            scores[m, g] = nrmse(model.predict(x[test_s])[:, 0], target[test_s])
    return TaskResult(
        "narma10",
        "NRMSE",
        f"NRMSE = rms(y_hat - y) / std(y) of y(t+1) on {test} held-out steps after {train} "
        "training steps; y(t+1) = 0.3y(t) + 0.05y(t)sum_(i=0..9)y(t-i) + 1.5u(t-9)u(t) + 0.1, "
        "u ~ U[0, 0.5]",
        False,
        scores,
        lambda_detail("narma10", lam, edge),
    )


@lru_cache(maxsize=8)
def _lorenz(length: int, seed: int) -> np.ndarray:
    out = lorenz63(length, seed=seed)
    out.setflags(write=False)
    return out


def lorenz_plan(
    setup: Setup, *, train: int = TRAIN, test: int = 400, washout: int = 100, folds: int = 3
) -> Plan:
    length = washout + train + test + 1
    series = _lorenz(length, setup.seed)
    fit_part = series[: washout + train]
    z = (series - fit_part.mean(0)) / fit_part.std(0)  # (T + 1, 3)
    w_in = input_weights(setup.n, [setup.inputs] * 3, setup.seed, True)  # (3, N)
    (run,) = yield [Block(w_in, z[:-1, None, :], record=setup.outputs)]
    states = run.states[:, :, :, 0]  # (T, M, G, P): step t sees z(t), predicts z(t+1)
    target = z[1:]
    train_s, test_s = slice(washout, washout + train), slice(washout + train, length - 1)
    per_coord = np.zeros((*states.shape[1:3], 3))
    lam = np.zeros((*states.shape[1:3], 3))
    edge = np.zeros((*states.shape[1:3], 3), dtype=np.int64)
    for m in range(per_coord.shape[0]):
        for g in range(per_coord.shape[1]):
            x = states[:, m, g].astype(np.float64)
            model = fit_readout(x[train_s], target[train_s], folds=folds, per_output=True)
            lam[m, g], edge[m, g] = model.lam, model.edge
            pred = model.predict(x[test_s])
            per_coord[m, g] = [nrmse(pred[:, i], target[test_s, i]) for i in range(3)]
    return TaskResult(
        "lorenz",
        "NRMSE",
        f"Lorenz-63 (sigma 10, rho 28, beta 8/3; RK4 dt 0.01, one sample per 0.02 time units): "
        f"x, y, z z-scored on 3 input channels; one-step-ahead NRMSE averaged over x, y, z on "
        f"{test} held-out steps after {train} training steps, a ridge lambda per coordinate "
        "(the task family of Costi et al. 2025, Biomimetics 10:341)",
        False,
        per_coord.mean(-1),
        {"per_coordinate": per_coord, **lambda_detail("lorenz", lam, edge)},
    )
