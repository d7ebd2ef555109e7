"""Every larval table row's readouts, wirelab's against scikit-learn's ``RidgeCV`` (same folds).

The rows: the README's larval reservoir table (docs/results/reservoir.md, "The larva with both
readouts"): every task (memory capacity, NARMA-10, one-step Mackey-Glass, Lorenz, decision; the
84-step free run's lambda is chosen on validation runs, not by CV, so it is not a RidgeCV row)
on every kind of network (the connectome, its first degree-preserving null, its first random
ESN null), the study's defaults (every neuron read, row normalisation, input scaling 0.3, bias
U[-0.2, 0.2], seed 0, the tasks' full sizes) at gain ``--alpha`` (default 1.0).

Each network's tasks run twice through the tasks' own plans (`tasks.run_plans`), each task
scoring with its own metric on its own held-out steps; only the readout fit differs:

- wirelab: `ridge.fit_readout` (3-fold CV over contiguous blocks on `ridge.GRID`, a lambda per
  output for memory capacity and Lorenz, `ridge.choose_lambda`) and, for the decision task,
  `ridge.RidgeClassifier`;
- scikit-learn: ``RidgeCV(alphas=GRID, cv=KFold(3), scoring="neg_mean_squared_error")`` on the
  same standardised states (`ridge.standardise`; ``alpha`` is the same penalty on the same
  features; one alpha for all outputs, RidgeCV's only choice with ``cv``), and for the decision
  task ``RidgeClassifierCV(alphas=GRID, cv=KFold(3))`` (its default accuracy scoring).

The fits are swapped in the task modules for the benchmark (the names ``fit_readout`` and
``RidgeClassifier`` the plans call) and timed call by call (one call per network: one gain).
Prints ONE JSON line: per row ``{task}/{network}``: each side's score, seconds and lambda,
``better_or_equal`` (wirelab's score at least scikit-learn's in the metric's direction, or within
`SAME` = 1e-4 relative of it: at the same lambda the two libraries' scores differ by ~1e-5, the
same model rounded differently), the speed ratio; the totals; the load average before and
after. ``--tiny``: the 182 DN-VNC neurons read and the tasks' ``--quick`` sizes (a test runs
it). ``--solver exact``: wirelab's side with the exact readout solver (`ridge.SOLVERS`; the
default ``fast`` is the tasks' default). Run (one core, one BLAS thread):
``WIRELAB_DATA_DIR=DATA python benchmarks/readout_ridgecv.py --threads 1``.
"""

from __future__ import annotations

import argparse
import json
import os
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from typing import Any

import numpy as np
from threadpoolctl import threadpool_limits

from wirelab.reservoir import ridge
from wirelab.reservoir.config import ExperimentConfig, resolve_experiment
from wirelab.reservoir.jobs import network_weights
from wirelab.reservoir.tasks import (
    TASKS,
    Setup,
    decision,
    lorenz,
    mackey_glass,
    memory_capacity,
    narma10,
    run_plans,
)

NETWORKS = (("connectome", 0), ("degree", 0), ("random-esn", 0))
ROWS = {  # row label -> (task, its metric label); the free run is not a CV readout
    "memory-capacity": "memory-capacity",
    "narma10": "narma10",
    "mackey-glass": "mackey-glass",
    "lorenz": "lorenz",
    "decision": "decision",
}
MODULES = (narma10, mackey_glass, lorenz, memory_capacity)
SAME = 1e-4  # scores within 1e-4 relative are the same model rounded differently
PEERS = {
    "sklearn": "RidgeCV(alphas=GRID, cv=KFold(3), scoring='neg_mean_squared_error')",
    "sklearn_classifier": "RidgeClassifierCV(alphas=GRID, cv=KFold(3))",
}


def sklearn_readout(
    x: np.ndarray, y: np.ndarray, *, folds: int = 3, per_output: bool = False
) -> ridge.Readout:
    """scikit-learn's RidgeCV as a `ridge.Readout` (same standardisation, grid and folds)."""
    from sklearn.linear_model import RidgeCV
    from sklearn.model_selection import KFold

    y2 = np.asarray(y, dtype=np.float64)
    y2 = y2[:, None] if y2.ndim == 1 else y2
    z, shift, scale = ridge.standardise(np.asarray(x, dtype=np.float64))
    cv = KFold(folds)
    est = RidgeCV(alphas=ridge.GRID, cv=cv, scoring="neg_mean_squared_error").fit(z, y2)
    o = y2.shape[1]
    coef, icpt = np.asarray(est.coef_).reshape(o, -1).T, np.atleast_1d(est.intercept_)
    lam = np.full(o, float(est.alpha_))
    rows = ridge.RowRidge(z, y2)  # the free run's candidate refits (not a CV readout)
    return ridge.Readout(coef, icpt, lam, np.zeros(o, int), np.zeros((1, o)), shift, scale, rows)


class SklearnClassifier:
    """``RidgeClassifierCV(GRID, cv=KFold(folds))`` with the attributes the decision task reads."""

    def __init__(self, grid: Any, folds: int = 3) -> None:
        from sklearn.linear_model import RidgeClassifierCV
        from sklearn.model_selection import KFold

        self.est = RidgeClassifierCV(alphas=np.asarray(grid), cv=KFold(folds))
        self.ridge = ridge.Ridge(grid)  # carries ridge_ and cv_errors_ for the task's detail

    def fit(self, x: np.ndarray, labels: np.ndarray) -> SklearnClassifier:
        self.est.fit(x, labels)
        self.ridge.ridge_ = float(self.est.alpha_)
        self.ridge.cv_errors_ = np.zeros(len(self.ridge.grid))
        return self

    def predict(self, x: np.ndarray) -> np.ndarray:
        return np.asarray(self.est.predict(x))


