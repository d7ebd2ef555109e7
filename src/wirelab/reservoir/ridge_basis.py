"""A reduced basis for ridge cross-validation: the numerical range of the states, found once.

Reservoir states are strongly collinear: the centred Gram ``G = Xc^T Xc`` ``(F, F)`` of the
2,952 larval neurons' states (NARMA-10 at alpha 1, 3,000 steps) has 334 eigenvalues above the
threshold `ridge_cv.spectrum` keeps (``d_max * F * eps``) and 746 above its own rounding level
``d_max * eps``. Every fold's training Gram lives in the same subspace: with ``m_k`` the mean of
the fold's training rows, ``G_k = sum_train (x - m_k)(x - m_k)^T <= sum_train (x - m)(x - m)^T
<= G`` (Loewner order), so a unit vector ``v`` with ``v^T G v <= s`` has ``v^T G_k v <= s``.

`range_basis` finds an orthonormal ``B`` ``(F, r)`` spanning ``G`` up to a residual far below
that threshold, by Cholesky with complete pivoting (LAPACK ``?pstrf``, ``O(F^2 r)``)::

    P^T G P = L L^T + S,   L (F, r),   diag S <= tol = BASIS_TOL * eps * max diag G
    B = qr(P L)                        (F, r),   B^T B = I

Directions outside ``B`` carry ``v^T G v <= trace S <= F * tol``, a hundredth of the dropping
threshold (``BASIS_TOL`` = 1e-2). Ridge is invariant under rotations of the features, so CV on
the projected features ``X B`` (statistics ``B^T X^T X B``, ``B^T X^T Y``, ``B^T sum x``) gives
the same held-out errors with an ``r x r`` eigendecomposition per fold instead of ``F x F``;
coefficients come back as ``W = B W_r``. When ``r > REDUCE_BELOW * F`` the projection would
save little and `range_basis` returns None (the caller keeps the full features).

Measured on the larval states (docs/reservoir.md): the CV errors agree with the full per-fold
decompositions to a relative 1e-5 (NARMA-10, Mackey-Glass) at every lambda of the grid, the size
of the full path's own rounding (rotating the features, which leaves ridge unchanged, moves it by
1e-5 to 3e-5).
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import lapack

BASIS_TOL = 1e-2  # pivots below BASIS_TOL * eps * max diag G end the factorisation
REDUCE_BELOW = 0.8  # project only when the basis has at most this fraction of the features


def range_basis(gram: np.ndarray, max_fraction: float = REDUCE_BELOW) -> np.ndarray | None:
    """Orthonormal basis ``B`` ``(F, r)`` of the numerical range of a PSD ``gram`` ``(F, F)``
    (module docstring), or None when ``r > max_fraction * F`` or ``gram`` is zero."""
    f = gram.shape[0]
    top = float(np.max(np.diag(gram))) if f else 0.0
    if not top > 0:
        return None
    tol = BASIS_TOL * np.finfo(np.float64).eps * top
    low, piv, rank, info = lapack.dpstrf(gram, lower=1, tol=tol)
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
