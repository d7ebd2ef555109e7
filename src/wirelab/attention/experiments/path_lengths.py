"""Sequential operations and maximum path lengths, found by graph search over the dependency graph.

Nodes are (layer l, position i); layer 0 is the input. An edge (l-1, j) -> (l, i) means output i of
layer l reads input j; a recurrent layer also has (l, i-1) -> (l, i) (its hidden state). The maximum
path length of a layer type is max over j <= i of the shortest path (breadth-first search) from
input j to position i in any layer of a stack deep enough that every such pair is connected.
(The sequential depth is traced on the implementations instead: `op_depth`.)
"""

from __future__ import annotations

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import shortest_path


def layer_edges(layer: str, n: int, depth: int, k: int, r: int) -> tuple[list[int], list[int]]:
    """Input-position -> output-position edges of layer number ``depth`` (1-based)."""
    src: list[int] = []
    dst: list[int] = []

    def add(i: int, offsets: range | list[int]) -> None:
        for o in offsets:
            j = i + o
            if 0 <= j < n:
                src.append(j)
                dst.append(i)

    half = k // 2
    for i in range(n):
        if layer == "self_attention":
            add(i, range(-i, n - i))
        elif layer == "recurrent":
            add(i, [0])
        elif layer == "convolution":
            add(i, range(-half, k - half))
        elif layer == "dilated_convolution":
            # causal taps at -(k-1)d .. 0 with dilations d = 1, k, k^2, ... (WaveNet, Oord 2016)
            dil = k ** (depth - 1)
            add(i, [-dil * o for o in range(k)])
        elif layer == "restricted_attention":
            add(i, range(-(r // 2), r - r // 2))
        else:
            raise ValueError(layer)
    return src, dst


def path_bytes(n: int) -> int:
    """A lower bound of the memory `max_path_length` needs for self-attention at ``n``: its n^2
    edges (two lists of 8-byte references) and the float64 distances from n inputs to at least
    two layers of n positions."""
    return 16 * n * n + 16 * n * n


def _distances(layer: str, n: int, layers: int, k: int, r: int) -> np.ndarray:
    rows: list[int] = []
    cols: list[int] = []
    for depth in range(1, layers + 1):
        s, t = layer_edges(layer, n, depth, k, r)
        rows += [(depth - 1) * n + j for j in s]
        cols += [depth * n + i for i in t]
        if layer == "recurrent":  # hidden-state chain inside the layer
            rows += [depth * n + i - 1 for i in range(1, n)]
            cols += [depth * n + i for i in range(1, n)]
    size = (layers + 1) * n
    g = coo_matrix((np.ones(len(rows)), (rows, cols)), shape=(size, size)).tocsr()
    dist = shortest_path(g, directed=True, unweighted=True, indices=np.arange(n))  # (n, size)
    per_layer = dist[:, n:].reshape(n, layers, n)  # (input j, layer, position i)
    return np.asarray(per_layer.min(axis=1))  # (j, i) best over layers


def max_path_length(layer: str, n: int, k: int = 3, r: int = 8) -> tuple[int, int]:
    """(maximum path length over pairs j <= i, layers needed to connect them all)."""
    layers = 1
    while True:
        d = _distances(layer, n, layers, k, r)
        pairs = d[np.triu_indices(n)]  # j <= i
        if np.isfinite(pairs).all():
            return int(pairs.max()), layers
        if layers > 4 * n:
            raise RuntimeError(f"{layer}: some pairs stay unconnected after {layers} layers")
        layers *= 2
