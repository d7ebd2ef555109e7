"""Recurrent weights: connectome or matrix -> normalised ``(N, N)`` CSR ``W[pre, post]`` -> gain.

Orientation convention (used by every module of `wirelab.reservoir`):

    ``W[i, j]`` is the weight from presynaptic neuron ``i`` to postsynaptic neuron ``j``.

With row-vector states ``x`` of shape ``(N,)`` or ``(B, N)``, the recurrent drive of postsynaptic
neuron ``j`` is ``sum_i x_i W[i, j]``, i.e. ``x @ W``. Nothing here transposes silently; a
matrix stored ``[post, pre]`` (as reservoirpy's ``W @ s`` expects) must be passed as ``W.T`` with
``orientation="post_pre"``.

Normalisations (then a global gain ``alpha``, ``W_final = alpha * normalize(W)``):

- ``"spectral"``: ``W / rho(W)`` so the spectral radius (largest eigenvalue *modulus*) is 1. The
  matrix is directed and non-symmetric, so ``rho`` comes from ARPACK's non-symmetric solver
  (`scipy.sparse.linalg.eigs`, fixed start vector), falling back to dense `numpy.linalg.eigvals`
  for small matrices, never a symmetric routine.
- ``"row"``: each presynaptic neuron's outgoing absolute weights sum to 1
  (``sum_j |W[i, j]| = 1``); rows without outputs stay zero. For a non-negative matrix (synapse
  counts) this is the row-stochastic matrix (spectral radius 1 when every neuron has an output
  path); for a signed matrix the absolute sum keeps a row whose signed weights nearly cancel from
  being blown up (dividing by a signed sum near 0 would), and bounds the spectral radius by 1
  (``rho(W) <= max_i sum_j |W[i, j]|``); a random signed matrix lands well below 1 (about
  ``1 / sqrt(k)`` times the Gaussian ratio for k outputs per neuron), so read ``alpha`` as a gain,
  not as the spectral radius, for such matrices, or normalise them with ``"spectral"``.
- ``"column"``: each postsynaptic neuron's incoming absolute weights sum to 1
  (``sum_i |W[i, j]| = 1``), likewise.
- ``"none"``: unchanged.
- ``"auto"`` (`resolve_normalization`): ``"row"`` for a non-negative matrix (synapse counts: the
  row-stochastic matrix has spectral radius 1, so ``alpha`` is the spectral radius, and it keeps
  the weak sensory -> descending pathways audible, which dividing by a hub-dominated spectral
  radius does not), ``"spectral"`` for a signed one (a random ESN: row sums do not set its
  spectral radius). Experiments record the resolved name.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Literal

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from wirelab.data.connectomes import Connectome
from wirelab.errors import UsageError

Normalization = Literal["auto", "spectral", "row", "column", "none"]
NORMALIZATIONS: tuple[str, ...] = ("auto", "spectral", "row", "column", "none")
MAX_ALPHAS = 10_000  # START:STOP:N with a larger N is a typo, not a study


def as_csr(
    source: Any,
    *,
    n: int | None = None,
    edge_types: Iterable[str] | None = None,
    orientation: Literal["pre_post", "post_pre"] = "pre_post",
) -> sp.csr_matrix:
    """Any weight source as a float64 ``(N, N)`` CSR ``[pre, post]``.

    Args:
        source: a `Connectome` (all synapses, or the sum of ``edge_types``), or a dense array
            or scipy sparse matrix ``(N, N)``. Edge lists go through `from_edge_list` (a 3 x 3
            array would otherwise be ambiguous).
        orientation: how ``source`` is laid out. ``"post_pre"`` transposes it, explicitly.
    """
    if isinstance(source, Connectome):
        if orientation != "pre_post":
            raise UsageError("a Connectome is always [pre, post]; do not pass orientation")
        return source.matrix(edge_types)
    if edge_types is not None:
        raise UsageError("edge_types only applies to a Connectome")
    if sp.issparse(source):
        m = sp.csr_matrix(source, dtype=np.float64)
    else:
        arr = np.asarray(source, dtype=np.float64)
        if arr.ndim != 2:
            raise UsageError(f"weights must be a square (N, N) matrix, got shape {arr.shape}")
        m = sp.csr_matrix(arr)
    if m.shape[0] != m.shape[1]:
        raise UsageError(f"weights must be square [pre, post], got shape {m.shape}")
    if n is not None and m.shape[0] != n:
        raise UsageError(f"weights have {m.shape[0]} neurons, expected n={n}")
    if orientation == "post_pre":
        m = sp.csr_matrix(m.T)
    elif orientation != "pre_post":
        raise UsageError(f"orientation must be 'pre_post' or 'post_pre', not {orientation!r}")
    if m.nnz and not np.all(np.isfinite(m.data)):
        raise UsageError("weights contain NaN or inf")
    m.sum_duplicates()
    m.eliminate_zeros()
    return m


def from_edge_list(edges: Any, n: int | None = None) -> sp.csr_matrix:
    """``(N, N)`` CSR ``[pre, post]`` from ``(E, 2)`` or ``(E, 3)`` rows ``(pre, post[, weight])``.

    Repeated edges add up; ``n`` defaults to the largest id + 1.
    """
    edges = np.asarray(edges, dtype=np.float64)
    if edges.ndim != 2 or edges.shape[1] not in (2, 3):
        raise UsageError(f"an edge list must be (E, 2) or (E, 3), got shape {edges.shape}")
    pre = edges[:, 0]
    post = edges[:, 1]
    if np.any(pre != np.round(pre)) or np.any(post != np.round(post)) or np.any(edges[:, :2] < 0):
        raise UsageError("edge list ids must be non-negative integers (pre, post[, weight])")
    w = edges[:, 2] if edges.shape[1] == 3 else np.ones(len(edges))
    size = int(max(pre.max(initial=-1), post.max(initial=-1)) + 1) if n is None else n
    if len(edges) and max(pre.max(), post.max()) >= size:
        raise UsageError(
            f"edge list refers to neuron {int(max(pre.max(), post.max()))} >= n={size}"
        )
    m = sp.csr_matrix((w, (pre.astype(np.int64), post.astype(np.int64))), shape=(size, size))
    return as_csr(m)


def spectral_radius(w: sp.spmatrix | np.ndarray, *, seed: int = 0, tol: float = 1e-8) -> float:
    """Largest eigenvalue modulus of a (generally non-symmetric) square matrix.

    Uses ARPACK's non-symmetric Arnoldi solver (`scipy.sparse.linalg.eigs`, ``which="LM"``) from
    a start vector drawn with ``seed``; matrices with N <= 400 use dense `numpy.linalg.eigvals`.
    """
    m = sp.csr_matrix(w, dtype=np.float64)
    n = m.shape[0]
    if m.nnz == 0:
        return 0.0
    if n <= 400:
        return float(np.max(np.abs(np.linalg.eigvals(m.toarray()))))
    v0 = np.random.default_rng(seed).uniform(0.5, 1.5, n)
    try:
        vals = spla.eigs(
            m, k=1, which="LM", v0=v0, tol=tol, maxiter=20 * n, return_eigenvectors=False
        )
        return float(np.max(np.abs(vals)))
    except spla.ArpackNoConvergence:
        vals = spla.eigs(
            m, k=6, which="LM", v0=v0, tol=1e-6, maxiter=50 * n, return_eigenvectors=False
        )
        return float(np.max(np.abs(vals)))


def resolve_normalization(w: sp.spmatrix | np.ndarray, how: str) -> str:
    """``how``, with ``"auto"`` resolved: ``"spectral"`` if ``W`` has a negative weight, else
    ``"row"``."""
    if how != "auto":
        return how
    data = np.asarray(sp.csr_matrix(w).data)
    return "spectral" if data.size and float(np.min(data)) < 0 else "row"


def normalize(w: sp.spmatrix, how: str = "row", *, seed: int = 0) -> sp.csr_matrix:
    """Normalise ``W[pre, post]`` (see the module docstring); returns a new float64 CSR."""
    m = sp.csr_matrix(w, dtype=np.float64, copy=True)
    how = resolve_normalization(m, how)
    if how == "none":
        return m
    if how == "spectral":
        rho = spectral_radius(m, seed=seed)
        if rho == 0.0:
            raise UsageError(
                "cannot normalise to spectral radius 1: the matrix is nilpotent (rho=0)"
            )
        return sp.csr_matrix(m / rho)
    if how == "row":
        out_sum = np.asarray(abs(m).sum(axis=1)).ravel()  # (N,) per presynaptic neuron
        scale = np.divide(1.0, out_sum, out=np.zeros_like(out_sum), where=out_sum != 0)
        return sp.csr_matrix(sp.diags(scale) @ m)
    if how == "column":
        in_sum = np.asarray(abs(m).sum(axis=0)).ravel()  # (N,) per postsynaptic neuron
        scale = np.divide(1.0, in_sum, out=np.zeros_like(in_sum), where=in_sum != 0)
        return sp.csr_matrix(m @ sp.diags(scale))
    raise UsageError(f"normalize must be one of {', '.join(NORMALIZATIONS)}, not {how!r}")


def reservoir_weights(
    source: Any,
    *,
    normalize_by: str = "row",
    alpha: float = 1.0,
    edge_types: Iterable[str] | None = None,
    orientation: Literal["pre_post", "post_pre"] = "pre_post",
    seed: int = 0,
) -> sp.csr_matrix:
    """``alpha * normalize(W)`` as a float64 CSR ``[pre, post]``, from any source of `as_csr`."""
    if not np.isfinite(alpha):
        raise UsageError(f"alpha must be finite, got {alpha}")
    m = normalize(
        as_csr(source, edge_types=edge_types, orientation=orientation), normalize_by, seed=seed
    )
    return sp.csr_matrix(m * float(alpha))


def parse_alphas(spec: str | float | Sequence[float]) -> np.ndarray:
    """``"START:STOP:N"`` (N evenly spaced, inclusive), ``"a,b,c"``, a number or a sequence."""
    if isinstance(spec, (int, float)):
        out = np.array([float(spec)])
    elif not isinstance(spec, str):
        out = np.asarray(spec, dtype=np.float64).ravel()
    else:
        out = _parse_alpha_text(spec)
    if out.size == 0 or not np.all(np.isfinite(out)):
        raise UsageError(f"alpha must be one or more finite numbers; got {spec!r}")
    return out


def _parse_alpha_text(spec: str) -> np.ndarray:
    try:
        if ":" in spec:
            parts = spec.split(":")
            if len(parts) != 3:
                raise ValueError
            start, stop, num = float(parts[0]), float(parts[1]), int(parts[2])
            if not 1 <= num <= MAX_ALPHAS:
                raise ValueError
            out = np.linspace(start, stop, num)
        else:
            out = np.array([float(s) for s in spec.split(",") if s.strip()])
    except ValueError:
        raise UsageError(f"alpha must be START:STOP:N, a,b,c or a number; got {spec!r}") from None
    return out
