"""Degree-preserving nulls: every degree kept, self-loops in place, gap junctions undirected.

``degree_preserving(source, seed)`` (the ``degree`` null) rewires each part of the chosen edge
types separately with `swaps.rewire` (Maslov & Sneppen 2002, Science 296:910) and adds the parts:

- the *directed* part, the sum of every directed edge type (the larva's ``aa + ad + da + dd``,
  *C. elegans*' ``chemical``, a matrix): ``swaps_per_edge * E'`` attempted swaps ``(a -> b,
  c -> d) -> (a -> d, c -> b)`` among its ``E'`` non-loop edges. Every in- and out-degree, the
  weight multiset (each weight on its edge, which keeps its presynaptic neuron, so every out-
  strength) and every self-loop (its place and weight) are kept; no duplicate edge is made.
- each *undirected* part (the edge types in `UNDIRECTED`, *C. elegans*' ``gap``; its matrix must
  be symmetric): its pairs ``{a, b}`` swapped as undirected edges, ``{a, b}, {c, d} -> {a, d},
  {c, b}`` (or ``{a, c}, {b, d}``), so the result is symmetric again and every neuron's number of
  gap partners and the multiset of pair weights are kept (each pair weight keeps one neuron).

Degrees are kept per part: where a chemical synapse and a gap junction join the same two neurons
the summed matrix has one entry, so its degrees can move (by the overlaps the rewiring undoes).

``keep_loops=False`` (the ``degree-noloops`` null) is the definition used before December 2026:
one directed graph of all the chosen types (gap junctions included, as two directed edges), every
edge swappable, so a loop ``a -> a`` swapped with ``c -> d`` becomes ``a -> d, c -> a`` and the
loops disappear (larva: 537 loops before, 0 after 10 swaps per edge).

``boundary_preserving(con, seed)`` (the ``degree-boundary`` null) swaps only two edges of the same
class pair ``(class(pre), class(post))`` (`classes.cell_classes`; unordered for an undirected
part): on top of the above, every class-to-class edge count is kept, so no sensory -> descending
edge appears that the connectome lacks. Both build from an edge list (no ``(N, N)`` array)::

    w_null = degree_preserving(load_connectome("larva"), seed=1)  # (N, N) CSR [pre, post]
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from wirelab.data.connectomes import Connectome
from wirelab.errors import UsageError
from wirelab.reservoir.nulls.classes import cell_classes
from wirelab.reservoir.nulls.swaps import rewire
from wirelab.reservoir.weights import as_csr

UNDIRECTED = ("gap",)  # edge types whose matrix is symmetric: undirected contacts


def parts(source: Any, edge_types: Any = None) -> list[tuple[sp.csr_matrix, bool, int]]:
    """``[(matrix, undirected, stream)]``: the directed edge types summed (stream 0), then each
    undirected one (stream ``1 + UNDIRECTED.index(type)``): a part's random stream (seed
    ``[seed, stream]``) does not depend on which other types are chosen."""
    if not isinstance(source, Connectome):
        return [(as_csr(source, edge_types=edge_types), False, 0)]
    chosen = list(source.edge_type_names if edge_types is None else edge_types)
    out = []
    directed = [e for e in chosen if e not in UNDIRECTED]
    if directed:
        out.append((source.matrix(directed), False, 0))
    for e in chosen:
        if e in UNDIRECTED:
            m = source.matrix([e])
            if m.nnz and abs(m - m.T).max() != 0:
                raise UsageError(
                    f"{source.name}: edge type {e!r} is not symmetric (an undirected contact is "
                    "listed both ways); its directed rewiring is the null 'degree-noloops'"
                )
            out.append((m, True, 1 + UNDIRECTED.index(e)))
    return out


def _pool(
    pre: np.ndarray, post: np.ndarray, labels: np.ndarray | None, movable: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(pool, block, bstart, flip_ok)`` of `swaps.rewire`: the movable edges by class pair."""
    edges = np.flatnonzero(movable).astype(np.int64)
    if labels is None:
        pair = np.zeros(edges.size, dtype=np.int64)
        same = np.ones(1, dtype=bool)
    else:
        pair = labels[pre[edges]] * k + labels[post[edges]]
        same = np.array([], dtype=bool)
    order = np.argsort(pair, kind="stable")
    pool, pair = edges[order], pair[order]
    uniq, block, counts = np.unique(pair, return_inverse=True, return_counts=True)
    if labels is not None:
        same = uniq // k == uniq % k
    bstart = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    return pool, block.astype(np.int64), bstart, same


