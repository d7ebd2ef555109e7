"""Mean pooling vs (multi-head) attention pooling on bags of MNIST digits with one marked digit.

A bag holds ``1 + n`` MNIST digits (14x14, average-pooled from 28x28) and one extra input channel
that marks exactly one of them; the label is the class of the marked digit, the other ``n`` are
distractors. Every method shares the same per-element encoder phi and classifier rho
(Deep Sets, Zaheer et al. 2017: y = rho(pool_i phi(x_i))) and differs only in ``pool``:

- ``mean``: pool = (1 / (n+1)) sum_i phi(x_i)  (the marked digit's share of the weight is 1/(n+1));
- ``attn1``: one learned query, one head (Ilse et al. 2018; Lee et al. 2019, PMA);
- ``attn4``: one learned query, four heads.

Train bags are drawn from MNIST train, test bags from MNIST test (disjoint images). Metrics per
method and distractor count (over seeds): test accuracy, and the share of pooling weight on the
marked element (head-averaged).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn

from wirelab.attention.experiments.common import pyplot, result_dir
from wirelab.attention.pooling import AttentionPool, MeanPool
from wirelab.cli_options import check_memory
from wirelab.errors import UsageError
from wirelab.progress import progress_bar
from wirelab.results import ResultDir

METHODS = ("mean", "attn1", "attn4")


@dataclass(frozen=True)
class PoolingConfig:
    distractors: tuple[int, ...] = (4, 16, 64)
    seeds: tuple[int, ...] = (0, 1)
    methods: tuple[str, ...] = METHODS
    steps: int = 1000
    batch: int = 64
    hidden: int = 64
    lr: float = 2e-3
    test_bags: int = 2000
    threads: int = 1
    progress: bool = True
    train_images: int = field(default=60000)


class BagClassifier(nn.Module):
    """rho(pool(phi(x))): phi and rho shared by all methods, pool chosen by name."""

    def __init__(self, in_dim: int, hidden: int, method: str, classes: int = 10) -> None:
        super().__init__()
        self.phi = nn.Sequential(
            nn.Linear(in_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU()
        )
        if method == "mean":
            self.pool: MeanPool | AttentionPool = MeanPool(hidden)
        elif method == "attn1":
            self.pool = AttentionPool(hidden, num_heads=1)
        elif method == "attn4":
            self.pool = AttentionPool(hidden, num_heads=4)
        else:
            raise UsageError(f"unknown pooling method {method!r}; use one of {METHODS}")
        self.rho = nn.Sequential(
            nn.Linear(self.pool.out_dim, hidden), nn.ReLU(), nn.Linear(hidden, classes)
        )

    def forward(self, x: Tensor) -> tuple[Tensor, Tensor]:
        h = self.phi(x)  # (B, T, hidden)
        pooled, w = self.pool(h)  # (B, out), (B, H, 1, T)
        return self.rho(pooled), w


def load_features(split: str, limit: int | None = None) -> tuple[Tensor, Tensor]:
    """MNIST images average-pooled to 14x14, flattened and scaled to [0, 1]: (N, 196), (N,)."""
    from wirelab.data import load_mnist

    images, labels = load_mnist(split)  # type: ignore[arg-type]
    if limit is not None:
        images, labels = images[:limit], labels[:limit]
    x = torch.from_numpy(images.astype(np.float32) / 255.0)[:, None]  # (N, 1, 28, 28)
    x = F.avg_pool2d(x, 2).flatten(1)  # (N, 196)
    return x, torch.from_numpy(labels.astype(np.int64))


def make_bags(
    n_images: int, n_bags: int, distractors: int, gen: torch.Generator
) -> tuple[Tensor, Tensor]:
    """Image indices (n_bags, 1 + distractors) and the marked position per bag (n_bags,)."""
    idx = torch.randint(0, n_images, (n_bags, 1 + distractors), generator=gen)
    marked = torch.randint(0, 1 + distractors, (n_bags,), generator=gen)
    return idx, marked


def bag_inputs(feats: Tensor, idx: Tensor, marked: Tensor) -> Tensor:
    """(B, T, 197): features of the bag's images plus the marker channel."""
    x = feats[idx]  # (B, T, 196)
    mark = F.one_hot(marked, idx.shape[1]).to(x.dtype)[..., None]  # (B, T, 1)
    return torch.cat([x, mark], dim=-1)


