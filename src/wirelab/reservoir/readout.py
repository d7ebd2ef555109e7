"""Linear readouts: ridge regression (streaming, cross-validated) and classifiers, sklearn verbs.

Ridge (`Ridge`, `RidgeAccumulator`). With features ``X`` ``(T, F)`` (recorded states, rows are
time steps after the washout) and targets ``Y`` ``(T, O)``, the intercept is not penalised::

    W_out = (Xc^T Xc + lambda I)^-1 Xc^T Yc,  b = mean(Y) - mean(X) @ W_out,  y = X @ W_out + b

where ``Xc = X - mean(X)``, ``Yc = Y - mean(Y)`` (reservoirpy's ``Ridge`` uses the same form).
Only the sufficient statistics ``n, sum x, sum y, X^T X, X^T Y, sum y^2`` are accumulated,
per cross-validation fold, so long runs never hold the full state matrix; the held-out squared
error of each fold follows from the same statistics. ``lambda`` is chosen by K-fold CV over
contiguous time blocks (no shuffling of a time series) when a grid is given.

Options: ``groups`` (one label per row, e.g. the run a sample came from) makes the CV folds whole
groups (``min(folds, #groups)`` folds of consecutive sorted labels), so no run is split between
training and held-out data. ``standardize=True`` penalises the coefficients of standardised
features, so the penalty does not depend on the scale of each feature::

    Z = (X - mean(X)) / std(X)   (a constant feature gets std 1)
    W_z = (Z^T Z + lambda I)^-1 Z^T Yc,   W_out = W_z / std(X),   b = mean(Y) - mean(X) @ W_out

computed on the full feature matrix (not streamed); the CV error of a fold is then measured by
refitting (standardisation included) on the other folds. Either way ``cv_errors_`` holds the mean
held-out squared error per sample and output for each lambda of the grid.

Classifiers: `RidgeClassifier` (ridge on +-1 one-hot targets, argmax; the decision task's) and
`LogisticClassifier` (multinomial logistic regression with an L2 penalty on standardised features,
scikit-learn's L-BFGS solver).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from wirelab.errors import UsageError

DEFAULT_LAMBDAS = tuple(10.0 ** np.arange(-8, 3))


def _as_2d(y: np.ndarray, name: str) -> np.ndarray:
    y = np.asarray(y, dtype=np.float64)
    if y.ndim == 1:
        y = y[:, None]
    if y.ndim != 2:
        raise UsageError(f"{name} must be 1-D or 2-D, got shape {y.shape}")
    return y


def _check_xy(x: np.ndarray, y: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray | None]:
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


class RidgeAccumulator:
    """Streaming sufficient statistics for ridge, kept per fold (``folds`` >= 1)."""

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

    def partial_fit(self, x: np.ndarray, y: np.ndarray, fold: int = 0) -> RidgeAccumulator:
        x2, y2 = _check_xy(x, y)
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
        return self

    def _solve(self, keep: np.ndarray, lam: float) -> tuple[np.ndarray, np.ndarray]:
        n = self.n[keep].sum()
        if n < 2:
            raise UsageError("ridge needs at least 2 samples after the washout")
        mx = self.sx[keep].sum(0) / n
        my = self.sy[keep].sum(0) / n
        cxx = self.xx[keep].sum(0) - n * np.outer(mx, mx)
        cxy = self.xy[keep].sum(0) - n * np.outer(mx, my)
        a = cxx + lam * np.eye(self.f)
        # numpy's LAPACK, not scipy.linalg: scipy's bundled 2-thread OpenBLAS was measured
        # ~300x slower on 182 x 182 solves on the shared 2-core machine (thread spinning)
        try:
            w = np.linalg.solve(a, cxy)
        except np.linalg.LinAlgError:
            w = np.linalg.lstsq(a, cxy, rcond=None)[0]
        return w, my - mx @ w

    def solve(self, lam: float) -> tuple[np.ndarray, np.ndarray]:
        """``(W_out (F, O), b (O,))`` on all folds."""
        return self._solve(np.ones(self.k, dtype=bool), lam)

    def cv_errors(self, lambdas: Sequence[float] | np.ndarray) -> np.ndarray:
        """Mean held-out squared error per lambda, ``(L,)``, from the fold statistics alone."""
        if self.k < 2:
            raise UsageError("cross-validation needs folds >= 2")
        errs = np.zeros(len(lambdas))
        for li, lam in enumerate(lambdas):
            sse, cnt = 0.0, 0.0
            for fold in range(self.k):
                if self.n[fold] == 0:
                    continue
                keep = np.arange(self.k) != fold
                w, b = self._solve(keep, lam)
                # sum_t |y - x w - b|^2 expanded on the fold's statistics
                q = (
                    self.yy[fold].sum()
                    - 2 * np.sum(w * self.xy[fold])
                    - 2 * b @ self.sy[fold]
                    + np.sum(w * (self.xx[fold] @ w))
                    + 2 * b @ (self.sx[fold] @ w)
                    + self.n[fold] * b @ b
                )
                sse += q
                cnt += self.n[fold] * self.o
            errs[li] = sse / cnt
        return errs


def standardized_solve(x: np.ndarray, y: np.ndarray, lam: float) -> tuple[np.ndarray, np.ndarray]:
    """Ridge on standardised features, back in original units: ``(W_out (F, O), b (O,))``.

    ``x`` ``(T, F)``, ``y`` ``(T, O)``; see the module docstring for the equations.
    """
    mx, my = x.mean(axis=0), y.mean(axis=0)
    sd = x.std(axis=0)
    sd[sd < 1e-12] = 1.0
    z, yc = (x - mx) / sd, y - my  # (T, F), (T, O)
    a = z.T @ z + lam * np.eye(x.shape[1])
    w = np.linalg.solve(a, z.T @ yc) / sd[:, None]  # (F, O)
    return w, my - mx @ w


class Ridge:
    """Ridge regression readout with washout and CV-chosen regularisation.

    Args:
        ridge: one lambda, or a grid from which K-fold CV picks one.
        washout: leading rows of each sequence to discard in `fit` (not in `predict`).
        folds: CV folds when ``ridge`` is a grid (contiguous blocks, or whole ``groups``).
        standardize: penalise the coefficients of standardised features (module docstring).
    """

    def __init__(
        self,
        ridge: float | Sequence[float] = DEFAULT_LAMBDAS,
        *,
        washout: int = 0,
        folds: int = 5,
        standardize: bool = False,
    ) -> None:
        grid = np.atleast_1d(np.asarray(ridge, dtype=np.float64))
        if grid.ndim != 1 or grid.size == 0 or np.any(grid < 0):
            raise UsageError("ridge must be a non-negative number or a non-empty grid")
        if washout < 0:
            raise UsageError("washout must be >= 0")
        self.grid = grid
        self.washout = washout
        self.folds = folds
        self.standardize = standardize
        self.coef_: np.ndarray | None = None
        self.intercept_: np.ndarray | None = None
        self.ridge_: float | None = None
        self.cv_errors_: np.ndarray | None = None
        self._squeeze = False

    def _fold_rows(self, t: int, groups: np.ndarray | None) -> list[np.ndarray]:
        """Row indices of each CV fold: contiguous blocks, or whole groups."""
        if self.grid.size == 1:
            return [np.arange(t)]
        if groups is None:
            return np.array_split(np.arange(t), self.folds)
        labels = np.unique(groups)
        parts = np.array_split(labels, min(self.folds, labels.size))
        return [np.flatnonzero(np.isin(groups, part)) for part in parts]

    def fit(self, x: np.ndarray, y: np.ndarray, groups: np.ndarray | None = None) -> Ridge:
        """``x`` ``(T, F)``, ``y`` ``(T,)`` or ``(T, O)``, ``groups`` ``(T,)`` optional CV group
        labels; rows before ``washout`` are dropped."""
        x2, y2 = _check_xy(x, y)
        assert y2 is not None
        self._squeeze = np.asarray(y).ndim == 1
        x2, y2 = x2[self.washout :], y2[self.washout :]
        if groups is not None:
            groups = np.asarray(groups)
            if groups.shape != (x.shape[0],):
                raise UsageError(f"groups must be ({x.shape[0]},), got {groups.shape}")
            groups = groups[self.washout :]
        folds = self._fold_rows(x2.shape[0], groups)
        if x2.shape[0] < max(2, len(folds)):
            raise UsageError(f"only {x2.shape[0]} samples after a washout of {self.washout}")
        if self.standardize:
            return self._fit_standardized(x2, y2, folds)
        acc = RidgeAccumulator(x2.shape[1], y2.shape[1], len(folds))
        for fold, idx in enumerate(folds):
            acc.partial_fit(x2[idx], y2[idx], fold)
        return self.fit_statistics(acc)

    def _fit_standardized(self, x: np.ndarray, y: np.ndarray, folds: list[np.ndarray]) -> Ridge:
        if self.grid.size > 1:
            errs = np.zeros(self.grid.size)
            for li, lam in enumerate(self.grid):
                sse = 0.0
                for idx in folds:
                    test = np.zeros(x.shape[0], dtype=bool)
                    test[idx] = True
                    if test.all() or not test.any():
                        continue
                    w, b = standardized_solve(x[~test], y[~test], float(lam))
                    sse += float(np.sum((x[test] @ w + b - y[test]) ** 2))
                errs[li] = sse / (x.shape[0] * y.shape[1])
            self.cv_errors_ = errs
            self.ridge_ = float(self.grid[int(np.argmin(errs))])
        else:
            self.ridge_ = float(self.grid[0])
        self.coef_, self.intercept_ = standardized_solve(x, y, self.ridge_)
        return self

    def fit_statistics(self, acc: RidgeAccumulator) -> Ridge:
        """Fit from a filled `RidgeAccumulator` (streaming use)."""
        if self.grid.size > 1:
            self.cv_errors_ = acc.cv_errors(self.grid)
            self.ridge_ = float(self.grid[int(np.argmin(self.cv_errors_))])
        else:
            self.ridge_ = float(self.grid[0])
        self.coef_, self.intercept_ = acc.solve(self.ridge_)
        return self

    def predict(self, x: np.ndarray) -> np.ndarray:
        if self.coef_ is None or self.intercept_ is None:
            raise UsageError("call fit before predict")
        x2, _ = _check_xy(x)
        if x2.shape[1] != self.coef_.shape[0]:
            raise UsageError(f"expected {self.coef_.shape[0]} features, got {x2.shape[1]}")
        out = x2 @ self.coef_ + self.intercept_
        return out[:, 0] if self._squeeze else out


class RidgeClassifier:
    """Ridge on one-hot +-1 targets; the predicted class is the argmax of the outputs."""

    def __init__(self, ridge: float | Sequence[float] = DEFAULT_LAMBDAS, folds: int = 5) -> None:
        self.ridge = Ridge(ridge, folds=folds)
        self.classes_: np.ndarray | None = None

    def fit(self, x: np.ndarray, labels: np.ndarray) -> RidgeClassifier:
        labels = np.asarray(labels)
        self.classes_, inv = np.unique(labels, return_inverse=True)
        if self.classes_.size < 2:
            raise UsageError("a classifier needs at least two classes")
        target = -np.ones((labels.size, self.classes_.size))
        target[np.arange(labels.size), inv] = 1.0
        self.ridge.fit(x, target)
        return self

    def decision_function(self, x: np.ndarray) -> np.ndarray:
        return np.asarray(self.ridge.predict(x))

    def predict(self, x: np.ndarray) -> np.ndarray:
        assert self.classes_ is not None
        return self.classes_[np.argmax(self.decision_function(x), axis=1)]

    def score(self, x: np.ndarray, labels: np.ndarray) -> float:
        return float(np.mean(self.predict(x) == np.asarray(labels)))


class LogisticClassifier:
    """Multinomial logistic regression on standardised features ``z``, loss
    ``mean_t CE(softmax(z_t @ W + b), y_t) + l2/2 |W|^2`` (``W`` ``(F, C)``, ``b`` unpenalised),
    fitted by scikit-learn's ``LogisticRegression`` (L-BFGS) with ``C = 1 / (l2 T)``.

    Two classes: scikit-learn fits one vector ``d`` with the penalty ``|d|^2 / 2``; the softmax
    optimum has ``W = [-d/2, d/2]``, whose penalty is ``|d|^2 / 4``, hence ``C = 2 / (l2 T)``.
    """

    def __init__(self, l2: float = 1e-3, max_iter: int = 500) -> None:
        if l2 < 0:
            raise UsageError("l2 must be >= 0")
        self.l2 = l2
        self.max_iter = max_iter
        self.classes_: np.ndarray | None = None
        self.coef_: np.ndarray | None = None
        self.intercept_: np.ndarray | None = None

    def fit(self, x: np.ndarray, labels: np.ndarray) -> LogisticClassifier:
        from sklearn.linear_model import LogisticRegression  # imported when a model is fitted

        x2, _ = _check_xy(x)
        labels = np.asarray(labels)
        if labels.shape != (x2.shape[0],):
            raise UsageError(f"labels must be ({x2.shape[0]},), got {labels.shape}")
        self.classes_, inv = np.unique(labels, return_inverse=True)
        if self.classes_.size < 2:
            raise UsageError("a classifier needs at least two classes")
        self._mu = x2.mean(0)
        self._sd = x2.std(0) + 1e-12
        z = (x2 - self._mu) / self._sd  # (T, F)
        binary = self.classes_.size == 2
        c = (2.0 if binary else 1.0) / (self.l2 * z.shape[0]) if self.l2 > 0 else np.inf
        model = LogisticRegression(C=c, max_iter=self.max_iter).fit(z, inv)
        if binary:
            d, d0 = model.coef_[0], float(model.intercept_[0])
            self.coef_ = np.stack([-d / 2, d / 2], axis=1)  # (F, 2)
            self.intercept_ = np.array([-d0 / 2, d0 / 2])
        else:
            self.coef_ = model.coef_.T  # (F, C)
            self.intercept_ = model.intercept_.copy()
        return self

    def decision_function(self, x: np.ndarray) -> np.ndarray:
        if self.coef_ is None or self.intercept_ is None:
            raise UsageError("call fit before predict")
        x2, _ = _check_xy(x)
        return np.asarray(((x2 - self._mu) / self._sd) @ self.coef_ + self.intercept_)

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        logits = self.decision_function(x)
        logits -= logits.max(1, keepdims=True)
        p = np.exp(logits)
        return np.asarray(p / p.sum(1, keepdims=True))

    def predict(self, x: np.ndarray) -> np.ndarray:
        assert self.classes_ is not None
        return self.classes_[np.argmax(self.decision_function(x), axis=1)]

    def score(self, x: np.ndarray, labels: np.ndarray) -> float:
        return float(np.mean(self.predict(x) == np.asarray(labels)))
