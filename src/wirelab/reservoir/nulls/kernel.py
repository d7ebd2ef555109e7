"""The numba fast path of `wirelab.reservoir.nulls.swaps`: double-edge swaps over a hash table.

The edge set is an open-addressing hash table of int64 keys (``pre * n + post``; ``min * n +
max`` for an undirected edge), ``2^k >= 2 E`` slots, linear probing from the Fibonacci hash
``(key * 0x9E3779B97F4A7C15 mod 2^64) >> (64 - k)``, deletion by backward shift (no tombstones,
so the table never degrades however many swaps are made). About ``16 E`` bytes: 3M edges take
64 MiB where the ``(N, N)`` byte matrix it replaces takes 20 GB at N = 140K. Imported on the first
rewiring (numba compiles on first use and caches on disk); without numba the same functions run
as plain Python. `swap_kernel` makes the attempts of `swaps.swap_reference` in the same order::

    table, shift, mask = new_table(keys)
    done = swap_kernel(pre, post, n, pool, block, bstart, flip_ok, False, ui, uk, flips,
                       table, shift, mask)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

try:
    from numba import njit

    jit: Callable[[Any], Any] = njit(cache=True)
except ImportError:  # pragma: no cover

    def jit(f: Any) -> Any:
        return f


EMPTY = -1  # a free slot (keys are >= 0)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@jit
def home(key: int, shift: int) -> int:
    """The first slot probed for ``key``."""
    return int(np.int64((np.uint64(key) * _GOLDEN) >> np.uint64(shift)))


@jit
def find(table: Any, shift: int, mask: int, key: int) -> int:
    """The slot holding ``key``, or -1."""
    i = home(key, shift)
    while True:
        t = table[i]
        if t == key:
            return i
        if t == EMPTY:
            return -1
        i = (i + 1) & mask


@jit
def insert(table: Any, shift: int, mask: int, key: int) -> None:
    """Insert ``key`` (absent)."""
    i = home(key, shift)
    while table[i] != EMPTY:
        i = (i + 1) & mask
    table[i] = key


@jit
def remove(table: Any, shift: int, mask: int, key: int) -> None:
    """Remove ``key`` (present); the later keys of its probe run shift back into the hole."""
    i = find(table, shift, mask, key)
    j = i
    while True:
        j = (j + 1) & mask
        t = table[j]
        if t == EMPTY:
            break
        h = home(t, shift)
        # t may fill the hole at i unless its home lies cyclically in (i, j]
        if (i <= j and (h <= i or h > j)) or (i > j and h <= i and h > j):
            table[i] = t
            i = j
    table[i] = EMPTY


@jit
def fill(table: Any, shift: int, mask: int, keys: Any) -> None:
    for k in keys:
        insert(table, shift, mask, k)


def new_table(keys: np.ndarray) -> tuple[np.ndarray, int, int]:
    """``(table, shift, mask)`` holding ``keys`` (distinct, >= 0) in ``>= 2 len(keys)`` slots."""
    bits = max(4, int(np.ceil(np.log2(max(2 * keys.size, 16)))))
    table = np.full(1 << bits, EMPTY, dtype=np.int64)
    fill(table, 64 - bits, (1 << bits) - 1, keys.astype(np.int64))
    return table, 64 - bits, (1 << bits) - 1


@jit
def swap_kernel(
    pre: Any,
    post: Any,
    n: int,
    pool: Any,
    block: Any,
    bstart: Any,
    flip_ok: Any,
    undirected: bool,
    ui: Any,
    uk: Any,
    flips: Any,
    table: Any,
    shift: int,
    mask: int,
) -> int:
    """The attempts of `swaps.swap_reference` for the draws ``(ui, uk, flips)``, in place."""
    p = pool.shape[0]
    done = 0
    for t in range(ui.shape[0]):
        x = min(int(ui[t] * p), p - 1)
        b = block[x]
        size = bstart[b + 1] - bstart[b]
        e1 = pool[x]
        e2 = pool[bstart[b] + min(int(uk[t] * size), size - 1)]
        a, b1, c, d = pre[e1], post[e1], pre[e2], post[e2]
        if undirected and flips[t] and flip_ok[b]:
            c, d = d, c
        if a in (c, d) or b1 in (c, d):
            continue
        new1 = min(a, d) * n + max(a, d) if undirected else a * n + d
        new2 = min(c, b1) * n + max(c, b1) if undirected else c * n + b1
        if find(table, shift, mask, new1) >= 0 or find(table, shift, mask, new2) >= 0:
            continue
        remove(table, shift, mask, min(a, b1) * n + max(a, b1) if undirected else a * n + b1)
        remove(table, shift, mask, min(c, d) * n + max(c, d) if undirected else c * n + d)
        insert(table, shift, mask, new1)
        insert(table, shift, mask, new2)
        post[e1] = d
        pre[e2] = c
        post[e2] = b1
        done += 1
    return done
