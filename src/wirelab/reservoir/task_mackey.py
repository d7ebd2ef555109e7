"""Mackey-Glass (tau = 17, z-scored): one-step prediction, then 84-step free-running prediction.

One step: the readout (lambda by CV on the training steps) predicts ``x(t+1)``; NRMSE on
held-out steps. Free running (Jaeger & Haas 2004, Science 304:78): from each of S held-out
segments after the test steps, the reservoir is started at rest and teacher-forced for ``warm``
steps, then its readout's output is fed back as its input; NRMSE_84 is the error of the 84th
prediction over the S segments, divided by the series' standard deviation.

The free-running readout's lambda is chosen on the free-running error itself, on validation
segments inside the training part (the test segments are never used to choose): candidate
readouts, one per lambda of `FREE_GRID`, are fitted on the training steps before the validation
region; each is run free from ``val_segments`` segments that start in the region (warm-up and
horizon inside the training part); the lambda with the smallest validation NRMSE_84 is refitted
on all training steps and run from the test segments. All candidates of every network and gain
run as columns of one product per step (`engine.run_blocks`).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from wirelab.errors import UsageError
from wirelab.reservoir.engine import Block
from wirelab.reservoir.task_base import (
    TRAIN,
    Plan,
    Setup,
    TaskResult,
    accumulate,
    choose_lambda,
    edge_warnings,
    fit_readout,
    input_weights,
    lambda_detail,
    nrmse,
    standardise,
)
from wirelab.reservoir.timeseries import mackey_glass

FREE_GRID = np.asarray(10.0 ** np.arange(-12.0, 4.01, 2.0))  # relative: 1e-12 .. 1e4, 9 values


@lru_cache(maxsize=8)
def _series(length: int) -> np.ndarray:
    out = mackey_glass(length)
    out.setflags(write=False)
    return out


def _solve(x: np.ndarray, y: np.ndarray, lams: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ridge ``x`` ``(T, F)`` -> ``y`` ``(T,)`` on `standardise`d features for each relative
    lambda, back on the raw states: ``coef`` ``(L, F)``, ``intercept`` ``(L,)``."""
    z, shift, scale = standardise(x)
    acc = accumulate(z, y[:, None], 1)
    coef, icpt = [], []
    for lam in lams:
        w, b = acc.solve(float(lam))
        coef.append(w[:, 0] / scale)
        icpt.append(b[0] - shift @ w[:, 0] / scale)
    return np.stack(coef), np.array(icpt)