def rewire_part(
    m: sp.csr_matrix,
    undirected: bool,
    seed: int | list[int],
    swaps_per_edge: float = 10,
    *,
    labels: np.ndarray | None = None,
    keep_loops: bool = True,
    fast: bool = True,
) -> sp.csr_matrix:
    """One part rewired (module docstring): ``m`` ``(N, N)`` CSR, ``labels`` ``(N,)`` classes
    (None: one block). The result has ``m``'s shape and, when undirected, is symmetric."""
    n = m.shape[0]
    coo = sp.coo_matrix(m)
    pre, post, w = coo.row.astype(np.int64), coo.col.astype(np.int64), coo.data.copy()
    if undirected:  # each pair once, oriented low class -> high class (or low -> high index)
        keep = pre <= post
        pre, post, w = pre[keep], post[keep], w[keep]
        if labels is not None:
            flip = labels[pre] > labels[post]
            pre, post = np.where(flip, post, pre), np.where(flip, pre, post)
    movable = pre != post if keep_loops else np.ones(pre.size, dtype=bool)
    k = 0 if labels is None else int(labels.max()) + 1
    pool, block, bstart, same = _pool(pre, post, labels, movable, k)
    attempts = int(round(swaps_per_edge * pool.size))
    blocks = (pool, block, bstart, same)
    rewire(pre, post, n, *blocks, undirected=undirected, attempts=attempts, seed=seed, fast=fast)
    if undirected:
        off = pre != post
        pre, post, w = (
            np.concatenate([pre, post[off]]),
            np.concatenate([post, pre[off]]),
            np.concatenate([w, w[off]]),
        )
    out = sp.csr_matrix((w, (pre, post)), shape=(n, n))
    out.sort_indices()
    return out


def _rewired(
    source: Any,
    seed: int,
    swaps_per_edge: float,
    edge_types: Any,
    labels: np.ndarray | None,
    fast: bool,
) -> sp.csr_matrix:
    total: sp.csr_matrix | None = None
    for m, undirected, stream in parts(source, edge_types):
        part = rewire_part(
            m, undirected, [int(seed), stream], swaps_per_edge, labels=labels, fast=fast
        )
        total = part if total is None else sp.csr_matrix(total + part)
    assert total is not None
    total.sort_indices()
    return total


def degree_preserving(
    source: Any,
    seed: int = 0,
    swaps_per_edge: float = 10,
    *,
    edge_types: Any = None,
    fast: bool = True,
) -> sp.csr_matrix:
    """The ``degree`` null (module docstring): ``(N, N)`` CSR ``[pre, post]``."""
    return _rewired(source, seed, swaps_per_edge, edge_types, None, fast)


def degree_noloops(
    source: Any, seed: int = 0, swaps_per_edge: float = 10, *, edge_types: Any = None
) -> sp.csr_matrix:
    """The ``degree-noloops`` null: one directed graph of every chosen type, loops swappable."""
    m = as_csr(source, edge_types=edge_types)
    return rewire_part(m, False, [int(seed), 0], swaps_per_edge, keep_loops=False)


def boundary_preserving(
    source: Any,
    seed: int = 0,
    swaps_per_edge: float = 10,
    *,
    edge_types: Any = None,
    fast: bool = True,
) -> sp.csr_matrix:
    """The ``degree-boundary`` null (module docstring): swaps within one class pair only."""
    labels, _ = cell_classes(source)
    return _rewired(source, seed, swaps_per_edge, edge_types, labels, fast)
