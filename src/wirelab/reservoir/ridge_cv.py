"""Ridge regression's numerical core: streaming statistics and cross-validation over a grid.

With features ``X`` ``(T, F)`` and targets ``Y`` ``(T, O)`` the ridge solution with an
unpenalised intercept is (``Xc = X - mean(X)``, ``Yc = Y - mean(Y)``)::

    W_out = (Xc^T Xc + lambda I)^-1 Xc^T Yc,   b = mean(Y) - mean(X) @ W_out

`RidgeAccumulator` keeps only the sufficient statistics ``n, sum x, sum y, X^T X, X^T Y,
sum y^2`` per cross-validation fold, so long runs never hold the full state matrix; the held-out
squared error of each fold follows from the same statistics.

Cross-validation over a grid of L lambdas costs one decomposition per fold, reused for every
lambda and every output. With the fold's training rows centred (``Xc``, ``Yc``; training means
``mx``, ``my``) and the eigendecomposition ``Xc^T Xc = V diag(d) V^T`` (`spectrum`)::

    W_out(lambda) = V diag(1 / (d + lambda)) V^T Xc^T Yc                               (F, O)
    error(lambda, o) = sum_t ((X_test - mx) W_out(lambda) + my - Y_test)_(t, o)^2

so each lambda costs one ``(T_test, r) x (r, O)`` product (`cv_errors_data`). With fewer
training rows than features the eigenpairs come from the ``T x T`` kernel ``Xc Xc^T``: a
2,952-neuron readout trained on 600 steps costs a 400 x 400 eigendecomposition per fold, not a
2,952 x 2,952 one (the measured costs are in docs/reservoir.md). From streaming
statistics (`RidgeAccumulator.cv_errors`) ``V, d`` come from the training folds' centred
``X^T X`` and the held-out error is expanded on the held-out fold's statistics. Numerically zero
directions are dropped (`spectrum`), so ``lambda = 0`` gives the minimum-norm least-squares
solution.

Both paths first project the features onto a reduced basis ``B`` ``(F, r)`` of the states'
numerical range, found once for all folds and lambdas by a pivoted Cholesky factorisation of the
all-folds centred Gram (`ridge_basis`; every fold's training Gram lies in its range), so each
fold's decomposition is ``r x r``: reservoir states are collinear (the 2,952 larval neurons'
states on NARMA-10 at alpha 1: r = 1,220 of 2,952, Mackey-Glass 263), and the CV of those
readouts fell from 12.3 s to 4.5 s and from 14.8 s to 0.8 s, one ``F x F`` eigendecomposition
costing 3.4-3.7 s (docs/reservoir.md).
The readable reference is `RidgeAccumulator.cv_errors_reference` (one linear solve per lambda
and fold, full features); tests check both fast paths against it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from wirelab.errors import UsageError
from wirelab.reservoir.ridge_basis import data_basis, range_basis

DEFAULT_LAMBDAS = tuple(10.0 ** np.arange(-10.0, 4.25, 0.5))  # 1e-10 .. 1e4, 29 values


def _as_2d(y: np.ndarray, name: str) -> np.ndarray:
    y = np.asarray(y, dtype=np.float64)
    if y.ndim == 1:
        y = y[:, None]
    if y.ndim != 2:
        raise UsageError(f"{name} must be 1-D or 2-D, got shape {y.shape}")
    return y


def check_xy(x: np.ndarray, y: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray | None]:
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 2:
        raise UsageError(f"features must be (T, F), got shape {x.shape}")
    if not np.all(np.isfinite(x)):
        raise UsageError("features contain NaN or inf")
    if y is None:
        return x, None
    y2 = _as_2d(y, "targets")
    if y2.shape[0] != x.shape[0]:
        raise UsageError(f"features have {x.shape[0]} rows but targets have {y2.shape[0]}")
    return x, y2


def shrink(d: np.ndarray, lam: float | np.ndarray) -> np.ndarray:
    """The ridge filter ``1 / (d + lambda)`` of eigenvalues ``d`` ``(r,)`` of ``Xc^T Xc``:
    ``(r,)`` for one lambda, ``(r, O)`` for one lambda per output ``(O,)``."""
    lam = np.asarray(lam, dtype=np.float64)
    if lam.ndim == 0:
        return 1.0 / (d + lam)
    return 1.0 / (d[:, None] + lam[None, :])


def spectrum(
    xc: np.ndarray | None, cxx: np.ndarray | None = None, size: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Eigenpairs ``d (r,), V (F, r)`` of ``Xc^T Xc`` without its numerically zero directions.

    From centred data ``xc`` ``(T, F)``: the eigendecomposition of ``Xc^T Xc`` (``F x F``) when
    ``T >= F``, else of the ``T x T`` kernel ``Xc Xc^T = U diag(d) U^T`` with ``V = Xc^T U
    diag(d)^-1/2`` (the same nonzero eigenvalues; ``T^2 F`` work instead of ``F^3``). From
    statistics: ``cxx`` = ``Xc^T Xc``. Dropped: ``d <= d_max * size * eps`` with ``size`` by
    default ``max(T, F)`` (data) or ``F`` (statistics); on features projected onto a reduced
    basis (`ridge_basis`) the callers pass the original ``F`` so the same directions are kept.
    """
    eps = np.finfo(np.float64).eps
    kernel = xc is not None and xc.shape[0] < xc.shape[1]
    g = np.asarray(cxx) if xc is None else (xc @ xc.T if kernel else xc.T @ xc)
    d, v = np.linalg.eigh((g + g.T) / 2)
    size = size or (max(xc.shape) if xc is not None else d.size)
    keep = d > (max(d[-1], 0.0) if d.size else 0.0) * size * eps
    d, v = d[keep], v[:, keep]
    if kernel:
        assert xc is not None
        v = (xc.T @ v) / np.sqrt(d)
    return d, v