def validation_starts(
    train: int, washout: int, warm: int, horizon: int, segments: int
) -> np.ndarray:
    """Starts of the validation segments: ``segments`` windows of ``warm + horizon`` steps, half
    a window apart, ending with the training part (steps ``washout .. washout + train``); the
    candidate readouts are fitted on the training steps before the first start."""
    span = warm + horizon
    stride = max(1, span // 2)
    length = span + (segments - 1) * stride
    if segments < 1 or train - length < 10:
        raise UsageError(
            f"mackey-glass: {segments} validation segments of {span} steps need more than "
            f"{length + 10} training steps, got {train}"
        )
    return washout + train - length + np.arange(segments) * stride


def mackey_glass_plan(
    setup: Setup,
    *,
    train: int = TRAIN,
    test: int = 400,
    washout: int = 100,
    horizon: int = 84,
    segments: int = 10,
    warm: int = 50,
    val_segments: int = 4,
    folds: int = 3,
) -> Plan:
    span = warm + horizon
    val_starts = validation_starts(train, washout, warm, horizon, val_segments)
    length = washout + train + test + 1
    series = _series(length + segments * (span + 1) + 1)
    fit_part = series[: washout + train]
    mu, sd = fit_part.mean(), fit_part.std()
    z = (series - mu) / sd
    w_in = input_weights(setup.n, [setup.inputs], setup.seed, True)
    end = washout + train  # first step after the training part
    test_starts = length + 1 + np.arange(segments) * (span + 1)
    rec = setup.outputs

    def teach(starts: np.ndarray) -> Block:
        return Block(w_in, np.stack([z[s : s + warm] for s in starts], 1)[:, :, None], record=rec)

    main, val_warm, test_warm = yield [
        Block(w_in, z[:length, None, None], record=rec),
        teach(val_starts),
        teach(test_starts),
    ]
    states = main.states[:, :, :, 0]  # (T, M, G, P): step t predicts z(t+1)
    target = z[1 : length + 1]
    m_, g_, p_ = states.shape[1], states.shape[2], rec.size
    train_s, test_s = slice(washout, end), slice(end, length)
    fit_end = int(val_starts[0])
    one_step = np.zeros((m_, g_))
    lam = np.zeros((m_, g_))
    edge = np.zeros((m_, g_), dtype=np.int64)
    n_lam, n_val = FREE_GRID.size, val_segments
    cand_coef = np.zeros((m_, g_, n_val * n_lam, p_, 1))
    cand_icpt = np.zeros((m_, g_, n_val * n_lam, 1))
    fits: dict[tuple[int, int], np.ndarray] = {}
    for m in range(m_):
        for g in range(g_):
            x = states[:, m, g].astype(np.float64)
            model = fit_readout(x[train_s], target[train_s], folds=folds)
            lam[m, g], edge[m, g] = model.lam[0], model.edge[0]
            one_step[m, g] = nrmse(model.predict(x[test_s])[:, 0], target[test_s])
            coef, icpt = _solve(x[washout:fit_end], target[washout:fit_end], FREE_GRID)
            cand_coef[m, g, :, :, 0] = np.tile(coef, (n_val, 1))  # column b = segment * L + l
            cand_icpt[m, g, :, 0] = np.tile(icpt, n_val)
            fits[m, g] = x[train_s]
    state0 = np.repeat(val_warm.final, n_lam, axis=2)  # (M, G, S*L, N)
    (val,) = yield [
        Block(
            w_in,
            np.zeros((0, n_val * n_lam, 1)),
            record=rec,
            state0=state0,
            free=horizon - 1,
            coef=cand_coef,
            intercept=cand_icpt,
        )
    ]
    truth_val = np.array([z[s + span - 1] for s in val_starts])  # (S_val,)
    pred_val = val.outputs[-1, ..., 0].reshape(m_, g_, n_val, n_lam)
    err = np.sqrt(np.mean((pred_val - truth_val[None, None, :, None]) ** 2, axis=2))  # (M,G,L)
    err = np.where(np.isfinite(err), err, np.inf)
    pick, free_edge = choose_lambda(err.reshape(-1, n_lam).T, FREE_GRID)
    free_lam = FREE_GRID[pick].reshape(m_, g_)
    coef = np.zeros((m_, g_, segments, p_, 1))
    icpt = np.zeros((m_, g_, segments, 1))
    for (m, g), x_fit in fits.items():
        w, b = _solve(x_fit, target[train_s], free_lam[m, g : g + 1])
        coef[m, g, :, :, 0] = w[0]
        icpt[m, g, :, 0] = b[0]
    (free,) = yield [
        Block(
            w_in,
            np.zeros((0, segments, 1)),
            record=rec,
            state0=test_warm.final,
            free=horizon - 1,
            coef=coef,
            intercept=icpt,
        )
    ]
    truth = np.array([z[s + span - 1] for s in test_starts])  # (S,)
    pred = free.outputs[-1, ..., 0]  # (M, G, S): the 84th prediction
    free_nrmse = np.sqrt(np.mean((pred - truth) ** 2, axis=-1))  # z has std 1 on training
    detail = lambda_detail("mackey-glass", lam, edge)
    detail["warnings"] += edge_warnings("mackey-glass free-running", free_edge, FREE_GRID)
    return TaskResult(
        "mackey-glass",
        "NRMSE",
        f"one-step: NRMSE of x(t+1) on {test} held-out steps after {train} training steps; "
        f"free-running: NRMSE at step {horizon} over {segments} held-out segments, readout fed "
        f"back as input after {warm} teacher-forced steps (Jaeger & Haas 2004), its lambda "
        f"chosen on the same error over {val_segments} validation segments inside the training "
        "part; tau=17, z-scored on the training part",
        False,
        one_step,
        {
            "free_running_nrmse": free_nrmse,
            "free_running_lambda": free_lam,
            "free_running_validation_nrmse": err,
            **detail,
        },
    )
