"""Time to 97 % and to 98 % validation on ten-class MNIST, one thread: wirelab vs torchlogix.

What a user waits for: training seconds until the *discrete* network (every neuron its most
probable gate, every learned connection its most probable wire) first classifies at least each
target of ``--targets`` of the validation images correctly.

- wirelab: for each target its recipe (``--targets``, default ``0.97=mnist10-8k-learned``: 8,000
  gates, learned wiring, Adam lr 0.075, batch 256; ``0.98=mnist10-32k-learned``: 32,000 gates, the
  smallest recipe whose validation reaches 98 %) run by `wirelab.logic.training.run` with
  ``stop_at = target``; its validation every ``eval_every`` steps of the recipe.
- torchlogix 0.2.2, every configuration of `PEERS`, each until the highest target or
  ``--max-minutes`` (the first validation at or above each target is kept on the way):

  ``paper_fixed_48k``: the 2022 paper's MNIST model the paper's way (Petersen et al. 2022,
  difflogic's small MNIST model: the centre 20 x 20 pixels, real-valued in training, 6 x 8,000
  LogicDense with fixed random wiring and the 16-gate softmax, GroupSum(10, tau 10)).
  ``learned_8k``: torchlogix's learnable connections (``LogicDense(connections="learnable")``,
  its ``LearnableDenseConnections``: the forward takes each input's argmax candidate, the
  backward the softmax of the candidate scores) in every layer of wirelab's best shape, 400 ->
  2 x 4,000 -> GroupSum(10, tau 7), 16 candidates per input (``num_candidates=16``).
  ``learn1_48k``: torchlogix's own learnable-connection MNIST models (``models.dense``
  ``DlgnMnistSmallLearn1``: the paper's model with the first layer's connections learnable) on
  the 20 x 20 crop, 16 candidates per input. Its zoo default, every input a candidate
  (``num_candidates=-1``), needs (batch, 400, 2, 8,000) floats per step and measured 5.6 s per
  step here (16 candidates: 0.38 s), so it cannot reach 97 % within an hour.

  All: Adam lr 0.01, batch 100, torchlogix's other defaults (residual gate init, connection
  temperature 0.001), validated every ``--eval-every`` steps in torchlogix's eval mode (argmax
  gates and wires) on the pixels thresholded at 0.5, as `mnist10-48k-paper` discretises.

Both use the same training / validation split (wirelab's: 6,000 training images held out with
seed 0), one thread, in one process, one after the other; validation time is not counted. Each
target's entry names every torchlogix configuration with its seconds (``reached: false``: the
seconds run, a lower bound), and its ratio is against the fastest (best vs best): ``speedup``
when one reached the target; ``speedup_at_least`` when none did (the shortest run is a lower
bound for all). No ratio (``ratio_refused``, one line why) when a configuration did not run to
its end, when one stopped short before the fastest's figure (so the fastest is unknown), or at
``--tiny`` size.

Time to accuracy, one configuration: the first validation v_k >= target after k steps,
seconds = sum of the training-step times of steps 1..k; speedup = min_c seconds_c / seconds_wirelab.

Run:  .venv/bin/python benchmarks/logic_time_to_accuracy.py [--targets 0.97=RECIPE,0.98=RECIPE]
      [--max-minutes 21] [--peers paper_fixed_48k,learned_8k] [--max-minutes-of learned_8k=20]
      [--tiny]
Needs: ``make bench`` (torchlogix 0.2.2 without its declared dependencies).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from logic_train_vs_torchlogix import import_torchlogix

ROOT = Path(__file__).resolve().parents[1]
SIDE, BATCH, LR = 20, 100, 0.01
TINY_DIVISOR = 16  # --tiny: every width / 16, a few hundred steps
TARGETS = "0.97=mnist10-8k-learned,0.98=mnist10-32k-learned"
TINY_TARGETS = "0.5=mnist10-8k-learned,0.6=mnist10-32k-learned"


@dataclass(frozen=True)
class Peer:
    """One torchlogix configuration: ``widths`` after the 400 inputs, the first ``learned``
    layers with learnable connections among ``candidates`` per input, GroupSum temperature."""

    description: str
    widths: tuple[int, ...]
    learned: int
    candidates: int
    tau: float

    def build(self, divisor: int = 1) -> torch.nn.Module:
        """The model: (n, 400) pixels -> (n, 10) class scores; ``divisor`` shrinks each width."""
        _, dense, group_sum = import_torchlogix()
        widths = [SIDE * SIDE] + [w // divisor for w in self.widths]
        layers = []
        for i in range(len(self.widths)):
            kw: dict[str, Any] = {}
            if i < self.learned:
                kw = {"connections": "learnable",
                      "connections_kwargs": {"num_candidates": self.candidates}}  # fmt: skip
            layers.append(dense(widths[i], widths[i + 1], **kw))
        return torch.nn.Sequential(*layers, group_sum(10, tau=self.tau))


PEERS: dict[str, Peer] = {
    "paper_fixed_48k": Peer("400 -> 6 x 8000 LogicDense, fixed random wiring -> GroupSum(10, 10)",
                            (8000,) * 6, 0, 0, 10.0),
    "learned_8k": Peer("400 -> 2 x 4000 LogicDense, learnable connections (16 candidates) "
                       "-> GroupSum(10, 7)", (4000, 4000), 2, 16, 7.0),
    "learn1_48k": Peer("400 -> 6 x 8000 LogicDense, first layer learnable connections "
                       "(16 candidates) -> GroupSum(10, 10)", (8000,) * 6, 1, 16, 10.0),
}  # fmt: skip


def load() -> float:
    return os.getloadavg()[0]


def wirelab_side(recipe: Path, target: float, tiny: bool) -> dict[str, Any]:
    """The recipe run until its validation meets ``target``: training seconds and step."""
    from wirelab.logic.config import TrainConfig, load_recipe
    from wirelab.logic.training import run

    cfg = {**load_recipe(recipe), "stop_at": target, "threads": 1}
    if tiny:
        dense = [w // TINY_DIVISOR for w in cfg["model"]["dense"]]
        cfg = {**cfg, "steps": 300, "eval_every": 100, "model": {**cfg["model"], "dense": dense}}
    with tempfile.TemporaryDirectory() as tmp:
        m = run(TrainConfig(**cfg), Path(tmp) / "run", quiet=True)
    hit = [h for h in m["history"] if h["val_discrete"] >= target]
    return {
        "reached": bool(hit),
        "seconds": round(hit[0]["train_seconds"] if hit else m["train_seconds"], 1),
        "step": hit[0]["step"] if hit else m["steps_run"],
        "val_discrete": hit[0]["val_discrete"]
        if hit
        else max(h["val_discrete"] for h in m["history"]),
    }


def split() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """wirelab's split, the centre 20 x 20: train (n, 400) real, validation (m, 400) 0/1."""
    from wirelab.logic.datasets import load_task

    data = load_task("mnist", tuple(range(10)), val_fraction=0.1, seed=0)
    lo = (28 - SIDE) // 2

    def crop(x: np.ndarray) -> torch.Tensor:  # (n, 28, 28) in [0, 1] -> (n, 400)
        c = np.ascontiguousarray(x[:, lo : lo + SIDE, lo : lo + SIDE])
        return torch.from_numpy(c).reshape(len(x), -1)

    xval = (crop(data.val.x) > 0.5).float()
    return crop(data.train.x), torch.from_numpy(data.train.y), xval, torch.from_numpy(data.val.y)


