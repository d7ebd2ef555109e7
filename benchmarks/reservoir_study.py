"""One reduced connectome study in wirelab and in reservoirpy 0.4.2, side by side in one process.

The study: the larval connectome and ``--nulls`` degree-preserving nulls, ``--gains`` gains
(alpha in 0.2 .. 2.0), the tasks (memory capacity, NARMA-10, Mackey-Glass one step and 84-step
free running with its lambda chosen on validation segments, decision, Lorenz-63) at wirelab's
default sizes, the 182 DN-VNC neurons read out, row normalisation, input scaling 0.3, a random
per-neuron bias U[-0.2, 0.2], seed 0.

- wirelab: per network, `tasks.run_plans`: every task's sequences at every gain as columns of one
  sparse product per step (`engine.run_blocks`, ``product="auto"``: MKL's sparse product through
  torch with numpy's update, float64 states).
- reservoirpy, two peer configurations (``peers``) on the same task plans (inputs, readout
  fitting, scoring), each block run as a reservoirpy user runs it: one node per network, gain
  and input layout (``W`` given as ``alpha * W.T``: reservoirpy computes ``W @ x``), ``run`` on
  each task's sequences, free runs step by step with ``step(readout(x))``, float64.
  ``reservoirpy_numpy``: ``reservoirpy.nodes.Reservoir`` (scipy CSR), one series at a time;
  ``reservoirpy_jax``: ``reservoirpy.jax.nodes.Reservoir`` with ``jax_enable_x64`` (else JAX
  computes float32), ``W`` in the fastest of BCOO, BCSR and dense, each timed on the connectome
  first (``reservoirpy_jax_ms_per_step``), sequences from rest as one ``(B, T, K)`` batch. When
  JAX does not import, ``refused`` says why in one line and the ratio is against NumPy alone.
  The process is pinned to one core (threadpoolctl does not reach XLA's threads; CPU time).

Every side fits the readouts with the same code on float64 states; ``ratio``: the whole study's
CPU time of the faster reservoirpy configuration (``vs``) over wirelab's (``reservoir_ratio``
and each peer's ``*_cpu_s`` beside it). One JSON line with the load average; ``--tiny``: every
task at a few hundred steps, no nulls, one gain.

Agreement: ``max_abs_state_diff``, the largest difference between the sides' recorded states of
the first round (every teacher-forced run, network and gain), about 1e-15 (float64 sums in
another order); ``max_rel_score_diff``, per score the largest relative difference with its
network, gain and each side's lambda. Where the states are near-singular (one-step Mackey-Glass
at high gain, condition number ~6e13) the CV error is flat over the smallest lambdas and
rounding sets the held-out score: differences of a few percent there are the readout's, not the
engines' (`wirelab.reservoir.ridge.choose_lambda` takes the largest lambda within `CV_TOL`).

Run: ``WIRELAB_DATA_DIR=DATA python benchmarks/reservoir_study.py`` (``make bench`` first).
"""

from __future__ import annotations

import argparse
import functools
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


def _numpy_node(w: sp.csr_matrix, w_in: np.ndarray, bias: np.ndarray, units: Units) -> Any:
    """A reservoirpy NumPy-backend node (``W`` ``(N, N)`` [post, pre], ``w_in`` ``(N, K)``)."""
    from reservoirpy.nodes import Reservoir as RpyReservoir

    node = RpyReservoir(
        W=w, Win=w_in, bias=bias, lr=units.leak, activation=units.activation,
        input_dim=w_in.shape[1],
    )  # fmt: skip
    node.initialize(np.zeros(w_in.shape[1]))
    return node


JAX_FORMATS = ("bcoo", "bcsr", "dense")  # the W formats reservoirpy's JAX node can multiply


def _jax_matrix(w: sp.csr_matrix, fmt: str) -> Any:
    """``w`` as a JAX array in ``fmt`` (`JAX_FORMATS`)."""
    import jax.numpy as jnp
    from jax.experimental import sparse as jsparse

    if fmt == "dense":
        return jnp.asarray(w.toarray())
    return (jsparse.BCOO if fmt == "bcoo" else jsparse.BCSR).from_scipy_sparse(w)


