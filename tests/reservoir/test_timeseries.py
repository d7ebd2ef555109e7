from __future__ import annotations

import numpy as np
import pytest

from wirelab.errors import UsageError
from wirelab.reservoir.timeseries import (
    lorenz63,
    lorenz_rhs,
    mackey_glass,
    mackey_glass_rhs,
    narma10,
    narma10_series,
)


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


def test_lorenz63_obeys_its_equations_and_stays_on_the_attractor() -> None:
    dt = 0.001
    s = lorenz63(3000, dt=dt, sample=dt, transient=20.0)  # on the integration grid
    assert s.shape == (3000, 3)
    # fourth-order central difference against the vector field (|f| reaches ~300 on the attractor)
    deriv = (-s[4:] + 8 * s[3:-1] - 8 * s[1:-3] + s[:-4]) / (12 * dt)
    f = lorenz_rhs(s[2:-2])
    assert np.max(np.abs(deriv - f) / (1 + np.abs(f))) < 1e-5
    # RK4 converges at fourth order: halving dt divides the error by ~16 (one time unit)
    ref = lorenz63(51, dt=0.0005, transient=0.0)
    errs = [np.abs(lorenz63(51, dt=h, transient=0.0) - ref).max() for h in (0.01, 0.005)]
    assert 12 < errs[0] / errs[1] < 20 and errs[0] < 1e-3
    # the butterfly: both wings visited, z within its known range
    assert (s[:, 0] > 5).any() and (s[:, 0] < -5).any()
    assert s[:, 2].min() > 0 and s[:, 2].max() < 50
    a = lorenz63(100, transient=10.0)
    b = lorenz63(200, dt=0.01, sample=0.01, transient=10.0)
    np.testing.assert_allclose(a, b[::2])  # sampling every 0.02 = every second grid point
    assert not np.allclose(lorenz63(100, seed=1), lorenz63(100))
    with pytest.raises(UsageError, match="multiple of dt"):
        lorenz63(10, sample=0.015)
