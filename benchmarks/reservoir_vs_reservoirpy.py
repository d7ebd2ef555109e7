"""wirelab.reservoir vs reservoirpy 0.4.2, side by side in one process.

Same row-normalised larval matrix (``W[pre, post]``; reservoirpy computes ``W @ s`` so it gets
``W.T``), same leaky-tanh update (leak 1, no bias), same input weights on the sensory neurons, one
input channel u ~ U[-1, 1], ``--steps`` steps (default 10,000; the 64-reservoir case uses
``--many-steps``, default 1,000, because reservoirpy runs it 64 times; the ratios are of per-step
rates, which do not depend on the run length):

1. one reservoir, full state recorded: reservoirpy ``Reservoir.run`` vs `wirelab.Reservoir.run`
   (float32, scipy's CSR product);
2. 64 reservoirs: reservoirpy run 64 times (the connectome + 63 weight-permutation nulls) vs
   wirelab advancing (a) the same 64 distinct matrices as one block-diagonal product and (b) 64
   gains of the connectome as one 64-column product (recording the DN-VNC neurons);
3. parity: memory capacity of 100-unit random ESNs built by reservoirpy (sr=1, connectivity 0.1,
   ridge 1e-4, k_max=50): reservoirpy's ``memory_capacity`` vs wirelab on the same W, W_in and
   input series with the same train/test split.

Prints one JSON line: steps/s of each, the ratios, both MC values and the load average
(``--tiny``: 200 steps, 3 reservoirs, 1 seed; the test of the JSON's keys).
Run: ``WIRELAB_DATA_DIR=../shared/data .venv/bin/python benchmarks/reservoir_vs_reservoirpy.py``
"""

from __future__ import annotations

import argparse
import json
import os
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.sparse as sp

from wirelab.data import load_larva
from wirelab.reservoir import Reservoir, parse_population, reservoir_weights
from wirelab.reservoir.nulls import weight_permutation
from wirelab.reservoir.ridge import Ridge
from wirelab.reservoir.units import Units

# reservoirpy's Win is used as given: wirelab's units without their default input scaling (0.3)
PLAIN = Units("tanh", 1.0, 1.0, 0.0)


def _timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def rpy_reservoir(w_post_pre: sp.csr_matrix, w_in_col: np.ndarray) -> Any:
    from reservoirpy.nodes import Reservoir as RpyReservoir

    return RpyReservoir(
        W=w_post_pre, Win=w_in_col, bias=0.0, lr=1.0, activation="tanh", input_dim=1
    )


