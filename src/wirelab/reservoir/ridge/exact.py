"""The exact readout solver (issue 45): ridge on rows in memory from their SVD, never ``X^T X``.

`ExactRowRidge` is `rows.RowRidge`'s model (the CV and every refit are ridge on the same
projected rows ``P = Xc B``, ``W = B W_P``, one model) solved without the Gram, so the error is
that of the rows (``eps * s_max``), not of their Gram (``eps * s_max^2``), and lambda down to
the grid's 1e-12 is solved exactly. Chosen by ``solver="exact"`` (`solvers.SOLVERS`); the fast
default (`rows.RowRidge`) is 1.9-6.3x quicker on the larval states (docs/reservoir.md).

The basis (`row_basis`): the fast solver's pivoted Cholesky of ``G = Xc^T Xc``
(`linalg.range_basis`) resolves only directions with ``s^2 >~ eps * d_max``: on the larval
connectome's one-step Mackey-Glass states it kept 263 directions where an SVD of the rows
resolves 691 (a random ESN at alpha 0.2: 311 of 2,542), and the dropped ones carry weight at
lambda <= 1e-8. `row_basis` runs `LEVELS` factorisations, each on the residual rows outside the
basis so far, ``R = Xc - Xc B B^T``, computed from the rows (not the Gram), with pivots down to
`LEVEL_TOL` of the level's largest: the second level's Gram is that of rows ~1e-6 of the
first's scale, so together they resolve ``s^2`` down to about ``1e-24 max diag G``, an SVD's
level (stopped at the rows' own rounding, ``(max(T, F) eps)^2 max diag G``). ``B = [B1, B2]``
orthonormal; None (full features) when ``r > REDUCE_BELOW * F``.

Every solve, in the CV and in the refit, is from a thin SVD of the centred rows it fits,
``Pc = U diag(s) V^T`` (LAPACK ``gesdd``), shared by every lambda and output::

    W_P(lambda) = V diag(s / (s^2 + lambda)) U^T Yc,      b = mean Y - mean P W_P
    pred_test(lambda) = (P_test - mean P_k) V diag(s / (s^2 + lambda)) U^T Yc_k + mean Y_k

``lambda = 0``: ``1 / s`` where ``s > s_max * max(n, r) * eps``, else 0 (the minimum-norm least
squares solution, numpy's ``lstsq`` cut). Cross-validation (`cv_errors`): one SVD per fold of
the fold's centred training rows, every lambda from it.

Example: ``rows = ExactRowRidge(x, y); err = rows.cv_errors(fold_rows(len(x), 3), GRID)``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.linalg import lapack

from wirelab.reservoir.ridge.linalg import EPS, REDUCE_BELOW

LEVELS = 2  # `row_basis`: pivoted Cholesky levels at most
LEVEL_TOL = 1e-12  # a level's pivots down to 1e-12 of its largest (their angles exact to 2e-4)


def _pivoted_range(gram: np.ndarray, tol: float) -> np.ndarray:
    """Orthonormal ``(F, r)`` basis of a PSD ``gram``'s range from ``?pstrf``: the pivots down
    to ``tol`` (r may be 0)."""
    f = gram.shape[0]
    low, piv, rank, info = lapack.dpstrf(gram, lower=1, tol=tol)
    if info < 0:  # pragma: no cover - LAPACK argument error
        raise ValueError(f"dpstrf failed: info={info}")
    lp = np.zeros((f, rank))
    lp[piv - 1] = np.tril(low[:, :rank])
    return np.asarray(np.linalg.qr(lp)[0])


def row_basis(xc: np.ndarray, max_fraction: float = REDUCE_BELOW) -> np.ndarray | None:
    """Orthonormal basis ``B`` ``(F, r)`` of the row space of centred rows ``xc`` ``(T, F)``
    resolved to an SVD's level (module docstring: up to `LEVELS` pivoted Cholesky levels, each
    on the rows' residual outside the basis so far), or None when it saves too little (``r >
    max_fraction * F``) or the rows are zero. With fewer rows than features the levels run on
    the columns (``xc^T``) and ``B = qr(xc^T U)``."""
    t, f = xc.shape
    a = xc if t >= f else xc.T  # (n, m): the basis is of a's row space (R^m)
    res, basis = a, np.zeros((a.shape[1], 0))
    floor = 0.0
    for level in range(LEVELS):
        g = res.T @ res
        top = float(np.max(np.diag(g))) if g.size else 0.0
        if not basis.shape[1]:
            floor = (max(t, f) * EPS) ** 2 * top  # the rows' own rounding, in s^2
        if not top > floor:
            break
        b = _pivoted_range(g, max(LEVEL_TOL * top, floor))
        b = b - basis @ (basis.T @ b)  # orthogonal to the levels before only to rounding
        basis = np.hstack([basis, np.asarray(np.linalg.qr(b)[0])])
        if basis.shape[1] > max_fraction * f:
            return None  # already too many: nothing to save
        if level + 1 < LEVELS:
            res = a - (a @ basis) @ basis.T  # from the rows, not the Gram
    if not basis.shape[1]:
        return None
    if t < f:
        basis = np.asarray(np.linalg.qr(xc.T @ basis)[0])
    return None if basis.shape[1] > max_fraction * f else basis


def svd_filter(s: np.ndarray, lam: np.ndarray, size: int) -> np.ndarray:
    """``1 / (s^2 + lambda)`` ``(k, L)`` for singular values ``s`` ``(k,)`` and lambdas ``(L,)``
    (``lambda = 0``: ``1 / s^2`` above the cut ``s_max * size * eps``, else 0); it multiplies
    ``V diag(s)``, so ``V diag(s / (s^2 + lambda)) U^T``."""
    lam = np.asarray(lam, dtype=np.float64)[None, :]
    ss = s[:, None]
    live = (lam > 0) | (ss > float(s.max(initial=0.0)) * size * EPS)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(live, 1.0 / np.where(live, ss * ss + lam, 1.0), 0.0)


class _Svd:
    """A thin SVD of centred rows ``Pc = U diag(s) V^T`` ``(n, k)``, kept as ``s``, ``VS = V
    diag(s)`` ``(k, m)`` and ``U^T Yc`` ``(m, O)``: ridge weights ``VS @ (filter * U^T Yc)``.
    With fewer rows than columns ``Pc^T = Q R`` first (``R`` ``(n, n)``, Householder QR, no
    ``Q``) and ``U, s`` from the SVD of ``R^T``: ``VS = Pc^T U`` (a third cheaper than the
    SVD of the wide rows)."""

    def __init__(self, pc: np.ndarray, yc: np.ndarray) -> None:
        n, k = pc.shape
        self.size = max(n, k)
        if n < k:
            r = np.asarray(np.linalg.qr(pc.T, mode="r"))  # (n, n) upper triangular
            u, self.s, _ = np.linalg.svd(r.T)
            self.vs = pc.T @ u  # (k, n) = V diag(s)
        else:
            u, self.s, vt = np.linalg.svd(pc, full_matrices=False)
            self.vs = vt.T * self.s
        self.uy = u.T @ yc  # (m, O)


class ExactRowRidge:
    """Ridge ``X`` ``(T, F)`` -> ``Y`` ``(T, O)`` with an unpenalised intercept, on the rows
    projected once onto their `row_basis`, every solve from an SVD (module docstring); the same
    interface as `rows.RowRidge`."""

    def __init__(self, x: np.ndarray, y: np.ndarray) -> None:
        x = np.asarray(x, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        self.y = y[:, None] if y.ndim == 1 else y
        self.f = x.shape[1]
        self.mx = x.mean(0)
        xc = x - self.mx
        self.basis = row_basis(xc)
        self.p = xc if self.basis is None else xc @ self.basis  # (T, r)
        self._svd: dict[int, _Svd] = {}  # refits' SVDs by row count

    @property
    def rank(self) -> int:
        """Columns of ``P``: the basis size ``r``, or ``F`` where no basis is used."""
        return int(self.p.shape[1])

    def cv_errors(
        self, folds: Sequence[np.ndarray], lambdas: Sequence[float] | np.ndarray
    ) -> np.ndarray:
        """Held-out squared error per sample ``(L, O)`` over ``folds`` (row indices held out):
        one SVD of each fold's centred training rows, every lambda from it."""
        lambdas = np.asarray(lambdas, dtype=np.float64)
        t = self.p.shape[0]
        sse = np.zeros((lambdas.size, self.y.shape[1]))
        for idx in folds:
            test = np.zeros(t, dtype=bool)
            test[idx] = True
            if test.all() or not test.any():
                continue
            train = ~test
            my = self.y[train].mean(0)
            mp = self.p[train].mean(0)
            fold = _Svd(self.p[train] - mp, self.y[train] - my)
            av = (self.p[test] - mp) @ fold.vs  # (n_test, m): A V diag(s)
            resid = self.y[test] - my
            filt = svd_filter(fold.s, lambdas, fold.size)  # (m, L)
            for li in range(lambdas.size):
                pred = av @ (filt[:, li : li + 1] * fold.uy)
                sse[li] += np.sum((pred - resid) ** 2, 0)
        return sse / t

    def solve(
        self, lam: float | np.ndarray, rows: int | None = None, weight: float = 1.0
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(W (F, O'), b (O'))`` on the first ``rows`` rows (all by default) with ``lam`` one
        lambda (``O' = O``), one per output ``(O,)`` (``O' = O``), or, with one output, a grid
        ``(L,)`` (``O' = L``). ``weight`` multiplies every lambda (a penalty in other units).
        One SVD of those rows (kept), every lambda from it."""
        n = self.p.shape[0] if rows is None else rows
        y = self.y[:n]
        lams = np.atleast_1d(np.asarray(lam, dtype=np.float64)) * weight
        mp, my = self.p[:n].mean(0), y.mean(0)
        if n not in self._svd:
            self._svd[n] = _Svd(self.p[:n] - mp, y - my)
        fit = self._svd[n]
        # (m, 1) * (m, O): one lambda; (m, L) * (m, 1): a grid; (m, O) * (m, O): one per output
        w_p = fit.vs @ (svd_filter(fit.s, lams, fit.size) * fit.uy)
        w = w_p if self.basis is None else self.basis @ w_p
        return w, my - self.mx @ w - mp @ w_p
