"""The reservoir engine against this machine's memory bandwidth: a roofline per column-step.

Bytes a column-step must move at least (the model of issue 45), for ``C`` state columns advanced
together on the larval matrix (``nnz`` edges, ``N`` neurons, float64 states)::

    bytes = (nnz * (8 + 4) + (N + 1) * 4) / C      W in CSR (values, int32 columns, row
                                                    pointers) read once per step for C columns
          + 2 * N * 8                               the column's state read, its next state written

The bandwidth is measured here, STREAM-style on one core (numpy, float64): ``copy`` (``b = a``,
16 bytes per element) and ``add`` (``c = a + b``, 24 bytes per element) on arrays far larger
than the last-level cache (``--mib`` each, the DRAM figure) and on arrays of the engine's own
working set (W plus the chunk's state and next state, from cache). The limit per column-step is
``bytes / bandwidth``; the engine's figure is `engine.run_blocks` at the study's long-block
width (``--columns``: 4 sequences x 3 gains = 12 in `benchmarks/reservoir_study.py`) over
``--steps`` steps (after a warm-up run; the fastest of ``--repeats``), and its sparse product
alone (``products.ChunkedProduct.step``). Prints one JSON line with the load average; ``--tiny``
runs a few steps on small arrays (the test).

Run: ``WIRELAB_DATA_DIR=DATA python benchmarks/memory_roofline.py``
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from threadpoolctl import threadpool_limits

from wirelab.data import load_larva
from wirelab.reservoir.dynamics import transposed_block_diagonal
from wirelab.reservoir.engine import Block, run_blocks
from wirelab.reservoir.products import ChunkedProduct
from wirelab.reservoir.units import Units
from wirelab.reservoir.weights import as_csr, normalize


def best_seconds(fn: Callable[[], Any], repeats: int) -> float:
    """The fastest of ``repeats`` timed calls of ``fn`` (after one untimed call)."""
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def bandwidth(elements: int, repeats: int) -> dict[str, float]:
    """STREAM copy and add on float64 arrays of ``elements``: GB/s (1e9 bytes per second)."""
    a = np.full(elements, 1.0)
    b = np.full(elements, 2.0)
    c = np.empty(elements)
    copy = best_seconds(lambda: np.copyto(b, a), repeats)
    add = best_seconds(lambda: np.add(a, b, out=c), repeats)
    return {"copy": 16 * elements / copy / 1e9, "add": 24 * elements / add / 1e9}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mib", type=int, default=512, help="MiB per array for the DRAM figure")
    ap.add_argument("--columns", type=int, default=12, help="state columns stepped together")
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--tiny", action="store_true", help="16 MiB arrays, 50 steps, 2 repeats")
    args = ap.parse_args()
    if args.tiny:
        args.mib, args.steps, args.repeats = 16, 50, 2
    con = load_larva(allow_download=False)
    w = normalize(as_csr(con), "row")
    n, nnz, c = w.shape[0], w.nnz, args.columns
    w_bytes = nnz * (8 + 4) + (n + 1) * 4
    per_column = w_bytes / c + 2 * n * 8
    working_set = w_bytes + 2 * n * c * 8
    with threadpool_limits(1):
        dram = bandwidth(args.mib * 2**20 // 8, args.repeats)
        cache = bandwidth(max(working_set // 24, 1024), 20 * args.repeats)
        rng = np.random.default_rng(0)
        gains = 3 if c % 3 == 0 else 1
        blk = Block(
            rng.uniform(-0.3, 0.3, (1, n)), rng.uniform(-1, 1, (args.steps, c // gains, 1)), None
        )
        units = Units("tanh", 1.0, 0.3, rng.uniform(-0.2, 0.2, n))
        alphas = np.linspace(0.2, 2.0, gains)
        run_blocks([w], alphas, units, [Block(blk.w_in, blk.inputs[:5])], dtype=np.float64)
        engine = best_seconds(
            lambda: run_blocks([w], alphas, units, [blk], dtype=np.float64), args.repeats
        ) / (args.steps * c)
        prod = ChunkedProduct(transposed_block_diagonal([w], np.float64))
        x = rng.uniform(-1, 1, (n, c))
        z, drive = np.empty_like(x), np.zeros((n, c))
        with prod.one_thread():
            step = best_seconds(lambda: prod.step(x, z, None, drive, 1), 50 * args.repeats)
    limit = {name: per_column / (gbs * 1e9) for name, gbs in dram.items()}
    cached = {name: per_column / (gbs * 1e9) for name, gbs in cache.items()}
    us = 1e6
    print(
        json.dumps(
            {
                "neurons": n,
                "edges": nnz,
                "columns": c,
                "bytes_per_column_step": round(per_column),
                "w_bytes": w_bytes,
                "working_set_bytes": working_set,
                "dram_gb_s": {k: round(v, 2) for k, v in dram.items()},
                "working_set_gb_s": {k: round(v, 2) for k, v in cache.items()},
                "limit_us_per_column_step_dram": {k: round(v * us, 2) for k, v in limit.items()},
                "limit_us_per_column_step_cache": {k: round(v * us, 2) for k, v in cached.items()},
                "engine_product": prod.name,
                "engine_us_per_column_step": round(engine * us, 2),
                "product_us_per_column_step": round(step / c * us, 2),
                "engine_over_dram_limit": round(engine / min(limit.values()), 2),
                "product_over_dram_limit": round(step / c / min(limit.values()), 2),
                "engine_over_cache_limit": round(engine / min(cached.values()), 2),
                "target_over_limit": 1.5,
                "load_average": [round(v, 2) for v in os.getloadavg()],
            }
        )
    )


if __name__ == "__main__":
    main()
