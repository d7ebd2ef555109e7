"""The tasks' readouts: ridge on standardised states with a relative lambda chosen by CV.

Readouts (`fit_readout`): ridge on the states centred and divided by one number, their root
mean variance ``s`` (so ``lambda`` is relative: the absolute penalty on the raw states is
``lambda * s^2``), with lambda chosen by 3-fold CV over contiguous blocks of the training steps
on `GRID` (1e-12 .. 1e4 in half decades), per output where the outputs are separate targets
(memory-capacity delays, Lorenz components). Why relative: the states' scale varies by orders of
magnitude with the gain (on the larval connectome with a 182-neuron readout, input scaling 0.3,
the states' standard deviation was 3.6e-4 at alpha 0.2), and an absolute grid down to 1e-10 was
still binding for the noise-free one-step targets (Mackey-Glass, Lorenz: CV error falling
1.3-2.4x per half decade at the edge). When a chosen lambda is on the grid's edge with the CV
error still falling there, the task's ``detail["warnings"]`` says so (and how often); a flat
error at the edge (no regularisation needed, or nothing to predict) is not binding.
NRMSE = sqrt(mean((y_hat - y)^2)) / std(y) (`base.nrmse`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from wirelab.reservoir.ridge_rows import RowRidge

GRID = 10.0 ** np.arange(-12.0, 4.01, 0.5)  # relative lambdas, 1e-12 .. 1e4 in half decades
EDGE_SLOPE = 0.01  # an edge binds when its neighbour's CV error is > 1% higher


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
    ridge: RowRidge | None = None

    def predict(self, x: np.ndarray) -> np.ndarray:
        """``x`` ``(T, F)`` -> ``(T, O)``."""
        z = (np.asarray(x, dtype=np.float64) - self.shift) / self.scale
        return z @ self.coef + self.intercept

    def raw(self) -> tuple[np.ndarray, np.ndarray]:
        """The same map as ``x @ W + b``: ``(W (F, O), b (O,))``."""
        w = self.coef / self.scale
        return w, self.intercept - self.shift @ w


def choose_lambda(err: np.ndarray, grid: np.ndarray = GRID) -> tuple[np.ndarray, np.ndarray]:
    """Per column of CV errors ``err`` ``(L, O)``: the index of the smallest error (ties: the
    larger lambda) and the edge flag: -1 (+1) when the smallest (largest) lambda is chosen and
    its neighbour's error is more than `EDGE_SLOPE` higher, i.e. the error still falls at the
    edge; a flat error there (a plateau: no regularisation needed, or nothing to predict) is not
    binding."""
    size = err.shape[0]
    idx = size - 1 - np.argmin(err[::-1], axis=0)
    cols = np.arange(err.shape[1])
    edge = np.zeros(err.shape[1], dtype=np.int64)
    if size > 1:
        low = (idx == 0) & (err[1, cols] > err[0, cols] * (1 + EDGE_SLOPE))
        high = (idx == size - 1) & (err[-2, cols] > err[-1, cols] * (1 + EDGE_SLOPE))
        edge[low], edge[high] = -1, 1
    return idx, edge


def standardise(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """``((x - m) / s, m, s)``: ``m`` the column means ``(F,)``, ``s`` the root mean column
    variance (one number, so relative lambdas mean the same at every gain and network)."""
    m = x.mean(0)
    s = float(np.sqrt(np.mean(x.var(0))))
    s = s if s > 0 and np.isfinite(s) else 1.0
    return (x - m) / s, m, s


def fit_readout(
    x: np.ndarray, y: np.ndarray, *, folds: int = 3, per_output: bool = False
) -> Readout:
    """A ridge readout of states ``x`` ``(T, F)`` for targets ``y`` ``(T,)`` or ``(T, O)``, the
    tasks' own (every task's score is measured with it)::

        z = (x - m) / s          m: (F,) column means, s: root mean column variance (a number)
        coef = argmin |z coef + intercept - y|^2 + lambda |coef|^2      (intercept unpenalised)

    ``lambda`` (relative to the states' scale) chosen by ``folds``-fold cross-validation over
    contiguous blocks of rows (no shuffling of a time series) on `GRID` (1e-12 .. 1e4 in half
    decades): one per output column (``per_output=True``, e.g. one per recalled delay) or one
    minimising the mean error over outputs. The rows are centred and projected once
    (`ridge_rows.RowRidge`), and the refit on every row uses the truncated spectrum the CV
    scored.

    Returns:
        a `Readout`: ``predict(x)`` ``(T', F)`` -> ``(T', O)``, the chosen ``lam`` ``(O,)``.

    Example:
        ``fit_readout(x[:1500], y[:1500]).predict(x[1500:])[:, 0]``
    """
    y = np.asarray(y, dtype=np.float64)
    y = y[:, None] if y.ndim == 1 else y
    z, shift, scale = standardise(np.asarray(x, dtype=np.float64))
    rows = RowRidge(z, y)
    err = rows.cv_errors(np.array_split(np.arange(z.shape[0]), folds), GRID)  # (L, O)
    if per_output:
        pick, edge = choose_lambda(err)
        lam = GRID[pick]
    else:
        pick, edge = choose_lambda(err.mean(1, keepdims=True))
        lam = np.full(y.shape[1], GRID[pick[0]])
        edge = np.full(y.shape[1], edge[0])
    coef, icpt = rows.solve(lam)
    return Readout(coef, icpt, lam, edge, err, shift, scale, rows)


def edge_warnings(task: str, edge: np.ndarray, grid: np.ndarray = GRID) -> list[str]:
    """One line per grid edge where the chosen lambdas bind (``edge`` flags, any shape)."""
    out = []
    low, high = int(np.sum(edge < 0)), int(np.sum(edge > 0))
    if low:
        out.append(
            f"{task}: the ridge lambda is on the grid's low edge ({grid[0]:.0e}) with the CV "
            f"error still falling in {low} of {edge.size} fits: the grid limits the readout"
        )
    if high:
        out.append(
            f"{task}: the ridge lambda is on the grid's high edge ({grid[-1]:.0e}) with the CV "
            f"error still falling in {high} of {edge.size} fits: the readout does no better "
            "than a constant there"
        )
    return out


def lambda_detail(task: str, lam: np.ndarray, edge: np.ndarray) -> dict[str, Any]:
    """``lambda`` (chosen values), ``lambda_on_edge`` (fraction of fits where the grid binds)
    and ``warnings`` for a task's ``detail``."""
    return {
        "lambda": lam,
        "lambda_on_edge": float(np.mean(edge != 0)) if edge.size else 0.0,
        "warnings": edge_warnings(task, edge),
    }
