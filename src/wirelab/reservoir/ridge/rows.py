"""Ridge on rows held in memory: projected once, cross-validated and refitted as ONE model.

`RowRidge` centres the rows ``X`` ``(T, F)`` once (``Xc = X - mean X``), finds the reduced basis
``B`` ``(F, r)`` of their numerical range once (`linalg.range_basis`, or `linalg.data_basis` with
fewer rows than features) and keeps ``P = Xc B`` ``(T, r)`` (``P = Xc`` where no basis saves
anything, e.g. a random ESN's full-rank states). Ridge on ``P`` is ridge on ``X`` with ``W = B
W_P``; the CV and every refit are ridge on the same ``P`` with the same filter
(`linalg.ridge_filter`: every eigen-direction kept for ``lambda > 0``), so the CV errors are
those of the model that is refitted.

Cross-validation (`cv_errors`), per fold one eigendecomposition of the fold's centred training
rows (``r x r``, or the ``T_k x T_k`` block of one shared kernel ``K = P P^T`` when the fold has
fewer rows than ``P`` has columns), then every lambda of the grid and every output from it::

    pred_test(lambda) = (P_test - m_k) V diag(f(d, lambda)) V^T Pc_k^T Yc_k + mean Y_k     (primal)
                      = Kt_k U diag(f(d, lambda)) U^T Yc_k + mean Y_k                      (kernel)

``Pc_k^T Pc_k = V diag(d) V^T``, ``Kc_k = U diag(d) U^T`` the fold's centred kernel, ``Kt_k`` the
test rows' centred kernel against the fold's rows. K-fold ridge needs one decomposition per
fold: the held-out residuals of fold k from one decomposition ``Xc = U S V^T`` of all rows are
``(I - H_kk)^-1 r_k`` with ``H_kk = U_k diag(s^2 / (s^2 + lambda)) U_k^T``, an ``n_k x n_k``
solve per lambda and fold, dearer than one ``r x r`` eigendecomposition per fold shared by the
33 lambdas (leave-one-out, ``n_k = 1``, is where that closed form wins; it is not the tasks' CV).

Refits (`solve`) on all rows or a prefix: one linear solve ``(Pc^T Pc + lambda I) W_P = Pc^T Yc``
per lambda (with fewer rows than columns its dual, ``W_P = Pc^T (Pc Pc^T + lambda I)^-1 Yc``),
or one eigendecomposition shared by more than two lambdas where it is exact to rounding.

Example: ``rows = RowRidge(x, y); err = rows.cv_errors(fold_rows(len(x), 3), GRID)``.
The readable reference is `stream.RidgeAccumulator.cv_errors_reference` (one solve per lambda
and fold on every feature); tests check `cv_errors` and `solve` against it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from wirelab.reservoir.ridge.linalg import (
    data_basis,
    eig_accurate,
    range_basis,
    ridge_filter,
    solve_psd,
    spectrum,
)


class RowRidge:
    """Ridge ``X`` ``(T, F)`` -> ``Y`` ``(T, O)`` with an unpenalised intercept, on the rows
    projected once onto their reduced basis (module docstring)."""

    def __init__(self, x: np.ndarray, y: np.ndarray) -> None:
        x = np.asarray(x, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        self.y = y[:, None] if y.ndim == 1 else y
        self.f = x.shape[1]
        self.mx = x.mean(0)
        xc = x - self.mx
        if xc.shape[0] >= self.f:
            gram = xc.T @ xc
            self.basis = range_basis(gram)
        else:  # fewer rows than features: the kernel's range, mapped to the row space
            gram = None
            self.basis = data_basis(xc)
        self.p = xc if self.basis is None else xc @ self.basis  # (T, r)
        self._gram = gram if self.basis is None else None  # P^T P of all rows, when known
        self._kernel: np.ndarray | None = None

    @property
    def rank(self) -> int:
        """Columns of ``P``: the basis size ``r``, or ``F`` where no basis is used."""
        return int(self.p.shape[1])

    def cv_errors(
        self, folds: Sequence[np.ndarray], lambdas: Sequence[float] | np.ndarray
    ) -> np.ndarray:
        """Held-out squared error per sample ``(L, O)`` over ``folds`` (row indices held out)."""
        lambdas = np.asarray(lambdas, dtype=np.float64)
        t = self.p.shape[0]
        sse = np.zeros((lambdas.size, self.y.shape[1]))
        for idx in folds:
            test = np.zeros(t, dtype=bool)
            test[idx] = True
            if test.all() or not test.any():
                continue
            fold = self._fold(test)
            for li, lam in enumerate(lambdas):
                sse[li] += np.sum((fold.predict(float(lam), self.f) - fold.resid) ** 2, 0)
        self._kernel = None  # (T, T): not kept past the CV
        return sse / t

    def _fold(self, test: np.ndarray) -> _Fold:
        """The fold's `_Fold`: primal on ``P`` or, with fewer training rows than columns, on the
        kernel (its constant direction, which centred targets do not see, moved to ``d_max``)."""
        train = ~test
        my = self.y[train].mean(0)
        yc = self.y[train] - my
        resid = self.y[test] - my
        if train.sum() >= self.rank:
            mp = self.p[train].mean(0)
            pc = self.p[train] - mp
            return _Fold(pc.T @ pc, self.p[test] - mp, pc.T @ yc, resid)
        if self._kernel is None:
            self._kernel = self.p @ self.p.T  # (T, T), shared by the folds
        k = self._kernel
        ktt, kst = k[np.ix_(train, train)], k[np.ix_(test, train)]
        row = ktt.mean(0)  # x_i . m for training rows i (m: the fold's training mean)
        mm = row.mean()  # m . m
        kc = ktt - row[:, None] - row[None, :] + mm
        kc += np.abs(kc).max() * np.ones_like(kc) / kc.shape[0]  # deflate the constant direction
        kt = kst - kst.mean(1, keepdims=True) - row[None, :] + mm
        return _Fold(kc, kt, yc, resid)

    def solve(
        self, lam: float | np.ndarray, rows: int | None = None, weight: float = 1.0
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(W (F, O'), b (O'))`` on the first ``rows`` rows (all by default) with ``lam`` one
        lambda (``O' = O``), one per output ``(O,)`` (``O' = O``), or, with one output, a grid
        ``(L,)`` (``O' = L``). ``weight`` multiplies every lambda (a penalty in other units).
        One linear solve per distinct lambda, or, with more than two, one eigendecomposition
        and a solve for each lambda it would not give exactly (`linalg.eig_accurate`)."""
        n = self.p.shape[0] if rows is None else rows
        y = self.y[:n]
        lams = np.atleast_1d(np.asarray(lam, dtype=np.float64)) * weight
        mp, my = self.p[:n].mean(0), y.mean(0)
        pc = self.p[:n] - mp
        if n < self.rank:  # fewer rows than columns: the dual, W_P = Pc^T (Kc + lambda I)^-1 Yc
            kc = pc @ pc.T
            kc += np.abs(kc).max() * np.ones_like(kc) / n  # deflate the constant direction
            fold = _Fold(kc, pc.T, y - my, np.zeros((0, y.shape[1])))
        else:  # A = I: the weights (Pc^T Pc + lambda I)^-1 Pc^T Yc
            fold = _Fold(self._gram_of(n, pc), None, pc.T @ (y - my), np.zeros((0, y.shape[1])))
        if lams.size == 1:
            w_p = fold.predict(float(lams[0]), self.f, eig=bool(lams[0] == 0))
        elif y.shape[1] == 1:  # a grid on one output: a column per lambda
            w_p = np.hstack([fold.predict(float(v), self.f, eig=lams.size > 2) for v in lams])
        else:  # a lambda per output: one model per distinct lambda
            w_p = np.zeros((self.rank, y.shape[1]))
            distinct = np.unique(lams)
            for v in distinct:
                cols = lams == v
                w_p[:, cols] = fold.predict(float(v), self.f, eig=distinct.size > 2)[:, cols]
        w = w_p if self.basis is None else self.basis @ w_p
        return w, my - self.mx @ w - mp @ w_p

    def _gram_of(self, n: int, pc: np.ndarray) -> np.ndarray:
        """``Pc^T Pc`` ``(r, r)`` of the first ``n`` rows centred (kept for all rows)."""
        if n == self.p.shape[0]:
            if self._gram is None:
                self._gram = pc.T @ pc
            return self._gram
        return pc.T @ pc


