"""NARMA-10 one-step prediction: input ``u ~ U[0, 0.5]``, target ``y(t+1)`` of
`timeseries.narma10`; NRMSE on held-out steps. A plan (`base`): it yields its input block,
fits a ridge readout (`ridge.fit_readout`) on the recorded states of every network and gain,
and returns ``scores`` ``(M, G)``.
"""

from __future__ import annotations

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
from wirelab.reservoir.timeseries import narma10_series


def narma_plan(
    setup: Setup, *, train: int = TRAIN, test: int = 400, washout: int = 100, folds: int = 3
) -> Plan:
    """NARMA-10 ``y(t+1)`` from the states at step ``t``: ``scores`` ``(M, G)`` the NRMSE on
    ``test`` held-out steps."""
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


TASK = Task(
    narma_plan,
    (Metric("NRMSE", higher_is_better=False, log_scale=True, words="model NARMA-10 better"),),
    quick={"train": 600, "test": 300, "washout": 50},
)