def torchlogix_side(
    name: str, data: tuple, targets: list[float], eval_every: int, max_minutes: float, tiny: bool
) -> tuple[dict[str, Any], dict[float, dict[str, Any]]]:
    """One `PEERS` configuration until its argmax-gate validation meets the highest target.

    Returns the run (``seconds``, ``steps``, ``best_val_discrete``) and, per target, the first
    validation at or above it (``reached``, ``seconds``, ``step``, ``val_discrete``) or the whole
    run's seconds and its best validation (``reached: False``)."""
    xtr, ytr, xval, yval = data
    torch.manual_seed(0)
    model = PEERS[name].build(TINY_DIVISOR if tiny else 1)
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    gen = torch.Generator().manual_seed(0)
    seconds, step, best = 0.0, 0, 0.0
    hits: dict[float, dict[str, Any]] = {}
    batches: list[torch.Tensor] = []  # the rest of this epoch's shuffled mini-batches
    while seconds < 60 * max_minutes and len(hits) < len(targets):
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
        print(f"torchlogix {name} step {step}: validation {acc:.4f}, {seconds:.0f} s",
              file=sys.stderr, flush=True)  # fmt: skip
        for t in targets:
            if acc >= t and t not in hits:
                hits[t] = {"reached": True, "seconds": round(seconds, 1), "step": step,
                           "val_discrete": acc}  # fmt: skip
    missed = {"reached": False, "seconds": round(seconds, 1), "step": step, "val_discrete": best}
    run = {"seconds": round(seconds, 1), "steps": step, "best_val_discrete": best}
    return run, {t: hits.get(t, missed) for t in targets}


def headline(ours: dict[str, Any], peers: dict[str, dict[str, Any]], refused: list[str]) -> dict:
    """The ratio against the fastest configuration, or ``ratio_refused`` naming why not.

    >>> headline({"seconds": 10.0}, {"a": {"reached": True, "seconds": 50.0},
    ...          "b": {"reached": False, "seconds": 60.0}}, [])
    {'vs': 'a', 'speedup': 5.0}
    """
    if refused:
        return {"vs": None, "ratio_refused": "; ".join(refused)}
    reached = {n: r["seconds"] for n, r in peers.items() if r["reached"]}
    if not reached:  # every configuration takes longer than it ran: the shortest run bounds all
        name = min(peers, key=lambda n: peers[n]["seconds"])
        return {"vs": name, "speedup_at_least": round(peers[name]["seconds"] / ours["seconds"], 1)}
    name = min(reached, key=reached.__getitem__)
    short = [n for n, r in peers.items() if not r["reached"] and r["seconds"] < reached[name]]
    if short:
        why = f"{', '.join(short)} stopped before {name}'s {reached[name]} s without reaching"
        return {"vs": None, "ratio_refused": f"{why} the target: the fastest is unknown"}
    return {"vs": name, "speedup": round(reached[name] / ours["seconds"], 1)}


