"""Attention pooling vs mean pooling on bags of MNIST digits, and a small GQA decoder that
generates with a KV cache.

Part 1, pooling where it matters. A bag holds ``1 + n`` MNIST digits (14x14) plus a marker
channel that flags one of them; the label is the class of the flagged digit, the other ``n``
are distractors. One Deep Sets model ``y = rho(pool_i phi(x_i))`` (Zaheer et al. 2017) is
trained with `MeanPool` (the flagged digit is ``1 / (n + 1)`` of the average) and with
`AttentionPool` (a learned query can put its weight on the flagged digit). The gap grows with
``n``; the attention weight on the flagged digit shows why. (``wirelab attention pooling`` is
the full study, with seeds.)

Part 2, a grouped-query decoder with a KV cache. `DecoderOnly` with 4 query heads and 1
key/value head (multi-query: its KV cache is a quarter of multi-head attention's) learns
binarised 14x14 digits as 196-pixel sequences, row by row (next-pixel accuracy and bits per
pixel on test digits). Given the top half of test digits it writes the bottom half greedily,
one pixel per step, reading its per-layer `KVCache`; decoding without the cache (recomputing the
prefix every step) gives the same pixels and logits within 1e-5.

Measured at the default size (one CPU core, about 4 minutes): test accuracy mean / attention
0.962 / 0.967 with 4 distractors, 0.933 / 0.952 with 16, 0.861 / 0.936 with 64, attention
putting 1.000 of its weight on the flagged digit; the decoder predicts the next test pixel right
0.931 of the time (0.227 bits per pixel; all-background 0.883), cached == uncached.

    python examples/05_attention_pooling_and_gqa_kv_cache.py           # the real result, minutes
    python examples/05_attention_pooling_and_gqa_kv_cache.py --small   # CI size, seconds
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Literal

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn

from wirelab.attention import AttentionPool, DecoderOnly, KVCache, MeanPool
from wirelab.data import load_mnist


def digits(split: Literal["train", "test"]) -> tuple[Tensor, Tensor]:
    """MNIST through the data layer, average-pooled to 14x14 in [0, 1]: (N, 196), labels (N,)."""
    images, labels = load_mnist(split)  # (N, 28, 28) uint8, (N,)
    x = F.avg_pool2d(torch.tensor(images).float().div(255)[:, None], 2)  # (N, 1, 14, 14)
    return x.flatten(1), torch.from_numpy(labels.astype(np.int64))


# ---- Part 1: pooling -------------------------------------------------------------------------


def bags(x: Tensor, y: Tensor, size: int, n: int, gen: torch.Generator) -> tuple[Tensor, ...]:
    """``size`` bags of ``1 + n`` digits: inputs (size, 1 + n, 197), labels, flagged position."""
    idx = torch.randint(0, len(x), (size, 1 + n), generator=gen)  # which digits
    flagged = torch.randint(0, 1 + n, (size,), generator=gen)  # which one counts
    marker = F.one_hot(flagged, 1 + n).float()[..., None]  # (size, 1 + n, 1)
    labels = y[idx[torch.arange(size), flagged]]
    return torch.cat([x[idx], marker], dim=-1), labels, flagged


class BagClassifier(nn.Module):
    """rho(pool(phi(x))): the same phi and rho for both pools."""

    def __init__(self, pool: MeanPool | AttentionPool, hidden: int = 64) -> None:
        super().__init__()
        self.phi = nn.Sequential(nn.Linear(197, hidden), nn.ReLU(), nn.Linear(hidden, hidden))
        self.pool = pool
        self.rho = nn.Sequential(nn.Linear(pool.out_dim, hidden), nn.ReLU(), nn.Linear(hidden, 10))

    def forward(self, x: Tensor) -> tuple[Tensor, Tensor]:
        pooled, weights = self.pool(torch.relu(self.phi(x)))  # (B, out_dim), (B, H, 1, T)
        return self.rho(pooled), weights


def pooling_run(pool: str, n: int, steps: int, data: dict[str, tuple[Tensor, Tensor]]) -> dict:
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(0)
    model = BagClassifier(MeanPool(64) if pool == "mean" else AttentionPool(64, num_heads=1))
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    for _ in range(steps):
        x, labels, _ = bags(*data["train"], 64, n, gen)
        loss = F.cross_entropy(model(x)[0], labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
    x, labels, flagged = bags(*data["test"], 1000, n, torch.Generator().manual_seed(1))
    with torch.no_grad():
        logits, weights = model(x)
    on_flagged = weights.mean(dim=(1, 2))[torch.arange(len(x)), flagged]  # head-averaged
    return {
        "accuracy": float((logits.argmax(-1) == labels).float().mean()),
        "weight_on_flagged": float(on_flagged.mean()),
    }


# ---- Part 2: a GQA decoder with a KV cache ---------------------------------------------------

BOS = 2  # tokens: pixel off 0, pixel on 1, begin-of-image 2


def pixel_sequences(x: Tensor) -> Tensor:
    """(N, 196) grey levels -> (N, 197) tokens: BOS then the binarised pixels, row by row."""
    return torch.cat([torch.full((len(x), 1), BOS), (x > 0.5).long()], dim=1)


@torch.no_grad()
def decode_with_cache(model: DecoderOnly, prompt: Tensor, new: int) -> tuple[Tensor, Tensor]:
    """Greedy decoding, one token per step through the per-layer KV caches (what
    ``model.generate`` does), keeping the logits of every step: tokens (B, T0 + new),
    logits (B, new, vocab)."""
    caches: list[KVCache] = model.new_caches()
    logits = model(prompt, caches)[:, -1]  # the prompt fills the caches
    seq, steps = prompt, []
    for _ in range(new):
        steps.append(logits)
        token = logits.argmax(-1, keepdim=True)  # (B, 1)
        seq = torch.cat([seq, token], dim=1)
        logits = model(token, caches)[:, -1]  # one position: keys/values from the caches
    return seq, torch.stack(steps, dim=1)


def decoder_run(steps: int, data: dict[str, tuple[Tensor, Tensor]]) -> tuple[dict, Tensor]:
    torch.manual_seed(0)
    train = pixel_sequences(data["train"][0])
    # 4 query heads of size 16 share 1 key/value head (multi-query; 2 would be grouped-query)
    model = DecoderOnly(vocab=3, dim=64, num_heads=4, num_layers=2, num_kv_heads=1, max_len=256)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    gen = torch.Generator().manual_seed(0)
    for _ in range(steps):
        seq = train[torch.randint(0, len(train), (32,), generator=gen)]
        logits = model(seq[:, :-1])  # (32, 196, 3): next pixel at every position
        loss = F.cross_entropy(logits.reshape(-1, 3), seq[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    with torch.no_grad():  # next pixel given the true ones before it, on 500 test digits
        seq = pixel_sequences(data["test"][0][:500])
        logits = model(seq[:, :-1])
        next_pixel = (logits.argmax(-1) == seq[:, 1:]).float().mean()
        bits = F.cross_entropy(logits.reshape(-1, 3), seq[:, 1:].reshape(-1)) / np.log(2)
    test = pixel_sequences(data["test"][0][:8])  # 8 test digits
    prompt, new = test[:, : 1 + 98], 98  # BOS + the top 7 rows; write the bottom 7 rows
    t0 = time.perf_counter()
    cached, step_logits = decode_with_cache(model, prompt, new)
    t_cached = time.perf_counter() - t0
    t0 = time.perf_counter()
    uncached = model.generate(prompt, new, use_cache=False)  # recomputes the prefix each step
    t_uncached = time.perf_counter() - t0
    with torch.no_grad():
        full = model(cached[:, :-1])[:, prompt.shape[1] - 1 :]  # one uncached pass, (8, 98, 3)
    kv = KVCache.size_for(8, 1, 197, 16, torch.float32)  # (B, Hkv, T, D) keys + values
    mha = KVCache.size_for(8, 4, 197, 16, torch.float32)  # multi-head: Hkv = H = 4
    result = {
        "final_train_loss": loss.item(),
        "same_tokens_without_cache": bool(torch.equal(cached, uncached)),
        "max_logit_difference": float((step_logits - full).abs().max()),
        "next_pixel_accuracy": float(next_pixel),
        "next_pixel_all_background": float((seq[:, 1:] == 0).float().mean()),
        "bits_per_pixel": float(bits),
        "decode_s_cached": t_cached,
        "decode_s_uncached": t_uncached,
        "kv_cache_bytes_per_layer": kv,
        "mha_kv_cache_bytes_per_layer": mha,
    }
    return result, torch.stack([test, cached])  # (2, 8, 197): truth, completion


def plot(pooling: dict, ns: list[int], images: Tensor, out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(1, 2, figsize=(8, 3))
    for pool in ("mean", "attention"):
        ax[0].plot(ns, [pooling[pool][n]["accuracy"] for n in ns], "o-", label=pool)
        ax[1].plot(ns, [pooling[pool][n]["weight_on_flagged"] for n in ns], "o-", label=pool)
    ax[0].set_ylabel("test accuracy")
    ax[1].set_ylabel("pooling weight on the flagged digit")
    for a in ax:
        a.set_xscale("log", base=2)
        a.set_xlabel("distractors per bag")
        a.legend()
    fig.tight_layout()
    fig.savefig(out / "pooling.png", dpi=120)
    pics = images[:, :, 1:].reshape(2, -1, 14, 14).float()  # truth, completion
    fig, ax = plt.subplots(2, pics.shape[1], figsize=(pics.shape[1], 2.3))
    for row, title in enumerate(("test digit", "bottom half written")):
        for j in range(pics.shape[1]):
            ax[row, j].imshow(pics[row, j], cmap="gray_r")
            ax[row, j].axhline(6.5, color="red", lw=0.8)
            ax[row, j].set_axis_off()
        ax[row, 0].set_title(title, fontsize=8, loc="left")
    fig.savefig(out / "completions.png", dpi=120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="CI size: one bag size, few steps")
    parser.add_argument(
        "--out", type=Path, default=Path("runs/examples/05_attention_pooling_and_gqa_kv_cache")
    )
    args = parser.parse_args()
    ns, pool_steps, lm_steps = ([16], 600, 300) if args.small else ([4, 16, 64], 2000, 1500)
    data = {"train": digits("train"), "test": digits("test")}

    print("Part 1: which digit is flagged? (bags of 1 + n MNIST digits)")
    pooling: dict[str, dict[int, dict]] = {"mean": {}, "attention": {}}
    for n in ns:
        for pool in pooling:
            r = pooling[pool][n] = pooling_run(pool, n, pool_steps, data)
            print(f"  n={n:3d}  {pool:>9} pooling: accuracy {r['accuracy']:.3f}, "
                  f"weight on the flagged digit {r['weight_on_flagged']:.3f} "
                  f"(uniform {1 / (n + 1):.3f})")  # fmt: skip

    print("Part 2: a multi-query decoder (4 query heads, 1 K/V head) writes digits' bottom halves")
    lm, images = decoder_run(lm_steps, data)
    print(
        f"  next pixel right {lm['next_pixel_accuracy']:.3f} of the time on test digits "
        f"(all-background guess {lm['next_pixel_all_background']:.3f}), "
        f"{lm['bits_per_pixel']:.3f} bits per pixel"
    )
    print(
        f"  cached decode == uncached: tokens {lm['same_tokens_without_cache']}, "
        f"max logit difference {lm['max_logit_difference']:.1e}"
    )
    print(
        f"  decode time {lm['decode_s_cached']:.2f} s with the KV cache, "
        f"{lm['decode_s_uncached']:.2f} s without"
    )
    print(f"  KV cache per layer {lm['kv_cache_bytes_per_layer']:,} bytes "
          f"(multi-head: {lm['mha_kv_cache_bytes_per_layer']:,})")  # fmt: skip

    args.out.mkdir(parents=True, exist_ok=True)
    plot(pooling, ns, images, args.out)
    summary = {"pooling": {p: {str(n): r for n, r in v.items()} for p, v in pooling.items()}}
    (args.out / "metrics.json").write_text(json.dumps({**summary, "decoder": lm}, indent=1))
    print(f"wrote {args.out}/pooling.png, completions.png and metrics.json")


if __name__ == "__main__":
    main()
