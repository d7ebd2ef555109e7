"""Time to 97 % validation accuracy on ten-class MNIST, one thread: wirelab vs torchlogix 0.2.2.

What a user waits for: training seconds until the *discrete* network (every neuron its most
probable gate) first classifies at least ``--target`` of the validation images correctly.

- wirelab: its fastest recipe (``--recipe``, default ``recipes/logic/mnist10-8k-learned.toml``:
  8,000 gates, learned wiring, shifted images, CAGE) run by `wirelab.logic.training.run` with
  ``stop_at = target``; its validation every ``eval_every`` steps of the recipe.
- torchlogix: the 2022 paper's MNIST model the paper's way (Petersen et al. 2022, difflogic's
  small MNIST model: the centre 20 x 20 pixels, real-valued in training, 6 x 8,000 LogicDense
  with fixed random wiring and the 16-gate softmax, GroupSum(10, tau 10), Adam lr 0.01, batch
  100), validated every ``--eval-every`` steps in torchlogix's eval mode (argmax gates) on the
  pixels thresholded at 0.5, as `mnist10-48k-paper` discretises.

Both use the same training / validation split (wirelab's: 6,000 training images held out with
seed 0), one thread, in one process, one after the other; validation time is not counted on
either side. torchlogix stops at ``--max-minutes`` of training: if it has not reached the target
by then, the JSON line says so (``torchlogix_reached: false``) and gives the seconds run, so the
ratio is a lower bound.

Run:  .venv/bin/python benchmarks/logic_time_to_accuracy.py [--target 0.97] [--max-minutes 60]
Needs: ``make bench`` (torchlogix 0.2.2 without its declared dependencies).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from logic_train_vs_torchlogix import import_torchlogix

ROOT = Path(__file__).resolve().parents[1]
SIDE, WIDTH, DEPTH, TAU, BATCH, LR = 20, 8000, 6, 10.0, 100, 0.01


def load() -> float:
    return os.getloadavg()[0]


def wirelab_side(recipe: Path, target: float) -> dict[str, Any]:
    """The recipe run until its validation meets ``target``: training seconds and step."""
    from wirelab.logic.config import TrainConfig, load_recipe
    from wirelab.logic.training import run

    cfg = TrainConfig(**{**load_recipe(recipe), "stop_at": target, "threads": 1})
    with tempfile.TemporaryDirectory() as tmp:
        m = run(cfg, Path(tmp) / "run", quiet=True)
    hit = [h for h in m["history"] if h["val_discrete"] >= target]
    return {
        "reached": bool(hit),
        "seconds": round(hit[0]["train_seconds"] if hit else m["train_seconds"], 1),
        "step": hit[0]["step"] if hit else m["steps_run"],
        "val_discrete": hit[0]["val_discrete"]
        if hit
        else max(h["val_discrete"] for h in m["history"]),
    }


def torchlogix_side(target: float, eval_every: int, max_minutes: float) -> dict[str, Any]:
    """The paper's model in torchlogix until its argmax-gate validation meets ``target``."""
    from wirelab.logic.datasets import load_task

    _, dense, group_sum = import_torchlogix()
    data = load_task("mnist", tuple(range(10)), val_fraction=0.1, seed=0)
    lo = (28 - SIDE) // 2

    def crop(x: np.ndarray) -> torch.Tensor:  # (n, 28, 28) in [0, 1] -> (n, 400)
        return torch.from_numpy(np.ascontiguousarray(x[:, lo : lo + SIDE, lo : lo + SIDE]))

    xtr = crop(data.train.x).reshape(len(data.train.x), -1)
    ytr = torch.from_numpy(data.train.y)
    xval = (crop(data.val.x).reshape(len(data.val.x), -1) > 0.5).float()
    yval = torch.from_numpy(data.val.y)
    torch.manual_seed(0)
    widths = [SIDE * SIDE] + [WIDTH] * DEPTH
    layers = [dense(widths[i], widths[i + 1]) for i in range(DEPTH)]
    model = torch.nn.Sequential(*layers, group_sum(10, tau=TAU))
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    gen = torch.Generator().manual_seed(0)
    seconds, step, best = 0.0, 0, 0.0
    batches: list[torch.Tensor] = []  # the rest of this epoch's shuffled mini-batches
    while seconds < 60 * max_minutes:
        model.train()
        t0 = time.perf_counter()
        for _ in range(eval_every):
            if not batches:
                batches = list(torch.randperm(len(ytr), generator=gen).split(BATCH))
            idx = batches.pop(0)
            loss = torch.nn.functional.cross_entropy(model(xtr[idx]), ytr[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
        seconds += time.perf_counter() - t0
        model.eval()
        with torch.no_grad():
            pred = torch.cat(
                [model(xval[j : j + 2000]).argmax(1) for j in range(0, len(xval), 2000)]
            )
        acc = float((pred == yval).float().mean())
        best = max(best, acc)
        print(f"torchlogix step {step}: validation {acc:.4f}, {seconds:.0f} s", file=sys.stderr)
        if acc >= target:
            return {
                "reached": True,
                "seconds": round(seconds, 1),
                "step": step,
                "val_discrete": acc,
            }
    return {"reached": False, "seconds": round(seconds, 1), "step": step, "val_discrete": best}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--target", type=float, default=0.97)
    ap.add_argument("--recipe", type=Path, default=ROOT / "recipes/logic/mnist10-8k-learned.toml")
    ap.add_argument("--eval-every", type=int, default=1000, help="torchlogix steps per validation")
    ap.add_argument("--max-minutes", type=float, default=60.0, help="torchlogix training budget")
    args = ap.parse_args()
    torch.set_num_threads(1)
    load_before = load()
    ours = wirelab_side(args.recipe, args.target)
    theirs = torchlogix_side(args.target, args.eval_every, args.max_minutes)
    ratio = theirs["seconds"] / max(ours["seconds"], 1e-9)
    line = {
        "benchmark": "logic_time_to_accuracy",
        "target_val_discrete": args.target,
        "wirelab_recipe": args.recipe.stem,
        **{f"wirelab_{k}": v for k, v in ours.items()},
        "torchlogix_model": f"{SIDE**2} -> {DEPTH} x {WIDTH} LogicDense -> GroupSum(10, {TAU:g})",
        **{f"torchlogix_{k}": v for k, v in theirs.items()},
        "speedup" if theirs["reached"] else "speedup_at_least": round(ratio, 1),
        "threads": 1,
        "load_before": round(load_before, 2),
        "load_after": round(load(), 2),
        "torch": torch.__version__,
    }
    print(json.dumps(line))


if __name__ == "__main__":
    main()
