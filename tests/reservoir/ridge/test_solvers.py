"""The readout solvers' registry (`ridge.solvers`): fast stays the default, bit for bit, and
the exact solver is reached by name, by `Ridge(solver=)` and by the `readout_solver` context."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from tests.reservoir.ridge.test_exact import _svd_rows
from wirelab.errors import UsageError
from wirelab.reservoir.ridge import (
    DEFAULT_SOLVER,
    GRID,
    SOLVERS,
    ExactRowRidge,
    Ridge,
    RowRidge,
    choose_lambda,
    current_solver,
    fit_readout,
    fold_rows,
    readout_solver,
    row_solver,
    standardise,
)


def test_the_registry_names_fast_first_and_it_is_the_default() -> None:
    assert SOLVERS.names() == ("fast", "exact") and DEFAULT_SOLVER == "fast"
    assert SOLVERS.get("fast") is RowRidge and SOLVERS.get("exact") is ExactRowRidge
    assert current_solver() == "fast"
    with pytest.raises(UsageError, match="unknown readout solver 'svd'; choose one of: fast"):
        row_solver(np.zeros((4, 2)), np.zeros((4, 1)), "svd")
    with pytest.raises(UsageError, match="readout solver"):
        Ridge(solver="svd")


def test_the_fast_default_is_todays_readout_bit_for_bit() -> None:
    """`fit_readout` with no solver is the fast solver's CV, lambda rule and refit on the
    standardised rows, to the bit; on graded rows (issue 45's regime) the exact solver's
    scores differ, so this would fail if the default moved."""
    x, y, _ = _svd_rows(150, 60)
    got = fit_readout(x, y, per_output=True)
    z, _, _ = standardise(x)
    rows = RowRidge(z, y)
    err = rows.cv_errors(fold_rows(150, 3), GRID)
    lam = GRID[choose_lambda(err)[0]]
    coef, icpt = rows.solve(lam)
    assert isinstance(got.ridge, RowRidge)
    assert np.array_equal(got.cv_errors, err) and np.array_equal(got.lam, lam)
    assert np.array_equal(got.coef, coef) and np.array_equal(got.intercept, icpt)
    exact = fit_readout(x, y, per_output=True, solver="exact")
    assert isinstance(exact.ridge, ExactRowRidge)
    assert not np.array_equal(exact.cv_errors, got.cv_errors)


def test_the_context_reaches_fit_readout_and_ridge_and_is_restored() -> None:
    x, y, _ = _svd_rows(120, 40)
    want = fit_readout(x, y, solver="exact")
    with readout_solver("exact"):
        assert current_solver() == "exact"
        inside = fit_readout(x, y)
        model = Ridge(list(GRID), folds=3).fit(x, y)
        assert fit_readout(x, y, solver="fast").ridge.__class__ is RowRidge  # explicit wins
    assert current_solver() == "fast"
    assert isinstance(inside.ridge, ExactRowRidge)
    assert np.array_equal(inside.coef, want.coef)
    direct = Ridge(list(GRID), folds=3, solver="exact").fit(x, y)
    assert model.coef_ is not None and direct.coef_ is not None
    assert np.array_equal(model.coef_, direct.coef_)
    with pytest.raises(UsageError, match="readout solver"), readout_solver("svd"):
        pass
    assert current_solver() == "fast"


class _Plain:
    """A toy solver: one dense solve of the centred normal equations per lambda and fold."""

    def __init__(self, x: np.ndarray, y: np.ndarray) -> None:
        self.x, self.y = x, (y[:, None] if y.ndim == 1 else y)
        self.basis: np.ndarray | None = None

    @property
    def rank(self) -> int:
        return int(self.x.shape[1])

    def _fit(self, x: np.ndarray, y: np.ndarray, lam: float) -> tuple[np.ndarray, np.ndarray]:
        mx, my = x.mean(0), y.mean(0)
        a = (x - mx).T @ (x - mx) + lam * np.eye(x.shape[1])
        w = np.linalg.solve(a, (x - mx).T @ (y - my))
        return w, my - mx @ w

    def cv_errors(
        self, folds: Sequence[np.ndarray], lambdas: Sequence[float] | np.ndarray
    ) -> np.ndarray:
        sse = np.zeros((len(lambdas), self.y.shape[1]))
        for idx in folds:
            train = np.ones(len(self.x), dtype=bool)
            train[idx] = False
            for li, lam in enumerate(lambdas):
                w, b = self._fit(self.x[train], self.y[train], float(lam))
                sse[li] += np.sum((self.x[idx] @ w + b - self.y[idx]) ** 2, 0)
        return sse / len(self.x)

    def solve(
        self, lam: float | np.ndarray, rows: int | None = None, weight: float = 1.0
    ) -> tuple[np.ndarray, np.ndarray]:
        n = len(self.x) if rows is None else rows
        return self._fit(self.x[:n], self.y[:n], float(np.atleast_1d(lam)[0]) * weight)


def test_a_registered_solver_is_used_by_name() -> None:
    """A toy entry (one registry line) is reached by `fit_readout(solver=)`; on well-conditioned
    rows it picks the fast solver's lambda and weights."""
    rng = np.random.default_rng(5)
    x = rng.normal(size=(120, 8))
    y = x @ rng.normal(size=8) + 0.3 * rng.normal(size=120)
    SOLVERS.add("toy", _Plain, "dense solve per lambda")
    try:
        toy = fit_readout(x, y, solver="toy")
    finally:
        SOLVERS.remove("toy")
    fast = fit_readout(x, y)
    assert isinstance(toy.ridge, _Plain)
    np.testing.assert_allclose(toy.cv_errors, fast.cv_errors, rtol=1e-8)
    assert np.array_equal(toy.lam, fast.lam)
    np.testing.assert_allclose(toy.coef, fast.coef, rtol=1e-8, atol=1e-12)
