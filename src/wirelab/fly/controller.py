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

In a loop of your own, `ConnectomeController.step` does one update and the mapping in one call,
``sensory [left, right] -> drive [left, right]``; `wirelab.fly.loop.run_loop` is the loop the
experiments use (same objects, same numbers).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from functools import cache, lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from wirelab.data.connectomes import Connectome, load_connectome
from wirelab.errors import UsageError
from wirelab.fly.limits import MAX_STEPS, check_count, check_magnitude
from wirelab.fly.mapping import FixedMapping, default_mapping
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
        check_count(self.update_steps, "update_steps", MAX_STEPS, low=1)
        check_magnitude(self.alpha, "alpha")
        check_magnitude(self.input_gain, "input_gain")
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


NULL_PREFIX = "null-"  # every null model's name starts with it
DEFAULT_NULL_FAMILY = "degree"  # ``null-<seed>``: the name the fly studies have always used


def null_name(family: str, seed: int) -> str:
    """The model name of the null of ``family`` (a `wirelab.reservoir.nulls.NULLS` name) with
    ``seed``: ``null-<seed>`` for ``degree``, ``null-<family>-<seed>`` for any other family
    (``null_name("degree-boundary", 3) == "null-degree-boundary-3"``); `parse_null` inverts it."""
    if family == DEFAULT_NULL_FAMILY:
        return f"{NULL_PREFIX}{seed}"
    return f"{NULL_PREFIX}{family}-{seed}"


def parse_null(model: str) -> tuple[str, int] | None:
    """``(family, seed)`` of a null model's name (`null_name`), None for a name that is not a
    null's (``row``, ``mirror``); a one-line `UsageError` for an unknown family."""
    from wirelab.reservoir.nulls import NULLS

    if not model.startswith(NULL_PREFIX):
        return None
    family, _, seed = model[len(NULL_PREFIX) :].rpartition("-")
    if not seed.isdigit():
        raise UsageError(f"a null model is null-[<family>-]<seed>, not {model!r}")
    NULLS.get(family or DEFAULT_NULL_FAMILY)  # an unknown family: one line
    return family or DEFAULT_NULL_FAMILY, int(seed)


@lru_cache(maxsize=8)  # a study's jobs of one model come together: a few at a time suffice
def model_weights(connectome: str, model: str) -> sp.spmatrix | None:
    """The recurrent ``(N, N)`` weights of the reservoir model named ``model``, built once per
    process while it is among the last 8 used: ``mirror`` (the left-right mirrored connectome),
    a null (`parse_null`: ``null-<seed>``, a ``degree`` rewiring; ``null-<family>-<seed>``, the
    `wirelab.reservoir.nulls.NULLS` family's null with that seed); None for any other name (the
    connectome's own weights)::

        model_weights("larva", "null-degree-boundary-3")  # (N, N) CSR [pre, post]
    """
    from wirelab.reservoir.nulls import NULLS, mirrored

    con = cached_connectome(connectome)
    if model == "mirror":
        return mirrored(con)
    null = parse_null(model)
    if null is not None:
        return NULLS.get(null[0])(con, null[1])
    return None


class ConnectomeController:
    """A batch of ``B`` connectome reservoirs driven by ``[left, right]`` sensory input.

    The update is the module docstring's equation; `update` returns the DN-VNC activity,
    `step` also applies the `FixedMapping` and returns the drive for a body.

    Args:
        con: the connectome (populations are chosen from its annotations).
        config: `ControllerConfig`.
        batch: ``B``, one reservoir state per simulated fly (``2`` per fly with an ``evoked``
            mapping: the stimulated network and its baseline).
        weights: an ``(N, N)`` ``[pre, post]`` matrix to use instead of the connectome's own
            (a null model or the mirrored connectome); it is normalised the same way.
        mapping: the DN activity -> drive mapping `step` applies (default `default_mapping`).

    Example:
        ```python
        ctrl = ConnectomeController.from_connectome("larva")
        drive = ctrl.step([1.0, 0.0])  # left olfactory input -> [left, right] drive (2,)
        ```
    """

    def __init__(
        self,
        con: Connectome,
        config: ControllerConfig = ControllerConfig(),
        batch: int = 1,
        weights: sp.spmatrix | None = None,
        mapping: FixedMapping | None = None,
    ) -> None:
        self.config = config
        self.mapping = default_mapping() if mapping is None else mapping
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

    @classmethod
    def from_connectome(
        cls,
        connectome: str | Connectome = "larva",
        config: ControllerConfig = ControllerConfig(),
        *,
        mapping: FixedMapping | None = None,
        flies: int = 1,
        model: str | None = None,
    ) -> ConnectomeController:
        """A controller for ``flies`` flies on a registered connectome (by name, loaded once
        per process) or a `Connectome`; ``batch = flies * mapping.networks_per_fly``.

        ``model`` replaces the recurrent weights as the turn study does: ``"mirror"``,
        ``"null-<seed>"`` or ``"null-<family>-<seed>"`` (`model_weights`; a registered
        connectome only).
        """
        mapping = default_mapping() if mapping is None else mapping
        if flies < 1:
            raise UsageError(f"flies must be >= 1, got {flies}")
        con = cached_connectome(connectome) if isinstance(connectome, str) else connectome
        weights = None
        if model is not None:
            if not isinstance(connectome, str):
                raise UsageError("model= needs a registered connectome name, not a Connectome")
            weights = model_weights(connectome, model)
        batch = flies * mapping.networks_per_fly
        return cls(con, config, batch=batch, weights=weights, mapping=mapping)

    def reset(self) -> None:
        """Back to the silent state ``x = 0`` for every network of the batch."""
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

    def step(self, sensory: npt.ArrayLike) -> np.ndarray:
        """One update through the mapping: ``sensory`` ``[left, right]`` ``(2,)`` or
        ``(flies, 2)`` -> drive ``(2,)`` or ``(flies, 2)``, to hold for `steps_per_update`
        body steps. Equal to `update` on ``mapping.inputs(sensory)`` followed by the mapping."""
        u = np.asarray(sensory, dtype=np.float64)
        if u.shape[-1:] != (2,) or u.ndim > 2:
            raise UsageError(
                f"sensory input must be [left, right], (2,) or (flies, 2); got {u.shape}"
            )
        inputs = self.mapping.inputs(u)  # (flies * networks_per_fly, 2)
        if inputs.shape[0] != self.batch:
            raise UsageError(
                f"{len(inputs) // self.mapping.networks_per_fly} flies of input for a controller "
                f"built for {self.batch // self.mapping.networks_per_fly}"
            )
        dn, features = self.update(inputs)
        drive = np.asarray(self.mapping(dn, features))  # (flies, 2)
        return drive[0] if u.ndim == 1 else drive


def reference_update(
    w: sp.spmatrix, x: np.ndarray, u: np.ndarray, w_in: np.ndarray, config: ControllerConfig
) -> np.ndarray:
    """The update equation written out in numpy (``x`` ``(B, N)``), for tests of the fast path."""
    z = config.alpha * (x @ w) + config.input_gain * (u @ w_in)  # (B, N)
    return (1 - config.leak) * x + config.leak * np.tanh(z)
