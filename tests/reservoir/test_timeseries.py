from __future__ import annotations

import numpy as np
import pytest

from wirelab.reservoir.timeseries import mackey_glass, mackey_glass_rhs, narma10, narma10_series


def test_narma10_follows_its_recurrence() -> None:
    u, y = narma10_series(500, seed=3)
    assert np.all((u >= 0) & (u <= 0.5))
    for t in range(9, 499):
        expect = 0.3 * y[t] + 0.05 * y[t] * y[t - 9 : t + 1].sum() + 1.5 * u[t - 9] * u[t] + 0.1
        assert y[t + 1] == pytest.approx(expect, rel=1e-12)
    np.testing.assert_array_equal(narma10(u), y)


def test_mackey_glass_obeys_the_delay_equation() -> None:
    dt, tau = 0.1, 17.0
    x = mackey_glass(3000, dt=dt, sample=dt, transient=300.0)  # sampled on the integration grid
    lag = int(tau / dt)
    k = np.arange(lag + 1, x.size - 1)
    deriv = (x[k + 1] - x[k - 1]) / (2 * dt)  # central difference
    rhs = mackey_glass_rhs(x[k], x[k - lag])
    assert np.max(np.abs(deriv - rhs)) < 1e-3
    assert x.min() > 0.2 and x.max() < 1.5  # the chaotic attractor's range


def test_mackey_glass_sampling_and_seed() -> None:
    a = mackey_glass(200, transient=100.0)
    b = mackey_glass(2000, dt=0.1, sample=0.1, transient=100.0)
    np.testing.assert_allclose(a[:200], b[::10][:200])
    assert not np.allclose(mackey_glass(200, seed=1), a)
