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

The plan's steps: `_layout` (the series and where each part is), the teacher-forced runs, `_fit`
(one-step readouts and the free-running candidates), the validation free runs, `_choose` (the
free-running lambda), `_refit`, the test free runs and `_result`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from wirelab.errors import UsageError
from wirelab.reservoir.engine import Block, BlockRun
from wirelab.reservoir.ridge import (
    Readout,
    choose_lambda,
    edge_warnings,
    fit_readout,
    lambda_detail,
    standardise,
)
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
from wirelab.reservoir.timeseries import mackey_glass

FREE_GRID = np.asarray(10.0 ** np.arange(-12.0, 4.01, 2.0))  # relative: 1e-12 .. 1e4, 9 values


@lru_cache(maxsize=8)
def _series(length: int) -> np.ndarray:
    out = mackey_glass(length)
    out.setflags(write=False)
    return out


def _refits(
    model: Readout, lams: np.ndarray, x_rows: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """``model``'s readout refitted at each relative lambda of ``lams`` ``(L,)``, back on the raw
    states: ``coef`` ``(L, F)``, ``intercept`` ``(L,)``. With ``x_rows`` (the first rows of
    the training states) it is fitted on those rows alone, each lambda relative to their own
    scale (`standardise`'s): ``lambda_z = lambda * (s_rows / s)^2`` on the model's units."""
    assert model.ridge is not None
    rows, weight = None, 1.0
    if x_rows is not None:
        rows, weight = x_rows.shape[0], (standardise(x_rows)[2] / model.scale) ** 2
    w, b = model.ridge.solve(lams, rows=rows, weight=weight)  # (F, L), (L,)
    w = w / model.scale
    return w.T, b - model.shift @ w


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


@dataclass(frozen=True)
class _Layout:
    """The series ``z`` (z-scored on the training part) and where each part of it is: one-step
    steps ``0 .. length`` (training ends at ``end``), the validation and test segments' starts,
    each segment ``span = warm + horizon`` steps."""

    z: np.ndarray
    washout: int
    end: int
    length: int
    val_starts: np.ndarray
    test_starts: np.ndarray
    warm: int
    span: int

    @property
    def train(self) -> slice:
        return slice(self.washout, self.end)

    @property
    def test(self) -> slice:
        return slice(self.end, self.length)

    def truth(self, starts: np.ndarray) -> np.ndarray:
        """The value each segment's last (``horizon``-th) prediction should reach ``(S,)``."""
        return np.array([self.z[s + self.span - 1] for s in starts])


def _layout(
    train: int, test: int, washout: int, horizon: int, segments: int, warm: int, val_segments: int
) -> _Layout:
    """The series long enough for the one-step part and the test segments, z-scored on the
    training part, and where the validation and test segments start."""
    span = warm + horizon
    val_starts = validation_starts(train, washout, warm, horizon, val_segments)
    length = washout + train + test + 1
    series = _series(length + segments * (span + 1) + 1)
    fit_part = series[: washout + train]
    z = (series - fit_part.mean()) / fit_part.std()
    test_starts = length + 1 + np.arange(segments) * (span + 1)
    return _Layout(z, washout, washout + train, length, val_starts, test_starts, warm, span)


@dataclass
class _Fit:
    """Per network and gain: the one-step NRMSE, its lambda and edge flag ``(M, G)``; the
    free-running candidates ``coef`` ``(M, G, S_val * L, P, 1)`` and ``intercept``
    ``(M, G, S_val * L, 1)`` (column ``segment * L + l``: lambda ``l`` of `FREE_GRID`); the
    one-step readouts (their projected rows serve the refit)."""

    one_step: np.ndarray
    lam: np.ndarray
    edge: np.ndarray
    cand_coef: np.ndarray
    cand_icpt: np.ndarray
    models: dict[tuple[int, int], Readout]


def _fit(states: np.ndarray, target: np.ndarray, lay: _Layout, folds: int, val: int) -> _Fit:
    """One-step readouts (lambda by CV) and the free-running candidates, one per lambda of
    `FREE_GRID`, fitted on the training steps before the first validation segment; ``states``
    ``(T, M, G, P)``, ``target`` ``(T,)``."""
    m_, g_, p_ = states.shape[1:]
    n_lam = FREE_GRID.size
    fit_end = int(lay.val_starts[0])
    out = _Fit(
        np.zeros((m_, g_)),
        np.zeros((m_, g_)),
        np.zeros((m_, g_), dtype=np.int64),
        np.zeros((m_, g_, val * n_lam, p_, 1)),
        np.zeros((m_, g_, val * n_lam, 1)),
        {},
    )
    for m in range(m_):
        for g in range(g_):
            x = states[:, m, g].astype(np.float64)
            model = fit_readout(x[lay.train], target[lay.train], folds=folds)
            out.lam[m, g], out.edge[m, g] = model.lam[0], model.edge[0]
            out.one_step[m, g] = nrmse(model.predict(x[lay.test])[:, 0], target[lay.test])
            coef, icpt = _refits(model, FREE_GRID, x[lay.washout : fit_end])
            out.cand_coef[m, g, :, :, 0] = np.tile(coef, (val, 1))  # column b = segment * L + l
            out.cand_icpt[m, g, :, 0] = np.tile(icpt, val)
            out.models[m, g] = model
    return out


def _choose(run: BlockRun, lay: _Layout) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The free-running lambda per network and gain from the validation runs: the validation
    NRMSE_84 ``(M, G, L)`` (non-finite: inf), the chosen lambdas ``(M, G)`` and the edge flags."""
    n_lam = FREE_GRID.size
    truth = lay.truth(lay.val_starts)  # (S_val,)
    pred = run.outputs[-1, ..., 0]
    pred = pred.reshape(pred.shape[0], pred.shape[1], truth.size, n_lam)
    err = np.sqrt(np.mean((pred - truth[None, None, :, None]) ** 2, axis=2))  # (M, G, L)
    err = np.where(np.isfinite(err), err, np.inf)
    pick, edge = choose_lambda(err.reshape(-1, n_lam).T, FREE_GRID)
    return err, FREE_GRID[pick].reshape(err.shape[:2]), edge


def _refit(fit: _Fit, free_lam: np.ndarray, segments: int) -> tuple[np.ndarray, np.ndarray]:
    """The chosen free-running readouts refitted on all training steps, repeated for the test
    segments: ``coef`` ``(M, G, S, P, 1)``, ``intercept`` ``(M, G, S, 1)``."""
    m_, g_, _, p_, _ = fit.cand_coef.shape
    coef = np.zeros((m_, g_, segments, p_, 1))
    icpt = np.zeros((m_, g_, segments, 1))
    for (m, g), model in fit.models.items():
        w, b = _refits(model, free_lam[m, g : g + 1])
        coef[m, g, :, :, 0] = w[0]
        icpt[m, g, :, 0] = b[0]
    return coef, icpt


def _free(
    w_in: np.ndarray,
    rec: np.ndarray,
    state0: np.ndarray,
    steps: int,
    coef: np.ndarray,
    icpt: np.ndarray,
) -> Block:
    """A closed-loop block from ``state0`` ``(M, G, B, N)``: ``steps`` predictions fed back."""
    width = state0.shape[2]
    return Block(
        w_in,
        np.zeros((0, width, 1)),
        record=rec,
        state0=state0,
        free=steps,
        coef=coef,
        intercept=icpt,
    )


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
    """One-step NRMSE ``(M, G)`` as the scores; the free-running NRMSE at step ``horizon`` (its
    lambda chosen on ``val_segments`` validation segments) in ``detail``."""
    lay = _layout(train, test, washout, horizon, segments, warm, val_segments)
    w_in = input_weights(setup.n, [setup.inputs], setup.seed, True)
    rec = setup.outputs

    def teach(starts: np.ndarray) -> Block:
        inputs = np.stack([lay.z[s : s + warm] for s in starts], 1)[:, :, None]
        return Block(w_in, inputs, record=rec)

    main, val_warm, test_warm = yield [
        Block(w_in, lay.z[: lay.length, None, None], record=rec),
        teach(lay.val_starts),
        teach(lay.test_starts),
    ]
    target = lay.z[1 : lay.length + 1]  # step t predicts z(t+1)
    fit = _fit(main.states[:, :, :, 0], target, lay, folds, val_segments)
    state0 = np.repeat(val_warm.final, FREE_GRID.size, axis=2)  # (M, G, S_val * L, N)
    (val,) = yield [_free(w_in, rec, state0, horizon - 1, fit.cand_coef, fit.cand_icpt)]
    err, free_lam, free_edge = _choose(val, lay)
    coef, icpt = _refit(fit, free_lam, segments)
    (free,) = yield [_free(w_in, rec, test_warm.final, horizon - 1, coef, icpt)]
    pred = free.outputs[-1, ..., 0]  # (M, G, S): the 84th prediction
    truth = lay.truth(lay.test_starts)
    free_nrmse = np.sqrt(np.mean((pred - truth) ** 2, axis=-1))  # z has std 1 on training
    detail = lambda_detail("mackey-glass", fit.lam, fit.edge)
    detail["warnings"] += edge_warnings("mackey-glass free-running", free_edge, FREE_GRID)
    detail = {
        "free_running_nrmse": free_nrmse,
        "free_running_lambda": free_lam,
        "free_running_validation_nrmse": err,
        **detail,
    }
    return TaskResult(
        "mackey-glass",
        "NRMSE",
        f"one-step: NRMSE of x(t+1) on {test} held-out steps after {train} training steps; "
        f"free-running: NRMSE at step {horizon} over {segments} held-out segments, readout fed "
        f"back as input after {warm} teacher-forced steps (Jaeger & Haas 2004), its lambda "
        f"chosen on the same error over {val_segments} validation segments inside the training "
        "part; tau=17, z-scored on the training part",
        False,
        fit.one_step,
        detail,
    )


TASK = Task(
    mackey_glass_plan,
    (
        Metric(
            "NRMSE", higher_is_better=False, log_scale=True, words="predict Mackey-Glass better"
        ),
        Metric(
            "NRMSE_84",
            higher_is_better=False,
            log_scale=True,
            words="predict Mackey-Glass 84 steps ahead better",
            label="mackey-glass-84",
            detail="free_running_nrmse",
            headline=True,
        ),
    ),
    quick={"train": 600, "test": 300, "washout": 50, "segments": 8, "warm": 50},
    rate_units_only="free running feeds predictions back",
)
