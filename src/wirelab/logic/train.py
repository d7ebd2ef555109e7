"""Training a `LogicNet`: AdamW, validation-based early stopping, checkpoints, exact resume.

The run directory (a `wirelab.results.ResultDir`) ends up holding ``config.json``,
``checkpoint.pt`` (rewritten atomically after every epoch), ``model.pt`` (best-by-validation
weights and spec), ``discrete.json`` (the `DiscreteLogicNet`), ``metrics.json`` and
``training.png``. Shuffling uses a generator seeded by ``(seed, epoch)``, so a run killed after
epoch ``e`` and resumed from its checkpoint takes the same steps as one that never stopped.
"""

from __future__ import annotations

import io
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from wirelab.errors import DivergenceError, UsageError
from wirelab.logic.data import TaskData, load_task, parse_classes
from wirelab.logic.kernels import use_threads
from wirelab.logic.model import LogicNet, diagnostics
from wirelab.results import ResultDir, atomic_write_bytes


@dataclass
class TrainConfig:
    dataset: str = "mnist"
    classes: str = "all"
    model: dict[str, Any] = field(default_factory=dict)
    epochs: int = 30
    batch_size: int = 128
    lr: float = 0.01
    weight_decay: float = 0.0
    forward: str = "soft"  # "soft" or "st" (straight-through hard forward)
    patience: int = 10
    val_fraction: float = 0.1
    max_train: int | None = None
    seed: int = 0
    threads: int = 2
    eval_batch: int = 2048
    max_minutes: float | None = None  # wall-clock budget: stop after the epoch that passes it
    init_from: str | None = None  # run dir, model.pt or checkpoint.pt whose weights start this run

    def validate(self) -> None:
        if self.epochs < 1 or self.batch_size < 1 or self.lr <= 0 or self.threads < 1:
            raise UsageError("epochs, batch size, threads and lr must be positive")
        if self.forward not in ("soft", "st"):
            raise UsageError(f"--forward must be soft or st, not {self.forward!r}")


@torch.no_grad()
def accuracy(model: LogicNet, x: np.ndarray, y: np.ndarray, mode: str, batch: int = 2048) -> float:
    """Fraction correct; the prediction is the argmax score, ties to the lowest class index (as
    `DiscreteLogicNet.predict` and the compiled circuits decide)."""
    correct = 0
    for i in range(0, len(x), batch):
        s = model(torch.from_numpy(x[i : i + batch]), mode)  # (b, k)
        correct += int((s.argmax(1) == torch.from_numpy(y[i : i + batch])).sum())
    return correct / max(1, len(x))


def _save_checkpoint(path: Path, state: dict[str, Any]) -> None:
    buf = io.BytesIO()
    torch.save(state, buf)
    atomic_write_bytes(path, buf.getvalue())


def _plot(history: list[dict[str, float]], rd: ResultDir) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ep = [h["epoch"] for h in history]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.2))
    ax1.plot(ep, [h["loss"] for h in history])
    ax1.set(xlabel="epoch", ylabel="training loss")
    ax2.plot(ep, [h["val_soft"] for h in history], label="validation, soft")
    ax2.plot(ep, [h["val_discrete"] for h in history], label="validation, discrete")
    ax2.set(xlabel="epoch", ylabel="accuracy")
    ax2.legend()
    rd.save_figure(fig, "training")


