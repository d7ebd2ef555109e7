"""The null models the fly experiments use, from `wirelab.reservoir.nulls` (definitions there).

- degree-preserving rewiring (Maslov & Sneppen 2002): every in- and out-degree kept exactly;
- the left-right mirrored connectome: hemispheres swapped through the pair partners.
"""

from __future__ import annotations

import scipy.sparse as sp

from wirelab.data.connectome import Connectome
from wirelab.reservoir import nulls


def degree_preserving(con: Connectome, seed: int) -> sp.csr_matrix:
    """Directed degree-preserving rewiring of the connectome's synapse-count matrix."""
    return sp.csr_matrix(nulls.degree_preserving(con, seed=seed))


def mirrored(con: Connectome) -> sp.csr_matrix:
    """The connectome with its two hemispheres swapped (pair partners exchanged)."""
    return sp.csr_matrix(nulls.mirrored(con))
