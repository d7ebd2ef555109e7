"""Reservoir units and their pure single-step updates (the reference the batched engine matches).

Orientation: ``W[pre, post]`` (see `wirelab.reservoir.weights`), ``W_in[channel, post]`` with shape
``(K, N)``; states are row vectors, so the recurrent drive of neuron ``j`` is ``(x @ W)[j]``.

Leaky rate units (echo state network), `esn_step`::

    x(t+1) = (1 - a) x(t) + a f( alpha * x(t) @ W + s_in * u(t+1) @ W_in + b )

    x: (B, N) or (N,)   u: (B, K) or (K,)   W: (N, N) [pre, post]   W_in: (K, N)   b: scalar or (N,)

with ``f`` in {tanh, linear (identity), sigmoid (logistic)}, leak rate ``a`` in (0, 1], input
scaling ``s_in``, bias ``b`` and global gain ``alpha`` (the ``alpha`` of ``alpha * normalize(W)``).

Leaky integrate-and-fire units (liquid state machine), `lif_step`, in steps of ``dt = 1``::

    I(t+1)  = alpha * s(t) @ W + s_in * u(t+1) @ W_in + b
    v(t+1)  = v(t) + (v_rest - v(t)) / tau + I(t+1)          (only where not refractory)
    s(t+1)  = [v(t+1) >= v_th];  where spiking: v <- v_reset, refractory counter <- t_ref steps
    r(t+1)  = (1 - 1/tau_r) r(t) + s(t+1)                     (rate readout trace)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from wirelab.errors import UsageError

ACTIVATIONS = ("tanh", "linear", "sigmoid")


@dataclass(frozen=True)
class Units:
    """Leaky rate units: activation, leak rate ``a``, input scaling ``s_in``, bias ``b``."""

    activation: str = "tanh"
    leak: float = 1.0
    input_scaling: float = 1.0
    bias: float = 0.0

    def __post_init__(self) -> None:
        if self.activation not in ACTIVATIONS:
            raise UsageError(f"activation must be one of {ACTIVATIONS}, not {self.activation!r}")
        if not 0.0 < self.leak <= 1.0:
            raise UsageError(f"leak rate must be in (0, 1], got {self.leak}")


@dataclass(frozen=True)
class LIFUnits:
    """Leaky integrate-and-fire units (time in steps); see the module docstring."""

    tau: float = 10.0
    v_th: float = 1.0
    v_reset: float = 0.0
    v_rest: float = 0.0
    refractory: int = 2
    tau_rate: float = 10.0
    input_scaling: float = 1.0
    bias: float = 0.0

    def __post_init__(self) -> None:
        if self.tau < 1.0 or self.tau_rate < 1.0:
            raise UsageError("tau and tau_rate must be >= 1 step")
        if self.refractory < 0 or self.v_th <= self.v_reset:
            raise UsageError("need refractory >= 0 and v_th > v_reset")


def activate(name: str, z: np.ndarray) -> np.ndarray:
    if name == "tanh":
        return np.tanh(z)
    if name == "linear":
        return z
    if name == "sigmoid":
        return 1.0 / (1.0 + np.exp(-z))
    raise UsageError(f"activation must be one of {ACTIVATIONS}, not {name!r}")


def esn_step(
    w: sp.spmatrix,
    x: np.ndarray,
    u: np.ndarray,
    w_in: np.ndarray,
    units: Units = Units(),
    alpha: float = 1.0,
) -> np.ndarray:
    """Reference leaky rate update (scipy, any float dtype); a pure function of its arguments."""
    z = alpha * np.asarray(x @ w) + units.input_scaling * (np.asarray(u) @ w_in) + units.bias
    return (1.0 - units.leak) * x + units.leak * activate(units.activation, z)


@dataclass
class LIFState:
    """LIF state, arrays ``(..., N)``: potential, refractory steps left, spikes, rate."""

    v: np.ndarray
    refractory: np.ndarray
    spikes: np.ndarray
    rate: np.ndarray

    @classmethod
    def zeros(cls, shape: tuple[int, ...], v0: float = 0.0) -> LIFState:
        return cls(np.full(shape, v0), np.zeros(shape), np.zeros(shape), np.zeros(shape))


def lif_step(
    w: sp.spmatrix,
    state: LIFState,
    u: np.ndarray,
    w_in: np.ndarray,
    units: LIFUnits = LIFUnits(),
    alpha: float = 1.0,
) -> LIFState:
    """Pure LIF update (see the module docstring); returns a new `LIFState`."""
    current = alpha * np.asarray(state.spikes @ w) + units.input_scaling * (np.asarray(u) @ w_in)
    current = current + units.bias
    free = state.refractory <= 0
    v = np.where(free, state.v + (units.v_rest - state.v) / units.tau + current, units.v_reset)
    spikes = (v >= units.v_th).astype(state.v.dtype)
    v = np.where(spikes > 0, units.v_reset, v)
    refractory = np.where(spikes > 0, float(units.refractory), np.maximum(state.refractory - 1, 0))
    rate = (1.0 - 1.0 / units.tau_rate) * state.rate + spikes
    return LIFState(v, refractory, spikes, rate)