def _jax_node(
    w: sp.csr_matrix, w_in: np.ndarray, bias: np.ndarray, units: Units, fmt: str = "bcoo"
) -> Any:
    """A reservoirpy JAX-backend node (``reservoirpy.jax.nodes.Reservoir``, float64)."""
    import jax.numpy as jnp
    from reservoirpy.jax.nodes import Reservoir as JaxReservoir

    node = JaxReservoir(
        units=w.shape[0], W=_jax_matrix(w, fmt), Win=jnp.asarray(w_in), bias=jnp.asarray(bias),
        lr=units.leak, activation=units.activation, input_dim=w_in.shape[1],
    )  # fmt: skip
    node.initialize(jnp.zeros(w_in.shape[1]))
    return node


def rpy_blocks(
    weights: Sequence[sp.csr_matrix],
    alphas: np.ndarray,
    units: Units,
    blocks: Sequence[Block],
    *,
    backend: str = "numpy",
    jax_format: str = "bcoo",
    **_: Any,
) -> list[BlockRun]:
    """`engine.run_blocks` done with reservoirpy nodes, one per network, gain and input layout;
    ``backend`` ``numpy`` (``reservoirpy.nodes``) or ``jax`` (``reservoirpy.jax.nodes``, W in
    ``jax_format``; sequences that start from rest run as one batch, ``run`` on ``(B, T, K)``)."""
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
                args = (
                    sp.csr_matrix(a * w.T),
                    units.input_scaling * np.asarray(blk.w_in).T,
                    np.broadcast_to(np.asarray(units.bias, dtype=np.float64), (n,)).copy(),
                    units,
                )
                node = _numpy_node(*args) if backend == "numpy" else _jax_node(*args, jax_format)
                batch = None
                if backend == "jax" and blk.state0 is None and t_open and b > 1:
                    node.reset()
                    batch = np.asarray(node.run(np.ascontiguousarray(u.transpose(1, 0, 2))))
                for seq in range(b):
                    node.reset()
                    if blk.state0 is not None:
                        state0 = np.asarray(blk.state0[m, g, seq], dtype=np.float64)
                        node.state = {"out": state0 if backend == "numpy" else _jnp(state0)}
                    x = np.asarray(node.state["out"])
                    if t_open:
                        run = batch[seq] if batch is not None else np.asarray(node.run(u[:, seq]))
                        states[:, m, g, seq] = run[blk.washout :, rec]  # run: (T, N)
                        x = run[-1]
                        if batch is not None and outputs is not None:
                            node.state = {"out": _jnp(x)}
                    if outputs is not None:
                        assert blk.coef is not None and blk.intercept is not None
                        coef, icpt = blk.coef[m, g, seq], blk.intercept[m, g, seq]  # (P, K)
                        y = x[rec] @ coef + icpt
                        outputs[0, m, g, seq] = y
                        for step in range(blk.free):
                            x = np.asarray(node.step(y))
                            y = x[rec] @ coef + icpt
                            outputs[step + 1, m, g, seq] = y
                    final[m, g, seq] = x
        empty = np.zeros((0, m_, g_, b, k))
        out.append(BlockRun(states, final, outputs if outputs is not None else empty))
    return out


def _jnp(x: np.ndarray) -> Any:
    import jax.numpy as jnp

    return jnp.asarray(x)


def timed(
    runner: Callable[..., list[BlockRun]], clock: list[float], first: list[list[BlockRun]]
) -> Callable[..., Any]:
    """``runner`` with its CPU time added to ``clock[0]``; each plan's first round kept."""
    rounds = [0]

    def wrapped(*args: Any, **kwargs: Any) -> list[BlockRun]:
        t0 = time.process_time()
        try:
            runs = runner(*args, **kwargs)
        finally:
            clock[0] += time.process_time() - t0
        if rounds[0] == 0:
            first.append(runs)
        rounds[0] += 1
        return runs

    return wrapped


def state_diff(a: list[list[BlockRun]], b: list[list[BlockRun]]) -> float:
    """The largest difference between two sides' recorded states (same blocks, same order)."""
    pairs = [(x, y) for ra, rb in zip(a, b, strict=True) for x, y in zip(ra, rb, strict=True)]
    return max(float(np.max(np.abs(x.states - y.states), initial=0.0)) for x, y in pairs)


def _lam(lam: Any, gain: int) -> float | None:
    """The smallest ridge lambda a task chose at ``gain`` (None: the task has none)."""
    return None if lam is None else float(np.min(np.asarray(lam)[0][gain]))


