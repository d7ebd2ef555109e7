"""Memory capacity (Jaeger 2001): how many past inputs a linear readout recalls.

Input ``u ~ U[-0.8, 0.8]`` on one channel; for each delay k = 1..k_max a ridge readout (its own
CV lambda: per delay, `ridge.fit_readout`) outputs ``u(t-k)``;
``MC = sum_k corr(y_k, u(t-k))^2`` on held-out steps. A plan (`base`): it yields its input
block, fits the readouts on the recorded states of every network and gain, and returns
``scores`` ``(M, G)``.
"""

from __future__ import annotations

import numpy as np

from wirelab.reservoir.engine import Block
from wirelab.reservoir.ridge import fit_readout, lambda_detail
from wirelab.reservoir.tasks.base import TRAIN, Metric, Plan, Setup, Task, TaskResult, input_weights


def memory_capacity_plan(
    setup: Setup,
    *,
    k_max: int = 50,
    train: int = TRAIN,
    test: int = 400,
    washout: int = 100,
    folds: int = 3,
) -> Plan:
    """``k_max`` delays recalled from ``u`` after ``washout`` steps: ``scores`` ``(M, G)`` the
    memory capacity, ``detail["per_delay"]`` ``(M, G, k_max)`` each delay's squared
    correlation."""
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


TASK = Task(
    memory_capacity_plan,
    (Metric("MC", higher_is_better=True, words="remember more", headline=True),),
    quick={"k_max": 30, "train": 600, "test": 300, "washout": 50},
)