def solve_spectral(
    x: np.ndarray, y: np.ndarray, lam: float | np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``(W_out (F, O), b (O,))`` of ridge on ``x`` ``(T, F)``, ``y`` ``(T, O)`` with one lambda
    or one per output ``(O,)``: ``W_out = V diag(1 / (d + lambda)) V^T Xc^T Yc``."""
    mx, my = x.mean(0), y.mean(0)
    xc = x - mx
    d, v = spectrum(xc)
    q = v.T @ (xc.T @ (y - my))  # (r, O)
    filt = shrink(d, lam)
    w = v @ ((filt[:, None] if filt.ndim == 1 else filt) * q)
    return w, my - mx @ w


class RidgeAccumulator:
    """Streaming sufficient statistics for ridge, kept per fold (``folds`` >= 1).

    ``size`` is the feature count the eigenvalue threshold of `spectrum` uses (``F``; a
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
        """``(the statistics projected onto B, B)`` with ``B`` the `ridge_basis.range_basis` of
        the centred ``X^T X`` of every fold, or ``(self, None)`` where projecting saves little;
        kept until the next `partial_fit`."""
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

    def _solve(self, keep: np.ndarray, lam: float) -> tuple[np.ndarray, np.ndarray]:
        mx, my, cxx, cxy = self._centred(keep)
        a = cxx + lam * np.eye(self.f)
        # numpy's LAPACK, not scipy.linalg: scipy's bundled multi-thread OpenBLAS spins on
        # small solves when the cores are shared (docs/reservoir.md)
        try:
            w = np.linalg.solve(a, cxy)
        except np.linalg.LinAlgError:
            w = np.linalg.lstsq(a, cxy, rcond=None)[0]
        return w, my - mx @ w

    def solve(self, lam: float | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(W_out (F, O), b (O,))`` on all folds; ``lam`` one value (a linear solve) or one per
        output ``(O,)`` (one eigendecomposition, on the reduced basis ``B`` of `reduced` when it
        has one: ``W_out = B W_r``)."""
        every = np.ones(self.k, dtype=bool)
        if np.ndim(lam) == 0:
            return self._solve(every, float(lam))
        acc, basis = self.reduced()
        _, my, cxx, cxy = acc._centred(every)
        d, v = spectrum(None, cxx, acc.size)
        w = v @ (shrink(d, lam) * (v.T @ cxy))
        w = w if basis is None else basis @ w
        return w, my - self.sx.sum(0) / self.n.sum() @ w

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
        """Held-out squared error per sample ``(L, O)``: one linear solve per lambda and fold."""
        if self.k < 2:
            raise UsageError("cross-validation needs folds >= 2")
        sse = np.zeros((len(lambdas), self.o))
        for li, lam in enumerate(lambdas):
            for fold in range(self.k):
                if self.n[fold] > 0:
                    w, b = self._solve(np.arange(self.k) != fold, float(lam))
                    sse[li] += self._fold_sse(fold, w, b)
        return sse / self.n.sum()

    def cv_errors(
        self, lambdas: Sequence[float] | np.ndarray, *, per_output: bool = False
    ) -> np.ndarray:
        """Held-out squared error per sample and output ``(L,)``, or per sample ``(L, O)`` with
        ``per_output``: one eigendecomposition per fold for every lambda (module docstring), of
        the statistics projected onto the reduced basis of `reduced` (`ridge_basis`)."""
        if self.k < 2:
            raise UsageError("cross-validation needs folds >= 2")
        acc = self.reduced()[0]
        sse = np.zeros((len(lambdas), self.o))
        for fold in range(self.k):
            if self.n[fold] == 0:
                continue
            mx, my, cxx, cxy = acc._centred(np.arange(self.k) != fold)
            d, v = spectrum(None, cxx, acc.size)
            q = v.T @ cxy  # (r, O)
            for li, lam in enumerate(lambdas):
                w = v @ (shrink(d, float(lam))[:, None] * q)
                sse[li] += acc._fold_sse(fold, w, my - mx @ w)
        err = sse / self.n.sum()
        return err if per_output else err.mean(1)


def cv_errors_data(
    x: np.ndarray, y: np.ndarray, folds: Sequence[np.ndarray], lambdas: np.ndarray
) -> np.ndarray:
    """Held-out squared error per sample ``(L, O)`` of ridge on ``x`` ``(T, F)``, ``y``
    ``(T, O)``: for each fold (row indices held out) one `spectrum` of the other rows, then per
    lambda ``pred = (X_test - mx) V diag(1 / (d + lambda)) V^T Xc^T Yc + my``; the rows are
    first projected onto the reduced basis ``B`` of `ridge_basis.data_basis` where it has one
    (``X -> (X - mean X) B``)."""
    size = x.shape[1]
    basis = data_basis(x - x.mean(0))
    x = x if basis is None else (x - x.mean(0)) @ basis
    sse = np.zeros((lambdas.size, y.shape[1]))
    for idx in folds:
        test = np.zeros(x.shape[0], dtype=bool)
        test[idx] = True
        if test.all() or not test.any():
            continue
        mx, my = x[~test].mean(0), y[~test].mean(0)
        xc = x[~test] - mx
        d, v = spectrum(xc, size=max(xc.shape[0], size))
        q = v.T @ (xc.T @ (y[~test] - my))  # (r, O)
        a = (x[test] - mx) @ v  # (T_test, r)
        resid = y[test] - my
        for li, lam in enumerate(lambdas):
            sse[li] += np.sum((a @ (shrink(d, float(lam))[:, None] * q) - resid) ** 2, 0)
    return sse / x.shape[0]
