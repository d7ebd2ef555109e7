"""Source-target attention learns an alignment: dates written as words -> ISO dates.

Source: the day (no leading zero), the month name, the year, one token per digit or word:
``1 4 march 2 0 2 3``. Target: ``2 0 2 3 - 0 3 - 1 4`` (ISO 8601). The alignment is real and not
monotone: the year comes from the end of the source, the day from its start, both month digits
from the month word, and a one-digit day's leading ``0`` from that digit. Every calendar date of
1900-2099 is an example; a seeded random subset of *dates* is held out (never seen in training).

The small `EncoderDecoder` is trained with teacher forcing, then decodes the held-out sources
greedily with its KV cache. Metrics: ``exact_match`` (whole target right) and the alignment score of
each cross-attention head: the share of target digits whose most-attended source position is the
aligned one (over the held-out set).
"""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from wirelab.attention.blocks import EncoderDecoder
from wirelab.attention.experiments.common import pyplot, result_dir
from wirelab.cli_options import check_memory
from wirelab.errors import UsageError
from wirelab.progress import progress_bar
from wirelab.results import ResultDir

MONTHS = [
    *("january", "february", "march", "april", "may", "june"),
    *("july", "august", "september", "october", "november", "december"),
]
SRC_VOCAB = ["<pad>", *[str(d) for d in range(10)], *MONTHS]
TGT_VOCAB = ["<pad>", "<bos>", "<eos>", *[str(d) for d in range(10)], "-"]
_SRC_ID = {w: i for i, w in enumerate(SRC_VOCAB)}
_TGT_ID = {w: i for i, w in enumerate(TGT_VOCAB)}
PAD, BOS, EOS = 0, 1, 2
SRC_LEN, TGT_LEN = 7, 11  # max source tokens; 10 target tokens + EOS


@dataclass(frozen=True)
class TranslateConfig:
    seed: int = 0
    test_size: int = 2000
    steps: int = 1000
    batch: int = 128
    dim: int = 64
    heads: int = 4
    layers: int = 2
    lr: float = 2e-3
    eval_every: int = 250
    threads: int = 1
    progress: bool = True


FIRST_DATE, LAST_DATE = dt.date(1900, 1, 1), dt.date(2099, 12, 31)
N_DATES = (LAST_DATE - FIRST_DATE).days + 1


def all_dates() -> list[dt.date]:
    d, end, out = FIRST_DATE, LAST_DATE, []
    while d <= end:
        out.append(d)
        d += dt.timedelta(days=1)
    return out


def encode(date: dt.date) -> tuple[list[int], list[int], list[int]]:
    """(source ids, target ids incl. EOS, aligned source position per target token or -1)."""
    src_words = [*str(date.day), MONTHS[date.month - 1], *str(date.year)]
    src = [_SRC_ID[w] for w in src_words]
    nd = len(str(date.day))  # 1 or 2 day tokens, month word at index nd
    iso = date.isoformat()  # YYYY-MM-DD
    tgt = [_TGT_ID[c] for c in iso] + [EOS]
    year = [nd + 1 + i for i in range(4)]
    day = [0, 1] if nd == 2 else [0, 0]
    align = [*year, -1, nd, nd, -1, *day, -1]
    return src, tgt, align


def make_split(seed: int, test_size: int) -> tuple[list[dt.date], list[dt.date]]:
    dates = all_dates()
    if not 0 < test_size < len(dates) // 2:
        raise UsageError(f"--test-size must be in (0, {len(dates) // 2}), got {test_size}")
    perm = np.random.default_rng(seed).permutation(len(dates))
    test = [dates[i] for i in perm[:test_size]]
    train = [dates[i] for i in perm[test_size:]]
    return train, test


