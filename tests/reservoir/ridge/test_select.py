from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from wirelab.reservoir.ridge import CV_TOL, choose_lambda


@settings(max_examples=60, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 12), st.integers(1, 4)),
              elements=st.floats(1e-6, 1e3)))  # fmt: skip
def test_the_largest_lambda_within_the_tolerance_of_the_minimum(err: np.ndarray) -> None:
    idx, edge = choose_lambda(err, np.arange(err.shape[0], dtype=float))
    for col, i in enumerate(idx):
        bound = err[:, col].min() * (1 + CV_TOL)
        assert err[i, col] <= bound
        assert np.all(err[i + 1 :, col] > bound)
    assert set(np.unique(edge)) <= {-1, 0, 1}


def test_a_plateau_gives_its_largest_lambda_whatever_the_rounding() -> None:
    """Errors equal to 1e-5 relative below 1e-9 (the Mackey-Glass plateau): every rounding
    pattern gives the same choice, the plateau's largest lambda."""
    grid = 10.0 ** np.arange(-12.0, -5.0)
    base = np.array([1.0, 1.0, 1.0, 1.0, 1.2, 1.5, 2.0])  # flat up to 1e-9, rising after
    picks = set()
    for seed in range(20):
        noise = 1e-5 * np.random.default_rng(seed).standard_normal(grid.size)
        idx, edge = choose_lambda((base * (1 + noise))[:, None], grid)
        picks.add(int(idx[0]))
        assert edge[0] == 0
    assert picks == {3}
    argmins = {int(np.argmin(base * (1 + 1e-5 * np.random.default_rng(s).standard_normal(7))))
               for s in range(20)}  # fmt: skip
    assert len(argmins) > 1  # the plain argmin is the lottery the rule removes


def test_non_finite_errors_are_never_chosen_over_finite_ones() -> None:
    err = np.array([[np.nan], [2.0], [np.inf], [1.0], [np.nan]])
    assert choose_lambda(err, np.arange(5.0))[0][0] == 3
    assert choose_lambda(np.full((3, 1), np.nan), np.arange(3.0))[0][0] == 2