def train(
    cfg: TrainConfig, out: str | Path, *, resume: bool = False, quiet: bool = False
) -> dict[str, Any]:
    """Train, select on validation, evaluate on test, write the run directory; returns metrics."""
    cfg.validate()
    out = Path(out)
    ckpt_path = out / "checkpoint.pt"
    ckpt: dict[str, Any] | None = None
    if resume:
        if not ckpt_path.is_file():
            raise UsageError(f"--resume: {ckpt_path} does not exist")
        ckpt = torch.load(ckpt_path, weights_only=False)
        cfg = TrainConfig(**ckpt["config"])  # the run continues with its own configuration
        rd = ResultDir.open(out)
    else:
        rd = ResultDir.create(out, command="wirelab logic train", config=asdict(cfg))
    use_threads(cfg.threads)  # kernels on cfg.threads, torch's small ops on one
    classes = parse_classes(cfg.classes, cfg.dataset)
    data: TaskData = load_task(
        cfg.dataset, classes, val_fraction=cfg.val_fraction, seed=cfg.seed, max_train=cfg.max_train
    )
    spec = {**cfg.model, "classes": len(classes), "input_shape": list(data.input_shape)}
    spec.setdefault("seed", cfg.seed)
    torch.manual_seed(cfg.seed)
    model = LogicNet(spec)
    if cfg.init_from is not None and ckpt is None:
        src = Path(cfg.init_from)
        src = src / "model.pt" if src.is_dir() else src
        if not src.is_file():
            raise UsageError(f"init_from: {src} does not exist")
        saved = torch.load(src, map_location="cpu", weights_only=False)
        if "best" in saved:  # a checkpoint.pt: its best-by-validation weights so far
            state = saved["best"]["state"]
        else:
            if saved["spec"] != model.spec:
                raise UsageError(f"init_from: {src} has a different model spec")
            state = saved["state_dict"]
        try:
            model.load_state_dict(state)
        except RuntimeError:
            raise UsageError(f"init_from: {src} holds a different model") from None
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    history: list[dict[str, float]] = []
    best: dict[str, Any] = {"val": -1.0, "epoch": 0, "state": None}
    start_epoch, elapsed = 1, 0.0
    if ckpt is not None:
        model.load_state_dict(ckpt["model"])
        opt.load_state_dict(ckpt["optimizer"])
        history, best, elapsed = ckpt["history"], ckpt["best"], ckpt["train_seconds"]
        start_epoch = ckpt["epoch"] + 1
    xtr, ytr = torch.from_numpy(data.train.x), torch.from_numpy(data.train.y)
    steps = -(-len(ytr) // cfg.batch_size)
    stopped_early = bool(history) and history[-1]["epoch"] - best["epoch"] >= cfg.patience
    out_of_time = False
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total} steps"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        TextColumn("{task.fields[info]}"),
        disable=quiet,
        transient=False,
    ) as bar:
        task = bar.add_task(
            "train", total=steps * cfg.epochs, completed=steps * (start_epoch - 1), info=""
        )
        for epoch in range(start_epoch, cfg.epochs + 1):
            if stopped_early or out_of_time:
                break
            t0 = time.perf_counter()
            model.train()
            gen = torch.Generator().manual_seed(cfg.seed * 100003 + epoch)
            perm = torch.randperm(len(ytr), generator=gen)
            total = 0.0
            for s in range(steps):
                idx = perm[s * cfg.batch_size : (s + 1) * cfg.batch_size]
                loss = torch.nn.functional.cross_entropy(model(xtr[idx], cfg.forward), ytr[idx])
                if not torch.isfinite(loss):
                    raise DivergenceError(f"training loss became {loss.item()} at epoch {epoch}")
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
                total += float(loss.detach()) * len(idx)
                bar.advance(task)
            elapsed += time.perf_counter() - t0
            model.eval()
            rec = {
                "epoch": epoch,
                "loss": total / len(ytr),
                "val_soft": accuracy(model, data.val.x, data.val.y, "soft", cfg.eval_batch),
                "val_discrete": accuracy(model, data.val.x, data.val.y, "hard", cfg.eval_batch),
                "train_seconds": elapsed,
            }
            history.append(rec)
            if rec["val_discrete"] > best["val"]:
                state = {k: v.clone() for k, v in model.state_dict().items()}
                best = {"val": rec["val_discrete"], "epoch": epoch, "state": state}
            bar.update(
                task,
                description=f"epoch {epoch}/{cfg.epochs}",
                info=f"loss {rec['loss']:.4f} val soft {rec['val_soft']:.4f} "
                f"discrete {rec['val_discrete']:.4f}",
            )
            stopped_early = epoch - best["epoch"] >= cfg.patience
            out_of_time = cfg.max_minutes is not None and elapsed > 60 * cfg.max_minutes
            _save_checkpoint(
                ckpt_path,
                {
                    "config": asdict(cfg),
                    "epoch": epoch,
                    "model": model.state_dict(),
                    "optimizer": opt.state_dict(),
                    "history": history,
                    "best": best,
                    "train_seconds": elapsed,
                },
            )
    metrics = finish(model, best, history, data, cfg, rd, elapsed, stopped_early)
    if out_of_time:
        metrics["stopped_by_time_limit"] = True
        rd.write_metrics(metrics)
    return metrics


def finish(
    model: LogicNet,
    best: dict[str, Any],
    history: list[dict[str, float]],
    data: TaskData,
    cfg: TrainConfig,
    rd: ResultDir,
    elapsed: float,
    stopped_early: bool,
) -> dict[str, Any]:
    """Restore the best-by-validation weights, test, discretise, write every artifact."""
    if best["state"] is not None:
        model.load_state_dict(best["state"])
    model.eval()
    soft = accuracy(model, data.test.x, data.test.y, "soft", cfg.eval_batch)
    hard = accuracy(model, data.test.x, data.test.y, "hard", cfg.eval_batch)
    net = model.discretize()
    net.meta["classes"] = list(data.classes)
    net.meta["dataset"] = cfg.dataset
    net.save(rd.path / "discrete.json")
    buf = io.BytesIO()
    torch.save({"spec": model.spec, "state_dict": model.state_dict()}, buf)
    atomic_write_bytes(rd.path / "model.pt", buf.getvalue())
    t0 = time.perf_counter()
    pred = net.predict(data.test.x.reshape(len(data.test.x), -1))
    bool_seconds = time.perf_counter() - t0
    diag = diagnostics(net)
    metrics = {
        "dataset": cfg.dataset,
        "classes": list(data.classes),
        "accuracy_soft": soft,
        "accuracy_discrete": hard,
        "accuracy_discrete_numpy": float((pred == data.test.y).mean()),
        "discretization_gap": soft - hard,
        **diag,
        "best_epoch": best["epoch"],
        "epochs_run": history[-1]["epoch"] if history else 0,
        "stopped_early": stopped_early,
        "val_accuracy_discrete": best["val"],
        "train_seconds": elapsed,
        "numpy_eval_images_per_s": len(pred) / max(bool_seconds, 1e-9),
        "n_train": len(data.train.y),
        "n_val": len(data.val.y),
        "n_test": len(data.test.y),
        "history": history,
    }
    if history:
        _plot(history, rd)
    rd.write_metrics(metrics)
    return metrics
