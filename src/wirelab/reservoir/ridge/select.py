"""Choosing lambda from cross-validation errors, the grids, the folds and the edge warnings.

The rule (`choose_lambda`), per column of CV errors ``E`` ``(L, O)`` over a grid sorted
ascending: the LARGEST lambda whose error is within a relative `CV_TOL` of the column's
minimum::

    pick = max { l : E[l] <= (1 + CV_TOL) * min_l E[l] },   CV_TOL = 1e-3

A plateau of equal errors (no regularisation needed, or every lambda at the rounding level)
then gives its largest lambda, whatever rounding does below 0.1% of the error (the
Mackey-Glass "plateau lottery": errors equal to three digits from 1e-12 to 1e-9, the argmin
decided by rounding). 1e-3 is far above the CV errors' rounding (1e-5 relative, measured by
rotating the features, docs/reservoir.md) and far below their sampling noise.

Edges: -1 (+1) when the smallest (largest) lambda is chosen and its neighbour's error is more
than `EDGE_SLOPE` higher (the error still falls at the edge: the grid binds); a flat error there
is not binding. Folds (`fold_rows`): contiguous blocks of rows (no shuffling of a time series),
or whole groups (``min(folds, #groups)`` folds of consecutive sorted labels).

Example: ``idx, edge = choose_lambda(err)``; ``lam = GRID[idx]``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

GRID = 10.0 ** np.arange(-12.0, 4.01, 0.5)  # the tasks' relative lambdas, 1e-12 .. 1e4
DEFAULT_LAMBDAS = tuple(10.0 ** np.arange(-10.0, 4.25, 0.5))  # `Ridge`'s, 1e-10 .. 1e4
CV_TOL = 1e-3  # the largest lambda within 0.1% of the smallest CV error is chosen
EDGE_SLOPE = 0.01  # an edge binds when its neighbour's CV error is > 1% higher


def fold_rows(t: int, folds: int, groups: np.ndarray | None = None) -> list[np.ndarray]:
    """Row indices held out by each fold of ``t`` rows: ``folds`` contiguous blocks, or whole
    ``groups`` ``(t,)`` (``min(folds, #labels)`` folds of consecutive sorted labels)."""
    if groups is None:
        return np.array_split(np.arange(t), folds)
    labels = np.unique(groups)
    parts = np.array_split(labels, min(folds, labels.size))
    return [np.flatnonzero(np.isin(groups, part)) for part in parts]


def choose_lambda(
    err: np.ndarray, grid: np.ndarray = GRID, tol: float = CV_TOL
) -> tuple[np.ndarray, np.ndarray]:
    """Per column of CV errors ``err`` ``(L, O)`` (``grid`` ascending): the index of the largest
    lambda within ``tol`` of the smallest error, and the edge flag (module docstring)."""
    err = np.where(np.isfinite(err), err, np.inf)
    size = err.shape[0]
    best = err.min(0)
    ok = err <= best * (1 + tol)  # all non-finite (inf <= inf): the largest lambda
    idx = size - 1 - np.argmax(ok[::-1], axis=0)
    cols = np.arange(err.shape[1])
    edge = np.zeros(err.shape[1], dtype=np.int64)
    if size > 1:
        low = (idx == 0) & (err[1, cols] > err[0, cols] * (1 + EDGE_SLOPE))
        high = (idx == size - 1) & (err[-2, cols] > err[-1, cols] * (1 + EDGE_SLOPE))
        edge[low], edge[high] = -1, 1
    return idx, edge


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
