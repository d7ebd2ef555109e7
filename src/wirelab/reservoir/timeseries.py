"""Benchmark time series with their defining equations (tests check the generators obey them).

NARMA-10 (Atiya & Parlos 2000), input ``u(t) ~ U[0, 0.5]`` i.i.d.::

    y(t+1) = 0.3 y(t) + 0.05 y(t) sum_{i=0}^{9} y(t-i) + 1.5 u(t-9) u(t) + 0.1

Mackey-Glass (Mackey & Glass 1977), with beta=0.2, gamma=0.1, n=10, tau=17 (chaotic)::

    dx/dt = beta x(t - tau) / (1 + x(t - tau)^n) - gamma x(t)

integrated with classical RK4 at step ``dt`` (delayed values at half steps linearly
interpolated on the grid), from ``x = 1.2`` on ``[-tau, 0]``, sampled every ``sample`` time units
after a transient, as in Jaeger & Haas 2004 (Science 304:78), who predict 84 steps ahead.

Lorenz-63 (Lorenz 1963), with the standard chaotic parameters sigma=10, rho=28, beta=8/3::

    dx/dt = sigma (y - x),   dy/dt = x (rho - z) - y,   dz/dt = x y - beta z

integrated with classical RK4 at ``dt = 0.01`` from ``(1, 1, 1)`` (plus a seeded perturbation in
[-0.1, 0.1]), sampled every ``sample = 0.02`` time units after a transient of 50 time units;
returned as ``(T, 3)`` columns x, y, z.
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
    hist = np.full(lag + 1, x0)
    if seed is not None:
        hist += np.random.default_rng(seed).uniform(-0.1, 0.1, lag + 1)
    x = hist.tolist()  # x[k] is time (k - lag) * dt; Python floats, not array indexing

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
        x.append(xk + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4))
    start = lag + skip
    return np.array(x[start : start + length * every : every])


def mackey_glass_rhs(
    x: np.ndarray, xd: np.ndarray, beta: float = 0.2, gamma: float = 0.1, n: float = 10.0
) -> np.ndarray:
    """The right-hand side ``beta x_d / (1 + x_d^n) - gamma x`` (for tests and plots)."""
    return beta * xd / (1.0 + xd**n) - gamma * x


def lorenz_rhs(
    state: np.ndarray, sigma: float = 10.0, rho: float = 28.0, beta: float = 8.0 / 3.0
) -> np.ndarray:
    """``(..., 3)`` -> ``(..., 3)``: the Lorenz-63 vector field (module docstring)."""
    x, y, z = state[..., 0], state[..., 1], state[..., 2]
    return np.stack([sigma * (y - x), x * (rho - z) - y, x * y - beta * z], axis=-1)


def lorenz63(
    length: int,
    *,
    dt: float = 0.01,
    sample: float = 0.02,
    transient: float = 50.0,
    sigma: float = 10.0,
    rho: float = 28.0,
    beta: float = 8.0 / 3.0,
    seed: int | None = None,
) -> np.ndarray:
    """``(length, 3)`` samples ``(x, y, z)(transient + k * sample)``, RK4 at step ``dt``."""
    every = int(round(sample / dt))
    if length < 1 or dt <= 0 or every < 1 or abs(every * dt - sample) > 1e-9:
        raise UsageError("length must be >= 1 and sample a positive multiple of dt")
    skip = int(round(transient / dt))
    x, y, z = 1.0, 1.0, 1.0
    if seed is not None:
        x, y, z = (1.0 + np.random.default_rng(seed).uniform(-0.1, 0.1, 3)).tolist()
    out = np.empty((length, 3))
    h = 0.5 * dt
    for k in range(skip + (length - 1) * every + 1):  # scalar RK4 on Python floats
        if k >= skip and (k - skip) % every == 0:
            out[(k - skip) // every] = (x, y, z)
        a1, b1, c1 = sigma * (y - x), x * (rho - z) - y, x * y - beta * z
        x2, y2, z2 = x + h * a1, y + h * b1, z + h * c1
        a2, b2, c2 = sigma * (y2 - x2), x2 * (rho - z2) - y2, x2 * y2 - beta * z2
        x3, y3, z3 = x + h * a2, y + h * b2, z + h * c2
        a3, b3, c3 = sigma * (y3 - x3), x3 * (rho - z3) - y3, x3 * y3 - beta * z3
        x4, y4, z4 = x + dt * a3, y + dt * b3, z + dt * c3
        a4, b4, c4 = sigma * (y4 - x4), x4 * (rho - z4) - y4, x4 * y4 - beta * z4
        x += dt / 6.0 * (a1 + 2 * a2 + 2 * a3 + a4)
        y += dt / 6.0 * (b1 + 2 * b2 + 2 * b3 + b4)
        z += dt / 6.0 * (c1 + 2 * c2 + 2 * c3 + c4)
    return out
