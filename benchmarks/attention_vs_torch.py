"""wirelab MultiHeadAttention vs torch.nn.MultiheadAttention, side by side in one process.

Prints ONE JSON line. Setting (issue 7): dim 256, 8 heads, batch 8, length 512, same weights,
fixed threads, repeats interleaved (wirelab, torch, wirelab, torch, ...), medians reported.

- forward (no_grad, eval) and training step (forward + backward + SGD step), with
  ``need_weights=False`` and with per-head weights returned by both
  (torch: ``need_weights=True, average_attn_weights=False``; wirelab: ``return_weights=True``);
  ``speedup`` = torch time / wirelab time (targets: >= 0.95 without weights, >= 1.0 with);
- decoding ``--decode-tokens`` tokens one at a time through one attention layer (batch 1): with the
  KV cache vs recomputing the causal attention over the whole prefix each step (target >= 20x);
- KV-cache memory for num_kv_heads = 8, 2, 1 after the decode (target: ratio num_kv_heads / 8).

    python benchmarks/attention_vs_torch.py [--threads 2] [--repeats 7]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections.abc import Callable

import torch
from torch import nn

from wirelab.attention import KVCache, MultiHeadAttention


def _time(fn: Callable[[], object], iters: int) -> float:
    t0 = time.perf_counter()
    for _ in range(iters):
        fn()
    return (time.perf_counter() - t0) / iters


def interleaved(
    a: Callable[[], object], b: Callable[[], object], repeats: int, iters: int
) -> tuple[float, float]:
    a(), b()  # warm-up
    ta, tb = [], []
    for r in range(repeats):
        order = [(a, ta), (b, tb)] if r % 2 == 0 else [(b, tb), (a, ta)]
        for fn, acc in order:
            acc.append(_time(fn, iters))
    return statistics.median(ta), statistics.median(tb)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--iters", type=int, default=3)
    ap.add_argument("--dim", type=int, default=256)
    ap.add_argument("--heads", type=int, default=8)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--length", type=int, default=512)
    ap.add_argument("--decode-tokens", type=int, default=1024)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    dim, heads = args.dim, args.heads
    ref = nn.MultiheadAttention(dim, heads, batch_first=True)
    ours = MultiHeadAttention.from_torch(ref)
    x = torch.randn(args.batch, args.length, dim)
    out: dict[str, object] = {
        "benchmark": "attention_vs_torch",
        "torch": torch.__version__,
        "threads": args.threads,
        "shape": {"dim": dim, "heads": heads, "batch": args.batch, "length": args.length},
        "repeats": args.repeats,
        "cpus": os.cpu_count(),
        "loadavg_start": [round(v, 2) for v in os.getloadavg()],
    }
    with torch.no_grad():
        a, _ = ours(x)
        b, _ = ref(x, x, x, need_weights=False)
        out["max_abs_diff_vs_torch"] = float((a - b).abs().max())

    opt_o = torch.optim.SGD(ours.parameters(), lr=1e-6)
    opt_r = torch.optim.SGD(ref.parameters(), lr=1e-6)
    results: dict[str, dict[str, float]] = {}
    for weights in (False, True):
        tag = "weights" if weights else "no_weights"

        @torch.no_grad()
        def fwd_o(w: bool = weights) -> object:
            return ours(x, return_weights=w)

        @torch.no_grad()
        def fwd_r(w: bool = weights) -> object:
            return ref(x, x, x, need_weights=w, average_attn_weights=False)

        def train_o(w: bool = weights) -> None:
            opt_o.zero_grad(set_to_none=True)
            ours(x, return_weights=w)[0].square().mean().backward()
            opt_o.step()

        def train_r(w: bool = weights) -> None:
            opt_r.zero_grad(set_to_none=True)
            ref(x, x, x, need_weights=w, average_attn_weights=False)[0].square().mean().backward()
            opt_r.step()

        for name, (fo, fr) in {"forward": (fwd_o, fwd_r), "train_step": (train_o, train_r)}.items():
            ours.train(name == "train_step")
            ref.train(name == "train_step")
            to, tr = interleaved(fo, fr, args.repeats, args.iters)
            results[f"{name}_{tag}"] = {
                "wirelab_ms": round(to * 1e3, 3),
                "torch_ms": round(tr * 1e3, 3),
                "speedup": round(tr / to, 3),
            }
    out["mha"] = results

    # Decoding: one token at a time, cached vs recomputing the prefix.
    ours.eval()
    n = args.decode_tokens
    seq = torch.randn(1, n, dim)
    with torch.no_grad():
        full, _ = ours(seq, causal=True)

        def cached() -> torch.Tensor:
            cache = KVCache(chunk=256)
            return torch.cat(
                [ours(seq[:, t : t + 1], causal=True, cache=cache)[0] for t in range(n)], 1
            )

        def recompute() -> torch.Tensor:
            return torch.cat([ours(seq[:, : t + 1], causal=True)[0][:, -1:] for t in range(n)], 1)

        t_cached = min(_time(cached, 1) for _ in range(3))
        t0 = time.perf_counter()
        rec = recompute()
        t_recompute = time.perf_counter() - t0
        out["decode"] = {
            "tokens": n,
            "batch": 1,
            "cached_s": round(t_cached, 4),
            "recompute_s": round(t_recompute, 4),
            "speedup": round(t_recompute / t_cached, 2),
            "max_abs_diff_cached_vs_full": float((cached() - full).abs().max()),
            "max_abs_diff_recompute_vs_full": float((rec - full).abs().max()),
        }

        mem: dict[str, int] = {}
        for kv in (heads, 2, 1):
            m = MultiHeadAttention(dim, heads, kv).eval()
            cache = KVCache(chunk=256)
            for t in range(0, n, 64):
                m(seq[:, t : t + 64], causal=True, cache=cache)
            mem[str(kv)] = cache.memory_bytes()
        out["kv_cache_bytes"] = mem
        out["kv_cache_ratio"] = {k: v / mem[str(heads)] for k, v in mem.items()}
    targets = {
        "forward_no_weights": 0.95,
        "train_step_no_weights": 0.95,
        "forward_weights": 1.0,
        "train_step_weights": 1.0,
    }
    out["meets_targets"] = {
        **{k: results[k]["speedup"] >= v for k, v in targets.items()},
        "decode_20x": out["decode"]["speedup"] >= 20,  # type: ignore[index]
    }
    out["loadavg_end"] = [round(v, 2) for v in os.getloadavg()]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