@contextmanager
def readouts(
    fit: Callable[..., Any], clf: type, log: list[tuple[str, float, float]]
) -> Iterator[None]:
    """Swap the plans' ``fit_readout`` and ``RidgeClassifier`` for timed ``fit`` and ``clf``;
    ``log`` gets ``(task module, seconds, lambda)`` per call."""

    def timed(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kw: Any) -> Any:
            t0 = time.perf_counter()
            out = fn(*args, **kw)
            log.append((name, time.perf_counter() - t0, float(np.median(out.lam))))
            return out

        return call

    class Timed(clf):  # type: ignore[misc,valid-type,unused-ignore]
        def fit(self, x: np.ndarray, labels: np.ndarray) -> Any:
            t0 = time.perf_counter()
            out = super().fit(x, labels)
            log.append(("decision", time.perf_counter() - t0, float(self.ridge.ridge_ or 0.0)))
            return out

    saved = [(m, m.fit_readout) for m in MODULES]
    saved_clf = decision.RidgeClassifier
    try:
        for m in MODULES:
            m.fit_readout = timed(m.__name__.rsplit(".", 1)[-1], fit)  # type: ignore[attr-defined]
        decision.RidgeClassifier = Timed  # type: ignore[misc]
        yield
    finally:
        for m, f in saved:
            m.fit_readout = f  # type: ignore[attr-defined]
        decision.RidgeClassifier = saved_clf  # type: ignore[misc]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--alpha", type=float, default=1.0)
    ap.add_argument("--tiny", action="store_true", help="182 DN-VNC neurons, --quick sizes")
    ap.add_argument("--threads", type=int, default=1, help="BLAS threads, both sides")
    ap.add_argument("--tasks", default=",".join(ROWS), help="comma list of rows' tasks")
    ap.add_argument("--solver", choices=ridge.SOLVERS.names(), default=ridge.DEFAULT_SOLVER)
    args = ap.parse_args()
    warnings.filterwarnings("ignore")
    load0 = [round(v, 2) for v in os.getloadavg()]
    tasks = [t for t in args.tasks.split(",") if t]
    cfg = ExperimentConfig(
        tasks=tasks, alphas=[args.alpha], nulls=1, null_models=["degree", "random-esn"],
        outputs="DN-VNC" if args.tiny else "all", quick=args.tiny,
    )  # fmt: skip
    exp = resolve_experiment(cfg)
    c = exp.config
    names = {"narma10": "narma10", "mackey_glass": "mackey-glass", "lorenz": "lorenz",
             "memory_capacity": "memory-capacity", "decision": "decision"}  # fmt: skip
    out: dict[str, Any] = {
        "peers": PEERS,
        "networks": [m for m, _ in NETWORKS],
        "alpha": args.alpha,
        "tiny": args.tiny,
        "solver": args.solver,
        "threads": args.threads,
        "neurons_read": int(exp.outputs.size),
        "folds": 3,
        "lambdas": int(ridge.GRID.size),
        "rows": {},
    }
    sides = {
        "wirelab": (ridge.fit_readout, ridge.RidgeClassifier),
        "sklearn": (sklearn_readout, SklearnClassifier),
    }
    totals = {"wirelab": 0.0, "sklearn": 0.0}
    with threadpool_limits(args.threads):
        for model, index in NETWORKS:
            w = network_weights(exp, model, index)
            setup = Setup(
                weights=[w], alphas=np.asarray(c.alphas, dtype=np.float64), inputs=exp.inputs,
                outputs=exp.outputs, left=exp.left, right=exp.right,
                units=c.units(exp.connectome.n), seed=c.seed,
            )  # fmt: skip
            for side, (fit, clf) in sides.items():
                log: list[tuple[str, float, float]] = []
                solver = ridge.readout_solver(args.solver) if side == "wirelab" else nullcontext()
                with solver, readouts(fit, clf, log):
                    res = run_plans(exp.tasks, setup, {t: c.params(t) for t in exp.tasks})
                per = {names[n]: (s, lam) for n, s, lam in log}
                for task in tasks:
                    metric = TASKS.get(task).metrics[0]
                    row = out["rows"].setdefault(
                        f"{task}/{model}", {"higher_is_better": metric.higher_is_better}
                    )
                    sec, lam = per[task]
                    row[f"{side}_score"] = float(metric.scores(res[task])[0, 0])
                    row[f"{side}_s"], row[f"{side}_lambda"] = sec, lam
                    totals[side] += sec
    for row in out["rows"].values():
        a, b = row["wirelab_score"], row["sklearn_score"]
        sign = 1.0 if row["higher_is_better"] else -1.0
        row["better_or_equal"] = bool(sign * (a - b) >= -SAME * abs(b))
        row["speedup"] = row["sklearn_s"] / max(row["wirelab_s"], 1e-12)
    out["wirelab_s_total"], out["sklearn_s_total"] = totals["wirelab"], totals["sklearn"]
    out["speedup_total"] = totals["sklearn"] / max(totals["wirelab"], 1e-12)
    out["min_speedup"] = min(r["speedup"] for r in out["rows"].values())
    out["all_better_or_equal"] = all(r["better_or_equal"] for r in out["rows"].values())
    out["target_speedup"] = 10.0
    out["load_average_before"] = load0
    out["load_average_after"] = [round(v, 2) for v in os.getloadavg()]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