class _Fold:
    """Ridge predictions ``A (G + lambda I)^-1 Q`` ``(T_test, O)`` for every lambda of a grid:
    ``G`` ``(k, k)`` a PSD Gram (primal ``Pc^T Pc`` or a centred kernel), ``A`` ``(T_test, k)``
    (None: the identity, so the result is the weights ``(k, O)``),
    ``Q`` ``(k, O)``; from one eigendecomposition ``G = V diag(d) V^T`` (made on first use) as
    ``A V diag(f(d, lambda)) V^T Q`` where `linalg.eig_accurate`, else by a linear solve."""

    def __init__(
        self, g: np.ndarray, a: np.ndarray | None, q: np.ndarray, resid: np.ndarray
    ) -> None:
        self.g, self.a, self.q, self.resid = g, a, q, resid
        self._eig: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    def predict(self, lam: float, size: int, eig: bool = True) -> np.ndarray:
        """``A (G + lam I)^-1 Q`` (``lam = 0``: the pseudo-inverse); ``eig=False`` solves
        directly unless ``lam = 0``."""
        if eig or lam == 0:
            if self._eig is None:
                d, v = spectrum(self.g)
                self._eig = (d, v if self.a is None else self.a @ v, v.T @ self.q)
            d, av, vq = self._eig
            if eig_accurate(d, lam):
                return np.asarray(av @ (ridge_filter(d, lam, size)[:, None] * vq))
        w = solve_psd(self.g, lam, self.q)
        return w if self.a is None else np.asarray(self.a @ w)
