"""The connectome controller: sensory input -> connectome reservoir -> DN readout -> drive.

Every ``K`` body steps (``K = round(update_interval / body.dt)``; 20 flygym physics steps at the
default 2 ms) the controller advances the reservoir once (`wirelab.reservoir.Reservoir`, leaky
rate units)::

    x(t+1) = (1 - a) x(t) + a tanh( alpha * x(t) @ W + g_in * u(t+1) @ W_in )

    x: (B, N)   W: (N, N) [pre, post], normalised "row" or "spectral"   u: (B, 2) [left, right]
    W_in: (2, N), channel 0 -> left sensory neurons of the modality, channel 1 -> right ones

then reads ``dn = [mean x[DN-VNC left], mean x[DN-VNC right]]`` ``(B, 2)`` and the readout
features ``x[features]`` ``(B, F)``, and a `Mapping` turns them into the descending signal,
held for the next ``K`` body steps.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from functools import cache
from typing import Any

import numpy as np
import scipy.sparse as sp

from wirelab.data.connectomes import Connectome, load_connectome
from wirelab.errors import UsageError
from wirelab.fly.populations import Populations
from wirelab.reservoir import Reservoir, Units, reservoir_weights

FLYGYM_DT = 1e-4  # s, the physics step the update interval is quoted in


@dataclass(frozen=True)
class ControllerConfig:
    """Settings of the connectome controller (all of them go to ``config.json``)."""

    modality: str = "olfactory"
    normalize: str = "row"
    alpha: float = 1.0
    leak: float = 1.0
    input_gain: float = 1.0
    readout: str = "DN-VNC"
    update_steps: int = 20  # K in flygym physics steps (1e-4 s each)

    def __post_init__(self) -> None:
        if self.normalize not in ("row", "spectral"):
            raise UsageError(f"normalize must be 'row' or 'spectral', not {self.normalize!r}")
        if self.update_steps < 1:
            raise UsageError("update_steps must be >= 1")
        Units(activation="tanh", leak=self.leak, input_scaling=self.input_gain)  # leak in (0, 1]

    @property
    def update_interval(self) -> float:
        return self.update_steps * FLYGYM_DT

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@cache
def cached_connectome(name: str) -> Connectome:
    """The connectome ``name``, loaded once per process (each worker of a process pool)."""
    return load_connectome(name)


@cache
def model_weights(connectome: str, model: str) -> sp.spmatrix | None:
    """The recurrent ``(N, N)`` weights of the reservoir model named ``model``, built once per
    process: ``mirror`` (the left-right mirrored connectome), ``null-i`` (a degree-preserving
    rewiring, seed ``i``); None for any other name (the connectome's own weights)."""
    from wirelab.reservoir.nulls import degree_preserving, mirrored

    con = cached_connectome(connectome)
    if model == "mirror":
        return mirrored(con)
    if model.startswith("null-"):
        return degree_preserving(con, int(model.split("-")[1]))
    return None


class ConnectomeController:
    """A batch of ``B`` connectome reservoirs driven by ``[left, right]`` sensory input.

    Args:
        con: the connectome (populations are chosen from its annotations).
        config: `ControllerConfig`.
        batch: ``B``, one reservoir state per simulated fly.
        weights: an ``(N, N)`` ``[pre, post]`` matrix to use instead of the connectome's own
            (a null model or the mirrored connectome); it is normalised the same way.
    """

    def __init__(
        self,
        con: Connectome,
        config: ControllerConfig = ControllerConfig(),
        batch: int = 1,
        weights: sp.spmatrix | None = None,
    ) -> None:
        self.config = config
        self.pops = Populations.build(con, config.modality, config.readout)
        source = con if weights is None else weights
        w = reservoir_weights(source, normalize_by=config.normalize, alpha=1.0)
        self.reservoir = Reservoir(
            w,
            self.pops.input_matrix(con.n),
            alphas=config.alpha,
            units=Units(activation="tanh", leak=config.leak, input_scaling=config.input_gain),
            batch=batch,
            dtype=np.float32,
            # the fused step has a fixed start-up cost per call: scipy for small batches
            settings={"normalize": config.normalize, "modality": config.modality},
        )
        self.batch = batch
        self.reset()

    def reset(self) -> None:
        self.state = self.reservoir.zeros()  # (1, 1, B, N)

    def steps_per_update(self, body_dt: float) -> int:
        """``K`` in body steps: the update interval divided by the body's step, at least 1."""
        return max(1, round(self.config.update_interval / body_dt))

    def update(self, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Advance once with input ``u`` ``(B, 2)``/``(2,)``; return ``dn`` ``(B, 2)``, features."""
        self.state = self.reservoir.step(self.state, np.asarray(u, dtype=np.float64))
        x = self.state[0, 0]  # (B, N)
        dn = np.stack(
            [x[:, self.pops.dn_left].mean(axis=1), x[:, self.pops.dn_right].mean(axis=1)], axis=-1
        )  # (B, 2)
        return dn, x[:, self.pops.features]  # (B, 2), (B, F)


def reference_update(
    w: sp.spmatrix, x: np.ndarray, u: np.ndarray, w_in: np.ndarray, config: ControllerConfig
) -> np.ndarray:
    """The update equation written out in numpy (``x`` ``(B, N)``), for tests of the fast path."""
    z = config.alpha * (x @ w) + config.input_gain * (u @ w_in)  # (B, N)
    return (1 - config.leak) * x + config.leak * np.tanh(z)
