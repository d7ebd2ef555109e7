"""Positional encodings, checked numerically and drawn.

- heatmap of the sinusoidal encoding PE (Vaswani et al. 2017);
- dot-product similarity PE[p] . PE[p + k] against the offset k (it equals sum_i cos(k w_i),
  independent of p: the spread over p is reported);
- the relative-shift property PE[p + k] = M_k PE[p] (`relative_shift_matrix`) in float64 and
  float32, maximum residual over p and several k;
- RoPE: <R_{m+s} q, R_{n+s} k> - <R_m q, R_n k> over random q, k and positions, both layouts,
  float64 and float32; the layout converters;
- ALiBi slopes for 8 and 12 heads (Press et al. 2022);
- every encoding of the registry (`wirelab.attention.positional.ENCODINGS`, or the ones named),
  through the hook its kind gives: the (T, T) score matrix S[i, j] of one fixed query q at
  position i and key k at position j, T = min(length, 128), in float64::

      input: S = (q + PE_i) . (k + PE_j) / sqrt(d)      qk: S = (R_i q) . (R_j k) / sqrt(d)
      bias:  S = q . k / sqrt(d) + b(i, j)

  and its shift residual max |S[i+1, j+1] - S[i, j]|: zero when the score depends on i - j only.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import torch

from wirelab.attention.experiments.common import pyplot, result_dir
from wirelab.attention.positional import (
    BIAS,
    ENCODINGS,
    INPUT,
    QK,
    PositionalSpec,
    RotaryEmbedding,
    alibi_slopes,
    interleaved_to_half,
    relative_shift_matrix,
    sinusoidal_encoding,
)
from wirelab.cli_options import check_memory
from wirelab.errors import UsageError
from wirelab.results import ResultDir

SCORE_POSITIONS = 128  # T of the per-encoding score matrices (at most the length)


@dataclass(frozen=True)
class PositionalConfig:
    length: int = 1024
    dim: int = 128
    base: float = 10000.0
    offsets: tuple[int, ...] = (1, 7, 50, 300)
    rope_head_dim: int = 64
    rope_trials: int = 200
    seed: int = 0
    threads: int = 1
    encodings: tuple[str, ...] | None = None  # registry names; None: every registered one


def shift_residual(cfg: PositionalConfig, dtype: torch.dtype) -> dict[str, float]:
    pe = sinusoidal_encoding(cfg.length, cfg.dim, cfg.base, dtype=dtype)  # (T, d)
    out = {}
    for k in cfg.offsets:
        m = relative_shift_matrix(k, cfg.dim, cfg.base, dtype=dtype)
        out[str(k)] = float((pe[: cfg.length - k] @ m.T - pe[k:]).abs().max())
    return out


def rope_residual(cfg: PositionalConfig, layout: str, dtype: torch.dtype) -> float:
    rope = RotaryEmbedding(cfg.rope_head_dim, cfg.base, layout)
    gen = torch.Generator().manual_seed(cfg.seed)
    q = torch.randn(cfg.rope_trials, cfg.rope_head_dim, generator=gen, dtype=torch.float64)
    k = torch.randn(cfg.rope_trials, cfg.rope_head_dim, generator=gen, dtype=torch.float64)
    m = torch.randint(0, cfg.length, (cfg.rope_trials,), generator=gen)
    n = torch.randint(0, cfg.length, (cfg.rope_trials,), generator=gen)
    s = torch.randint(1, cfg.length, (cfg.rope_trials,), generator=gen)
    q, k = q.to(dtype), k.to(dtype)

    def scores(pm: torch.Tensor, pn: torch.Tensor) -> torch.Tensor:
        # one row per trial: rotate q at pm and k at pn
        rq = torch.stack([rope(q[i : i + 1], positions=pm[i : i + 1])[0] for i in range(len(pm))])
        rk = torch.stack([rope(k[i : i + 1], positions=pn[i : i + 1])[0] for i in range(len(pn))])
        return (rq * rk).sum(-1)

    return float((scores(m + s, n + s) - scores(m, n)).abs().max())


def score_matrix(name: str, cfg: PositionalConfig) -> tuple[str, torch.Tensor]:
    """(kind, (T, T) float64 scores S[i, j]) of encoding ``name`` (see the module docstring)."""
    t = min(cfg.length, SCORE_POSITIONS)
    enc = ENCODINGS.get(name).build(PositionalSpec(cfg.dim, 1, max_len=t, base=cfg.base))
    enc = enc.double()
    gen = torch.Generator().manual_seed(cfg.seed)
    q, k = torch.randn(2, cfg.dim, generator=gen, dtype=torch.float64)  # (d,) each
    scale = 1.0 / math.sqrt(cfg.dim)
    with torch.no_grad():
        if enc.kind == INPUT:
            xq, xk = enc(q.expand(1, t, -1), 0)[0], enc(k.expand(1, t, -1), 0)[0]  # (T, d)
            return enc.kind, xq @ xk.T * scale
        if enc.kind == QK:
            rq = enc(q.expand(1, 1, t, -1), offset=0)[0, 0]  # (T, d)
            rk = enc(k.expand(1, 1, t, -1), offset=0)[0, 0]
            return enc.kind, rq @ rk.T * scale
        if enc.kind == BIAS:
            bias = enc.bias(t, t, causal=False)[0].double()  # (T, T), head 0
            return enc.kind, (q @ k) * scale + bias
    raise AssertionError(enc.kind)  # kinds are checked by `validate`


def encoding_scores(cfg: PositionalConfig) -> dict[str, tuple[str, torch.Tensor]]:
    assert cfg.encodings is not None
    return {name: score_matrix(name, cfg) for name in cfg.encodings}


def validate(cfg: PositionalConfig) -> PositionalConfig:
    """The configuration with its encodings resolved; one-line `UsageError` if it cannot run."""
    if cfg.dim < 2 or cfg.dim % 2:
        raise UsageError(f"--dim must be even, got {cfg.dim}")
    if any(not 0 < k < cfg.length for k in cfg.offsets):
        raise UsageError(f"offsets must be in (0, --length {cfg.length}), got {cfg.offsets}")
    check_memory(f"--length {cfg.length} with --dim {cfg.dim}", positional_bytes(cfg))
    names = ENCODINGS.names() if cfg.encodings is None else cfg.encodings
    for name in names:
        kind = ENCODINGS.get(name).kind  # an unknown name: one line naming the choices
        if kind not in (INPUT, QK, BIAS):
            raise UsageError(f"positional encoding {name!r} has an unknown kind {kind!r}")
    return replace(cfg, encodings=tuple(names))


def positional_bytes(cfg: PositionalConfig) -> int:
    """A lower bound of the memory `run` needs (float64): the table PE (T, d) and its angles
    (T, d/2), one (d, d) shift matrix, the similarities (P, K) from P = ceil(K / 16) starting
    positions over K = T // 2 offsets, and one (K, d) product of them."""
    t, d = cfg.length, cfg.dim
    k = t // 2
    return 8 * (t * d + t * d // 2 + d * d + -(-k // 16) * k + k * d)


def run(cfg: PositionalConfig, out: Path | str, *, overwrite: bool = False) -> dict[str, Any]:
    """Check and draw the encodings; write the result directory ``out``."""
    cfg = validate(cfg)
    with result_dir("positional", cfg, out, overwrite=overwrite, seed=cfg.seed) as rd:
        return _run(cfg, rd)


def _run(cfg: PositionalConfig, rd: ResultDir) -> dict[str, Any]:
    t0 = time.perf_counter()
    pe = sinusoidal_encoding(cfg.length, cfg.dim, cfg.base, dtype=torch.float64)
    offsets = torch.arange(0, cfg.length // 2)
    sim_p0 = (pe[0] @ pe[offsets].T).numpy()  # (K,)
    # the same dot product from many starting positions p: independent of p
    ps = torch.arange(0, cfg.length // 2, 16)
    sims = torch.stack([(pe[p] * pe[p + offsets]).sum(-1) for p in ps])  # (P, K)
    spread = float((sims - sims[0]).abs().max())
    omega = cfg.base ** (-torch.arange(0, cfg.dim, 2, dtype=torch.float64) / cfg.dim)
    closed = torch.cos(offsets[:, None].double() * omega[None]).sum(-1)
    metrics = {
        "sinusoidal_shift_residual_float64": shift_residual(cfg, torch.float64),
        "sinusoidal_shift_residual_float32": shift_residual(cfg, torch.float32),
        "similarity_spread_over_p": spread,
        "similarity_vs_closed_form_max_abs": float((sims[0] - closed).abs().max()),
        "rope_relative_residual": {
            layout: {
                "float64": rope_residual(cfg, layout, torch.float64),
                "float32": rope_residual(cfg, layout, torch.float32),
            }
            for layout in ("half", "interleaved")
        },
        "rope_layout_converter_residual": _converter_residual(cfg),
        "alibi_slopes": {str(h): alibi_slopes(h).tolist() for h in (8, 12)},
    }
    scores = encoding_scores(cfg)
    metrics["seconds"] = round(time.perf_counter() - t0, 2)
    per_encoding = {
        name: {
            "kind": kind,
            "positions": s.shape[0],
            "score_max_abs": float(s.abs().max()),
            "shift_residual": float((s[1:, 1:] - s[:-1, :-1]).abs().max()),
        }
        for name, (kind, s) in scores.items()
    }
    metrics["encodings"] = per_encoding
    _plots(rd, pe, offsets, sim_p0, cfg, metrics)
    _plot_scores(rd, scores, per_encoding)
    return rd.finish(metrics)


def _converter_residual(cfg: PositionalConfig) -> float:
    gen = torch.Generator().manual_seed(cfg.seed)
    x = torch.randn(4, 2, 32, cfg.rope_head_dim, generator=gen, dtype=torch.float64)
    half = RotaryEmbedding(cfg.rope_head_dim, cfg.base, "half")
    inter = RotaryEmbedding(cfg.rope_head_dim, cfg.base, "interleaved")
    got = interleaved_to_half(inter(x, offset=17))
    return float((got - half(interleaved_to_half(x), offset=17)).abs().max())


def _plots(
    rd: ResultDir,
    pe: torch.Tensor,
    offsets: torch.Tensor,
    sim: Any,
    cfg: PositionalConfig,
    m: dict[str, Any],
) -> None:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.2))
    im = ax.imshow(pe[:128].T.numpy(), aspect="auto", cmap="RdBu", vmin=-1, vmax=1)
    ax.set_xlabel("position p")
    ax.set_ylabel("channel")
    ax.set_title(f"sinusoidal encoding (d = {cfg.dim}, base {cfg.base:g})", fontsize=9)
    fig.colorbar(im, ax=ax)
    rd.save_figure(fig, "sinusoidal_heatmap")

    fig, axes = plt.subplots(1, 2, figsize=(10, 3.2))
    axes[0].plot(offsets.numpy(), sim)
    axes[0].set_xlabel("offset k")
    axes[0].set_ylabel("PE[p] . PE[p + k]")
    axes[0].set_title(
        f"similarity vs offset (same for every p: spread {m['similarity_spread_over_p']:.1e})",
        fontsize=9,
    )
    axes[0].grid(alpha=0.3)
    res64 = m["sinusoidal_shift_residual_float64"]
    res32 = m["sinusoidal_shift_residual_float32"]
    ks = list(res64)
    x = range(len(ks))
    axes[1].bar([i - 0.2 for i in x], [max(res64[k], 1e-18) for k in ks], 0.4, label="float64")
    axes[1].bar([i + 0.2 for i in x], [max(res32[k], 1e-18) for k in ks], 0.4, label="float32")
    axes[1].set_xticks(list(x), [f"k={k}" for k in ks])
    axes[1].set_yscale("log")
    axes[1].set_ylabel("max |PE[p+k] - M_k PE[p]|")
    axes[1].set_title("relative-shift property residual", fontsize=9)
    axes[1].legend(fontsize=8)
    fig.tight_layout()
    rd.save_figure(fig, "similarity_and_shift")


def _plot_scores(
    rd: ResultDir, scores: dict[str, tuple[str, torch.Tensor]], m: dict[str, Any]
) -> None:
    if not scores:
        return
    plt = pyplot()
    fig, axes = plt.subplots(1, len(scores), figsize=(3.2 * len(scores), 3.2), squeeze=False)
    for ax, (name, (kind, s)) in zip(axes[0], scores.items(), strict=True):
        ax.imshow(s.numpy(), cmap="viridis")
        ax.set_xlabel("key position j")
        ax.set_ylabel("query position i")
        ax.set_title(f"{name} ({kind})\nshift residual {m[name]['shift_residual']:.1e}", fontsize=8)
    fig.suptitle("score of one fixed q, k pair by position", fontsize=9)
    fig.tight_layout()
    rd.save_figure(fig, "encoding_scores")
