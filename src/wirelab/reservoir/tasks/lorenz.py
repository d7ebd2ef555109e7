"""Lorenz-63 one-step prediction of x, y and z.

Lorenz-63 (sigma 10, rho 28, beta 8/3; RK4 at dt 0.01, sampled every 0.02 time units,
`timeseries.lorenz63`), each coordinate z-scored on the training part and fed on its own input
channel (the same input neurons, independent U[-1, 1] weights per channel); the readout predicts
all three coordinates one sample (0.02 time units) ahead, a lambda per coordinate; the score is
the NRMSE averaged over x, y, z on held-out steps. The task family of Costi et al. 2025
(Biomimetics 10:341; adult fly connectome, topology-only and weights-only hybrids) and of the
six-species connectome-ESN comparison of arXiv:2606.09902 (MC, NARMA-10, Mackey-Glass, Lorenz);
their reservoirs (FlyWire subsets read out in full; region-level connectomes) differ from a
larval readout population, so their figures are not comparable.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from wirelab.reservoir.engine import Block
from wirelab.reservoir.ridge import fit_readout, lambda_detail
from wirelab.reservoir.tasks.base import (
    TRAIN,
    Metric,
    Plan,
    Setup,
    Task,
    TaskResult,
    input_weights,
    nrmse,
)
from wirelab.reservoir.timeseries import lorenz63


@lru_cache(maxsize=8)
def _lorenz(length: int, seed: int) -> np.ndarray:
    out = lorenz63(length, seed=seed)
    out.setflags(write=False)
    return out


def lorenz_plan(
    setup: Setup, *, train: int = TRAIN, test: int = 400, washout: int = 100, folds: int = 3
) -> Plan:
    """Lorenz-63 one sample ahead from the states at step ``t``: ``scores`` ``(M, G)`` the NRMSE
    averaged over x, y, z, ``detail["per_coordinate"]`` ``(M, G, 3)``."""
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


TASK = Task(
    lorenz_plan,
    (Metric("NRMSE", higher_is_better=False, log_scale=True),),
    quick={"train": 600, "test": 300, "washout": 50},
)
