"""Ridge's linear algebra: input checks, the ridge filter, eigenpairs and the reduced basis.

With features ``X`` ``(T, F)`` and targets ``Y`` ``(T, O)`` the ridge solution with an
unpenalised intercept is (``Xc = X - mean(X)``, ``Yc = Y - mean(Y)``)::

    W = (Xc^T Xc + lambda I)^-1 Xc^T Yc = V diag(filter(d, lambda)) V^T Xc^T Yc,
    b = mean(Y) - mean(X) @ W,   Xc^T Xc = V diag(d) V^T   (`spectrum`)

``filter(d, lambda) = 1 / (d + lambda)`` for ``lambda > 0`` over EVERY eigen-direction (none is
dropped), and for ``lambda = 0`` the pseudo-inverse ``1 / d`` where ``d > d_max * size * eps``,
else 0 (the minimum-norm least-squares solution; `ridge_filter`).

Accuracy (`eig_accurate`): ``eigh`` returns eigenvalues with an absolute error of a few ``eps *
d_max``, so the filter is exact to rounding only where ``lambda + d_min >= SOLVE_BELOW * eps *
d_max``; below, a linear solve of ``(Xc^T Xc + lambda I) W = Xc^T Yc`` (LU, whose error on the
graded Grams of collinear states is far smaller) is used instead, in the CV and the refit alike.
Measured on the larval NARMA-10 states (d_max = 4.6e6, eps * d_max = 1e-9): the 3-fold CV error
from ``eigh`` against one solve per fold is off by 5% at lambda 1e-9, 1e-3 at 1e-7, 8e-5 at
1e-6, 2.4e-6 at 1e-5 (lambda = 1e4 eps d_max), 4e-8 at 1e-4.

The reduced basis (`range_basis`): reservoir states are strongly collinear, and every fold's
training Gram lies in the range of the all-rows centred Gram ``G`` (``G_k <= G`` in the Loewner
order). A pivoted Cholesky factorisation (LAPACK ``?pstrf``, ``O(F^2 r)``) finds an orthonormal
``B`` ``(F, r)`` spanning ``G`` up to a residual ``diag S <= BASIS_TOL * eps * max diag G``::

    P^T G P = L L^T + S,   L (F, r),   B = qr(P L)   (F, r),   B^T B = I

Directions outside ``B`` have ``v^T G v <= F * BASIS_TOL * eps * max diag G``, below ``G``'s own
rounding (``eps * d_max``), so ridge on ``X B`` is ridge on ``X`` (the penalty is rotation
invariant; ``W = B W_B``), and the CV and the refit both use ``B``: one model. When ``r >
REDUCE_BELOW * F`` the projection saves little and the basis is None (full features).

Example: ``d, v = spectrum(xc.T @ xc); w = v @ (ridge_filter(d, 1e-3, F)[:, None] * (v.T @ xty))``.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import lapack

from wirelab.errors import UsageError

EPS = float(np.finfo(np.float64).eps)
BASIS_TOL = 1e-2  # pivots below BASIS_TOL * eps * max diag G end the factorisation
REDUCE_BELOW = 0.8  # project only when the basis has at most this fraction of the features
SOLVE_BELOW = 1e4  # lambda + d_min below SOLVE_BELOW * eps * d_max: a linear solve, not eigh


def as_2d(y: np.ndarray, name: str) -> np.ndarray:
    """``y`` as float64 ``(T, O)`` (a vector becomes one column)."""
    y = np.asarray(y, dtype=np.float64)
    if y.ndim == 1:
        y = y[:, None]
    if y.ndim != 2:
        raise UsageError(f"{name} must be 1-D or 2-D, got shape {y.shape}")
    return y


def check_xy(x: np.ndarray, y: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray | None]:
    """Features ``(T, F)`` (finite) and targets ``(T, O)`` as float64; one-line errors."""
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 2:
        raise UsageError(f"features must be (T, F), got shape {x.shape}")
    if not np.all(np.isfinite(x)):
        raise UsageError("features contain NaN or inf")
    if y is None:
        return x, None
    y2 = as_2d(y, "targets")
    if y2.shape[0] != x.shape[0]:
        raise UsageError(f"features have {x.shape[0]} rows but targets have {y2.shape[0]}")
    return x, y2


def ridge_filter(d: np.ndarray, lam: float | np.ndarray, size: int) -> np.ndarray:
    """``filter(d, lambda)`` (module docstring) of eigenvalues ``d`` ``(r,)``: ``(r,)`` for one
    lambda, ``(r, O)`` for one per output ``(O,)``; ``size`` sets the pseudo-inverse's cut at
    ``lambda = 0`` (``d_max * size * eps``)."""
    lam = np.asarray(lam, dtype=np.float64)
    dd = d if lam.ndim == 0 else d[:, None]
    cut = max(float(d.max(initial=0.0)), 0.0) * size * EPS
    live = (lam > 0) | (dd > cut)
    with np.errstate(divide="ignore"):
        return np.where(live, 1.0 / np.where(live, dd + lam, 1.0), 0.0)


def spectrum(gram: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """All eigenpairs ``d (r,), V (r, r)`` of a symmetric PSD ``gram``, ``d`` clipped at 0
    (rounding can make it slightly negative); nothing is dropped."""
    d, v = np.linalg.eigh((gram + gram.T) / 2)
    return np.maximum(d, 0.0), v


def eig_accurate(d: np.ndarray, lam: float) -> bool:
    """Whether the filter of `ridge_filter` on the eigenvalues ``d`` ``(r,)`` of `spectrum` is
    exact to rounding at ``lam`` (module docstring; ``lam = 0`` is the pseudo-inverse's)."""
    top = float(d.max(initial=0.0))
    return lam == 0 or lam + float(d.min(initial=0.0)) >= SOLVE_BELOW * EPS * top


def solve_psd(gram: np.ndarray, lam: float, rhs: np.ndarray) -> np.ndarray:
    """``(gram + lam I)^-1 rhs`` by LU (numpy's LAPACK; least squares where it is singular)."""
    a = gram + lam * np.eye(gram.shape[0])
    try:
        return np.linalg.solve(a, rhs)
    except np.linalg.LinAlgError:
        return np.linalg.lstsq(a, rhs, rcond=None)[0]


def range_basis(gram: np.ndarray, max_fraction: float = REDUCE_BELOW) -> np.ndarray | None:
    """Orthonormal basis ``B`` ``(F, r)`` of the numerical range of a PSD ``gram`` ``(F, F)``
    (module docstring), or None when ``r > max_fraction * F`` or ``gram`` is zero."""
    f = gram.shape[0]
    top = float(np.max(np.diag(gram))) if f else 0.0
    if not top > 0:
        return None
    low, piv, rank, info = lapack.dpstrf(gram, lower=1, tol=BASIS_TOL * EPS * top)
    if info < 0:  # pragma: no cover - LAPACK argument error
        raise ValueError(f"dpstrf failed: info={info}")
    if rank > max_fraction * f:
        return None
    lp = np.zeros((f, rank))
    lp[piv - 1] = np.tril(low[:, :rank])  # P L: row piv_j of P L is row j of L
    return np.linalg.qr(lp)[0]


def data_basis(xc: np.ndarray, max_fraction: float = REDUCE_BELOW) -> np.ndarray | None:
    """`range_basis` of ``Xc^T Xc`` for centred rows ``xc`` ``(T, F)``; with fewer rows than
    features it is found on the ``T x T`` kernel ``Xc Xc^T`` (basis ``U``, None when ``r >
    max_fraction * T``) and mapped to the row space, ``B = qr(Xc^T U)``."""
    t, f = xc.shape
    if t >= f:
        return range_basis(xc.T @ xc, max_fraction)
    u = range_basis(xc @ xc.T, max_fraction)
    return None if u is None else np.linalg.qr(xc.T @ u)[0]
