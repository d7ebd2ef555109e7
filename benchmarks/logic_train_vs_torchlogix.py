"""Training step and discrete inference: wirelab.logic vs torchlogix 0.2.2, side by side.

Same architecture (784 binarised MNIST pixels -> 6 x 8,000 LogicDense -> GroupSum(10)), same
batch (256 real MNIST training images), same thread count, one process; the two libraries' steps
(forward, backward, AdamW step) alternate so that both see the same machine load, and the median
of each is reported. Also: inference images/s of each discrete (argmax-gate) model in PyTorch,
batch 1024.

torchlogix at its fastest: each of its LUT parametrizations (`PARAMETRIZATIONS`: the 2022
16-gate softmax ``raw``, the Walsh ``warp`` and ``light``) is a configuration of its own, timed
in the same interleaved loop; the line gives every configuration's median step and discrete
images/s, and each ratio is against the fastest configuration (``vs``, ``inference_vs``):
speedup = min_c median(step_c) / median(step_wirelab).

Run:  .venv/bin/python benchmarks/logic_train_vs_torchlogix.py [--steps 10] [--threads 2]
      [--tiny: 2 x 400 gates, batch 32, 3 steps; seconds]
The recipes' shape (the `mnist10-48k-paper` recipe: the centre 20 x 20 pixels, real-valued in
training, batch 100, one thread): ``--crop 20 --real --batch 100 --threads 1``.
Needs: ``pip install --no-deps torchlogix==0.2.2`` (plus tqdm, scikit-learn). Its package
``__init__`` imports ``circuit.py``, which only Python 3.12 parses; on 3.11 we register an empty
placeholder for ``torchlogix.circuit`` first (its layers do not use it).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
import types
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np
import torch

PARAMETRIZATIONS = ("raw", "warp", "light")  # torchlogix.parametrization.setup_parametrization


def import_torchlogix() -> tuple[Any, Any, Any]:
    if sys.version_info < (3, 12) and "torchlogix.circuit" not in sys.modules:
        placeholder = types.ModuleType("torchlogix.circuit")
        placeholder.Circuit = None  # type: ignore[attr-defined]
        sys.modules["torchlogix.circuit"] = placeholder
    import torchlogix
    from torchlogix.layers import GroupSum, LogicDense

    return torchlogix, LogicDense, GroupSum


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--width", type=int, default=8000)
    ap.add_argument("--depth", type=int, default=6)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--crop", type=int, default=None, help="centre CROP x CROP pixels only")
    ap.add_argument("--real", action="store_true", help="real-valued pixels in training")
    ap.add_argument("--tiny", action="store_true", help="2 x 400 gates, batch 32, 3 steps")
    args = ap.parse_args()
    if args.tiny:
        args.steps, args.width, args.depth, args.batch = 3, 400, 2, 32
    torch.set_num_threads(args.threads)

    from wirelab.data import load_mnist
    from wirelab.logic.kernels import use_threads
    from wirelab.logic.model import LogicNet

    try:
        tlx, TLDense, TLGroupSum = import_torchlogix()
    except ImportError as exc:  # no peer, no ratio
        print(
            json.dumps(
                {
                    "benchmark": "logic_train_vs_torchlogix",
                    "vs": None,
                    "refused": f"torchlogix does not import ({exc}): make bench",
                }
            )
        )
        return
    images, labels = load_mnist("train")
    side = args.crop or 28
    lo = (28 - side) // 2

    def pixels(n: int) -> torch.Tensor:  # (n, side, side) in [0, 1]
        return torch.from_numpy(images[:n, lo : lo + side, lo : lo + side] / 255.0).float()

    x_img = pixels(args.batch)
    x_bits = x_img.reshape(args.batch, -1)  # (B, side^2): the same inputs for both
    x_bits = x_bits if args.real else (x_bits > 0.5).float()
    y = torch.from_numpy(labels[: args.batch].astype(np.int64))
    x_eval_img = pixels(1024)
    x_eval_bits = (x_eval_img.reshape(1024, -1) > 0.5).float()

    torch.manual_seed(0)
    spec = {"input_shape": [side, side], "dense": [args.width] * args.depth, "classes": 10,
            "tau": 20.0, "init": "gaussian", "connections": "random",
            "inputs": "real" if args.real else "binary"}  # fmt: skip
    ours = LogicNet(spec)
    widths = [side * side] + [args.width] * args.depth

    def peer(parametrization: str) -> torch.nn.Module:
        dense = [TLDense(widths[i], widths[i + 1], parametrization=parametrization)
                 for i in range(args.depth)]  # fmt: skip
        return torch.nn.Sequential(*dense, TLGroupSum(10, tau=20.0))

    theirs = {p: peer(p) for p in PARAMETRIZATIONS}
    opt_ours = torch.optim.AdamW(ours.parameters(), lr=0.01)
    opt_theirs = {p: torch.optim.AdamW(m.parameters(), lr=0.01) for p, m in theirs.items()}

    def step_ours() -> float:
        use_threads(args.threads)  # numba kernels on `threads`, torch's small ops on one
        t = time.perf_counter()
        loss = torch.nn.functional.cross_entropy(ours(x_img, "soft"), y)
        opt_ours.zero_grad()
        loss.backward()
        opt_ours.step()
        return time.perf_counter() - t

    def step_theirs(p: str) -> float:
        torch.set_num_threads(args.threads)
        t = time.perf_counter()
        loss = torch.nn.functional.cross_entropy(theirs[p](x_bits), y)
        opt_theirs[p].zero_grad()
        loss.backward()
        opt_theirs[p].step()
        return time.perf_counter() - t

    for _ in range(2):  # warm-up (numba compile cache, allocator)
        step_ours()
        for p in theirs:
            step_theirs(p)
    t_ours: list[float] = []
    t_theirs: dict[str, list[float]] = {p: [] for p in theirs}
    for _ in range(args.steps):
        t_ours.append(step_ours())
        for p in theirs:
            t_theirs[p].append(step_theirs(p))

    @torch.no_grad()
    def ips(fn: Callable[[], Any], reps: int = 3) -> float:
        fn()
        ts = []
        for _ in range(reps):
            t = time.perf_counter()
            fn()
            ts.append(time.perf_counter() - t)
        return 1024 / statistics.median(ts)

    use_threads(args.threads)
    inf_ours = ips(lambda: ours(x_eval_img, "hard"))
    torch.set_num_threads(args.threads)
    inf_theirs: dict[str, float] = {}
    for p, m in theirs.items():
        m.eval()  # torchlogix's eval mode uses the argmax gate of every neuron
        inf_theirs[p] = ips(partial(m, x_eval_bits))
    with torch.no_grad():  # both discrete models really are discrete: 0/1 wires, integer scores
        s = ours(x_eval_img, "hard") * 20.0
        assert torch.equal(s, s.round())

    med_ours = statistics.median(t_ours)
    configs = {p: {"step_s": round(statistics.median(t_theirs[p]), 4),
                   "discrete_images_per_s": round(inf_theirs[p])} for p in theirs}  # fmt: skip
    fastest = min(configs, key=lambda p: configs[p]["step_s"])
    fastest_inf = max(inf_theirs, key=inf_theirs.__getitem__)
    print(
        json.dumps(
            {
                "benchmark": "logic_train_vs_torchlogix",
                "architecture": f"{side * side} -> {args.depth} x {args.width} LogicDense -> "
                "GroupSum(10)",
                "inputs": "real-valued" if args.real else "binary",
                "batch": args.batch,
                "threads": args.threads,
                "steps": args.steps,
                "tiny": args.tiny,
                "torchlogix_configs": configs,
                "wirelab_step_s": round(med_ours, 4),
                "vs": fastest,
                "torchlogix_step_s": configs[fastest]["step_s"],
                "speedup": round(statistics.median(t_theirs[fastest]) / med_ours, 2),
                "wirelab_discrete_images_per_s": round(inf_ours),
                "inference_vs": fastest_inf,
                "torchlogix_discrete_images_per_s": round(inf_theirs[fastest_inf]),
                "inference_speedup": round(inf_ours / inf_theirs[fastest_inf], 2),
                "load": round(os.getloadavg()[0], 2),
                "torchlogix_version": getattr(tlx, "__version__", "0.2.2"),
                "torch": torch.__version__,
            }
        )
    )


if __name__ == "__main__":
    main()