def train_one(
    method: str,
    distractors: int,
    seed: int,
    cfg: PoolingConfig,
    data: dict[str, tuple[Tensor, Tensor]],
    on_step: Any = None,
) -> dict[str, Any]:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    tr_x, tr_y = data["train"]
    te_x, te_y = data["test"]
    model = BagClassifier(tr_x.shape[1] + 1, cfg.hidden, method)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    t0 = time.perf_counter()
    for _ in range(cfg.steps):
        idx, marked = make_bags(len(tr_x), cfg.batch, distractors, gen)
        logits, _ = model(bag_inputs(tr_x, idx, marked))
        y = tr_y[idx.gather(1, marked[:, None])[:, 0]]
        loss = F.cross_entropy(logits, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if on_step is not None:
            on_step()
    train_s = time.perf_counter() - t0
    test_gen = torch.Generator().manual_seed(10_000 + seed)  # same test bags for every method
    idx, marked = make_bags(len(te_x), cfg.test_bags, distractors, test_gen)
    model.eval()
    correct, share = 0, 0.0
    with torch.no_grad():
        for s in range(0, cfg.test_bags, 500):
            i, m = idx[s : s + 500], marked[s : s + 500]
            logits, w = model(bag_inputs(te_x, i, m))
            correct += int((logits.argmax(-1) == te_y[i.gather(1, m[:, None])[:, 0]]).sum())
            wm = w.mean(dim=(1, 2))  # (B, T) head-averaged
            share += float(wm.gather(1, m[:, None]).sum())
    return {
        "method": method,
        "distractors": distractors,
        "seed": seed,
        "accuracy": correct / cfg.test_bags,
        "marked_weight_share": share / cfg.test_bags,
        "final_train_loss": loss.item(),
        "train_seconds": round(train_s, 2),
        "_model": model,
    }


def validate(cfg: PoolingConfig) -> None:
    """One-line `UsageError` for a configuration that cannot run (before any directory exists)."""
    for m in cfg.methods:
        if m not in METHODS:
            raise UsageError(f"unknown pooling method {m!r}; use one of {METHODS}")
    if not cfg.distractors or min(cfg.distractors) < 0:
        raise UsageError("--distractors must be non-negative integers")
    if not cfg.seeds:
        raise UsageError("--seeds must be at least 1")
    for n in cfg.distractors:
        what = f"--distractors {n} with --batch {cfg.batch} and --test-bags {cfg.test_bags}"
        check_memory(what, bag_bytes(cfg, n))


def bag_bytes(cfg: PoolingConfig, distractors: int) -> int:
    """A lower bound of the memory bags of ``1 + distractors`` elements need: per element of a
    batch its 196 features, the 197 inputs with the marker and two hidden activations (float32)
    and its image index (int64); the test bags' indices (test_bags, T) int64 exist at once and
    are evaluated 500 bags at a time."""
    t = 1 + distractors
    per_element = 4 * (196 + 197 + 2 * cfg.hidden) + 8
    train = cfg.batch * t * per_element
    test = 8 * cfg.test_bags * t + min(500, cfg.test_bags) * t * per_element
    return max(train, test)


def run(cfg: PoolingConfig, out: Path | str, *, overwrite: bool = False) -> dict[str, Any]:
    """Train every method on bags with every distractor count; write the result directory."""
    validate(cfg)
    # MNIST first: a missing data set stops the run before its directory exists
    data = {"train": load_features("train", cfg.train_images), "test": load_features("test")}
    with result_dir("pooling", cfg, out, overwrite=overwrite, seed=cfg.seeds[0]) as rd:
        t0, c0 = time.perf_counter(), time.process_time()
        rows, example_models = _train_all(cfg, data)
        summary = _summary(cfg, rows)
        metrics = {
            "summary": summary,
            "runs": rows,
            "seconds": round(time.perf_counter() - t0, 1),
            "cpu_seconds": round(time.process_time() - c0, 1),
            "threads": cfg.threads,
        }
        _plot_accuracy(rd, summary, cfg)
        n_ex = sorted(cfg.distractors)[len(cfg.distractors) // 2]
        _plot_weights(rd, example_models, data["test"], n_ex)
        return rd.finish(metrics)


def _train_all(
    cfg: PoolingConfig, data: dict[str, tuple[Tensor, Tensor]]
) -> tuple[list[dict[str, Any]], dict[str, nn.Module]]:
    """One row per (distractors, seed, method); the models of the first seed at the middle n."""
    rows: list[dict[str, Any]] = []
    example_models: dict[str, nn.Module] = {}
    n_ex = sorted(cfg.distractors)[len(cfg.distractors) // 2]
    total = len(cfg.methods) * len(cfg.distractors) * len(cfg.seeds) * cfg.steps
    with progress_bar("pooling: training", total, show=cfg.progress) as bar:
        for n in cfg.distractors:
            for seed in cfg.seeds:
                for method in cfg.methods:
                    r = train_one(method, n, seed, cfg, data, bar.advance)
                    model = r.pop("_model")
                    if seed == cfg.seeds[0] and n == n_ex:
                        example_models[method] = model
                    rows.append(r)
    return rows, example_models


def _summary(cfg: PoolingConfig, rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per method and distractor count: accuracy mean and std, weight share on the marked digit."""
    summary: dict[str, dict[str, dict[str, float]]] = {}
    for method in cfg.methods:
        summary[method] = {}
        for n in cfg.distractors:
            sel = [r for r in rows if r["method"] == method and r["distractors"] == n]
            acc = [r["accuracy"] for r in sel]
            share = [r["marked_weight_share"] for r in sel]
            summary[method][str(n)] = {
                "accuracy_mean": float(np.mean(acc)),
                "accuracy_std": float(np.std(acc)),
                "marked_weight_share_mean": float(np.mean(share)),
            }
    return summary


def _plot_accuracy(rd: ResultDir, summary: dict[str, Any], cfg: PoolingConfig) -> None:
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.3))
    ns = sorted(cfg.distractors)
    for method in cfg.methods:
        acc = [summary[method][str(n)]["accuracy_mean"] for n in ns]
        std = [summary[method][str(n)]["accuracy_std"] for n in ns]
        share = [summary[method][str(n)]["marked_weight_share_mean"] for n in ns]
        axes[0].errorbar(ns, acc, yerr=std, marker="o", capsize=3, label=method)
        axes[1].plot(ns, share, marker="o", label=method)
    axes[0].set_ylabel("test accuracy")
    axes[1].set_ylabel("pooling weight on the marked digit")
    for ax in axes:
        ax.set_xscale("log", base=2)
        ax.set_xlabel("distractors per bag")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    axes[1].set_yscale("log")
    fig.suptitle(f"bags of MNIST digits, one marked ({len(cfg.seeds)} seeds)", fontsize=10)
    fig.tight_layout()
    rd.save_figure(fig, "accuracy_vs_distractors")


def _plot_weights(
    rd: ResultDir, models: dict[str, nn.Module], test: tuple[Tensor, Tensor], n: int
) -> None:
    if not models:
        return
    plt = pyplot()
    gen = torch.Generator().manual_seed(123)
    idx, marked = make_bags(len(test[0]), 1, min(n, 15), gen)
    x = bag_inputs(test[0], idx, marked)
    t = idx.shape[1]
    fig, axes = plt.subplots(
        1 + len(models), 1, figsize=(0.55 * t + 1.5, 1.2 + 1.3 * len(models)), squeeze=False
    )
    axes[0][0].imshow(
        torch.cat([test[0][i].view(14, 14) for i in idx[0]], dim=1).numpy(), cmap="gray_r"
    )
    axes[0][0].add_patch(
        plt.Rectangle((14 * int(marked[0]) - 0.5, -0.5), 14, 14, fill=False, ec="red", lw=2)
    )
    axes[0][0].set_axis_off()
    axes[0][0].set_title(f"one test bag (marked digit in red, {t - 1} distractors)", fontsize=9)
    for k, (name, model) in enumerate(models.items(), start=1):
        with torch.no_grad():
            _, w = model(x)  # (1, H, 1, T)
        ax = axes[k][0]
        heads = w.shape[1]
        width = 0.8 / heads
        for h in range(heads):
            ax.bar(np.arange(t) + (h - (heads - 1) / 2) * width, w[0, h, 0].numpy(), width)
        ax.set_xlim(-0.5, t - 0.5)
        ax.set_ylabel(name, fontsize=8)
        ax.set_xticks([])
    fig.tight_layout()
    rd.save_figure(fig, "weight_maps")
