"""One connectome reservoir from Python: `build` it, `ConnectomeReservoir.run` it, fit a readout.

`build` resolves its settings exactly as ``wirelab reservoir run`` does
(`config.resolve_experiment`: the connectome loaded, its edge types selected, normalised, the
bias drawn, the populations looked up; the defaults are `config.DEFAULTS`), and
`ConnectomeReservoir.run` advances it with the engine every task uses (`engine.run_blocks`,
float64), so a task's states and a Python caller's are the same numbers. The update, per step
``t`` (`units.esn_step`)::

    x(t+1) = (1 - a) x(t) + a f( alpha * x(t) @ W + s_in * u(t+1) @ W_in + b )

    W: (N, N) normalised [pre, post]   W_in: (K, N) [channel, post]   x: (N,)   u: (K,)

with ``W_in`` nonzero only on the input population (``U[-1, 1]`` drawn from the seed,
`tasks.input_weights`: channel 0 is the tasks' input weights) and the states of the readout
population returned.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from wirelab.data.connectomes import Connectome
from wirelab.errors import UsageError
from wirelab.reservoir.config import DEFAULTS, ExperimentConfig, resolve_experiment
from wirelab.reservoir.engine import Block, run_blocks
from wirelab.reservoir.tasks import input_weights
from wirelab.reservoir.units import LIFUnits, Units

__all__ = ["ConnectomeReservoir", "build", "settings_config"]

SETTINGS = frozenset(f.name for f in fields(ExperimentConfig))


def settings_config(
    connectome: str | Path | Connectome, settings: dict[str, Any]
) -> tuple[ExperimentConfig, Connectome | None]:
    """`DEFAULTS` with ``settings`` (`ExperimentConfig` fields) and the connectome: a name or
    file (recorded as given), or a loaded `Connectome` (recorded by its name, returned)."""
    bad = sorted(set(settings) - SETTINGS - {"connectome"})
    if bad:
        raise UsageError(f"unknown setting(s) {bad}; choose among {', '.join(sorted(SETTINGS))}")
    if "connectome" in settings:
        raise UsageError("give the connectome as the first argument, not as a setting")
    loaded = connectome if isinstance(connectome, Connectome) else None
    name = connectome.name if isinstance(connectome, Connectome) else str(connectome)
    for key in ("alphas", "tasks", "null_models", "edge_types"):
        if settings.get(key) is not None and not isinstance(settings[key], str):
            settings = {**settings, key: list(settings[key])}
    return replace(DEFAULTS, connectome=name, **settings), loaded


@dataclass(frozen=True, eq=False)
class ConnectomeReservoir:
    """A connectome as an echo state network at one gain (made by `build`).

    Attributes:
        config: the resolved settings (`ExperimentConfig`: normalisation and bias resolved,
            ``alphas == [alpha]``); what a ``wirelab reservoir run`` with them records.
        connectome: the loaded `wirelab.data.Connectome`.
        weights: ``(N, N)`` float64 CSR ``[pre, post]``, normalised, without the gain.
        alpha: the global gain (the recurrent matrix is ``alpha * weights``).
        w_in: ``(K, N)`` input weights ``[channel, post]``, nonzero on ``inputs`` only.
        inputs: ``(I,)`` int64 indices of the input population.
        outputs: ``(P,)`` int64 indices of the readout population (what `run` returns).
        units: the units (`Units`, or `LIFUnits` for ``activation="lif"``), bias drawn.

    Example:
        ``x = build("larva", 1.0, outputs="DN-VNC").run(u)``: ``u`` ``(T,)`` -> ``x``
        ``(T, 182)``.
    """

    config: ExperimentConfig
    connectome: Connectome
    weights: sp.csr_matrix
    alpha: float
    w_in: np.ndarray
    inputs: np.ndarray
    outputs: np.ndarray
    units: Units | LIFUnits

    @property
    def n(self) -> int:
        """N, the number of neurons."""
        return int(self.weights.shape[0])

    @property
    def channels(self) -> int:
        """K, the number of input channels."""
        return int(self.w_in.shape[0])

    def run(
        self, u: np.ndarray, *, washout: int = 0, record: str | np.ndarray = "outputs"
    ) -> np.ndarray:
        """Drive the reservoir, from rest, with ``u`` and return the recorded states.

        Args:
            u: ``(T,)`` (one channel), ``(T, K)``, or ``(T, B, K)`` for B sequences run side
                by side (each from rest).
            washout: the first ``washout`` steps are run but not returned.
            record: ``"outputs"`` (the readout population), ``"all"`` or neuron indices.

        Returns:
            float64 states ``(T - washout, P)``, or ``(T - washout, B, P)`` for a 3-D ``u``;
            row ``t`` is ``x(t + washout + 1)``, the state after input ``u[t + washout]``
            (rate units: the activations; LIF units: the rate trace).
        """
        arr = np.asarray(u, dtype=np.float64)
        batched = arr.ndim == 3
        if arr.ndim == 1:
            arr = arr[:, None]
        if arr.ndim == 2:
            arr = arr[:, None, :]
        if arr.ndim != 3 or arr.shape[2] != self.channels:
            raise UsageError(
                f"u must be (T,), (T, K) or (T, B, K) with K={self.channels}, got {np.shape(u)}"
            )
        if record == "outputs":
            rec = self.outputs
        elif record == "all":
            rec = np.arange(self.n)
        else:
            rec = np.asarray(record, dtype=np.int64)
        block = Block(self.w_in, arr, record=rec, washout=washout)
        settings = {"normalize": self.config.normalize, "bias": self.config.bias}
        (out,) = run_blocks(
            [self.weights], [self.alpha], self.units, [block], dtype=np.float64, settings=settings
        )
        states = np.asarray(out.states[:, 0, 0], dtype=np.float64)  # (T - washout, B, P)
        return states if batched else states[:, 0]


def build(
    connectome: str | Path | Connectome = DEFAULTS.connectome,
    alpha: float = 1.0,
    *,
    channels: int = 1,
    **settings: Any,
) -> ConnectomeReservoir:
    """A connectome reservoir at gain ``alpha``: ``W = alpha * normalize(W_raw)``.

    Args:
        connectome: a registered name (``"larva"``, ``"witvliet-8"``, ...,
            `wirelab.data.CONNECTOMES`), the path of an edge list / matrix file, or a loaded
            `wirelab.data.Connectome`.
        alpha: the global gain (for ``normalize="row"`` on synapse counts, the spectral radius).
        channels: K, the input channels; each feeds the input population with its own
            ``U[-1, 1]`` weights.
        **settings: any network or unit field of `ExperimentConfig`, defaults `DEFAULTS`:
            ``inputs="sensory"``, ``outputs="all"`` (population strings such as ``"DN-VNC"``,
            ``"sensory:left"``, ``"index=0-9"``), ``normalize="auto"``, ``edge_types=None``,
            ``activation="tanh"``, ``leak=1.0``, ``input_scaling=0.3``,
            ``bias="random:0.2"``, ``seed=0``.

    Returns:
        a `ConnectomeReservoir`; a bad setting or an empty population is a one-line
        `wirelab.errors.UsageError`.

    Example:
        ``res = build("larva", 1.0, outputs="DN-VNC"); x = res.run(u)``
    """
    if "alphas" in settings:
        raise UsageError("build takes one gain, alpha; compare and score take alphas")
    if not isinstance(channels, int) or channels < 1:
        raise UsageError(f"channels must be a positive integer, got {channels!r}")
    cfg, loaded = settings_config(connectome, {**settings, "alphas": [float(alpha)]})
    exp = resolve_experiment(cfg, loaded, study=False)
    con, seed = exp.connectome, exp.config.seed
    return ConnectomeReservoir(
        config=exp.config,
        connectome=con,
        weights=exp.weights,
        alpha=float(alpha),
        w_in=input_weights(con.n, [exp.inputs] * channels, seed, True),
        inputs=exp.inputs,
        outputs=exp.outputs,
        units=exp.config.units(con.n),
    )
