"""The tasks' readout: ridge on standardised states with a relative lambda chosen by CV.

`fit_readout`: ridge on the states centred and divided by one number, their root mean variance
``s`` (so ``lambda`` is relative: the absolute penalty on the raw states is ``lambda * s^2``),
lambda chosen by 3-fold CV over contiguous blocks of the training steps on `select.GRID` (1e-12
.. 1e4 in half decades) by `select.choose_lambda` (the largest lambda within 0.1% of the
smallest CV error), per output where the outputs are separate targets (memory-capacity delays,
Lorenz components). The CV and the refit are one model (`rows.RowRidge`, or the exact solver
with ``solver="exact"``: `solvers.SOLVERS`). Why relative: the
states' scale varies by orders of magnitude with the gain (larval connectome, 182-neuron
readout, input scaling 0.3: state std 3.6e-4 at alpha 0.2). A chosen lambda on the grid's edge
with the CV error still falling there is reported in the task's ``detail["warnings"]``.
NRMSE = sqrt(mean((y_hat - y)^2)) / std(y) (`tasks.base.nrmse`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from wirelab.reservoir.ridge.select import GRID, choose_lambda, fold_rows
from wirelab.reservoir.ridge.solvers import RowSolver, row_solver


@dataclass
class Readout:
    """A fitted linear readout ``y = ((x - shift) / scale) @ coef + intercept``: ``coef``
    ``(F, O)``, ``intercept`` ``(O,)``, the chosen (relative) ``lam`` ``(O,)``, ``edge``
    ``(O,)`` (-1 / +1 where the CV error still falls at the grid's low / high edge, else 0) and
    the CV errors ``(L, O)``; ``ridge`` the fitted rows (for refits at other lambdas)."""

    coef: np.ndarray
    intercept: np.ndarray
    lam: np.ndarray
    edge: np.ndarray
    cv_errors: np.ndarray
    shift: np.ndarray
    scale: float
    ridge: RowSolver | None = None

    def predict(self, x: np.ndarray) -> np.ndarray:
        """``x`` ``(T, F)`` -> ``(T, O)``."""
        z = (np.asarray(x, dtype=np.float64) - self.shift) / self.scale
        return z @ self.coef + self.intercept

    def raw(self) -> tuple[np.ndarray, np.ndarray]:
        """The same map as ``x @ W + b``: ``(W (F, O), b (O,))``."""
        w = self.coef / self.scale
        return w, self.intercept - self.shift @ w


def standardise(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """``((x - m) / s, m, s)``: ``m`` the column means ``(F,)``, ``s`` the root mean column
    variance (one number, so relative lambdas mean the same at every gain and network)."""
    m = x.mean(0)
    s = float(np.sqrt(np.mean(x.var(0))))
    s = s if s > 0 and np.isfinite(s) else 1.0
    return (x - m) / s, m, s


def fit_readout(
    x: np.ndarray,
    y: np.ndarray,
    *,
    folds: int = 3,
    per_output: bool = False,
    solver: str | None = None,
) -> Readout:
    """A ridge readout of states ``x`` ``(T, F)`` for targets ``y`` ``(T,)`` or ``(T, O)``, the
    tasks' own (every task's score is measured with it)::

        z = (x - m) / s          m: (F,) column means, s: root mean column variance (a number)
        coef = argmin |z coef + intercept - y|^2 + lambda |coef|^2      (intercept unpenalised)

    ``lambda`` (relative to the states' scale) chosen by ``folds``-fold CV over contiguous
    blocks of rows on `GRID`: one per output column (``per_output=True``) or one for the mean
    error over outputs, by `select.choose_lambda`; the refit on every row is the model the CV
    scored. ``solver``: a `solvers.SOLVERS` name (``"fast"``, the default, or ``"exact"``);
    None: the `solvers.current_solver` (``wirelab reservoir run --readout-solver``).

    Returns:
        a `Readout`: ``predict(x)`` ``(T', F)`` -> ``(T', O)``, the chosen ``lam`` ``(O,)``.

    Example:
        ``fit_readout(x[:1500], y[:1500]).predict(x[1500:])[:, 0]``
    """
    y = np.asarray(y, dtype=np.float64)
    y = y[:, None] if y.ndim == 1 else y
    z, shift, scale = standardise(np.asarray(x, dtype=np.float64))
    rows = row_solver(z, y, solver)
    err = rows.cv_errors(fold_rows(z.shape[0], folds), GRID)  # (L, O)
    if per_output:
        pick, edge = choose_lambda(err)
        lam = GRID[pick]
    else:
        pick, edge = choose_lambda(err.mean(1, keepdims=True))
        lam = np.full(y.shape[1], GRID[pick[0]])
        edge = np.full(y.shape[1], edge[0])
    coef, icpt = rows.solve(lam if per_output else float(lam[0]))
    return Readout(coef, icpt, lam, edge, err, shift, scale, rows)
