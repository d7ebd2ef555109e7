"""Reservoir units and their pure single-step updates (the reference the batched engine matches).

Orientation: ``W[pre, post]`` (see `wirelab.reservoir.weights`), ``W_in[channel, post]`` with shape
``(K, N)``; states are row vectors, so the recurrent drive of neuron ``j`` is ``(x @ W)[j]``.

Leaky rate units (echo state network), `esn_step`::

    x(t+1) = (1 - a) x(t) + a f( alpha * x(t) @ W + s_in * u(t+1) @ W_in + b )

    x: (B, N) or (N,)   u: (B, K) or (K,)   W: (N, N) [pre, post]   W_in: (K, N)   b: scalar or (N,)

with ``f`` in {tanh, linear (identity), sigmoid (logistic)}, leak rate ``a`` in (0, 1], input
scaling ``s_in``, bias ``b`` and global gain ``alpha`` (the ``alpha`` of ``alpha * normalize(W)``).

The bias (`BiasSpec`, the CLI's ``--bias``) is a constant (``"0.2"``: the same ``b`` for every
neuron) or ``"random[:SCALE]"``: one draw per neuron, ``b_i ~ U[-SCALE, SCALE]`` i.i.d. (SCALE
defaults to 1), from the run's seed on a stream of its own, so the connectome and its nulls get
the same bias on the same neuron. A bias matters: with ``b = 0`` and a zero-mean input a tanh
reservoir started at rest is an odd function of its input history (``u -> -u`` gives
``x -> -x``), so a linear readout has no even-order terms; a uniform rather than Gaussian draw
keeps every neuron's bias bounded, so none starts deep in saturation.

Leaky integrate-and-fire units (liquid state machine), `lif_step`, in steps of ``dt = 1``::

    I(t+1)  = alpha * s(t) @ W + s_in * u(t+1) @ W_in + b
    v(t+1)  = v(t) + (v_rest - v(t)) / tau + I(t+1)          (only where not refractory)
    s(t+1)  = [v(t+1) >= v_th];  where spiking: v <- v_reset, refractory counter <- t_ref steps
    r(t+1)  = (1 - 1/tau_r) r(t) + s(t+1)                     (rate readout trace)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from wirelab.errors import UsageError

ACTIVATIONS = ("tanh", "linear", "sigmoid")
INPUT_SCALING = 0.3  # the default input scaling s_in (docs/reservoir.md, "Choosing the defaults")
BIAS = "random:0.2"  # the default bias of a run: b_i ~ U[-0.2, 0.2] per neuron, seeded


BIAS_STREAM = 0xB1A5  # the bias draws' own random stream: [seed, BIAS_STREAM]


@dataclass(frozen=True)
class BiasSpec:
    """A bias: ``kind`` ``"constant"`` (``value`` is ``b``) or ``"random"`` (``b_i ~
    U[-value, value]`` per neuron); `str` gives the canonical CLI form (``"0.2"``,
    ``"random:0.5"``), which `parse_bias` reads back."""

    kind: str
    value: float

    def __post_init__(self) -> None:
        if self.kind not in ("constant", "random"):
            raise UsageError(f"bias kind must be 'constant' or 'random', not {self.kind!r}")
        if not math.isfinite(self.value) or (self.kind == "random" and self.value < 0):
            raise UsageError(f"bias must be a finite number (scale >= 0), got {self.value}")

    def __str__(self) -> str:
        return f"random:{self.value:g}" if self.kind == "random" else f"{self.value:g}"

    def vector(self, n: int, seed: int) -> float | np.ndarray:
        """The bias of ``n`` neurons: the constant, or ``(n,)`` float64 draws seeded by ``seed``."""
        if self.kind == "constant":
            return float(self.value)
        rng = np.random.default_rng([int(seed), BIAS_STREAM])
        return rng.uniform(-self.value, self.value, n)


def parse_bias(spec: str | float | BiasSpec) -> BiasSpec:
    """``0.2`` / ``"0.2"`` (constant), ``"random"`` (scale 1) or ``"random:SCALE"``; one-line
    `UsageError` otherwise (NaN, inf, a negative scale, anything else)."""
    if isinstance(spec, BiasSpec):
        return spec
    if isinstance(spec, (int, float)):
        return BiasSpec("constant", float(spec))
    text = str(spec).strip().lower()
    head, colon, scale = text.partition(":")
    try:
        if head == "random":
            return BiasSpec("random", float(scale) if colon else 1.0)
        if not colon:
            return BiasSpec("constant", float(head))
    except ValueError:
        pass
    raise UsageError(f"bias must be a number or random[:SCALE] (finite, scale >= 0), got {spec!r}")


def _check_finite(input_scaling: float, bias: float | np.ndarray) -> None:
    if not math.isfinite(input_scaling):
        raise UsageError(f"input scaling must be finite, got {input_scaling}")
    if not np.all(np.isfinite(np.asarray(bias, dtype=np.float64))):
        raise UsageError("bias must be finite")


@dataclass(frozen=True, eq=False)
class Units:
    """Leaky rate units: activation, leak rate ``a``, input scaling ``s_in``, bias ``b`` (a number
    or one per neuron, ``(N,)``, e.g. `BiasSpec.vector`).

    The resolved units of one network. A run's units come from its configuration
    (`wirelab.reservoir.ExperimentConfig.units`: the default random bias `BIAS` drawn per
    neuron from the seed); built by hand, ``Units()`` has the default input scaling
    (`INPUT_SCALING`) and a zero bias, so give ``bias=`` (e.g.
    ``parse_bias(BIAS).vector(n, seed)``) for a tanh reservoir that is not odd in its input.
    """

    activation: str = "tanh"
    leak: float = 1.0
    input_scaling: float = INPUT_SCALING
    bias: float | np.ndarray = 0.0

    def __post_init__(self) -> None:
        if self.activation not in ACTIVATIONS:
            raise UsageError(f"activation must be one of {ACTIVATIONS}, not {self.activation!r}")
        if not 0.0 < self.leak <= 1.0:
            raise UsageError(f"leak rate must be in (0, 1], got {self.leak}")
        _check_finite(self.input_scaling, self.bias)


@dataclass(frozen=True, eq=False)
class LIFUnits:
    """Leaky integrate-and-fire units (time in steps); see the module docstring. Input scaling
    `INPUT_SCALING` and a zero bias unless given (a run's come from its configuration)."""

    tau: float = 10.0
    v_th: float = 1.0
    v_reset: float = 0.0
    v_rest: float = 0.0
    refractory: int = 2
    tau_rate: float = 10.0
    input_scaling: float = INPUT_SCALING
    bias: float | np.ndarray = 0.0

    def __post_init__(self) -> None:
        if self.tau < 1.0 or self.tau_rate < 1.0:
            raise UsageError("tau and tau_rate must be >= 1 step")
        if self.refractory < 0 or self.v_th <= self.v_reset:
            raise UsageError("need refractory >= 0 and v_th > v_reset")
        _check_finite(self.input_scaling, self.bias)


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
    """One leaky rate update, the reference the batched engines match (a pure function)::

        x' = (1 - a) x + a f( alpha * x @ W + s_in * u @ W_in + b )

    Args:
        w: ``(N, N)`` ``[pre, post]`` (scipy sparse or dense).
        x: ``(N,)`` or ``(B, N)`` states.
        u: ``(K,)`` or ``(B, K)`` input.
        w_in: ``(K, N)`` ``[channel, post]``.
        units: activation ``f``, leak ``a``, input scaling ``s_in``, bias ``b``.
        alpha: the global gain.

    Returns:
        the next states, ``x``'s shape.

    Example:
        ``x = esn_step(w, x, u, w_in, Units(bias=0.1), alpha=0.9)``
    """
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
    """One leaky integrate-and-fire update (equations in `wirelab.reservoir.units`), a pure
    function: ``state`` arrays ``(N,)`` or ``(B, N)``, ``u`` ``(K,)`` or ``(B, K)``, ``w``
    ``(N, N)`` ``[pre, post]``, ``w_in`` ``(K, N)``; returns a new `LIFState` (input current
    ``alpha * s @ W + s_in * u @ W_in + b``, spikes where ``v >= v_th``)."""
    current = alpha * np.asarray(state.spikes @ w) + units.input_scaling * (np.asarray(u) @ w_in)
    current = current + units.bias
    free = state.refractory <= 0
    v = np.where(free, state.v + (units.v_rest - state.v) / units.tau + current, units.v_reset)
    spikes = (v >= units.v_th).astype(state.v.dtype)
    v = np.where(spikes > 0, units.v_reset, v)
    refractory = np.where(spikes > 0, float(units.refractory), np.maximum(state.refractory - 1, 0))
    rate = (1.0 - 1.0 / units.tau_rate) * state.rate + spikes
    return LIFState(v, refractory, spikes, rate)
