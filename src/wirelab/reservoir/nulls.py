"""Null models of a directed, weighted connectome ``W[pre, post]``, one stated definition each.

All take the raw matrix (a `Connectome` or any source of `weights.as_csr`) and a seed, and return
a float64 CSR ``[pre, post]`` of the same size; normalisation and gain are applied afterwards, the
same way as for the real connectome, so a comparison changes only the wiring.

- ``erdos-renyi``: the same number of edges E placed uniformly at random among the N(N-1)
  ordered pairs without self-loops, carrying a random permutation of the real edge weights
  (matched density and weight distribution; degrees become binomial).
- ``degree``: directed degree-preserving rewiring (Maslov & Sneppen 2002, Science 296:910):
  ``10 * E`` attempted double-edge swaps ``(a->b, c->d) -> (a->d, c->b)``, rejected when they
  would create a self-loop or a duplicate edge. Every neuron's in- and out-degree is kept
  exactly; each weight stays on its edge, which keeps its presynaptic neuron, so every out-
  strength (row sum) is kept too. Self-loops are not kept: a swap never creates one but does
  move an existing loop ``a->a`` onto two distinct neurons, so after 10 swaps per edge none of
  the larval matrix's 537 loops (783 synapses) remain (measured with seeds 1 and 2); the loops'
  degrees and weights stay with their neurons.
- ``weights``: the real topology with the edge weights randomly permuted among the edges.
- ``random-esn``: a standard echo state network of the same size and edge count: E positions
  drawn as for ``erdos-renyi`` (no self-loops), each with an N(0, 1) weight
  (`wirelab.reservoir.esn.random_esn_matrix`); the real weights are not used. After the run's
  normalisation it is rescaled to the spectral radius of the normalised connectome
  (`match_radius`; the nulls in `RADIUS_MATCHED`), so at every gain it has the connectome's
  spectral radius: the answer to "is the connectome better than a standard ESN of its size?".
- ``mirror``: the two hemispheres swapped: with ``P`` the permutation sending every paired
  neuron to its contralateral partner (unpaired neurons to themselves),
  ``W_mirror[i, j] = W[P[i], P[j]]``: left neurons get the wiring of their right partners and
  vice versa. Deterministic (the seed is ignored).

`NULLS` is the one list of them (the CLI's ``--null-model``, the validation, the experiment and
the docs read it); each entry is a `NullModel`: ``null(source, seed, edge_types) -> W``
(``edge_types`` None: every type) and how the experiment treats it (deterministic, radius
matched, its colour). The fly
experiments use `degree_preserving` and `mirrored` directly on a `Connectome`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from wirelab.data.connectomes import Connectome
from wirelab.errors import UsageError
from wirelab.registry import Registry
from wirelab.reservoir.esn import random_esn_matrix
from wirelab.reservoir.weights import as_csr, spectral_radius

MAX_DENSE_N = 20_000  # the rewiring keeps an (N, N) byte adjacency


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


def _swap(pre: Any, post: Any, adj: Any, n: int, attempts: int, seed: int) -> int:
    """In-place directed double-edge swaps; returns how many were accepted."""
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


@functools.cache
def _swap_compiled() -> Callable[..., int]:
    """`_swap` compiled by numba when installed (imported on the first rewiring), else as is."""
    try:
        import numba
    except ImportError:  # pragma: no cover
        return _swap
    return numba.njit(cache=True)(_swap)


def degree_preserving(source: Any, seed: int = 0, swaps_per_edge: int = 10) -> sp.csr_matrix:
    """Directed Maslov-Sneppen rewiring: every in- and out-degree (and out-strength) kept."""
    n, pre, post, w = _edges(source)
    if n > MAX_DENSE_N:
        raise UsageError(f"degree-preserving rewiring supports N <= {MAX_DENSE_N}, got {n}")
    adj = np.zeros(n * n, dtype=np.uint8)
    adj[pre * n + post] = 1
    _swap_compiled()(pre, post, adj, n, int(swaps_per_edge * pre.size), int(seed) % (2**32))
    return _csr(n, pre, post, w)


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


@dataclass(frozen=True)
class NullModel:
    """A `NULLS` entry: ``build(source, seed, edge_types) -> W`` (``edge_types`` None: every
    type) and what the experiment needs to know about it: ``deterministic`` (the seed is
    ignored, so ``--nulls N`` runs one), ``radius_matched`` (rescaled to the spectral radius of
    the normalised connectome after the run's normalisation, `match_radius`), the ``colour``
    of its band in score_vs_alpha.png and its ``words`` in the report's question ("than its
    degree-preserving nulls"; empty: its registry name). Calling the entry builds the null."""

    build: Callable[[Any, int, Any], sp.csr_matrix]
    deterministic: bool = False
    radius_matched: bool = False
    colour: str = "grey"
    words: str = ""

    def __call__(self, source: Any, seed: int, edge_types: Any = None) -> sp.csr_matrix:
        return self.build(source, seed, edge_types)


def on_matrix(null: Callable[[Any, int], sp.csr_matrix]) -> Callable[[Any, int, Any], Any]:
    """``null(source, seed)`` as a ``build``: the edge types are selected first."""

    def build(source: Any, seed: int, edge_types: Any) -> sp.csr_matrix:
        return null(
            as_csr(source, edge_types=edge_types) if edge_types is not None else source, seed
        )

    return build


def _mirror(con: Any, seed: int, edge_types: Any) -> sp.csr_matrix:
    return mirrored(con, edge_types)


NULLS = Registry[NullModel]("null model")
"""The null models by name (``erdos-renyi``, ``degree``, ``weights``, ``mirror``, ``random-esn``;
module docstring), each a `NullModel`: ``NULLS.get("degree")(connectome, seed)`` builds one
``(N, N)`` ``[pre, post]`` null; `wirelab.reservoir.compare`'s ``null_models``."""
NULLS.add(
    "erdos-renyi",
    NullModel(on_matrix(erdos_renyi), colour="tab:green", words="Erdos-Renyi"),
    "matched density and weights, random topology",
)
NULLS.add(
    "degree",
    NullModel(on_matrix(degree_preserving), colour="tab:orange", words="degree-preserving"),
    "degree-preserving rewiring (Maslov-Sneppen)",
)
NULLS.add(
    "weights",
    NullModel(on_matrix(weight_permutation), colour="tab:purple", words="weight-shuffled"),
    "real topology, weights permuted",
)
NULLS.add(
    "mirror",
    NullModel(_mirror, deterministic=True, colour="tab:red", words="left-right mirrored"),
    "hemispheres swapped",
)
NULLS.add(
    "random-esn",
    NullModel(on_matrix(random_esn), radius_matched=True),
    "standard random ESN: same N and edge count, N(0, 1) weights, connectome's spectral radius",
)
DEFAULT_NULLS = ("degree",)  # the null models a run compares the connectome with by default
RADIUS_MATCHED = frozenset(name for name in NULLS if NULLS.get(name).radius_matched)


def make_null(kind: str, source: Any, seed: int = 0, edge_types: Any = None) -> sp.csr_matrix:
    """The null model ``kind`` (a `NULLS` name) of ``source`` (a Connectome or a matrix)."""
    return NULLS.get(kind)(source, seed, edge_types)
