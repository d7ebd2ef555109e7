"""The nulls that need no rewiring: Erdos-Renyi, weight-shuffled, a random ESN, the mirror.

Definitions in `wirelab.reservoir.nulls`; each returns a float64 ``(N, N)`` CSR ``[pre, post]``::

    w_null = erdos_renyi(w, seed=1)
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from wirelab.data.connectomes import Connectome
from wirelab.errors import UsageError
from wirelab.reservoir.esn import random_esn_matrix
from wirelab.reservoir.weights import as_csr, spectral_radius


def _edges(source: Any) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    m = sp.coo_matrix(as_csr(source))
    return m.shape[0], m.row.astype(np.int64), m.col.astype(np.int64), m.data.copy()


def _csr(n: int, pre: np.ndarray, post: np.ndarray, w: np.ndarray) -> sp.csr_matrix:
    out = sp.csr_matrix((w, (pre, post)), shape=(n, n))
    out.sort_indices()
    return out


def erdos_renyi(source: Any, seed: int = 0) -> sp.csr_matrix:
    """Matched density and weight distribution, uniform random topology (no self-loops)."""
    n, _, _, w = _edges(source)
    e = w.size
    if e > n * (n - 1):
        raise UsageError("too many edges for a graph without self-loops")
    rng = np.random.default_rng(seed)
    flat = rng.choice(n * (n - 1), size=e, replace=False)
    pre = flat // (n - 1)
    post = flat % (n - 1)
    post = post + (post >= pre)  # skip the diagonal
    return _csr(n, pre, post, rng.permutation(w))


def weight_permutation(source: Any, seed: int = 0) -> sp.csr_matrix:
    """Same edges, weights shuffled among them."""
    n, pre, post, w = _edges(source)
    return _csr(n, pre, post, np.random.default_rng(seed).permutation(w))


def random_esn(source: Any, seed: int = 0) -> sp.csr_matrix:
    """A random ESN with the same N and edge count E: N(0, 1) weights, no self-loops."""
    n, _, _, w = _edges(source)
    if w.size == 0:
        raise UsageError("a random-ESN null needs a matrix with at least one edge")
    return random_esn_matrix(n, w.size, seed)


def match_radius(w: sp.csr_matrix, target: float, seed: int = 0) -> sp.csr_matrix:
    """``W * target / rho(W)``: the spectral radius of ``W`` set to ``target``."""
    rho = spectral_radius(w, seed=seed)
    if rho == 0.0:
        raise UsageError("cannot match the spectral radius of a nilpotent null (rho = 0)")
    return sp.csr_matrix(w * (target / rho))


def mirror_permutation(con: Connectome) -> np.ndarray:
    """``P`` with ``P[i]`` = the partner of ``i`` (or ``i`` when unpaired); an involution."""
    p = np.where(con.partner >= 0, con.partner, np.arange(con.n))
    if not np.array_equal(p[p], np.arange(con.n)):
        raise UsageError(f"{con.name}: pair partners are not symmetric; cannot mirror")
    return p


def mirrored(con: Connectome, edge_types: Any = None) -> sp.csr_matrix:
    """``W_mirror[i, j] = W[P[i], P[j]]``: the hemispheres swapped through the pair partners."""
    if not isinstance(con, Connectome):
        raise UsageError("the mirror null needs a Connectome with pair partners")
    p = mirror_permutation(con)
    w = as_csr(con, edge_types=edge_types)
    return sp.csr_matrix(w[p][:, p])
