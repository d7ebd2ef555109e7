"""Degree-preserving rewiring at whole-brain size: the edge-list hash-set kernel against the old
``(N, N)`` byte-adjacency kernel, side by side in one process.

- ``larva_*``: the larval connectome (2,952 neurons, 110,677 edges), 10 swaps per edge: the old
  kernel (`dense_swap`, the rewiring wirelab used until December 2026, kept here as the peer:
  an ``N * N`` byte adjacency, numba) against `degree_preserving` (hash set of int64 edge keys,
  loops kept), each the fastest of ``--repeats`` runs after a warm-up (compilation excluded).
- ``big_*``: a generated graph of ``--neurons`` neurons and ``--edges`` distinct edges with
  heavy-tailed degrees (each edge's pre and post drawn in proportion to log-normal propensities,
  sigma 1.5; duplicates dropped) and random cell types (2% sensory in two modalities, 1% DN-VNC,
  1% DN-SEZ): one `degree_preserving` and one `boundary_preserving` null at ``--swaps`` swaps per
  edge, their wall time, accepted-swap share and the process's peak RSS. The old kernel would
  need an ``N * N`` byte array there (19.6 GB at N = 140K): not run.

Prints one JSON line with ``os.getloadavg()``. Run on one core:
``NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1 python benchmarks/nulls_scale.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
from typing import Any

import numpy as np
import scipy.sparse as sp

from wirelab.data.connectomes import Connectome, load_connectome
from wirelab.reservoir.nulls import boundary_preserving, degree_preserving
from wirelab.reservoir.nulls.degree import rewire_part


def dense_swap(pre: Any, post: Any, adj: Any, n: int, attempts: int, seed: int) -> int:
    """The old kernel: directed swaps against an (N, N) byte adjacency (loops swappable)."""
    np.random.seed(seed)
    e = pre.shape[0]
    done = 0
    for _ in range(attempts):
        i = np.random.randint(0, e)
        k = np.random.randint(0, e)
        a, b, c, d = pre[i], post[i], pre[k], post[k]
        if a in (c, d) or b in (d, c):
            continue
        if adj[a * n + d] or adj[c * n + b]:
            continue
        adj[a * n + b] = 0
        adj[c * n + d] = 0
        adj[a * n + d] = 1
        adj[c * n + b] = 1
        post[i] = d
        post[k] = b
        done += 1
    return done


def old_degree(w: sp.csr_matrix, seed: int, kernel: Any) -> sp.csr_matrix:
    coo = sp.coo_matrix(w)
    n, pre, post = w.shape[0], coo.row.astype(np.int64), coo.col.astype(np.int64)
    adj = np.zeros(n * n, dtype=np.uint8)
    adj[pre * n + post] = 1
    kernel(pre, post, adj, n, 10 * pre.size, seed)
    return sp.csr_matrix((coo.data, (pre, post)), shape=(n, n))


def generated(n: int, e: int, seed: int) -> Connectome:
    """A heavy-tailed directed graph with synapse-count weights and random cell types."""
    rng = np.random.default_rng(seed)
    p_out, p_in = (rng.lognormal(0.0, 1.5, n) for _ in range(2))
    keys = np.empty(0, dtype=np.int64)
    while keys.size < e:
        m = int(1.3 * (e - keys.size)) + 1000
        pre = rng.choice(n, m, p=p_out / p_out.sum())
        post = rng.choice(n, m, p=p_in / p_in.sum())
        keys = np.unique(np.concatenate([keys, pre * n + post]))
    keys = rng.permutation(keys)[:e]
    w = sp.csr_matrix((rng.geometric(0.4, e).astype(float), (keys // n, keys % n)), shape=(n, n))
    kind = rng.random(n)
    celltype = np.where(kind < 0.02, "sensory", np.where(kind < 0.03, "DN-VNC", ""))
    celltype = np.where((kind >= 0.03) & (kind < 0.04), "DN-SEZ", celltype)
    modality = rng.choice(["olfactory", "visual"], n)
    return Connectome(
        name=f"generated-{n}",
        skeleton_ids=np.arange(n, dtype=np.int64),
        weights=w,
        edge_types={"all": w},
        celltype=celltype.astype(str),
        side=np.full(n, ""),
        partner=np.full(n, -1),
        annotations=tuple(
            frozenset({str(m)}) if t == "sensory" else frozenset()
            for t, m in zip(celltype, modality, strict=True)
        ),
        cluster=np.full(n, -1),
    )


def best(f: Any, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--neurons", type=int, default=140_000)
    ap.add_argument("--edges", type=int, default=3_000_000)
    ap.add_argument("--swaps", type=float, default=10.0)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    import numba

    kernel = numba.njit(cache=True)(dense_swap)
    larva = load_connectome("larva")
    w = larva.matrix()
    old_degree(w, 0, kernel)
    degree_preserving(w, 0)  # compile both
    out: dict[str, Any] = {
        "benchmark": "nulls_scale",
        "larva_old_dense_s": best(lambda: old_degree(w, 1, kernel), args.repeats),
        "larva_hash_set_s": best(lambda: degree_preserving(w, 1), args.repeats),
    }
    t0 = time.perf_counter()
    con = generated(args.neurons, args.edges, 0)
    out |= {"big_neurons": con.n, "big_edges": int(con.weights.nnz)}
    out["big_generate_s"] = time.perf_counter() - t0
    out["big_swaps_per_edge"] = args.swaps
    t0 = time.perf_counter()
    null = degree_preserving(con, 1, args.swaps)
    out["big_degree_s"] = time.perf_counter() - t0
    changed = con.weights.nnz - (null != 0).multiply(con.weights != 0).nnz
    out["big_degree_edges_moved"] = changed / con.weights.nnz
    t0 = time.perf_counter()
    boundary_preserving(con, 1, args.swaps)
    out["big_boundary_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    rewire_part(con.weights, False, 1, 0.0)  # the edge list, pool and hash table, no swaps
    out["big_setup_s"] = time.perf_counter() - t0
    out["peak_rss_gib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    out["load"] = os.getloadavg()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
