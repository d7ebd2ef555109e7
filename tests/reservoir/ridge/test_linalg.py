from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wirelab.reservoir.ridge import RidgeAccumulator, RowRidge
from wirelab.reservoir.ridge.linalg import data_basis, range_basis


def _low_rank(seed: int, t: int, f: int, rank: int, o: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows of rank ``rank`` (plus a mean far from zero), targets linear in them plus noise."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(t, rank)) @ rng.normal(size=(rank, f)) + 5.0 * rng.normal(size=f)
    y = x @ rng.normal(size=(f, o)) / f + 0.3 * rng.normal(size=(t, o))
    return x, y


def _accumulate(x: np.ndarray, y: np.ndarray, folds: list[np.ndarray]) -> RidgeAccumulator:
    acc = RidgeAccumulator(x.shape[1], y.shape[1], len(folds))
    for k, idx in enumerate(folds):
        acc.partial_fit(x[idx], y[idx], k)
    return acc


def test_range_basis_spans_a_low_rank_gram() -> None:
    x, _ = _low_rank(0, 50, 30, 7, 1)
    xc = x - x.mean(0)
    gram = xc.T @ xc
    b = range_basis(gram)  # the range, and perhaps a few directions at the rounding level
    assert b is not None and 7 <= b.shape[1] <= 0.8 * 30
    np.testing.assert_allclose(b.T @ b, np.eye(b.shape[1]), atol=1e-12)
    np.testing.assert_allclose(b @ (b.T @ gram), gram, atol=1e-9 * np.abs(gram).max())
    assert range_basis(np.eye(30)) is None  # full rank: nothing to save
    assert range_basis(np.zeros((4, 4))) is None


@pytest.mark.parametrize("t", [12, 60])  # fewer rows than features (the kernel route), more
def test_data_basis_spans_the_row_space(t: int) -> None:
    x, _ = _low_rank(1, t, 40, 5, 1)
    xc = x - x.mean(0)
    b = data_basis(xc)
    assert b is not None and 5 <= b.shape[1] <= 0.8 * 40
    np.testing.assert_allclose(b.T @ b, np.eye(b.shape[1]), atol=1e-12)
    np.testing.assert_allclose((xc @ b) @ b.T, xc, atol=1e-10 * np.abs(xc).max())


@settings(max_examples=25, deadline=None)
@given(
    st.integers(0, 10_000),
    st.sampled_from([(30, 50, 6), (90, 20, 5), (45, 45, 9)]),  # T < F, T > F, T = F
    st.integers(1, 3),
    st.integers(2, 4),
)
def test_reduced_cv_equals_the_per_lambda_reference(
    seed: int, shape: tuple[int, int, int], o: int, k: int
) -> None:
    """On rank-deficient rows (the reduction applies) with folds of unequal size, the reduced
    statistics and data paths give the held-out errors of one linear solve per lambda and fold,
    and the per-output refit equals a plain solve per column at its lambda."""
    t, f, rank = shape
    x, y = _low_rank(seed, t, f, rank, o)
    cuts = np.sort(np.random.default_rng(seed).choice(np.arange(3, t - 3), k - 1, replace=False))
    folds = np.split(np.arange(t), cuts)
    acc = _accumulate(x, y, folds)
    assert acc.reduced()[1] is not None  # the fast path really runs on the reduced basis
    grid = np.array([1e-3, 1e-1, 1.0, 10.0, 1e3])
    ref = acc.cv_errors_reference(grid)  # (L, O)
    np.testing.assert_allclose(acc.cv_errors(grid, per_output=True), ref, rtol=1e-6)
    np.testing.assert_allclose(RowRidge(x, y).cv_errors(folds, grid), ref, rtol=1e-6)
    lams = grid[np.arange(o) % grid.size]
    w, b = acc.solve(lams)
    for col, lam in enumerate(lams):
        w1, b1 = acc.solve(float(lam))
        np.testing.assert_allclose(w[:, col], w1[:, col], rtol=1e-6, atol=1e-9)
        np.testing.assert_allclose(b[col], b1[col], rtol=1e-6, atol=1e-9)


def test_projection_onto_a_rotation_changes_nothing() -> None:
    """Full-rank features projected onto a random orthonormal basis (ridge is rotation
    invariant) give the same CV errors; the projection keeps the eigenvalue threshold's size."""
    rng = np.random.default_rng(3)
    x, y = rng.normal(size=(80, 12)), rng.normal(size=(80, 2))
    acc = _accumulate(x, y, np.array_split(np.arange(80), 3))
    assert acc.reduced()[1] is None  # full rank: the full features are kept
    rot = np.linalg.qr(rng.normal(size=(12, 12)))[0]
    turned = acc.project(rot)
    assert turned.size == 12
    grid = np.array([1e-4, 1e-2, 1.0, 1e2])
    np.testing.assert_allclose(
        turned.cv_errors(grid, per_output=True), acc.cv_errors(grid, per_output=True), rtol=1e-9
    )


def test_the_basis_is_recomputed_after_more_rows() -> None:
    x, y = _low_rank(4, 40, 30, 4, 1)
    acc = _accumulate(x, y, np.array_split(np.arange(40), 2))
    assert acc.reduced()[1] is not None
    acc.partial_fit(np.random.default_rng(0).normal(size=(30, 30)), np.zeros((30, 1)), 1)
    assert acc.reduced()[1] is None  # now full rank
