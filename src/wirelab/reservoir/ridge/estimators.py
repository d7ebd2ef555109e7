"""Linear readouts with scikit-learn's verbs: `Ridge`, `RidgeClassifier`, `LogisticClassifier`.

`Ridge`: with features ``X`` ``(T, F)`` (rows after the washout) and targets ``Y`` ``(T, O)``,
the intercept unpenalised::

    W_out = (Xc^T Xc + lambda I)^-1 Xc^T Yc,  b = mean(Y) - mean(X) @ W_out,  y = X @ W_out + b

``lambda`` from a grid by K-fold CV (contiguous row blocks, or whole ``groups``; `select`) on
the rows in memory (``solver``, `solvers.SOLVERS`: ``"fast"`` or ``"exact"``; the CV and the
refit are the same model) or from streamed statistics (`fit_statistics`,
`stream.RidgeAccumulator`); a single value is used as is. The choice is `select.choose_lambda`
(the largest lambda within 0.1% of the smallest CV error).
With a single fold (one group) nothing is held out and the smallest lambda is used.
``standardize=True`` penalises standardised features, ``Z = (X - mean X) / std X`` (a constant
feature gets std 1), ``W_out = W_z / std X``; the CV then refits the standardisation per fold.

Example: ``Ridge(folds=3).fit(x, y).predict(x_new)``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from wirelab.errors import UsageError
from wirelab.reservoir.ridge.linalg import check_xy
from wirelab.reservoir.ridge.select import DEFAULT_LAMBDAS, choose_lambda, fold_rows
from wirelab.reservoir.ridge.solvers import SOLVERS, row_solver
from wirelab.reservoir.ridge.stream import RidgeAccumulator


def standardized_solve(x: np.ndarray, y: np.ndarray, lam: float) -> tuple[np.ndarray, np.ndarray]:
    """Ridge on standardised features, back in original units: ``(W_out (F, O), b (O,))``."""
    mx, my = x.mean(axis=0), y.mean(axis=0)
    sd = x.std(axis=0)
    sd[sd < 1e-12] = 1.0
    z, yc = (x - mx) / sd, y - my  # (T, F), (T, O)
    a = z.T @ z + lam * np.eye(x.shape[1])
    try:
        w = np.linalg.solve(a, z.T @ yc) / sd[:, None]  # (F, O)
    except np.linalg.LinAlgError:  # lambda = 0 on collinear features: minimum norm
        w = np.linalg.lstsq(a, z.T @ yc, rcond=None)[0] / sd[:, None]
    return w, my - mx @ w


class Ridge:
    """Ridge regression readout with washout and CV-chosen regularisation.

    Args:
        ridge: one lambda, or a grid (ascending after sorting) from which K-fold CV picks one.
        washout: leading rows of each sequence to discard in `fit` (not in `predict`).
        folds: CV folds when ``ridge`` is a grid (contiguous blocks, or whole ``groups``).
        standardize: penalise the coefficients of standardised features (module docstring).
        per_output: choose lambda for each output column separately (``ridges_``).
        solver: how rows in memory are solved, a `solvers.SOLVERS` name (``"fast"`` or
            ``"exact"``); None: the `solvers.current_solver` (``"fast"`` unless set). Not
            used with ``standardize`` (a direct solve per lambda) or `fit_statistics`.

    After `fit`: ``coef_`` ``(F, O)``, ``intercept_`` ``(O,)``, ``ridges_`` ``(O,)``, ``ridge_``
    (the shared lambda; None with ``per_output``), ``on_edge_`` (a chosen lambda is the grid's
    smallest or largest), ``cv_errors_`` ``(L,)`` and ``cv_errors_by_output_`` ``(L, O)``.
    """

    def __init__(
        self,
        ridge: float | Sequence[float] = DEFAULT_LAMBDAS,
        *,
        washout: int = 0,
        folds: int = 5,
        standardize: bool = False,
        per_output: bool = False,
        solver: str | None = None,
    ) -> None:
        grid = np.atleast_1d(np.asarray(ridge, dtype=np.float64))
        if grid.ndim != 1 or grid.size == 0 or not np.all(grid >= 0) or not np.all(grid < np.inf):
            raise UsageError("ridge must be a finite non-negative number or a non-empty grid")
        if washout < 0:
            raise UsageError("washout must be >= 0")
        if standardize and per_output:
            raise UsageError("per_output is not available with standardize")
        if solver is not None:
            SOLVERS.get(solver)  # an unknown name: one line naming the choices
        self.grid = np.sort(grid)
        self.washout = washout
        self.folds = folds
        self.standardize = standardize
        self.per_output = per_output
        self.solver = solver
        self.coef_: np.ndarray | None = None
        self.intercept_: np.ndarray | None = None
        self.ridge_: float | None = None
        self.ridges_: np.ndarray | None = None
        self.on_edge_ = False
        self.cv_errors_: np.ndarray | None = None
        self.cv_errors_by_output_: np.ndarray | None = None
        self._squeeze = False

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
        folds = fold_rows(x2.shape[0], self.folds if self.grid.size > 1 else 1, groups)
        if x2.shape[0] < max(2, len(folds)):
            raise UsageError(f"only {x2.shape[0]} samples after a washout of {self.washout}")
        if self.standardize:
            return self._fit_standardized(x2, y2, folds)
        rows = row_solver(x2, y2, self.solver)
        # one fold (a single group): nothing is held out, the smallest lambda (`_choose`)
        err = rows.cv_errors(folds, self.grid) if len(folds) > 1 else None
        self.coef_, self.intercept_ = rows.solve(self._choose(err, y2.shape[1]))
        return self

    def _choose(self, err: np.ndarray | None, n_out: int) -> float | np.ndarray:
        """The lambda (shared) or lambdas ``(O,)`` (``per_output``) from CV errors ``(L, O)``."""
        if err is None:
            self.ridge_, self.on_edge_ = float(self.grid[0]), False
            self.ridges_ = np.full(n_out, self.grid[0])
            return self.ridge_
        self.cv_errors_by_output_, self.cv_errors_ = err, err.mean(1)
        pick, _ = choose_lambda(err if self.per_output else err.mean(1, keepdims=True))
        self.on_edge_ = bool(np.any((pick == 0) | (pick == self.grid.size - 1)))
        self.ridges_ = self.grid[np.broadcast_to(pick, (n_out,))]
        self.ridge_ = None if self.per_output else float(self.grid[pick[0]])
        return self.ridges_ if self.per_output else float(self.grid[pick[0]])

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
            pick = int(choose_lambda(errs[:, None], self.grid)[0][0]) if len(folds) > 1 else 0
            self.on_edge_ = pick in (0, self.grid.size - 1)
        self.ridge_ = float(self.grid[pick])
        self.ridges_ = np.full(y.shape[1], self.ridge_)
        self.coef_, self.intercept_ = standardized_solve(x, y, self.ridge_)
        return self

    def fit_statistics(self, acc: RidgeAccumulator) -> Ridge:
        """Fit from a filled `stream.RidgeAccumulator` (streaming use)."""
        err = acc.cv_errors(self.grid, per_output=True) if self.grid.size > 1 else None
        self.coef_, self.intercept_ = acc.solve(self._choose(err, acc.o))
        return self

    def predict(self, x: np.ndarray) -> np.ndarray:
        """``x`` ``(T, F)`` -> ``(T, O)`` (``(T,)`` when fitted on a vector)."""
        if self.coef_ is None or self.intercept_ is None:
            raise UsageError("call fit before predict")
        x2, _ = check_xy(x)
        if x2.shape[1] != self.coef_.shape[0]:
            raise UsageError(f"expected {self.coef_.shape[0]} features, got {x2.shape[1]}")
        out = x2 @ self.coef_ + self.intercept_
        return out[:, 0] if self._squeeze else out