def tensorize(dates: list[dt.date]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(N, SRC_LEN) sources (right-padded), (N, TGT_LEN) targets, (N, TGT_LEN) alignments."""
    rows = [encode(d) for d in dates]
    src = [s + [PAD] * (SRC_LEN - len(s)) for s, _, _ in rows]
    return (
        torch.tensor(src, dtype=torch.long),
        torch.tensor([t for _, t, _ in rows], dtype=torch.long),
        torch.tensor([a for _, _, a in rows], dtype=torch.long),
    )


def evaluate(
    model: EncoderDecoder, src: torch.Tensor, tgt: torch.Tensor, align: torch.Tensor
) -> dict[str, Any]:
    model.eval()
    pred, w = model.greedy_decode(src, BOS, TGT_LEN, eos_id=EOS, return_weights=True)
    assert w is not None  # (layers, N, H, T, S)
    exact = (pred == tgt).all(dim=1).float().mean().item()
    token = (pred == tgt).float().mean().item()
    valid = align >= 0  # (N, T)
    top = w.argmax(-1)  # (L, N, H, T) most-attended source position
    hit = (top == align[None, :, None, :]) & valid[None, :, None, :]
    per_head = (hit.sum(dim=(1, 3)).float() / valid.sum()).tolist()  # (L, H)
    mean_top = w.mean(2).argmax(-1)  # (L, N, T) head-averaged
    per_layer_mean = (
        ((mean_top == align[None]) & valid[None]).sum(dim=(1, 2)).float() / valid.sum()
    ).tolist()
    best = max((v, li, hi) for li, row in enumerate(per_head) for hi, v in enumerate(row))
    model.train()
    return {
        "exact_match": exact,
        "token_accuracy": token,
        "alignment_per_head": per_head,
        "alignment_head_mean_per_layer": per_layer_mean,
        "alignment_score": best[0],
        "best_head": {"layer": best[1], "head": best[2]},
        "_weights": w,
        "_pred": pred,
    }


def validate(cfg: TranslateConfig) -> None:
    """One-line `UsageError` for a configuration that cannot run (before any directory exists)."""
    if cfg.dim % cfg.heads:
        raise UsageError(f"--dim ({cfg.dim}) must be a multiple of --heads ({cfg.heads})")
    if not 0 < cfg.test_size < N_DATES // 2:
        raise UsageError(f"--test-size must be in (0, {N_DATES // 2}), got {cfg.test_size}")
    what = (
        f"--dim {cfg.dim} with --layers {cfg.layers}, --heads {cfg.heads} and --batch {cfg.batch}"
    )
    check_memory(what, model_bytes(cfg))


def model_bytes(cfg: TranslateConfig) -> int:
    """A lower bound of the memory training and decoding need (float32): per layer at least
    28 d^2 weights (encoder: attention 4 d^2 and feed-forward 8 d^2; decoder: two attentions and
    a feed-forward), each with its gradient and two AdamW moments; one (B, S + T, d) activation
    per layer; the cross-attention maps (layers, N, H, T, S) of the test set."""
    weights = 16 * 28 * cfg.layers * cfg.dim**2
    activations = 4 * cfg.layers * cfg.batch * (SRC_LEN + TGT_LEN) * cfg.dim
    maps = 4 * cfg.layers * cfg.test_size * cfg.heads * TGT_LEN * SRC_LEN
    return weights + activations + maps


def run(cfg: TranslateConfig, out: Path | str, *, overwrite: bool = False) -> dict[str, Any]:
    """Train on the date task, decode the held-out dates, write the result directory ``out``."""
    validate(cfg)
    with result_dir("translate", cfg, out, overwrite=overwrite, seed=cfg.seed) as rd:
        return _run(cfg, rd)


def _run(cfg: TranslateConfig, rd: ResultDir) -> dict[str, Any]:
    train, test = make_split(cfg.seed, cfg.test_size)
    assert not set(train) & set(test)
    tr_src, tr_tgt, _ = tensorize(train)
    te_src, te_tgt, te_align = tensorize(test)
    model = EncoderDecoder(
        len(SRC_VOCAB), len(TGT_VOCAB), cfg.dim, cfg.heads, cfg.layers, max_len=32, pad_id=PAD
    )
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=0.01)
    warm = max(1, cfg.steps // 20)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min((s + 1) / warm, max(0.05, 1 - s / cfg.steps))
    )
    gen = torch.Generator().manual_seed(cfg.seed)
    curve: list[dict[str, float]] = []
    t0, c0 = time.perf_counter(), time.process_time()
    with progress_bar("translate: training", cfg.steps, show=cfg.progress) as bar:
        for step in range(1, cfg.steps + 1):
            idx = torch.randint(0, len(train), (cfg.batch,), generator=gen)
            src, tgt = tr_src[idx], tr_tgt[idx]
            tgt_in = torch.cat([torch.full((cfg.batch, 1), BOS), tgt[:, :-1]], dim=1)
            logits = model(src, tgt_in)  # (B, T, V)
            loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tgt.reshape(-1))
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            bar.advance()
            if step % cfg.eval_every == 0 or step == cfg.steps:
                ev = evaluate(model, te_src[:500], te_tgt[:500], te_align[:500])
                curve.append(
                    {"step": step, "loss": loss.item(), "exact_match_500": ev["exact_match"]}
                )
    train_s, train_cpu = time.perf_counter() - t0, time.process_time() - c0
    t1 = time.perf_counter()
    ev = evaluate(model, te_src, te_tgt, te_align)
    decode_s = time.perf_counter() - t1
    weights, pred = ev.pop("_weights"), ev.pop("_pred")
    metrics = {
        **ev,
        "train_size": len(train),
        "test_size": len(test),
        "train_seconds": round(train_s, 1),
        "train_cpu_seconds": round(train_cpu, 1),
        "threads": cfg.threads,
        "decode_seconds": round(decode_s, 2),
        "curve": curve,
        "parameters": sum(p.numel() for p in model.parameters()),
        "examples": [
            {
                "source": _src_text(te_src[i]),
                "target": _tgt_text(pred[i]),
                "ok": bool((pred[i] == te_tgt[i]).all()),
            }
            for i in range(5)
        ],
    }
    _plot_maps(rd, weights, te_src, pred, metrics)
    _plot_curve(rd, curve)
    return rd.finish(metrics)


def _src_text(row: torch.Tensor) -> str:
    return " ".join(SRC_VOCAB[i] for i in row.tolist() if i != PAD)


def _tgt_text(row: torch.Tensor) -> str:
    return "".join(TGT_VOCAB[i] for i in row.tolist() if i > EOS)


def _plot_maps(
    rd: ResultDir, w: torch.Tensor, src: torch.Tensor, pred: torch.Tensor, m: dict[str, Any]
) -> None:
    plt = pyplot()
    layers, _, heads, t, _ = w.shape
    i = next((j for j in range(src.shape[0]) if int((src[j] != PAD).sum()) == SRC_LEN - 1), 0)
    n_src = int((src[i] != PAD).sum())
    xt = [SRC_VOCAB[k][:3] for k in src[i, :n_src].tolist()]
    yt = [TGT_VOCAB[k] for k in pred[i, : t - 1].tolist()]
    fig, axes = plt.subplots(layers, heads, figsize=(2.2 * heads, 2.6 * layers), squeeze=False)
    for li in range(layers):
        for hi in range(heads):
            ax = axes[li][hi]
            ax.imshow(w[li, i, hi, : t - 1, :n_src].numpy(), cmap="viridis", vmin=0, vmax=1)
            ax.set_xticks(range(n_src), xt, rotation=90, fontsize=7)
            ax.set_yticks(range(t - 1), yt, fontsize=7)
            score = m["alignment_per_head"][li][hi]
            ax.set_title(f"layer {li} head {hi}\nalign {score:.2f}", fontsize=8)
    fig.suptitle(f"cross-attention, held-out '{_src_text(src[i])}'", fontsize=9)
    fig.tight_layout()
    rd.save_figure(fig, "cross_attention")


def _plot_curve(rd: ResultDir, curve: list[dict[str, float]]) -> None:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(4.5, 3))
    ax.plot([c["step"] for c in curve], [c["exact_match_500"] for c in curve], "o-")
    ax.set_xlabel("training step")
    ax.set_ylabel("exact match (500 held-out)")
    ax.set_ylim(0, 1.02)
    ax.grid(alpha=0.3)
    rd.save_figure(fig, "learning_curve")
