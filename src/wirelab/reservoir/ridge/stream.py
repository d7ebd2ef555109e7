"""Streaming ridge: per-fold sufficient statistics, their CV errors, and the readable reference.

`RidgeAccumulator` keeps only ``n, sum x, sum y, X^T X, X^T Y, sum y^2`` per cross-validation
fold (``F x F`` per fold), so long runs never hold the state matrix. Over the kept folds
(``mx``, ``my`` their means, ``n`` their rows)::

    Xc^T Xc = sum X^T X - n mx mx^T,   Xc^T Yc = sum X^T Y - n mx my^T
    W = (Xc^T Xc + lambda I)^-1 Xc^T Yc,   b = my - mx @ W

and a held-out fold's squared error expands on its own statistics (`_fold_sse`)::

    sum_t |y - x W - b|^2 = yy - 2 <W, XY> - 2 b sy + <W, XX W> + 2 b (sx W) + n b^2

`cv_errors`: per fold one eigendecomposition of the training folds' centred Gram projected onto
the reduced basis of all folds (`linalg.range_basis`), every lambda and output from it with the
filter of `linalg.ridge_filter` (no direction dropped for ``lambda > 0``), or a linear solve
where the eigenvalues' rounding would show (`linalg.eig_accurate`): the model `solve` refits.
`cv_errors_reference`: one plain solve per lambda and fold on every feature, the readable
reference the fast paths are tested against.

Example: ``acc = RidgeAccumulator(F, O, 3); acc.partial_fit(x_k, y_k, k); acc.cv_errors(grid)``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from wirelab.errors import UsageError
from wirelab.reservoir.ridge.linalg import (
    check_xy,
    eig_accurate,
    range_basis,
    ridge_filter,
    solve_psd,
    spectrum,
)


class RidgeAccumulator:
    """Streaming sufficient statistics for ridge, kept per fold (``folds`` >= 1).

    ``size`` is the feature count the pseudo-inverse cut at ``lambda = 0`` uses (``F``; a
    projected accumulator, `project`, keeps its original's).
    """

    def __init__(self, n_features: int, n_outputs: int, folds: int = 1) -> None:
        if folds < 1:
            raise UsageError("folds must be >= 1")
        f, o = n_features, n_outputs
        self.f, self.o, self.k = f, o, folds
        self.n = np.zeros(folds)
        self.sx = np.zeros((folds, f))
        self.sy = np.zeros((folds, o))
        self.xx = np.zeros((folds, f, f))
        self.xy = np.zeros((folds, f, o))
        self.yy = np.zeros((folds, o))
        self.size = f
        self._reduced: tuple[RidgeAccumulator, np.ndarray | None] | None = None

    def partial_fit(self, x: np.ndarray, y: np.ndarray, fold: int = 0) -> RidgeAccumulator:
        """Add rows ``x`` ``(T, F)``, ``y`` ``(T, O)`` to fold ``fold``'s statistics."""
        x2, y2 = check_xy(x, y)
        assert y2 is not None
        if x2.shape[1] != self.f or y2.shape[1] != self.o:
            raise UsageError(
                f"expected ({self.f}, {self.o}) features/outputs, got "
                f"({x2.shape[1]}, {y2.shape[1]})"
            )
        self.n[fold] += x2.shape[0]
        self.sx[fold] += x2.sum(0)
        self.sy[fold] += y2.sum(0)
        self.xx[fold] += x2.T @ x2
        self.xy[fold] += x2.T @ y2
        self.yy[fold] += np.sum(y2 * y2, 0)
        self._reduced = None
        return self

    def project(self, basis: np.ndarray) -> RidgeAccumulator:
        """The statistics of the features ``x @ basis`` (``basis`` ``(F, r)``, orthonormal
        columns): ``B^T sum x``, ``B^T X^T X B``, ``B^T X^T Y`` per fold; ``size`` stays ``F``."""
        out = RidgeAccumulator(basis.shape[1], self.o, self.k)
        out.size = self.size
        out.n, out.sy, out.yy = self.n.copy(), self.sy.copy(), self.yy.copy()
        out.sx = self.sx @ basis
        out.xx = np.stack([basis.T @ (xx @ basis) for xx in self.xx])
        out.xy = basis.T @ self.xy
        return out

    def reduced(self) -> tuple[RidgeAccumulator, np.ndarray | None]:
        """``(the statistics projected onto B, B)`` with ``B`` the `linalg.range_basis` of the
        centred ``X^T X`` of every fold, or ``(self, None)`` where projecting saves little."""
        if self._reduced is None:
            basis = range_basis(self._centred(np.ones(self.k, dtype=bool))[2])
            self._reduced = (self, None) if basis is None else (self.project(basis), basis)
        return self._reduced

    def _centred(self, keep: np.ndarray) -> tuple[np.ndarray, ...]:
        """``mean x (F,), mean y (O,), Xc^T Xc (F, F), Xc^T Yc (F, O)`` over the kept folds."""
        n = self.n[keep].sum()
        if n < 2:
            raise UsageError("ridge needs at least 2 samples after the washout")
        mx = self.sx[keep].sum(0) / n
        my = self.sy[keep].sum(0) / n
        cxx = self.xx[keep].sum(0) - n * np.outer(mx, mx)
        cxy = self.xy[keep].sum(0) - n * np.outer(mx, my)
        return mx, my, cxx, cxy

    def _weights(self, keep: np.ndarray, lam: float | np.ndarray) -> tuple[np.ndarray, ...]:
        """``(W (F, O), b (O,))`` over the kept folds: a plain solve for one ``lambda > 0``,
        else one eigendecomposition (a lambda per output ``(O,)``, or ``lambda = 0``)."""
        mx, my, cxx, cxy = self._centred(keep)
        if np.ndim(lam) == 0 and float(lam) > 0:
            # numpy's LAPACK, not scipy.linalg: scipy's bundled multi-thread OpenBLAS spins on
            # small solves when the cores are shared (docs/reservoir.md)
            w = np.linalg.solve(cxx + float(lam) * np.eye(self.f), cxy)
        else:
            d, v = spectrum(cxx)
            filt = ridge_filter(d, lam, self.size)
            w = v @ ((filt if filt.ndim == 2 else filt[:, None]) * (v.T @ cxy))
            lams = np.broadcast_to(np.asarray(lam, dtype=np.float64), (self.o,))
            for col in np.flatnonzero([not eig_accurate(d, float(v_)) for v_ in lams]):
                w[:, col] = solve_psd(cxx, float(lams[col]), cxy[:, col])
        return w, my - mx @ w

    def solve(self, lam: float | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(W_out (F, O), b (O,))`` on all folds; ``lam`` one value or one per output
        ``(O,)`` (then on the reduced basis ``B`` of `reduced` when it has one: ``W = B W_r``)."""
        every = np.ones(self.k, dtype=bool)
        if np.ndim(lam) == 0:
            w, b = self._weights(every, float(lam))
            return w, b
        acc, basis = self.reduced()
        w, _ = acc._weights(every, np.asarray(lam, dtype=np.float64))
        w = w if basis is None else basis @ w
        return w, self.sy.sum(0) / self.n.sum() - self.sx.sum(0) / self.n.sum() @ w

    def _fold_sse(self, fold: int, w: np.ndarray, b: np.ndarray) -> np.ndarray:
        """``sum_t |y - x w - b|^2`` per output ``(O,)`` expanded on the fold's statistics."""
        return (
            self.yy[fold]
            - 2 * np.sum(w * self.xy[fold], 0)
            - 2 * b * self.sy[fold]
            + np.sum(w * (self.xx[fold] @ w), 0)
            + 2 * b * (self.sx[fold] @ w)
            + self.n[fold] * b * b
        )

    def cv_errors_reference(self, lambdas: Sequence[float] | np.ndarray) -> np.ndarray:
        """Held-out squared error per sample ``(L, O)``: one plain solve per lambda and fold,
        every feature (the readable reference)."""
        if self.k < 2:
            raise UsageError("cross-validation needs folds >= 2")
        sse = np.zeros((len(lambdas), self.o))
        for li, lam in enumerate(lambdas):
            for fold in range(self.k):
                if self.n[fold] > 0:
                    w, b = self._weights(np.arange(self.k) != fold, float(lam))
                    sse[li] += self._fold_sse(fold, w, b)
        return sse / self.n.sum()

    def cv_errors(
        self, lambdas: Sequence[float] | np.ndarray, *, per_output: bool = False
    ) -> np.ndarray:
        """Held-out squared error per sample and output ``(L,)``, or per sample ``(L, O)`` with
        ``per_output``: one eigendecomposition per fold, on the reduced basis (module
        docstring)."""
        if self.k < 2:
            raise UsageError("cross-validation needs folds >= 2")
        acc = self.reduced()[0]
        sse = np.zeros((len(lambdas), self.o))
        for fold in range(self.k):
            if self.n[fold] == 0:
                continue
            mx, my, cxx, cxy = acc._centred(np.arange(self.k) != fold)
            d, v = spectrum(cxx)
            q = v.T @ cxy  # (r, O)
            for li, lam in enumerate(lambdas):
                if eig_accurate(d, float(lam)):
                    w = v @ (ridge_filter(d, float(lam), acc.size)[:, None] * q)
                else:  # below the eigenvalues' rounding: a linear solve (`linalg`)
                    w = solve_psd(cxx, float(lam), cxy)
                sse[li] += acc._fold_sse(fold, w, my - mx @ w)
        err = sse / self.n.sum()
        return err if per_output else err.mean(1)
