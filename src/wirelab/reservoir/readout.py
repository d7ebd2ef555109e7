"""Linear readouts: ridge regression (streaming, cross-validated) and classifiers, sklearn verbs.

Ridge (`Ridge`, `RidgeAccumulator`). With features ``X`` ``(T, F)`` (recorded states, rows are
time steps after the washout) and targets ``Y`` ``(T, O)``, the intercept is not penalised::

    W_out = (Xc^T Xc + lambda I)^-1 Xc^T Yc,  b = mean(Y) - mean(X) @ W_out,  y = X @ W_out + b

where ``Xc = X - mean(X)``, ``Yc = Y - mean(Y)`` (reservoirpy's ``Ridge`` uses the same form).
``lambda`` is chosen by K-fold CV over contiguous time blocks (no shuffling of a time series)
when a grid is given; a single value is used as is (one linear solve, no CV).

Cross-validation over a grid costs one small decomposition per fold for every lambda and
output, on the states projected onto a reduced basis of their numerical range found once
(`wirelab.reservoir.ridge_cv`: the equations, the streaming `RidgeAccumulator`, the readable
reference the fast paths are tested against; `wirelab.reservoir.ridge_basis`: the basis).

Choosing lambda: with ``per_output=False`` one lambda for all outputs (the smallest held-out
error averaged over outputs; ``ridge_``), with ``per_output=True`` one per output column
(``ridges_`` ``(O,)``, e.g. per delay of a memory-capacity readout; ``ridge_`` is then None).
``on_edge_`` is True when a chosen lambda is the smallest or the largest of the grid: the grid
binds and should be widened (`DEFAULT_LAMBDAS`, 1e-10 .. 1e4 in half decades, is meant not to).
After a grid fit, ``cv_errors_`` ``(L,)`` is the held-out squared error per sample and output,
``cv_errors_by_output_`` ``(L, O)`` per sample for each output.

Options: ``groups`` (one label per row, e.g. the run a sample came from) makes the CV folds whole
groups (``min(folds, #groups)`` folds of consecutive sorted labels), so no run is split between
training and held-out data. ``standardize=True`` penalises the coefficients of standardised
features, so the penalty does not depend on the scale of each feature::

    Z = (X - mean(X)) / std(X)   (a constant feature gets std 1)
    W_z = (Z^T Z + lambda I)^-1 Z^T Yc,   W_out = W_z / std(X),   b = mean(Y) - mean(X) @ W_out

computed on the full feature matrix (not streamed); the CV error of a fold is then measured by
refitting (standardisation included) on the other folds (one lambda for all outputs).

Classifiers: `RidgeClassifier` (ridge on +-1 one-hot targets, argmax; the decision task's) and
`LogisticClassifier` (multinomial logistic regression with an L2 penalty on standardised features,
scikit-learn's L-BFGS solver).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from wirelab.errors import UsageError
from wirelab.reservoir.ridge_cv import (
    DEFAULT_LAMBDAS,
    RidgeAccumulator,
    check_xy,
    cv_errors_data,
    solve_spectral,
)

__all__ = [
    "DEFAULT_LAMBDAS",
    "LogisticClassifier",
    "Ridge",
    "RidgeAccumulator",
    "RidgeClassifier",
    "standardized_solve",
]


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
        ridge: one lambda, or a grid from which K-fold CV picks one (module docstring).
        washout: leading rows of each sequence to discard in `fit` (not in `predict`).
        folds: CV folds when ``ridge`` is a grid (contiguous blocks, or whole ``groups``).
        standardize: penalise the coefficients of standardised features (module docstring).
        per_output: choose lambda for each output column separately (``ridges_``).

    After `fit`: ``coef_`` ``(F, O)``, ``intercept_`` ``(O,)``, ``ridges_`` ``(O,)`` (the lambda
    of each output), ``ridge_`` (the shared lambda; None with ``per_output``), ``on_edge_`` (a
    chosen lambda is the grid's smallest or largest), ``cv_errors_`` ``(L,)`` and
    ``cv_errors_by_output_`` ``(L, O)`` (grids only).
    """

    def __init__(
        self,
        ridge: float | Sequence[float] = DEFAULT_LAMBDAS,
        *,
        washout: int = 0,
        folds: int = 5,
        standardize: bool = False,
        per_output: bool = False,
    ) -> None:
        grid = np.atleast_1d(np.asarray(ridge, dtype=np.float64))
        if grid.ndim != 1 or grid.size == 0 or not np.all(grid >= 0) or not np.all(grid < np.inf):
            raise UsageError("ridge must be a finite non-negative number or a non-empty grid")
        if washout < 0:
            raise UsageError("washout must be >= 0")
        if standardize and per_output:
            raise UsageError("per_output is not available with standardize")
        self.grid = grid
        self.washout = washout
        self.folds = folds
        self.standardize = standardize
        self.per_output = per_output
        self.coef_: np.ndarray | None = None
        self.intercept_: np.ndarray | None = None
        self.ridge_: float | None = None
        self.ridges_: np.ndarray | None = None
        self.on_edge_ = False
        self.cv_errors_: np.ndarray | None = None
        self.cv_errors_by_output_: np.ndarray | None = None
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
        x2, y2 = check_xy(x, y)
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
        if self.grid.size == 1:
            acc = RidgeAccumulator(x2.shape[1], y2.shape[1], 1).partial_fit(x2, y2)
            return self._finish(None, acc, None)
        return self._finish(cv_errors_data(x2, y2, folds, self.grid), None, (x2, y2))

    def _choose(self, err: np.ndarray | None, n_out: int) -> np.ndarray:
        """The lambda of each output ``(O,)`` from CV errors ``(L, O)`` (or the one given)."""
        if err is None:
            self.ridge_, self.on_edge_ = float(self.grid[0]), False
            return np.full(n_out, self.grid[0])
        self.cv_errors_by_output_, self.cv_errors_ = err, err.mean(1)
        pick = np.argmin(err, 0) if self.per_output else np.full(n_out, np.argmin(err.mean(1)))
        self.on_edge_ = bool(np.any((pick == 0) | (pick == self.grid.size - 1)))
        self.ridge_ = None if self.per_output else float(self.grid[pick[0]])
        return np.asarray(self.grid[pick])

    def _finish(
        self,
        err: np.ndarray | None,
        acc: RidgeAccumulator | None,
        data: tuple[np.ndarray, np.ndarray] | None,
    ) -> Ridge:
        """Choose lambda(s), then refit on every row: one plain solve for a shared lambda, one
        decomposition for per-output lambdas."""
        n_out = acc.o if acc is not None else data[1].shape[1] if data is not None else 0
        self.ridges_ = lams = self._choose(err, n_out)
        if acc is None:
            assert data is not None
            x, y = data
            if self.ridge_ is not None:
                acc = RidgeAccumulator(x.shape[1], y.shape[1], 1).partial_fit(x, y)
            else:
                self.coef_, self.intercept_ = solve_spectral(x, y, lams)
                return self
        self.coef_, self.intercept_ = acc.solve(lams if self.ridge_ is None else self.ridge_)
        return self

    def _fit_standardized(self, x: np.ndarray, y: np.ndarray, folds: list[np.ndarray]) -> Ridge:
        pick = 0
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
            pick = int(np.argmin(errs))
            self.on_edge_ = pick in (0, self.grid.size - 1)
        self.ridge_ = float(self.grid[pick])
        self.ridges_ = np.full(y.shape[1], self.ridge_)
        self.coef_, self.intercept_ = standardized_solve(x, y, self.ridge_)
        return self

    def fit_statistics(self, acc: RidgeAccumulator) -> Ridge:
        """Fit from a filled `RidgeAccumulator` (streaming use)."""
        err = acc.cv_errors(self.grid, per_output=True) if self.grid.size > 1 else None
        return self._finish(err, acc, None)

    def predict(self, x: np.ndarray) -> np.ndarray:
        if self.coef_ is None or self.intercept_ is None:
            raise UsageError("call fit before predict")
        x2, _ = check_xy(x)
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

        x2, _ = check_xy(x)
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
        x2, _ = check_xy(x)
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
