"""One reduced connectome study in wirelab and in reservoirpy 0.4.2, side by side in one process.

The study: the larval connectome and ``--nulls`` degree-preserving nulls, ``--gains`` gains
(alpha in 0.2 .. 2.0), the tasks (memory capacity, NARMA-10, Mackey-Glass one step and 84-step
free running with its lambda chosen on validation segments, decision, Lorenz-63) at wirelab's
default sizes, the 182 DN-VNC neurons read out, row normalisation, input scaling 0.3, a random
per-neuron bias U[-0.2, 0.2], seed 0.

- wirelab: per network, `tasks.run_plans`: every task's sequences at every gain as columns of one
  sparse product per step (`engine.run_blocks`, MKL through torch, float64 states).
- reservoirpy: the same task plans (inputs, readout fitting with the same CV and lambda grid,
  scoring), but every block of input sequences is run the way a reservoirpy user runs it: one
  ``reservoirpy.nodes.Reservoir`` per network, gain and input layout (``W`` given as
  ``alpha * W.T`` because reservoirpy computes ``W @ x``), ``run`` on each task's sequences
  (trials as a batch of series from rest), free-running segments step by step with
  ``step(readout(x))``, float64 (reservoirpy's default).

Both sides fit the readouts with the same code on float64 states, so the scores agree up to the
order of floating-point sums (and its growth at chaotic gains); the difference is how the
reservoirs are run. Prints one JSON line: CPU seconds of each side (one thread each), their
ratio, the seconds spent running reservoirs on each side, the largest relative score difference
per task and the load average.

Run: ``WIRELAB_DATA_DIR=DATA python benchmarks/reservoir_study.py`` (DATA: the offline data
directory; ``pip install reservoirpy==0.4.2``, the bench extra).
"""

from __future__ import annotations

import argparse
import json
import os
import time
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

from wirelab.data import load_larva
from wirelab.reservoir.engine import Block, BlockRun, run_blocks
from wirelab.reservoir.nulls import make_null
from wirelab.reservoir.populations import parse_population
from wirelab.reservoir.tasks import TASKS, Setup, run_plans
from wirelab.reservoir.units import Units
from wirelab.reservoir.weights import as_csr, normalize


def rpy_blocks(
    weights: Sequence[sp.csr_matrix],
    alphas: np.ndarray,
    units: Units,
    blocks: Sequence[Block],
    **_: Any,
) -> list[BlockRun]:
    """`engine.run_blocks` done with reservoirpy nodes, one per network, gain and input layout."""
    from reservoirpy.nodes import Reservoir as RpyReservoir

    out = []
    for blk in blocks:
        u = np.asarray(blk.inputs, dtype=np.float64)  # (T, B, K)
        t_open, b, k = u.shape
        rec = np.arange(weights[0].shape[0]) if blk.record is None else np.asarray(blk.record)
        m_, g_, n = len(weights), len(alphas), weights[0].shape[0]
        states = np.empty((t_open - blk.washout, m_, g_, b, rec.size))
        final = np.empty((m_, g_, b, n))
        outputs = np.empty((blk.free + 1, m_, g_, b, k)) if blk.coef is not None else None
        for m, w in enumerate(weights):
            for g, a in enumerate(alphas):
                node = RpyReservoir(
                    W=sp.csr_matrix(a * w.T),
                    Win=units.input_scaling * np.asarray(blk.w_in).T,
                    bias=np.broadcast_to(np.asarray(units.bias, dtype=np.float64), (n,)).copy(),
                    lr=units.leak,
                    activation=units.activation,
                    input_dim=k,
                )
                node.initialize(np.zeros(k))
                for seq in range(b):
                    node.reset()
                    if blk.state0 is not None:
                        node.state = {"out": np.asarray(blk.state0[m, g, seq], dtype=np.float64)}
                    x = node.state["out"]
                    if t_open:
                        run = node.run(u[:, seq])  # (T, N)
                        states[:, m, g, seq] = run[blk.washout :, rec]
                        x = run[-1]
                    if outputs is not None:
                        assert blk.coef is not None and blk.intercept is not None
                        coef, icpt = blk.coef[m, g, seq], blk.intercept[m, g, seq]  # (P, K)
                        y = x[rec] @ coef + icpt
                        outputs[0, m, g, seq] = y
                        for step in range(blk.free):
                            x = node.step(y)
                            y = x[rec] @ coef + icpt
                            outputs[step + 1, m, g, seq] = y
                    final[m, g, seq] = x
        empty = np.zeros((0, m_, g_, b, k))
        out.append(BlockRun(states, final, outputs if outputs is not None else empty))
    return out


