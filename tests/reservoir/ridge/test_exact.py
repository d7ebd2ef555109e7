"""The exact solver (`ridge.exact`, issue 45): the basis resolved to an SVD's level and ridge
from SVDs, checked against the exact SVD, an augmented least squares per fold and the
per-lambda reference."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.reservoir.ridge.test_linalg import _accumulate, _low_rank
from wirelab.reservoir.ridge import ExactRowRidge, fold_rows
from wirelab.reservoir.ridge.exact import row_basis
from wirelab.reservoir.ridge.linalg import range_basis

GRID = np.array([1e-3, 1e-1, 1.0, 10.0, 1e3])


@settings(max_examples=20, deadline=None)
@given(
    st.integers(0, 10_000),
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
    ref = _accumulate(x, y, folds).cv_errors_reference(GRID)
    np.testing.assert_allclose(ExactRowRidge(x, y).cv_errors(folds, GRID), ref, rtol=1e-6)


@pytest.mark.parametrize("t", [12, 60])  # fewer rows than features, more
def test_row_basis_spans_the_row_space(t: int) -> None:
    x, _ = _low_rank(1, t, 40, 5, 1)
    xc = x - x.mean(0)
    b = row_basis(xc)
    assert b is not None and 5 <= b.shape[1] <= 0.8 * 40
    np.testing.assert_allclose(b.T @ b, np.eye(b.shape[1]), atol=1e-12)
    np.testing.assert_allclose((xc @ b) @ b.T, xc, atol=1e-10 * np.abs(xc).max())


@pytest.mark.parametrize("t", [200, 70])  # more rows than features, fewer
def test_row_basis_keeps_the_directions_the_gram_rounds_away(t: int) -> None:
    """Rows of rank 50 with singular values 1 .. 1e-12: every direction down to s = 1e-9
    (s^2 = 1e-18, where ridge at lambda 1e-12 still weighs it 1e-6) lies in the levelled basis
    to rounding; the Gram's pivoted Cholesky (the fast solver's basis) loses some of them."""
    rng = np.random.default_rng(4)
    u = np.linalg.qr(rng.normal(size=(t, 50)))[0]
    u -= u.mean(0)  # centred columns
    v = np.linalg.qr(rng.normal(size=(100, 50)))[0]
    s = np.logspace(0, -12, 50)
    xc = (u * s) @ v.T
    xc -= xc.mean(0)
    kept = s >= 1e-9
    b = row_basis(xc, max_fraction=1.0)
    assert b is not None and 50 <= b.shape[1] <= 65
    np.testing.assert_allclose(b.T @ b, np.eye(b.shape[1]), atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(v[:, kept].T @ b, axis=1), 1.0, atol=1e-12)
    g = range_basis(xc.T @ xc, max_fraction=1.0)
    assert g is not None and np.linalg.norm(v[:, kept].T @ g, axis=1).min() < 0.9


def _svd_rows(t: int, f: int, seed: int = 3) -> tuple[np.ndarray, np.ndarray, tuple]:
    """Rows ``(t, f)`` with singular values 1e3 .. 1e-8 (``d_max = 1e6`` as on the larval
    states: ``eps * d_max = 2e-10``), targets on them, and the exact ``(U, s, V)`` of the
    centred rows."""
    rng = np.random.default_rng(seed)
    k = min(t - 1, f)
    u = rng.normal(size=(t, k))
    u = np.linalg.qr(u - u.mean(0))[0]
    v = np.linalg.qr(rng.normal(size=(f, k)))[0]
    s = 1e3 * np.logspace(0, -11, k)
    x = (u * s) @ v.T + rng.normal(size=f)
    y = x @ rng.normal(size=(f, 2)) + 1e-3 * rng.normal(size=(t, 2))
    return x, y, (u, s, v)


@pytest.mark.parametrize("shape", [(80, 40), (40, 80)])
def test_small_lambdas_are_solved_exactly_where_the_gram_solve_is_not(
    shape: tuple[int, int],
) -> None:
    """Down to lambda 1e-12 the refit is ``V diag(s / (s^2 + lambda)) U^T Yc`` of the exact
    SVD to 1e-6, where a solve of the normal equations (rounded at ``eps * d_max = 2e-10``,
    above lambda) is off by more than 1e-3 (issue 45)."""
    x, y, (u, s, v) = _svd_rows(*shape)
    rows = ExactRowRidge(x, y)
    yc = y - y.mean(0)
    xc = x - x.mean(0)
    worst_gram = 0.0
    for lam in (1e-12, 1e-9, 1e-6, 1e-2):
        want = v @ ((s / (s * s + lam))[:, None] * (u.T @ yc))
        w, b = rows.solve(lam)
        np.testing.assert_allclose(w, want, rtol=0, atol=1e-6 * np.abs(want).max())
        np.testing.assert_allclose(b, y.mean(0) - x.mean(0) @ w, rtol=1e-9, atol=1e-9)
        plain = np.linalg.solve(xc.T @ xc + lam * np.eye(x.shape[1]), xc.T @ yc)
        worst_gram = max(worst_gram, float(np.abs(plain - want).max() / np.abs(want).max()))
    assert worst_gram > 1e-3


def test_cv_at_small_lambdas_equals_an_augmented_least_squares_per_fold() -> None:
    """The held-out errors at lambda 1e-12 .. 1e-2 equal those of ``lstsq([Xc_k; sqrt(lambda)
    I], [Yc_k; 0])`` per fold (an orthogonal, Gram-free solve) to 1e-6."""
    x, y, _ = _svd_rows(90, 60)
    folds = fold_rows(90, 3)
    lams = np.array([1e-12, 1e-9, 1e-6, 1e-2])
    got = ExactRowRidge(x, y).cv_errors(folds, lams)
    want = np.zeros_like(got)
    for idx in folds:
        train = np.ones(90, dtype=bool)
        train[idx] = False
        mx, my = x[train].mean(0), y[train].mean(0)
        for li, lam in enumerate(lams):
            a = np.vstack([x[train] - mx, np.sqrt(lam) * np.eye(60)])
            rhs = np.vstack([y[train] - my, np.zeros((60, 2))])
            w = np.linalg.lstsq(a, rhs, rcond=None)[0]
            want[li] += np.sum(((x[idx] - mx) @ w + my - y[idx]) ** 2, 0)
    np.testing.assert_allclose(got, want / 90, rtol=1e-6)


def test_a_grid_a_lambda_per_output_and_a_prefix_are_the_plain_solutions() -> None:
    """`solve`'s three lambda forms and a prefix with a weight, where nothing is dropped."""
    x, y = _low_rank(2, 90, 20, 5, 2)
    rows = ExactRowRidge(x, y)

    def plain(n: int, lam: float) -> np.ndarray:
        xc, yc = x[:n] - x[:n].mean(0), y[:n] - y[:n].mean(0)
        return np.linalg.solve(xc.T @ xc + lam * np.eye(20), xc.T @ yc)

    w, _ = rows.solve(np.array([0.1, 10.0]))  # one per output
    np.testing.assert_allclose(w[:, 0], plain(90, 0.1)[:, 0], rtol=1e-7, atol=1e-10)
    np.testing.assert_allclose(w[:, 1], plain(90, 10.0)[:, 1], rtol=1e-7, atol=1e-10)
    one = ExactRowRidge(x, y[:, 0])
    w, _ = one.solve(np.array([1e-3, 1.0, 1e3]))  # a grid on one output
    for j, lam in enumerate((1e-3, 1.0, 1e3)):
        np.testing.assert_allclose(w[:, j], plain(90, lam)[:, 0], rtol=1e-7, atol=1e-10)
    w, b = rows.solve(0.5, rows=60, weight=4.0)
    np.testing.assert_allclose(w, plain(60, 2.0), rtol=1e-7, atol=1e-10)
    np.testing.assert_allclose(b, y[:60].mean(0) - x[:60].mean(0) @ w, rtol=1e-9, atol=1e-9)
