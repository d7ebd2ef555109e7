"""Benchmark time series with their defining equations (tests check the generators obey them).

NARMA-10 (Atiya & Parlos 2000), input ``u(t) ~ U[0, 0.5]`` i.i.d.::

    y(t+1) = 0.3 y(t) + 0.05 y(t) sum_{i=0}^{9} y(t-i) + 1.5 u(t-9) u(t) + 0.1

Mackey-Glass (Mackey & Glass 1977), with beta=0.2, gamma=0.1, n=10, tau=17 (chaotic)::

    dx/dt = beta x(t - tau) / (1 + x(t - tau)^n) - gamma x(t)

integrated with classical RK4 at step ``dt`` (delayed values at half steps linearly
interpolated on the grid), from ``x = 1.2`` on ``[-tau, 0]``, sampled every ``sample`` time units
after a transient, as in Jaeger & Haas 2004 (Science 304:78), who predict 84 steps ahead.
"""

from __future__ import annotations

import numpy as np

from wirelab.errors import UsageError


def narma10(u: np.ndarray) -> np.ndarray:
    """``y`` ``(T,)`` from ``u`` ``(T,)``; ``y[t+1]`` uses ``u[t]``, ``u[t-9]`` (zero history)."""
    u = np.asarray(u, dtype=np.float64).ravel()
    y = np.zeros_like(u)
    for t in range(9, u.size - 1):
        y[t + 1] = 0.3 * y[t] + 0.05 * y[t] * np.sum(y[t - 9 : t + 1]) + 1.5 * u[t - 9] * u[t] + 0.1
    return y


def narma10_series(length: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``(u, y)`` with ``u ~ U[0, 0.5]``; redraws (next seed) in the rare case ``y`` diverges."""
    for attempt in range(100):
        u = np.random.default_rng(seed + 7919 * attempt).uniform(0.0, 0.5, length)
        y = narma10(u)
        if np.all(np.isfinite(y)) and np.abs(y).max() < 10:
            return u, y
    raise UsageError("could not draw a bounded NARMA-10 series")  # pragma: no cover


def mackey_glass(
    length: int,
    *,
    tau: float = 17.0,
    beta: float = 0.2,
    gamma: float = 0.1,
    n: float = 10.0,
    dt: float = 0.1,
    sample: float = 1.0,
    transient: float = 1000.0,
    x0: float = 1.2,
    seed: int | None = None,
) -> np.ndarray:
    """``(length,)`` samples ``x(transient + k * sample)``; ``seed`` perturbs the history."""
    lag = int(round(tau / dt))
    every = int(round(sample / dt))
    if lag < 1 or every < 1 or abs(lag * dt - tau) > 1e-9 or abs(every * dt - sample) > 1e-9:
        raise UsageError("tau and sample must be positive multiples of dt")
    skip = int(round(transient / dt))
    total = skip + length * every + 1
    x = np.empty(lag + total + 1)
    hist = np.full(lag + 1, x0)
    if seed is not None:
        hist += np.random.default_rng(seed).uniform(-0.1, 0.1, lag + 1)
    x[: lag + 1] = hist  # x[k] is time (k - lag) * dt

    def f(xt: float, xd: float) -> float:
        return beta * xd / (1.0 + xd**n) - gamma * xt

    for k in range(lag, lag + total):
        d0 = x[k - lag]
        d1 = x[k - lag + 1]
        dh = 0.5 * (d0 + d1)
        xk = x[k]
        k1 = f(xk, d0)
        k2 = f(xk + 0.5 * dt * k1, dh)
        k3 = f(xk + 0.5 * dt * k2, dh)
        k4 = f(xk + dt * k3, d1)
        x[k + 1] = xk + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
    start = lag + skip
    return x[start : start + length * every : every].copy()


def mackey_glass_rhs(
    x: np.ndarray, xd: np.ndarray, beta: float = 0.2, gamma: float = 0.1, n: float = 10.0
) -> np.ndarray:
    """The right-hand side ``beta x_d / (1 + x_d^n) - gamma x`` (for tests and plots)."""
    return beta * xd / (1.0 + xd**n) - gamma * x
