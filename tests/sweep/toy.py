"""A small real experiment for sweep tests: ridge regression on a seeded linear problem.

``python -m tests.sweep.toy --n 200 --noise 0.1 --seed 0 --out DIR`` writes a result directory
whose metrics (test R^2, MSE, fitted weight error) depend only on the arguments; ``--noise
0.1,1.0`` fits each noise level and lists one row per level under ``rows`` (a batched run).
It follows the experiment contract (`wirelab.results.experiment`): a failure inside the run
leaves ``failed.json``, which the sweep clears before it retries the point.
``--fail`` makes it exit 1; ``--flaky FILE`` fails on the first attempt only (creates FILE);
``--log FILE`` appends one line per invocation, so tests can count how often a point ran;
``--sleep`` slows it; ``--hang-once FILE`` hangs (sleeps 600 s) on the first attempt only
(creates FILE), for tests that kill the sweep driver while a point runs; ``--kill-ray-worker``
kills the Ray worker that runs it (its parent), as a node lost under a task would (anywhere
else it exits 1).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

from wirelab.results import experiment


def _fit(a: argparse.Namespace, noise: float) -> dict[str, float]:
    """Ridge regression on y = x w + noise, seeded by --seed alone (same data for any batch)."""
    rng = np.random.default_rng(a.seed)
    w = rng.normal(size=a.dim)  # (D,)
    x = rng.normal(size=(2 * a.n, a.dim))  # (2N, D)
    y = x @ w + noise * rng.normal(size=2 * a.n)  # (2N,)
    xtr, ytr, xte, yte = x[: a.n], y[: a.n], x[a.n :], y[a.n :]
    w_hat = np.linalg.solve(xtr.T @ xtr + a.ridge * np.eye(a.dim), xtr.T @ ytr)
    mse = float(np.mean((xte @ w_hat - yte) ** 2))
    return {
        "test_r2": 1.0 - mse / float(np.var(yte)),
        "test_mse": mse,
        "weight_error": float(np.linalg.norm(w_hat - w)),
    }


def _kill_ray_worker() -> None:
    """SIGKILL the parent process if it is a Ray worker (``ray::...`` in its command line)."""
    parent = os.getppid()
    cmdline = Path(f"/proc/{parent}/cmdline").read_bytes().decode(errors="replace")
    if "ray::" not in cmdline and "default_worker.py" not in cmdline:
        print("error: not run by a Ray worker", file=sys.stderr)
        raise SystemExit(1)
    os.kill(parent, 9)
    time.sleep(60)  # the tether ends this process with its parent


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--dim", type=int, default=8)
    ap.add_argument("--noise", default="0.1", help="one value, or a comma list (batched)")
    ap.add_argument("--ridge", type=float, default=1e-3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--sleep", type=float, default=0.0)
    ap.add_argument("--fail", action="store_true")
    ap.add_argument("--flaky", default=None)
    ap.add_argument("--log", default=None)
    ap.add_argument("--hang-once", default=None)
    ap.add_argument("--kill-ray-worker", action="store_true")
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    if a.kill_ray_worker:
        _kill_ray_worker()
    if a.log:
        with open(a.log, "a") as fh:
            fh.write(f"{a.n} {a.noise} {a.seed} threads={os.environ.get('OMP_NUM_THREADS')}\n")
    with experiment(a.out, command="python -m tests.sweep.toy", config=vars(a)) as rd:
        time.sleep(a.sleep)
        if a.hang_once and not Path(a.hang_once).exists():
            Path(a.hang_once).write_text(f"{os.getpid()}\n")
            time.sleep(600)
        if a.fail:
            print("error: asked to fail", file=sys.stderr)
            raise SystemExit(1)
        if a.flaky and not Path(a.flaky).exists():
            Path(a.flaky).write_text("failed once\n")
            print("error: flaky first attempt", file=sys.stderr)
            raise SystemExit(3)
        noises = [float(v) for v in str(a.noise).split(",")]
        rows = [dict(noise=nz, **_fit(a, nz)) for nz in noises]
        metrics: dict[str, object] = {k: v for k, v in rows[0].items() if k != "noise"}
        if len(rows) > 1:
            metrics = {}
        rd.finish({**metrics, "fit": {"n_train": a.n, "dim": a.dim}, "rows": rows})
    return 0


if __name__ == "__main__":
    sys.exit(main())