def parity(seeds: list[int], k_max: int = 50) -> dict[str, float]:
    """Memory capacity: reservoirpy's function vs wirelab on identical matrices and data."""
    from reservoirpy.nodes import Reservoir as RpyReservoir
    from reservoirpy.nodes import Ridge as RpyRidge
    from reservoirpy.observables import memory_capacity

    rpy_mc, wl_mc = [], []
    for seed in seeds:
        res = RpyReservoir(100, sr=1.0, rc_connectivity=0.1, seed=seed)
        res.initialize(np.zeros((1, 1)))
        model = res >> RpyRidge(ridge=1e-4)
        series = np.random.default_rng(seed).uniform(-0.8, 0.8, (10 * k_max, 1))
        rpy_mc.append(float(memory_capacity(model, k_max=k_max, series=series, test_size=0.2)))
        # wirelab: reservoirpy's W is [post, pre] (it computes W @ s): pass it as W.T
        w = sp.csr_matrix(res.W).T
        w_in = np.asarray(sp.csr_matrix(res.Win).toarray()).T  # (1, N) [channel, post]
        test_len = round(series.shape[0] * 0.2)
        u = series[k_max:, 0]  # reservoirpy's inputs: column 0 of the sliding window
        targets = np.stack(
            [series[k_max - k : series.shape[0] - k, 0] for k in range(1, k_max + 1)], 1
        )  # (T, k_max): u(t - k)
        r = Reservoir(w, w_in, units=PLAIN, dtype=np.float64)
        states = r.run(u[:, None]).states[:, 0, 0, 0]  # (T, N)
        n_train = u.size - test_len
        ridge = Ridge(1e-4).fit(states[k_max:n_train], targets[k_max:n_train])
        pred = ridge.predict(states[n_train:])
        mc = sum(np.corrcoef(pred[:, k], targets[n_train:, k])[0, 1] ** 2 for k in range(k_max))
        wl_mc.append(float(mc))
    return {
        "mc_reservoirpy": float(np.mean(rpy_mc)),
        "mc_wirelab": float(np.mean(wl_mc)),
        "mc_rel_diff": float(abs(np.mean(wl_mc) - np.mean(rpy_mc)) / np.mean(rpy_mc)),
        "mc_max_rel_diff_per_seed": float(
            max(abs(a - b) / b for a, b in zip(wl_mc, rpy_mc, strict=True))
        ),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=10_000)
    ap.add_argument("--reservoirs", type=int, default=64)
    ap.add_argument(
        "--many-steps",
        type=int,
        default=1000,
        help="steps for the 64-reservoir case (reservoirpy runs it 64 times)",
    )
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--tiny", action="store_true", help="200 steps, 3 reservoirs, 1 seed")
    args = ap.parse_args()
    if args.tiny:
        args.steps, args.reservoirs, args.many_steps, args.seeds = 200, 3, 50, 1
    warnings.filterwarnings("ignore")

    con = load_larva(allow_download=False)
    w = reservoir_weights(con, normalize_by="row")  # (N, N) [pre, post]
    sensory = parse_population(con, "sensory")
    dn = parse_population(con, "DN-VNC")
    rng = np.random.default_rng(0)
    w_in = np.zeros((1, con.n))
    w_in[0, sensory] = rng.uniform(-1, 1, sensory.size)
    u = rng.uniform(-1, 1, (args.steps, 1))
    out: dict[str, object] = {"steps": args.steps, "reservoirs": args.reservoirs}

    # 1. one reservoir, full state
    rpy = rpy_reservoir(sp.csr_matrix(w.T), w_in.T.copy())
    t_rpy, s_rpy = _timed(lambda: rpy.run(u))
    r = Reservoir(w, w_in, units=PLAIN)
    r.run(u[:5])  # warm up
    t_wl, res = _timed(lambda: r.run(u))
    out.update(
        single_max_abs_diff_scipy=float(np.abs(res.states[:, 0, 0, 0] - s_rpy).max()),
        single_reservoirpy_steps_per_s=args.steps / t_rpy,
        single_wirelab_scipy_steps_per_s=args.steps / t_wl,
        single_ratio=t_rpy / t_wl,
    )

    # 2. 64 reservoirs: connectome + weight-permutation nulls
    mats = [w] + [
        reservoir_weights(weight_permutation(con, seed=i), normalize_by="row")
        for i in range(1, args.reservoirs)
    ]
    um = u[: args.many_steps]
    t0 = time.perf_counter()
    for m in mats:
        rpy_reservoir(sp.csr_matrix(m.T), w_in.T.copy()).run(um)
    t_rpy64 = time.perf_counter() - t0
    block = Reservoir(mats, w_in, units=PLAIN)
    t_block, _ = _timed(lambda: block.run(um, record=dn))
    shared = Reservoir(w, w_in, units=PLAIN, alphas=np.linspace(0.5, 1.5, args.reservoirs))
    shared.run(u[:5], record=dn)
    t_gains, _ = _timed(lambda: shared.run(um, record=dn))
    out.update(
        many_reservoirpy_s=t_rpy64,
        many_wirelab_block_scipy_s=t_block,
        many_wirelab_gains_scipy_s=t_gains,
        many_ratio_distinct_matrices=t_rpy64 / t_block,
        many_ratio_shared_matrix=t_rpy64 / t_gains,
    )

    # 3. parity
    out.update(parity(list(range(1, args.seeds + 1))))
    out["targets"] = {"single_ratio": 3.0, "many_ratio": 10.0, "mc_rel_diff": 0.05}
    out["load_average"] = [round(v, 2) for v in os.getloadavg()]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