def score_diffs(
    tasks: dict[str, Any], wl: list[dict[str, Any]], rp: list[dict[str, Any]], alphas: np.ndarray
) -> dict[str, Any]:
    """Per score label: the largest relative difference, with its network, gain and the
    smallest ridge lambda each side's CV chose there (the task's one-step readouts)."""
    out = {}
    for name, task in tasks.items():
        for label, metric in task.labelled(name):
            a = np.array([metric.scores(r[name])[0] for r in wl])  # (networks, G)
            b = np.array([metric.scores(r[name])[0] for r in rp])
            rel = np.abs(a - b) / np.maximum(np.abs(b), 1e-12)
            net, gain = np.unravel_index(int(np.argmax(rel)), rel.shape)
            lam_a, lam_b = (side[net][name].detail.get("lambda") for side in (wl, rp))
            out[label] = {
                "rel": float(f"{rel[net, gain]:.3g}"),
                "network": int(net),
                "alpha": round(float(alphas[gain]), 3),
                "wirelab": float(f"{a[net, gain]:.6g}"),
                "reservoirpy": float(f"{b[net, gain]:.6g}"),
                "lambda": [_lam(lam_a, int(gain)), _lam(lam_b, int(gain))],
            }
    return out


TINY = {  # --tiny: every task at a few hundred steps (the test of the benchmark's JSON)
    "memory-capacity": {"k_max": 10, "train": 150, "test": 60, "washout": 20},
    "narma10": {"train": 150, "test": 60, "washout": 20},
    "mackey-glass": {
        "train": 150, "test": 60, "washout": 20, "horizon": 10, "segments": 2, "warm": 20,
        "val_segments": 2,
    },
    "lorenz": {"train": 150, "test": 60, "washout": 20},
    "decision": {"trials": 24, "steps": 10},
}  # fmt: skip


def jax_ready() -> str | None:
    """None when reservoirpy's JAX backend runs here in float64; else one line saying why not.
    JAX computes in float32 unless ``jax_enable_x64`` is set (reservoirpy's JAX nodes ask for
    float64 and get float32 without it), so it is set: both peers run float64, as wirelab."""
    try:
        import jax

        jax.config.update("jax_enable_x64", True)
        import reservoirpy.jax.nodes  # noqa: F401
    except Exception as exc:  # ImportError, or jaxlib failing to load on this CPU
        return f"jax does not import here: {type(exc).__name__}: {str(exc)[:120]}"
    return None


def jax_formats(w: sp.csr_matrix, units: Units, n_in: int, steps: int) -> dict[str, float]:
    """ms per step of reservoirpy's JAX node on ``w`` with ``W`` in each of `JAX_FORMATS`
    (one sequence of ``steps`` steps, after a compiling run), CPU time."""
    rng = np.random.default_rng(0)
    w_in = np.zeros((w.shape[0], 1))
    w_in[rng.choice(w.shape[0], n_in, replace=False), 0] = units.input_scaling
    u = rng.uniform(-1, 1, (steps, 1))
    bias = np.broadcast_to(np.asarray(units.bias, dtype=np.float64), (w.shape[0],)).copy()
    out = {}
    for fmt in JAX_FORMATS:
        node = _jax_node(sp.csr_matrix(w.T), w_in, bias, units, fmt)
        np.asarray(node.run(u))  # compiles
        node.reset()
        t0 = time.process_time()
        np.asarray(node.run(u))
        out[fmt] = round((time.process_time() - t0) / steps * 1e3, 4)
    return out


