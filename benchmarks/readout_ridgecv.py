"""The all-neuron ridge readout fit vs scikit-learn's ``RidgeCV``, side by side in one process.

The states: the larval connectome (the data layer, ``WIRELAB_DATA_DIR``), every one of its 2,952
neurons read out, NARMA-10 at gain ``--alpha`` (default 1.0) with the study's defaults (row
normalisation, input scaling 0.3, random bias U[-0.2, 0.2], seed 0, 100 washout steps, 3,000
training steps, 400 held-out steps), float64, one reservoir run (`engine.run_blocks`).

Both sides fit ``y(t+1)`` from the same standardised training states (`fitting.standardise`:
centred, divided by their root mean variance) on the same lambda grid (`fitting.GRID`, 33
values 1e-12 .. 1e4; scikit-learn's ``alpha`` is the same penalty on the same features):

- wirelab: `fitting.fit_readout` as the tasks call it (3-fold CV over contiguous blocks from the
  folds' sufficient statistics on the reduced basis of `ridge_basis`, then one solve at the
  chosen lambda on all training rows);
- scikit-learn, the same CV: ``RidgeCV(alphas=GRID, cv=KFold(3), scoring=
  "neg_mean_squared_error")`` (3 contiguous folds, the held-out mean squared error: a grid
  search refitting ``Ridge`` per lambda and fold, then one refit);
- scikit-learn, its own fast CV: ``RidgeCV(alphas=GRID)`` (efficient leave-one-out from one
  decomposition of the training rows; a different CV, so its lambda can differ).

Timed: the fit (the standardisation included on both sides), one BLAS thread each. Prints one
JSON line: seconds of each, the ratios, each side's chosen lambda and held-out NRMSE, the load
average before and after. Run (one core, one thread):
``OMP_NUM_THREADS=1 WIRELAB_DATA_DIR=DATA python benchmarks/readout_ridgecv.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import time
import warnings

import numpy as np
from threadpoolctl import threadpool_limits

from wirelab.reservoir.config import ExperimentConfig, resolve_experiment
from wirelab.reservoir.engine import run_blocks
from wirelab.reservoir.tasks import Setup, nrmse
from wirelab.reservoir.tasks.fitting import GRID, fit_readout, standardise
from wirelab.reservoir.tasks.narma10 import narma_plan
from wirelab.reservoir.timeseries import narma10_series

WASHOUT, TRAIN, TEST = 100, 3000, 400


def larval_states(alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """The NARMA-10 task's states ``(T, 2952)`` (step t) and targets ``y(t+1)`` ``(T,)``."""
    exp = resolve_experiment(ExperimentConfig(tasks=["narma10"], alphas=[alpha], nulls=0))
    cfg = exp.config
    setup = Setup(
        weights=[exp.weights],
        alphas=np.asarray(cfg.alphas, dtype=np.float64),
        inputs=exp.inputs,
        outputs=exp.outputs,
        units=cfg.units(exp.connectome.n),
        seed=cfg.seed,
    )
    plan = narma_plan(setup, train=TRAIN, test=TEST, washout=WASHOUT)
    blocks = next(plan)  # the task's own input block; its fit is what is timed below
    plan.close()
    (run,) = run_blocks(
        setup.weights, setup.alphas, setup.units, blocks, dtype=setup.dtype, product=setup.product
    )
    _, y = narma10_series(WASHOUT + TRAIN + TEST + 1, setup.seed)
    return run.states[:-1, 0, 0, 0].astype(np.float64), y[1:]


def timed(fn):  # type: ignore[no-untyped-def]
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--alpha", type=float, default=1.0)
    args = ap.parse_args()
    warnings.filterwarnings("ignore")
    from sklearn.linear_model import RidgeCV
    from sklearn.model_selection import KFold

    load0 = [round(v, 2) for v in os.getloadavg()]
    x, y = larval_states(args.alpha)
    train, test = slice(WASHOUT, WASHOUT + TRAIN), slice(WASHOUT + TRAIN, WASHOUT + TRAIN + TEST)
    out: dict[str, object] = {"T": TRAIN, "F": x.shape[1], "folds": 3, "lambdas": GRID.size}
    with threadpool_limits(1):
        t_wl, model = timed(lambda: fit_readout(x[train], y[train], folds=3))
        out["wirelab_s"] = t_wl
        out["wirelab_lambda"] = float(model.lam[0])
        out["wirelab_nrmse"] = nrmse(model.predict(x[test])[:, 0], y[test])
        peers = {
            "sklearn_kfold": RidgeCV(GRID, cv=KFold(3), scoring="neg_mean_squared_error"),
            "sklearn_loo": RidgeCV(GRID),
        }
        for name, est in peers.items():

            def fit(est=est):  # type: ignore[no-untyped-def]
                z, shift, scale = standardise(x[train])
                return est.fit(z, y[train]), shift, scale

            t, (fitted, shift, scale) = timed(fit)
            out[f"{name}_s"] = t
            out[f"{name}_lambda"] = float(fitted.alpha_)
            out[f"{name}_nrmse"] = nrmse(fitted.predict((x[test] - shift) / scale), y[test])
            out[f"ratio_vs_{name}"] = t / t_wl
    out["load_average_before"] = load0
    out["load_average_after"] = [round(v, 2) for v in os.getloadavg()]
    out["target_ratio"] = 3.0
    print(json.dumps(out))


if __name__ == "__main__":
    main()
