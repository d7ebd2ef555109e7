"""``wirelab logic train`` as a library call: `run(config, out)` trains, selects, tests, writes.

The steps: `resolve` the configuration (every model default filled in) and load the data, pick
the inputs and build the model, all before the result directory exists; then `fit` (AdamW on
shuffled mini-batches, a validation every ``eval_every`` steps, the best weights by validation
accuracy of the discrete network, ``checkpoint.pt`` rewritten at every validation) and `finish`
(test accuracy of the best weights, ``discrete.json``, ``model.pt``, ``training.png`` and
``metrics.json`` last). Selection never looks at the test set.

Batches: step ``s`` (0-based) is batch ``s mod E`` of epoch ``s div E + 1`` (``E`` steps per
epoch), whose order is a permutation drawn from a generator seeded by ``(seed, epoch)``. The
order depends only on the step number, so a run killed after any validation and resumed from its
checkpoint takes exactly the steps of one that never stopped.
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from wirelab.errors import DivergenceError, UsageError
from wirelab.logic.anneal import set_progress
from wirelab.logic.augment import augment_batch
from wirelab.logic.checkpoint import (
    CHECKPOINT,
    CHECKPOINT_FORMAT,
    MODEL,
    init_weights,
    load_checkpoint,
    save,
    write_progress,
)
from wirelab.logic.config import TrainConfig, changed_options, resolve
from wirelab.logic.datasets import TaskData, load_task, parse_classes
from wirelab.logic.forwards import seed_noise
from wirelab.logic.history import gap_warning, plot_history
from wirelab.logic.inputs import select_inputs
from wirelab.logic.kernels import use_threads
from wirelab.logic.model import LogicNet, diagnostics
from wirelab.logic.spec import ModelSpec
from wirelab.logic.topk import rewire_model
from wirelab.progress import progress_bar
from wirelab.results import ResultDir, experiment, refuse_finished_resume

__all__ = ["TrainConfig", "accuracy", "run", "train_run"]

COMMAND = "wirelab logic train"


@dataclass(frozen=True)
class Schedule:
    """Run length in steps: ``total`` steps of ``batch`` images, a validation every
    ``eval_every`` steps and after the last one; ``per_epoch`` steps make one epoch."""

    total: int
    eval_every: int
    per_epoch: int
    batch: int

    @classmethod
    def of(cls, cfg: TrainConfig, n_train: int) -> Schedule:
        per_epoch = -(-n_train // cfg.batch_size)
        total = cfg.steps if cfg.steps is not None else cfg.epochs * per_epoch
        return cls(total, cfg.eval_every or per_epoch, per_epoch, cfg.batch_size)

    def epoch(self, step: int) -> int | float:
        """Epochs completed after ``step`` steps (whole when it ends an epoch)."""
        q, r = divmod(step, self.per_epoch)
        return q if r == 0 else round(step / self.per_epoch, 4)


@dataclass
class TrainState:
    step: int = 0  # optimiser steps taken
    history: list[dict[str, Any]] = field(default_factory=list)  # one record per validation
    best: dict[str, Any] = field(
        default_factory=lambda: {"val": -1.0, "step": 0, "epoch": 0, "state": None}
    )
    train_seconds: float = 0.0
    stop: str | None = None  # "early" (patience), "time" (max_minutes), "target" (stop_at)


@torch.no_grad()
def accuracy(model: LogicNet, x: np.ndarray, y: np.ndarray, mode: str, batch: int = 2048) -> float:
    """Fraction correct; the prediction is the argmax score, ties to the lowest class index (as
    `DiscreteLogicNet.predict` and the compiled circuits decide)."""
    correct = 0
    for i in range(0, len(x), batch):
        s = model(torch.from_numpy(x[i : i + batch]), mode)  # (b, k)
        correct += int((s.argmax(1) == torch.from_numpy(y[i : i + batch])).sum())
    return correct / max(1, len(x))


def run(
    config: TrainConfig,
    out: str | Path,
    *,
    overwrite: bool = False,
    resume: bool = False,
    quiet: bool = False,
) -> dict[str, Any]:
    """Train, select on validation, evaluate on test, write the result directory ``out``.

    ``resume=True`` continues the run in ``out`` from its ``checkpoint.pt``; ``config`` must
    then equal the checkpoint's (`checkpoint_config` reads it), except ``max_minutes``.
    Returns the metrics as written to ``metrics.json`` (`train_run` also returns the model).
    """
    return train_run(config, out, overwrite=overwrite, resume=resume, quiet=quiet)[1]


def train_run(
    config: TrainConfig,
    out: str | Path,
    *,
    overwrite: bool = False,
    resume: bool = False,
    quiet: bool = False,
) -> tuple[LogicNet, dict[str, Any]]:
    """`run`, returning the trained model (its best-by-validation weights, in eval mode) too."""
    cfg = resolve(config)
    out = Path(out)
    ckpt = _resume_point(cfg, out) if resume else None  # options that differ: refused first
    if resume:
        refuse_finished_resume(out)
    use_threads(cfg.threads)  # kernels on cfg.threads, torch's small ops on one
    data = load_data(cfg)
    model = build_model(cfg, data)
    if cfg.init_from is not None and ckpt is None:
        init_weights(model, cfg.init_from)
    with experiment(
        out, command=COMMAND, config=asdict(cfg), overwrite=overwrite, resume=resume
    ) as rd:
        state = fit(model, data, cfg, rd.path / CHECKPOINT, ckpt, show=not quiet)
        return model, rd.finish(finish(model, state, data, cfg, rd))


def checkpoint_config(out: str | Path) -> TrainConfig:
    """The configuration saved in the checkpoint of the run in ``out`` (for ``--resume``)."""
    path = Path(out) / CHECKPOINT
    if not path.is_file():
        raise UsageError(f"--resume: {path} does not exist")
    return TrainConfig(**load_checkpoint(path)["config"])


def _resume_point(cfg: TrainConfig, out: Path) -> dict[str, Any]:
    path = out / CHECKPOINT
    if not path.is_file():
        raise UsageError(f"--resume: {path} does not exist")
    ckpt = load_checkpoint(path)
    changed = changed_options(cfg, ckpt["config"])
    if changed:
        raise UsageError(
            f"--resume: options differ from {path} (saved -> given): {'; '.join(changed)}"
        )
    return ckpt


def load_data(cfg: TrainConfig) -> TaskData:
    classes = parse_classes(cfg.classes, cfg.dataset)
    return load_task(
        cfg.dataset, classes, val_fraction=cfg.val_fraction, seed=cfg.seed, max_train=cfg.max_train
    )


def build_model(cfg: TrainConfig, data: TaskData) -> LogicNet:
    """The network of ``cfg.model``; pruned inputs are chosen from the training split only."""
    torch.manual_seed(cfg.seed)
    spec = ModelSpec.from_dict(cfg.model)
    return LogicNet(spec.replace(input_bits=select_inputs(spec, data.train.x)))


def fit(
    model: LogicNet,
    data: TaskData,
    cfg: TrainConfig,
    ckpt_path: Path,
    ckpt: dict[str, Any] | None,
    *,
    show: bool = True,
) -> TrainState:
    """The training loop: steps, validations, best weights, checkpoints, stopping rules."""
    xtr, ytr = torch.from_numpy(data.train.x), torch.from_numpy(data.train.y)
    sched = Schedule.of(cfg, len(ytr))
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    st = TrainState()
    if ckpt is not None:
        model.load_state_dict(ckpt["model"])
        opt.load_state_dict(ckpt["optimizer"])
        st = TrainState(ckpt["step"], ckpt["history"], ckpt["best"], ckpt["train_seconds"])
        st.stop = _stop_reason(st, cfg)
    perm, perm_epoch = torch.empty(0, dtype=torch.int64), 0
    seg_loss, seg_n, seg_steps, t0 = 0.0, 0, 0, time.perf_counter()
    model.train()
    with progress_bar("train", total=sched.total, show=show) as bar:
        bar.update(st.step)
        while st.stop is None and st.step < sched.total:
            epoch, s = divmod(st.step, sched.per_epoch)
            if perm_epoch != epoch + 1:
                perm_epoch = epoch + 1
                gen = torch.Generator().manual_seed(cfg.seed * 100003 + perm_epoch)
                perm = torch.randperm(len(ytr), generator=gen)
            idx = perm[s * sched.batch : (s + 1) * sched.batch]
            for group in opt.param_groups:
                group["lr"] = _lr(cfg, st.step, sched.total)
            _relax(model, cfg, st.step, sched.total)
            rewire_model(model, opt, st.step)
            seed_noise(cfg.forward, cfg.seed, st.step)
            xb = augment_batch(
                xtr[idx],
                cfg.seed,
                st.step,
                shift=cfg.augment_shift,
                rotate=cfg.augment_rotate,
                elastic=cfg.augment_elastic,
                sigma=cfg.augment_elastic_sigma,
            )
            loss = _step(model, opt, xb, ytr[idx], cfg.forward, st.step)
            seg_loss += loss * len(idx)
            seg_n += len(idx)
            seg_steps += 1
            st.step += 1
            bar.update(st.step)
            if st.step % sched.eval_every and st.step != sched.total:
                continue
            seg_seconds = time.perf_counter() - t0
            st.train_seconds += seg_seconds
            _relax(model, cfg, st.step, sched.total)
            rec = _validate(model, data, cfg, sched, st, seg_loss / seg_n)
            _save_checkpoint(ckpt_path, cfg, model, opt, st)
            write_progress(ckpt_path.parent, st.step, sched.total)
            if show:
                ms = 1000 * seg_seconds / seg_steps
                print(
                    f"step {st.step}/{sched.total} (epoch {rec['epoch']}): loss {rec['loss']:.4f},"
                    f" validation soft {rec['val_soft']:.4f} discrete {rec['val_discrete']:.4f},"
                    f" {ms:.1f} ms/step",
                    file=sys.stderr,
                    flush=True,
                )
            seg_loss, seg_n, seg_steps, t0 = 0.0, 0, 0, time.perf_counter()
    return st


def _relax(model: LogicNet, cfg: TrainConfig, step: int, total: int) -> None:
    """The annealed relaxations (`wirelab.logic.anneal`) as of ``step`` of ``total``."""
    set_progress(
        model,
        step,
        total,
        connection_tau_end=cfg.connection_tau_end,
        input_ramp_end=cfg.input_ramp_end,
        connection_tau_start=float(cfg.model.get("connection_tau", 1.0)),
    )


def _lr(cfg: TrainConfig, step: int, total: int) -> float:
    """``lr`` (constant) or ``lr (1 + cos(pi step / total)) / 2`` (cosine)."""
    if cfg.lr_schedule == "cosine":
        return cfg.lr * 0.5 * (1.0 + math.cos(math.pi * step / total))
    return cfg.lr


def _step(
    model: LogicNet,
    opt: torch.optim.Optimizer,
    x: torch.Tensor,
    y: torch.Tensor,
    forward: str,
    step: int,
) -> float:
    """One optimiser step on the cross-entropy of the class scores; returns the loss."""
    loss = torch.nn.functional.cross_entropy(model(x, forward), y)
    if not torch.isfinite(loss):
        raise DivergenceError(f"training loss became {loss.item()} at step {step + 1}")
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    return float(loss.detach())


def _validate(
    model: LogicNet,
    data: TaskData,
    cfg: TrainConfig,
    sched: Schedule,
    st: TrainState,
    loss: float,
) -> dict[str, Any]:
    """Append a validation record; keep the weights if the discrete accuracy is a new best."""
    model.eval()
    rec = {
        "epoch": sched.epoch(st.step),
        "step": st.step,
        "loss": loss,
        "val_soft": accuracy(model, data.val.x, data.val.y, "soft", cfg.eval_batch),
        "val_discrete": accuracy(model, data.val.x, data.val.y, "hard", cfg.eval_batch),
        "train_seconds": st.train_seconds,
    }
    model.train()
    st.history.append(rec)
    if rec["val_discrete"] > st.best["val"]:
        state = {k: v.clone() for k, v in model.state_dict().items()}
        st.best = {
            "val": rec["val_discrete"],
            "step": st.step,
            "epoch": rec["epoch"],
            "state": state,
        }
    st.stop = _stop_reason(st, cfg)
    return rec


def _stop_reason(st: TrainState, cfg: TrainConfig) -> str | None:
    since_best = sum(1 for h in st.history if h["step"] > st.best["step"])
    if cfg.patience and since_best >= cfg.patience:
        return "early"
    if cfg.max_minutes is not None and st.train_seconds > 60 * cfg.max_minutes:
        return "time"
    if cfg.stop_at is not None and st.history and st.history[-1]["val_discrete"] >= cfg.stop_at:
        return "target"
    return None


def _save_checkpoint(
    path: Path, cfg: TrainConfig, model: LogicNet, opt: torch.optim.Optimizer, st: TrainState
) -> None:
    save(
        path,
        {
            "format": CHECKPOINT_FORMAT,
            "config": asdict(cfg),
            "step": st.step,
            "model": model.state_dict(),
            "optimizer": opt.state_dict(),
            "history": st.history,
            "best": st.best,
            "train_seconds": st.train_seconds,
        },
    )


def finish(
    model: LogicNet, st: TrainState, data: TaskData, cfg: TrainConfig, rd: ResultDir
) -> dict[str, Any]:
    """Restore the best-by-validation weights, test, discretise, write the artifacts; the
    metrics (``metrics.json`` is written by the caller, last)."""
    if st.best["state"] is not None:
        model.load_state_dict(st.best["state"])
    _relax(model, cfg, st.best["step"], Schedule.of(cfg, len(data.train.y)).total)
    model.eval()
    soft = accuracy(model, data.test.x, data.test.y, "soft", cfg.eval_batch)
    hard = accuracy(model, data.test.x, data.test.y, "hard", cfg.eval_batch)
    net = model.discretize()
    net.meta["classes"] = list(data.classes)
    net.meta["dataset"] = cfg.dataset
    net.save(rd.path / "discrete.json")
    save(rd.path / MODEL, {"spec": model.spec, "state_dict": model.state_dict()})
    t0 = time.perf_counter()
    pred = net.predict(data.test.x.reshape(len(data.test.x), -1))
    bool_seconds = time.perf_counter() - t0
    metrics: dict[str, Any] = {
        "dataset": cfg.dataset,
        "classes": list(data.classes),
        "accuracy_soft": soft,
        "accuracy_discrete": hard,
        "accuracy_discrete_numpy": float((pred == data.test.y).mean()),
        "discretization_gap": soft - hard,
        "gap_warning": gap_warning(soft - hard),
        **diagnostics(net),
        "input_bits": net.input_bits if model.input_bits is None else len(model.input_bits),
        "best_epoch": st.best["epoch"],
        "best_step": st.best["step"],
        "epochs_run": st.history[-1]["epoch"] if st.history else 0,
        "steps_run": st.step,
        "stopped_early": st.stop == "early",
        "val_accuracy_discrete": st.best["val"],
        "train_seconds": st.train_seconds,
        "numpy_eval_images_per_s": len(pred) / max(bool_seconds, 1e-9),
        "n_train": len(data.train.y),
        "n_val": len(data.val.y),
        "n_test": len(data.test.y),
        "history": st.history,
    }
    if st.stop in ("time", "target"):  # a time budget, or the validation that met --stop-at
        metrics["stopped_by_time_limit" if st.stop == "time" else "stopped_at_target"] = True
    if st.history:
        plot_history(st.history, rd, by_step=cfg.steps is not None)
    return metrics
