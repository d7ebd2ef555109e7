"""Ridge on training rows held in memory: projected once, cross-validated, refitted consistently.

The tasks' readouts (`tasks.fitting`) see every training row at once, so they need not stream
statistics. `RowRidge` centres the rows ``X`` ``(T, F)`` once (``Xc = X - mean X``), finds the
reduced basis ``B`` ``(F, r)`` of their numerical range once (`ridge_basis.range_basis` of
``G = Xc^T Xc``) and keeps ``P = Xc B`` ``(T, r)``: ridge on ``P`` is ridge on ``X`` (the penalty
is rotation-invariant and the directions outside ``B`` carry only rounding), with ``W = B W_P``.
Where no basis saves anything (``r > 0.8 F``, e.g. a random ESN's states) ``P = Xc``.

Cross-validation (`cv_errors`, contiguous row blocks): per fold one `ridge_cv.spectrum` of the
fold's centred training rows ``P_k`` (``r x r``, or the kernel when the fold has fewer rows than
``P`` has columns, taken from one ``T x T`` kernel ``K = P P^T`` computed for all folds)::

    pred_test(lambda) = (P_test - m_k) V diag(1 / (d + lambda)) V^T P_k^T Yc_k + mean Y_k
                      = Kt_k U diag(1 / (d + lambda)) U^T Yc_k + mean Y_k       (kernel form)

with ``Kc_k = U diag(d) U^T`` the fold's centred kernel and ``Kt_k`` the test rows' centred
kernel against the fold's rows. Eigen-directions with ``d <= d_max * F * eps`` are dropped.

Refits (`solve`) on all rows or a prefix of them: a linear solve on ``P`` per lambda (the
``r x r`` system ``(Pc^T Pc + lambda I) W_P = Pc^T Yc``, no ``F x F`` one where a basis is found)
or, with one lambda per output, one truncated decomposition; the same models as the full-feature
`ridge_cv.RidgeAccumulator.solve` (a plain solve keeps the directions the CV drops as rounding,
``d <= d_max * F * eps``; on the larval NARMA-10 readout that refit scores better than the
truncated one, 0.344 vs 0.377, so it stays).

The readable reference is `ridge_cv.RidgeAccumulator.cv_errors_reference` (full features, one
solve per lambda and fold); tests check `cv_errors` and `solve` against it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from wirelab.reservoir.ridge_basis import data_basis, range_basis
from wirelab.reservoir.ridge_cv import shrink, spectrum


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
            a, q, d, resid = self._fold(test)
            for li, lam in enumerate(lambdas):
                sse[li] += np.sum((a @ (shrink(d, float(lam))[:, None] * q) - resid) ** 2, 0)
        self._kernel = None  # (T, T): not kept past the CV
        return sse / t

    def _fold(self, test: np.ndarray) -> tuple[np.ndarray, ...]:
        """``(A (T_test, k), Q (k, O), d (k,), Yc_test (T_test, O))`` with ``pred = A diag(1 /
        (d + lambda)) Q``: primal on ``P`` or, with fewer training rows than columns, kernel."""
        train = ~test
        my = self.y[train].mean(0)
        yc = self.y[train] - my
        resid = self.y[test] - my
        if train.sum() >= self.rank:
            mp = self.p[train].mean(0)
            pc = self.p[train] - mp
            d, v = spectrum(pc, size=self.f)
            return (self.p[test] - mp) @ v, v.T @ (pc.T @ yc), d, resid
        if self._kernel is None:
            self._kernel = self.p @ self.p.T  # (T, T), shared by the folds
        k = self._kernel
        ktt, kst = k[np.ix_(train, train)], k[np.ix_(test, train)]
        row = ktt.mean(0)  # x_i . m for training rows i (m: the fold's training mean)
        mm = row.mean()  # m . m
        kc = ktt - row[:, None] - row[None, :] + mm
        kt = kst - kst.mean(1, keepdims=True) - row[None, :] + mm
        d, u = spectrum(None, kc, self.f)
        return kt @ u, u.T @ yc, d, resid

    def solve(
        self, lam: float | np.ndarray, rows: int | None = None, weight: float = 1.0
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(W (F, O'), b (O'))`` on the first ``rows`` rows (all by default) with ``lam`` one
        lambda (``O' = O``: one linear solve), one per output ``(O,)`` (``O' = O``: one
        truncated decomposition, as the CV's), or, with one output, a grid ``(L,)`` (``O' = L``:
        one linear solve per lambda). ``weight`` multiplies every lambda (a penalty given in
        other units)."""
        n = self.p.shape[0] if rows is None else rows
        y = self.y[:n]
        lams = np.atleast_1d(np.asarray(lam, dtype=np.float64)) * weight
        mp, my = self.p[:n].mean(0), y.mean(0)
        if lams.size > 1 and y.shape[1] > 1:  # one lambda per output
            d, v = spectrum(self.p[:n] - mp, size=self.f)
            w_p = v @ (shrink(d, lams) * (v.T @ ((self.p[:n] - mp).T @ (y - my))))
        else:
            w_p = self._solves(lams, n, mp, my)
        w = w_p if self.basis is None else self.basis @ w_p
        return w, my - self.mx @ w - mp @ w_p

    def _solves(self, lams: np.ndarray, n: int, mp: np.ndarray, my: np.ndarray) -> np.ndarray:
        """``(Pc^T Pc + lambda I)^-1 Pc^T Yc`` ``(r, O)`` for one lambda, or ``(r, L)`` for a
        grid on one output, ``Pc`` the first ``n`` rows of ``P`` centred (least squares where
        the system is singular)."""
        pc = self.p[:n] - mp
        if n == self.p.shape[0] and self._gram is not None:
            g = self._gram  # P is centred on all rows
        else:
            g = pc.T @ pc
            if n == self.p.shape[0]:
                self._gram = g
        rhs = pc.T @ (self.y[:n] - my)  # (r, O)
        eye = np.eye(self.rank)
        out = []
        for lam in lams:
            try:
                out.append(np.linalg.solve(g + lam * eye, rhs))
            except np.linalg.LinAlgError:
                out.append(np.linalg.lstsq(g + lam * eye, rhs, rcond=None)[0])
        return out[0] if lams.size == 1 else np.hstack(out)
