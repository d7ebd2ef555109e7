from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.reservoir.ridge.test_linalg import _accumulate, _low_rank
from wirelab.reservoir.ridge import RidgeAccumulator, RowRidge

GRID = np.array([1e-3, 1e-1, 1.0, 10.0, 1e3])


@settings(max_examples=30, deadline=None)
@given(
    st.integers(0, 10_000),
    # (T, F, rank): reduced basis with T > F and T < F; full rank with folds of fewer rows than
    # features (the kernel route) and of more (the primal route)
    st.sampled_from([(90, 20, 5), (30, 50, 6), (60, 50, 50), (200, 20, 20)]),
    st.integers(1, 3),
    st.integers(2, 4),
)
def test_cv_errors_equal_one_solve_per_lambda_and_fold(
    seed: int, shape: tuple[int, int, int], o: int, k: int
) -> None:
    t, f, rank = shape
    x, y = _low_rank(seed, t, f, rank, o)
    cuts = np.sort(np.random.default_rng(seed).choice(np.arange(3, t - 3), k - 1, replace=False))
    folds = np.split(np.arange(t), cuts)
    rows = RowRidge(x, y)
    assert (rows.basis is None) == (rank >= f)
    ref = _accumulate(x, y, folds).cv_errors_reference(GRID)
    np.testing.assert_allclose(rows.cv_errors(folds, GRID), ref, rtol=1e-6)


@pytest.mark.parametrize("shape", [(90, 20, 5), (30, 50, 6), (200, 20, 20)])
def test_solve_equals_a_plain_solve_where_nothing_is_dropped(shape: tuple[int, int, int]) -> None:
    """One lambda, one per output, a grid for one output, and a prefix of the rows with its
    lambda in other units: each the plain ridge solution (these lambdas are far above the
    truncation threshold, so truncating changes nothing)."""
    t, f, rank = shape
    x, y = _low_rank(3, t, f, rank, 3)
    rows = RowRidge(x, y)

    def plain(n: int, lam: float, col: int) -> np.ndarray:
        """The coefficients and intercept ``(F + 1,)`` of one plain solve."""
        acc = RidgeAccumulator(f, 1).partial_fit(x[:n], y[:n, col : col + 1])
        w, b = acc.solve(lam)
        return np.append(w[:, 0], b)

    w, b = rows.solve(10.0)
    for col in range(3):
        np.testing.assert_allclose(
            np.append(w[:, col], b[col]), plain(t, 10.0, col), rtol=1e-7, atol=1e-9
        )
    lams = np.array([0.1, 10.0, 1e3])
    w, b = rows.solve(lams)
    for col, lam in enumerate(lams):
        np.testing.assert_allclose(
            np.append(w[:, col], b[col]), plain(t, lam, col), rtol=1e-7, atol=1e-9
        )
    one = RowRidge(x, y[:, 0])
    w, b = one.solve(GRID, rows=t - 7, weight=2.0)
    assert w.shape == (f, GRID.size) and b.shape == (GRID.size,)
    for li, lam in enumerate(GRID):
        ref = plain(t - 7, 2.0 * lam, 0)
        np.testing.assert_allclose(np.append(w[:, li], b[li]), ref, rtol=1e-6, atol=1e-9)


def test_the_refit_on_projected_rows_predicts_as_the_full_feature_solve() -> None:
    """On nearly collinear rows (the reduced basis applies; three directions lie below the
    CV's truncation) at a small lambda, the refit on the projected rows predicts what a plain
    solve on every feature predicts (`RidgeAccumulator.solve`, the tasks' refit before the
    projection)."""
    rng = np.random.default_rng(5)
    base = rng.normal(size=(400, 4))
    tiny = 1e-8 * rng.normal(size=(400, 3)) @ rng.normal(size=(3, 60))  # below the CV's cut
    x = np.hstack([base, base @ rng.normal(size=(4, 60)) + tiny])
    y = base @ rng.normal(size=4) + 0.1 * rng.normal(size=400)
    rows = RowRidge(x, y)
    assert rows.basis is not None
    w, b = rows.solve(1e-4)
    w_ref, b_ref = RidgeAccumulator(x.shape[1], 1).partial_fit(x, y[:, None]).solve(1e-4)
    np.testing.assert_allclose(x @ w + b, x @ w_ref + b_ref, rtol=0, atol=1e-7)


def _graded(seed: int, t: int = 240, f: int = 30) -> tuple[np.ndarray, np.ndarray]:
    """Columns of scale 1 .. 1e-7 (a Gram with eigenvalues down to 1e-14 of its largest, as
    reservoir states have), targets that need the weakest columns."""
    rng = np.random.default_rng(seed)
    scale = np.logspace(0.0, -7.0, f)
    x = rng.normal(size=(t, f)) * scale + 3.0
    y = (x - 3.0) @ (rng.normal(size=f) / scale) / f + 0.01 * rng.normal(size=t)
    return x, y


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_cv_scores_the_model_that_is_refitted(seed: int) -> None:
    """Below the eigenvalues' rounding (lambda down to 1e-16 of the largest eigenvalue), each
    fold's CV error is the held-out error of `solve` refitted on the fold's training rows (the
    refit procedure itself), as it is at large lambdas."""
    x, y = _graded(seed)
    lams = np.array([1e-14, 1e-11, 1e-8, 1e-4, 1.0])
    folds = np.array_split(np.arange(x.shape[0]), 3)
    got = RowRidge(x, y).cv_errors(folds, lams)[:, 0]
    want = np.zeros(lams.size)
    for idx in folds:
        train = np.setdiff1d(np.arange(x.shape[0]), idx)
        fold = RowRidge(x[train], y[train])
        for li, lam in enumerate(lams):
            w, b = fold.solve(float(lam))
            want[li] += np.sum((x[idx] @ w[:, 0] + b[0] - y[idx]) ** 2)
    np.testing.assert_allclose(got, want / x.shape[0], rtol=1e-6)
    assert got[0] < 0.1 * got[-1]  # the weak columns carry the target: small lambdas win


@pytest.mark.parametrize("lam", [1e-6, 0.3, 1e3])
def test_the_refit_with_fewer_rows_than_columns_is_the_plain_solution(lam: float) -> None:
    """Full-rank rows, T < F (no basis: the dual refit): the plain ridge solution."""
    rng = np.random.default_rng(9)
    x, y = rng.normal(size=(25, 40)) + 2.0, rng.normal(size=(25, 2))
    rows = RowRidge(x, y)
    assert rows.basis is None and rows.rank == 40
    w, b = rows.solve(lam)
    xc, yc = x - x.mean(0), y - y.mean(0)
    want = np.linalg.solve(xc.T @ xc + lam * np.eye(40), xc.T @ yc)
    np.testing.assert_allclose(w, want, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(b, y.mean(0) - x.mean(0) @ want, rtol=1e-6, atol=1e-9)
    w3, _ = rows.solve(np.array([lam, 2 * lam]))  # a lambda per output
    np.testing.assert_allclose(w3[:, 0], want[:, 0], rtol=1e-6, atol=1e-9)
