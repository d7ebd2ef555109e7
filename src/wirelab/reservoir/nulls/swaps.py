"""Double-edge swaps on an edge list, without an ``(N, N)`` array: the engine of the degree nulls.

State: ``E`` edges ``pre[e] -> post[e]`` (int64 arrays) among ``n`` neurons, and a *pool* of the
edges that may move, grouped into *blocks*: ``pool`` sorted by block, ``block[x]`` the block of
pool position ``x``, block ``b`` holding positions ``bstart[b] .. bstart[b + 1] - 1``. One attempt,
from three uniform draws ``(ui, uk, flip)``, ``P`` the pool size:

    x = floor(ui * P),  b = block[x],  y = bstart[b] + floor(uk * |b|)
    e1 = pool[x] = (a -> b1),  e2 = pool[y] = (c -> d)
    (a -> b1, c -> d)  ->  (a -> d, c -> b1)

rejected when ``a == c`` or ``b1 == d`` (no change), ``a == d`` or ``c == b1`` (a self-loop), or
when ``a -> d`` or ``c -> b1`` is already an edge (a duplicate). Each edge keeps its index (so its
weight) and its first endpoint, so every in- and out-degree is kept, every weight stays with its
presynaptic neuron, and the edges outside the pool never move. An *undirected* edge (a gap
junction) is stored once as ``{pre, post}`` with the key of ``(min, max)``; where the block allows
it (``flip_ok[b]``) ``flip`` first reverses ``e2`` to ``(d, c)``, so that both pairings ``{a, d},
{c, b1}`` and ``{a, c}, {b1, d}`` are reachable; each neuron's number of partners is kept.

`swap_reference` is the readable version (a Python ``set`` of edge keys); `kernel.swap_kernel`
(numba, a hash table of int64 keys) makes the same attempts and gives the same edges. `rewire`
draws the numbers in batches from ``numpy.random.default_rng(seed)`` and runs either::

    done = rewire(pre, post, n, pool, block, bstart, flip_ok, undirected=False,
                  attempts=10 * pool.size, seed=1)
"""

from __future__ import annotations

import numpy as np

BATCH = 1 << 20  # attempts drawn at a time


def edge_key(x: int, y: int, n: int, undirected: bool) -> int:
    """``x * n + y``; for an undirected edge the key of ``(min, max)``."""
    if undirected:
        x, y = min(x, y), max(x, y)
    return x * n + y


def swap_reference(
    pre: np.ndarray,
    post: np.ndarray,
    n: int,
    pool: np.ndarray,
    block: np.ndarray,
    bstart: np.ndarray,
    flip_ok: np.ndarray,
    undirected: bool,
    draws: tuple[np.ndarray, np.ndarray, np.ndarray],
    edges: set[int],
) -> int:
    """The attempts of one batch of ``draws``, in place; ``edges`` is the set of edge keys.
    Returns how many were accepted."""
    accepted = 0
    size_pool = len(pool)
    for ui, uk, flip in zip(*draws, strict=True):
        x = min(int(ui * size_pool), size_pool - 1)
        b = block[x]
        size = bstart[b + 1] - bstart[b]
        e1, e2 = pool[x], pool[bstart[b] + min(int(uk * size), size - 1)]
        a, b1, c, d = int(pre[e1]), int(post[e1]), int(pre[e2]), int(post[e2])
        if undirected and flip and flip_ok[b]:
            c, d = d, c
        if a in (c, d) or b1 in (c, d):
            continue
        new = {edge_key(a, d, n, undirected), edge_key(c, b1, n, undirected)}
        if new & edges:
            continue
        edges -= {edge_key(a, b1, n, undirected), edge_key(c, d, n, undirected)}
        edges |= new
        post[e1], pre[e2], post[e2] = d, c, b1
        accepted += 1
    return accepted


def rewire(
    pre: np.ndarray,
    post: np.ndarray,
    n: int,
    pool: np.ndarray,
    block: np.ndarray,
    bstart: np.ndarray,
    flip_ok: np.ndarray,
    *,
    undirected: bool,
    attempts: int,
    seed: int | list[int],
    fast: bool = True,
) -> int:
    """``attempts`` swaps on ``(pre, post)`` in place (module docstring); ``fast``: the numba
    kernel, else `swap_reference`. Returns how many were accepted."""
    if pool.size == 0 or attempts <= 0:
        return 0
    rng = np.random.default_rng(seed)
    keys = np.where(undirected & (post < pre), post * n + pre, pre * n + post).astype(np.int64)
    if fast:
        from wirelab.reservoir.nulls.kernel import new_table, swap_kernel

        table, shift, mask = new_table(keys)
    else:
        edges = set(keys.tolist())
    accepted = 0
    for start in range(0, attempts, BATCH):
        m = min(BATCH, attempts - start)
        draws = (rng.random(m), rng.random(m), rng.random(m) < 0.5)
        if fast:
            accepted += swap_kernel(
                pre, post, n, pool, block, bstart, flip_ok, undirected, *draws, table, shift, mask
            )
        else:
            accepted += swap_reference(
                pre, post, n, pool, block, bstart, flip_ok, undirected, draws, edges
            )
    return accepted