def targets_of(text: str) -> dict[float, Path]:
    """``"0.97=mnist10-8k-learned,0.98=PATH.toml"`` -> {target: recipe file}, targets ascending."""
    out: dict[float, Path] = {}
    for item in filter(None, text.split(",")):
        key, _, name = item.partition("=")
        try:
            target = float(key)
        except ValueError:
            target = -1.0
        recipe = Path(name) if name.endswith(".toml") else ROOT / "recipes/logic" / f"{name}.toml"
        if not 0.0 < target < 1.0 or not recipe.is_file():
            sys.exit(f"--targets: {item!r} is not TARGET=RECIPE with 0 < TARGET < 1 and a recipe")
        out[target] = recipe
    if not out:
        sys.exit("--targets: name at least one TARGET=RECIPE")
    return dict(sorted(out.items()))


def minutes_of(text: str, names: list[str]) -> dict[str, float]:
    """``"learned_8k=20,learn1_48k=15"`` -> per-configuration training budgets in minutes."""
    out: dict[str, float] = {}
    for item in filter(None, text.split(",")):
        key, _, value = item.partition("=")
        if key not in names or not value:
            sys.exit(f"--max-minutes-of: {item!r} is not NAME=MINUTES with NAME in {names}")
        out[key] = float(value)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--targets", default=TARGETS, help="TARGET=RECIPE,... (validation, recipe)")
    ap.add_argument("--eval-every", type=int, default=500, help="torchlogix steps per validation")
    ap.add_argument("--max-minutes", type=float, default=21.0, help="each configuration's budget")
    ap.add_argument("--max-minutes-of", default="", help="NAME=MINUTES,... per configuration")
    ap.add_argument("--peers", default=",".join(PEERS), help="torchlogix configurations to run")
    ap.add_argument("--tiny", action="store_true", help="widths / 16, a few hundred steps")
    args = ap.parse_args()
    names = [n for n in args.peers.split(",") if n]
    if unknown := [n for n in names if n not in PEERS]:
        sys.exit(f"--peers: unknown {unknown}; known: {list(PEERS)}")
    if args.tiny:
        args.targets, args.eval_every, args.max_minutes = TINY_TARGETS, 100, 0.05
    recipes = targets_of(args.targets)
    budget = {n: args.max_minutes for n in names} | minutes_of(args.max_minutes_of, names)
    torch.set_num_threads(1)
    load_before = load()
    refused = ["--tiny: every configuration at 1/16 of its width"] if args.tiny else []
    if missing := [n for n in PEERS if n not in names]:
        refused.append(f"configurations not run: {', '.join(missing)}")
    try:
        import_torchlogix()
    except ImportError as exc:
        print(
            json.dumps(
                {
                    "benchmark": "logic_time_to_accuracy",
                    "vs": None,
                    "ratio_refused": f"torchlogix does not import ({exc}): make bench",
                }
            )
        )
        return
    ours = {t: wirelab_side(recipe, t, args.tiny) for t, recipe in recipes.items()}
    data = split()
    runs: dict[str, dict[str, Any]] = {}
    at: dict[float, dict[str, dict[str, Any]]] = {t: {} for t in recipes}
    failed: list[str] = []
    for name in names:
        try:
            run, hits = torchlogix_side(
                name, data, list(recipes), args.eval_every, budget[name], args.tiny
            )
        except (RuntimeError, MemoryError) as exc:  # out of memory: no figure, no ratio
            runs[name] = {"model": PEERS[name].description, "error": str(exc).splitlines()[0]}
            failed.append(f"{name} failed: {runs[name]['error']}")
            continue
        runs[name] = {"model": PEERS[name].description, **run, "max_minutes": budget[name]}
        for t in recipes:
            at[t][name] = hits[t]
    entries = [
        {
            "target_val_discrete": t,
            "wirelab_recipe": recipe.stem,
            **{f"wirelab_{k}": v for k, v in ours[t].items()},
            "torchlogix": at[t],
            **headline(ours[t], at[t], refused + failed),
        }
        for t, recipe in recipes.items()
    ]
    line = {
        "benchmark": "logic_time_to_accuracy",
        "tiny": args.tiny,
        "targets": entries,
        "torchlogix": runs,
        "threads": 1,
        "eval_every": args.eval_every,
        "load_before": round(load_before, 2),
        "load_after": round(load(), 2),
        "torch": torch.__version__,
    }
    print(json.dumps(line))


if __name__ == "__main__":
    main()
