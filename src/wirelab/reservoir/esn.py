"""A standard random echo state network as a `Connectome`: the reference to read a connectome by.

`random_esn_matrix` draws the recurrent matrix of a classic ESN (Jaeger & Haas 2004, Science
304:78, used 1,000 sparsely connected units): ``E`` edges placed uniformly at random among the
``N (N - 1)`` ordered pairs without self-loops, each with a signed Gaussian weight::

    W[pre, post] ~ N(0, 1) on E = round(density * N^2) random off-diagonal positions, else 0

The raw scale does not matter: the run normalises it (``--normalize auto`` picks ``spectral``
for signed weights: divided by the spectral radius, so ``alpha`` is the spectral radius) and the
gain ``alpha`` sets the rest. `load_esn_1000` is the registered network (``esn-1000``: N = 1,000,
density 1%, 10,000 edges, seed 0): every unit has cell type ``"unit"``, no side and no partner,
one edge type ``all``, signed weights, so ``--inputs all --outputs all`` (or ``unit``) work, while
what needs sides (the decision task) says that they are missing.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from wirelab.data.connectomes import Connectome
from wirelab.errors import UsageError


def random_esn_matrix(n: int, edges: int, seed: int = 0) -> sp.csr_matrix:
    """``(n, n)`` float64 CSR ``[pre, post]``: ``edges`` N(0, 1) weights at random off-diagonal
    positions (no self-loops, no duplicates)."""
    if n < 2 or not 0 < edges <= n * (n - 1):
        raise UsageError(f"a random ESN needs n >= 2 and 0 < edges <= n(n-1), got {n}, {edges}")
    rng = np.random.default_rng(seed)
    flat = rng.choice(n * (n - 1), size=edges, replace=False)
    pre = flat // (n - 1)
    post = flat % (n - 1)
    post = post + (post >= pre)  # skip the diagonal
    out = sp.csr_matrix((rng.standard_normal(edges), (pre, post)), shape=(n, n))
    out.sort_indices()
    return out


def load_esn(n: int = 1000, density: float = 0.01, seed: int = 0) -> Connectome:
    """A random ESN of ``n`` units with ``round(density * n^2)`` signed Gaussian edges."""
    if not 0.0 < density < 1.0:
        raise UsageError(f"density must be in (0, 1), got {density}")
    w = random_esn_matrix(n, int(round(density * n * n)), seed)
    return Connectome(
        name=f"esn-{n}",
        skeleton_ids=np.arange(n, dtype=np.int64),
        weights=w,
        edge_types={"all": w},
        celltype=np.full(n, "unit"),
        side=np.full(n, ""),
        partner=np.full(n, -1, dtype=np.int64),
        annotations=tuple(frozenset() for _ in range(n)),
        cluster=np.full(n, -1, dtype=np.int64),
        signed=True,
        source={
            "kind": "random echo state network (wirelab.reservoir.esn)",
            "units": n,
            "density": density,
            "weights": "N(0, 1), no self-loops",
            "seed": seed,
        },
    )


def load_esn_1000() -> Connectome:
    """``esn-1000``: 1,000 units, density 1% (10,000 edges), N(0, 1) weights, seed 0."""
    return load_esn(1000, 0.01, 0)
