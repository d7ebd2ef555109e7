"""The readout solvers: how ridge on rows in memory is solved, one registry (`SOLVERS`).

Both solve the same model (ridge with an unpenalised intercept on the rows projected once onto
a basis of their row space, the CV and the refit one model) and differ in how::

    fast   `rows.RowRidge`: the basis from a pivoted Cholesky of Xc^T Xc, one eigendecomposition
           per CV fold (LU solves where lambda is below the Gram's rounding); the default
    exact  `exact.ExactRowRidge`: the basis resolved to an SVD's level, one SVD per CV fold and
           refit, never Xc^T Xc: exact down to lambda 1e-12, 1.9-6.3x slower on larval states

The choice is made once per study (``wirelab reservoir run --readout-solver``, the config field
``readout_solver``) and reaches every readout of the tasks through `readout_solver`, a context
in which `fit_readout` and `Ridge` default to it; either also takes ``solver=`` directly.

Example: ``with readout_solver("exact"): fit_readout(x, y)`` or ``row_solver(x, y, "exact")``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Protocol

import numpy as np

from wirelab.registry import Registry
from wirelab.reservoir.ridge.exact import ExactRowRidge
from wirelab.reservoir.ridge.rows import RowRidge

DEFAULT_SOLVER = "fast"


class RowSolver(Protocol):
    """Ridge on rows in memory: ``rank`` (columns of the projected rows), ``basis`` ``(F, r)``
    or None, ``cv_errors(folds, lambdas)`` ``(L, O)`` and ``solve(lam, rows, weight)``."""

    basis: np.ndarray | None

    @property
    def rank(self) -> int: ...

    def cv_errors(
        self, folds: Sequence[np.ndarray], lambdas: Sequence[float] | np.ndarray
    ) -> np.ndarray: ...

    def solve(
        self, lam: float | np.ndarray, rows: int | None = None, weight: float = 1.0
    ) -> tuple[np.ndarray, np.ndarray]: ...


SOLVERS = Registry[Callable[[np.ndarray, np.ndarray], RowSolver]]("readout solver")
SOLVERS.add("fast", RowRidge, "pivoted Cholesky basis of X^T X, eigh per fold (the default)")
SOLVERS.add("exact", ExactRowRidge, "SVD-level basis, one SVD per fold, never X^T X (slower)")

_CURRENT: ContextVar[str] = ContextVar("readout_solver", default=DEFAULT_SOLVER)


@contextmanager
def readout_solver(name: str) -> Iterator[None]:
    """Within the block, `fit_readout` and `Ridge` given no ``solver`` use ``name`` (a
    `SOLVERS` name; an unknown one is a one-line `UsageError`)."""
    SOLVERS.get(name)
    token = _CURRENT.set(name)
    try:
        yield
    finally:
        _CURRENT.reset(token)


def current_solver() -> str:
    """The solver name `fit_readout` and `Ridge` use when given none (`readout_solver`)."""
    return _CURRENT.get()


def row_solver(x: np.ndarray, y: np.ndarray, solver: str | None = None) -> RowSolver:
    """The rows ``x`` ``(T, F)``, ``y`` ``(T, O)`` set up for ridge by ``solver`` (None: the
    `current_solver`)."""
    return SOLVERS.get(current_solver() if solver is None else solver)(x, y)