def one_core() -> None:
    """Pin the process to one core: wirelab and reservoirpy's NumPy side run one thread
    (threadpoolctl), and XLA's CPU threads, which threadpoolctl does not reach, are held to the
    same core (the figures are CPU time; XLA's second thread only adds to it, measured)."""
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--nulls", type=int, default=2)
    ap.add_argument("--gains", type=int, default=3)
    ap.add_argument("--train", type=int, default=None, help="training steps (default: tasks')")
    ap.add_argument("--outputs", default="DN-VNC", help="readout population (all: every neuron)")
    ap.add_argument("--probe-steps", type=int, default=500, help="steps of the JAX format probe")
    ap.add_argument("--tiny", action="store_true", help="no nulls, one gain, every task tiny")
    args = ap.parse_args()
    warnings.filterwarnings("ignore")
    one_core()
    if args.tiny:
        args.nulls, args.gains, args.probe_steps = 0, 1, 20
    con = load_larva(allow_download=False)
    real = as_csr(con)
    nets = [normalize(real, "row")] + [
        normalize(make_null("degree", con, seed=1 + i), "row") for i in range(args.nulls)
    ]
    inputs = parse_population(con, "sensory")
    bias = np.random.default_rng([0, 0xB1A5]).uniform(-0.2, 0.2, con.n)
    units = Units("tanh", 1.0, 0.3, bias)
    alphas = np.linspace(0.2, 2.0, args.gains) if args.gains > 1 else np.array([1.0])
    tasks = {name: TASKS.get(name) for name in TASKS}
    sized = ("memory-capacity", "narma10", "mackey-glass", "lorenz")
    params: dict[str, dict[str, Any]] = (
        {t: {"train": args.train} for t in sized} if args.train else {}
    )
    if args.tiny:
        params = TINY

    def setup(w: sp.csr_matrix) -> Setup:
        return Setup(
            [w], alphas, inputs, parse_population(con, args.outputs),
            left=inputs[con.side[inputs] == "left"], right=inputs[con.side[inputs] == "right"],
            units=units, seed=0,
        )  # fmt: skip

    runners: dict[str, Callable[..., list[BlockRun]]] = {
        "wirelab": run_blocks,
        "reservoirpy_numpy": functools.partial(rpy_blocks, backend="numpy"),
    }
    refused: dict[str, str] = {}
    formats: dict[str, float] = {}
    why = jax_ready()
    if why is None:
        formats = jax_formats(nets[0], units, inputs.size, args.probe_steps)
        best = min(formats, key=formats.__getitem__)
        runners["reservoirpy_jax"] = functools.partial(rpy_blocks, backend="jax", jax_format=best)
    else:
        refused["reservoirpy_jax"] = why
    sides: dict[str, dict[str, Any]] = {}
    with threadpool_limits(1):
        TASKS.get("narma10")(setup(nets[0]), train=50, test=20)  # warm-up
        for side, runner in runners.items():
            clock: list[float] = [0.0]
            first: list[list[BlockRun]] = []
            t0, w0 = time.process_time(), time.perf_counter()
            scores = [
                run_plans(tasks, setup(w), params, runner=timed(runner, clock, first)) for w in nets
            ]
            cpu = time.process_time() - t0
            sides[side] = {
                "cpu_s": cpu,
                "wall_s": time.perf_counter() - w0,
                "reservoir_cpu_s": clock[0],
                "readout_cpu_s": cpu - clock[0],
                "scores": scores,
                "first": first,
            }
    print(json.dumps(report(sides, tasks, alphas, refused, formats, args, len(nets))))


def report(
    sides: dict[str, dict[str, Any]],
    tasks: dict[str, Any],
    alphas: np.ndarray,
    refused: dict[str, str],
    formats: dict[str, float],
    args: argparse.Namespace,
    networks: int,
) -> dict[str, Any]:
    """The JSON line: every side's figures, the ratio against the faster reservoirpy peer."""
    wl = sides["wirelab"]
    peers = {}
    for name, side in sides.items():
        if name == "wirelab":
            continue
        peers[name] = {
            "cpu_s": round(side["cpu_s"], 2),
            "wall_s": round(side["wall_s"], 2),
            "reservoir_cpu_s": round(side["reservoir_cpu_s"], 2),
            "readout_cpu_s": round(side["readout_cpu_s"], 2),
            "ratio": round(side["cpu_s"] / wl["cpu_s"], 2),
            "reservoir_ratio": round(side["reservoir_cpu_s"] / wl["reservoir_cpu_s"], 2),
            "max_abs_state_diff": float(f"{state_diff(wl['first'], side['first']):.3g}"),
            "max_rel_score_diff": score_diffs(tasks, wl["scores"], side["scores"], alphas),
        }
    fastest = min(peers, key=lambda name: peers[name]["cpu_s"])
    return {
        "networks": networks,
        "gains": int(alphas.size),
        "tasks": list(tasks),
        "outputs": args.outputs,
        "train": "tiny" if args.tiny else (args.train or "task defaults"),
        "wirelab_cpu_s": round(wl["cpu_s"], 2),
        "wirelab_wall_s": round(wl["wall_s"], 2),
        "wirelab_reservoir_cpu_s": round(wl["reservoir_cpu_s"], 2),
        "wirelab_readout_cpu_s": round(wl["readout_cpu_s"], 2),
        "peers": peers,
        "refused": refused,
        "reservoirpy_jax_ms_per_step": formats,
        "vs": fastest,
        "ratio": peers[fastest]["ratio"],
        "reservoir_ratio": peers[fastest]["reservoir_ratio"],
        "max_abs_state_diff": max(p["max_abs_state_diff"] for p in peers.values()),
        "load_average": [round(v, 2) for v in os.getloadavg()],
        "target_ratio": 4.0,
    }


if __name__ == "__main__":
    main()