def timed(runner: Callable[..., list[BlockRun]], clock: list[float]) -> Callable[..., Any]:
    def wrapped(*args: Any, **kwargs: Any) -> list[BlockRun]:
        t0 = time.process_time()
        try:
            return runner(*args, **kwargs)
        finally:
            clock[0] += time.process_time() - t0

    return wrapped


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--nulls", type=int, default=2)
    ap.add_argument("--gains", type=int, default=3)
    ap.add_argument("--train", type=int, default=None, help="training steps (default: tasks')")
    args = ap.parse_args()
    warnings.filterwarnings("ignore")
    con = load_larva(allow_download=False)
    real = as_csr(con)
    nets = [normalize(real, "row")] + [
        normalize(make_null("degree", con, seed=1 + i), "row") for i in range(args.nulls)
    ]
    inputs = parse_population(con, "sensory")
    bias = np.random.default_rng([0, 0xB1A5]).uniform(-0.2, 0.2, con.n)
    alphas = np.linspace(0.2, 2.0, args.gains) if args.gains > 1 else np.array([1.0])
    tasks = {name: TASKS.get(name) for name in TASKS}
    sized = ("memory-capacity", "narma10", "mackey-glass", "lorenz")
    params = {t: {"train": args.train} for t in sized} if args.train else {}

    def setup(w: sp.csr_matrix) -> Setup:
        return Setup(
            [w], alphas, inputs, parse_population(con, "DN-VNC"),
            left=inputs[con.side[inputs] == "left"], right=inputs[con.side[inputs] == "right"],
            units=Units("tanh", 1.0, 0.3, bias), seed=0,
        )  # fmt: skip

    sides: dict[str, dict[str, Any]] = {}
    with threadpool_limits(1):
        TASKS.get("narma10")(setup(nets[0]), train=50, test=20)  # warm-up
        for side, runner in (("wirelab", run_blocks), ("reservoirpy", rpy_blocks)):
            clock = [0.0]
            t0, w0 = time.process_time(), time.perf_counter()
            scores = [run_plans(tasks, setup(w), params, runner=timed(runner, clock)) for w in nets]
            sides[side] = {
                "cpu_s": time.process_time() - t0,
                "wall_s": time.perf_counter() - w0,
                "reservoir_cpu_s": clock[0],
                "scores": scores,
            }
    wl, rp = sides["wirelab"], sides["reservoirpy"]
    diff = {}
    for name in tasks:
        a = np.array([r[name].scores for r in wl["scores"]])
        b = np.array([r[name].scores for r in rp["scores"]])
        diff[name] = float(np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-12)))
    print(
        json.dumps(
            {
                "networks": len(nets),
                "gains": int(alphas.size),
                "tasks": list(tasks),
                "train": args.train or "task defaults",
                "wirelab_cpu_s": round(wl["cpu_s"], 2),
                "reservoirpy_cpu_s": round(rp["cpu_s"], 2),
                "ratio": round(rp["cpu_s"] / wl["cpu_s"], 2),
                "wirelab_reservoir_cpu_s": round(wl["reservoir_cpu_s"], 2),
                "reservoirpy_reservoir_cpu_s": round(rp["reservoir_cpu_s"], 2),
                "reservoir_ratio": round(rp["reservoir_cpu_s"] / wl["reservoir_cpu_s"], 2),
                "max_rel_score_diff": {k: float(f"{v:.3g}") for k, v in diff.items()},
                "load_average": [round(v, 2) for v in os.getloadavg()],
                "target_ratio": 4.0,
            }
        )
    )


if __name__ == "__main__":
    main()
