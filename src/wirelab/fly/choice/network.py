"""The choice controller: four cue channels into two sensory classes, DN-VNC out, G gains at once.

Each cue keeps its own sensory class and its side (`input_matrix`)::

    W_in (4, N): attractive-left  -> left neurons of ``attractive_class``  (e.g. olfactory)
                 attractive-right -> right neurons of ``attractive_class``
                 aversive-left    -> left neurons of ``aversive_class``    (e.g. visual)
                 aversive-right   -> right neurons of ``aversive_class``

The input control (``swap=True``) feeds each cue into the other's class (the attractive cue into
``aversive_class``, the aversive one into ``attractive_class``), sides kept.

Update every ``update_steps`` flygym steps (`wirelab.reservoir.Reservoir`, leaky tanh units, one
sparse product for every gain and fly)::

    x(t+1) = (1 - a) x(t) + a tanh( alpha_g * x(t) @ W + s_in * u(t+1) @ W_in )
    x: (G, B, N)   W: (N, N) [pre, post] normalised   u: (G, B, 4)   alpha_g: one of G gains

Readout features (`READOUTS`, only DN-VNC neurons): ``difference`` (the default) is
``mean x[DN-VNC left] - mean x[DN-VNC right]`` ``(G, B, 1)``; ``sums`` is ``[mean x[DN-VNC left],
mean x[DN-VNC right]]`` ``(G, B, 2)``; ``all`` every DN-VNC neuron ``(G, B, 182)`` (a large
readout, for the development comparison only). ``response="evoked"`` subtracts the features of
the same network driven by the side-swapped cues (`swapped`, run in the same batch), which removes
the response every input evokes and keeps what depends on the cues' sides.

Why small: a readout with many weights on many neurons can find, among them, neurons that carry
one cue more than the other and undo the network's mixing itself; two features (``sums``) already
can (two mixtures of two cues is a 2 x 2 system). The one feature of ``difference`` is, near the
operating point, ``alpha_A (u_AL - u_AR) + alpha_V (u_VL - u_VR)`` with the network's lateral
gains ``alpha`` (`lateral_gains`); the readout can only scale and flip it, never weigh the two
cues differently. So the choice is the network's: a fly reaches the attractive source and keeps
off the aversive one when the attractive stream reaches the DN-VNC difference strongly and the
aversive stream does not pull the same way as strongly (opposite signs, or a much weaker gain).

The state is float64: the evoked left-right differences of networks whose sensory streams reach
the DN-VNC weakly (1e-5 to 1e-4 per unit cue difference, e.g. boundary-keeping nulls) are
differences of states near 0.1-0.3, close to float32's resolution; in development float32 changed
such a null's success from 0.78 to 0.09 (docs/fly-choice.md), float64 costs about 1.4x.

Call::

    net = ChoiceNetwork(con, NetworkConfig(gains=(0.6, 1.0)), flies=8)
    feats = net.update(np.zeros((2, 8, 4)))     # (G, B, F)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from wirelab.data.connectomes import Connectome
from wirelab.errors import UsageError
from wirelab.fly.controller import FLYGYM_DT
from wirelab.fly.populations import input_neurons
from wirelab.reservoir import Reservoir, Units, reservoir_weights

Features = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]


def _sums(x: np.ndarray, left: np.ndarray, right: np.ndarray) -> np.ndarray:
    return np.stack([x[..., left].mean(axis=-1), x[..., right].mean(axis=-1)], axis=-1)


def _difference(x: np.ndarray, left: np.ndarray, right: np.ndarray) -> np.ndarray:
    return (x[..., left].mean(axis=-1) - x[..., right].mean(axis=-1))[..., None]


def _all(x: np.ndarray, left: np.ndarray, right: np.ndarray) -> np.ndarray:
    return x[..., np.concatenate([left, right])]


READOUTS: dict[str, Features] = {
    "difference": _difference,  # mean DN-VNC left minus mean right: 1 feature
    "sums": _sums,  # mean DN-VNC activity per side: 2 features
    "all": _all,  # every DN-VNC neuron: 182 features (development comparison only)
}
"""Readout features from the state ``x`` ``(..., N)`` and the DN-VNC indices per side."""


RESPONSES = ("direct", "evoked")


def swapped(u: np.ndarray) -> np.ndarray:
    """The cues with left and right exchanged in each class: ``[u_AR, u_AL, u_VR, u_VL]``."""
    return np.asarray(u)[..., [1, 0, 3, 2]]


@dataclass(frozen=True)
class NetworkConfig:
    """Sensory classes, normalisation, the G recurrent gains, units, readout, update interval."""

    attractive_class: str = "olfactory"
    aversive_class: str = "visual"
    normalize: str = "row"
    gains: tuple[float, ...] = (0.6, 1.0, 1.4)
    leak: float = 1.0
    input_scaling: float = 1.0
    readout: str = "difference"
    response: str = "evoked"
    update_steps: int = 100

    def __post_init__(self) -> None:
        if self.attractive_class == self.aversive_class:
            raise UsageError("the attractive and aversive cues need two different sensory classes")
        if self.normalize not in ("row", "spectral"):
            raise UsageError(f"normalize must be 'row' or 'spectral', not {self.normalize!r}")
        if not self.gains or not all(np.isfinite(g) and g > 0 for g in self.gains):
            raise UsageError("gains must be one or more finite numbers > 0")
        if self.update_steps < 1:
            raise UsageError("update_steps must be >= 1")
        if self.readout not in READOUTS:
            raise UsageError(f"readout must be one of {', '.join(READOUTS)}, not {self.readout!r}")
        if self.response not in RESPONSES:
            raise UsageError(
                f"response must be one of {', '.join(RESPONSES)}, not {self.response!r}"
            )
        Units(activation="tanh", leak=self.leak, input_scaling=self.input_scaling)

    @property
    def update_interval(self) -> float:
        return self.update_steps * FLYGYM_DT

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def input_matrix(con: Connectome, attractive: str, aversive: str, swap: bool = False) -> np.ndarray:
    """``W_in`` ``(4, N)`` [cue, post] (module docstring); ``swap``: the input control."""
    classes = (aversive, attractive) if swap else (attractive, aversive)
    w_in = np.zeros((4, con.n))
    channels = [(cls, side) for cls in classes for side in ("left", "right")]  # CUES' order
    for c, (cls, side) in enumerate(channels):
        w_in[c, input_neurons(con, cls, side)] = 1.0
    return w_in


class ChoiceNetwork:
    """``G x B`` reservoirs of one network (the connectome or ``weights``) driven by four cues."""

    def __init__(
        self,
        con: Connectome,
        cfg: NetworkConfig,
        flies: int,
        weights: sp.spmatrix | None = None,
        swap: bool = False,
    ) -> None:
        self.cfg = cfg
        self.flies = flies
        self.evoked = cfg.response == "evoked"
        w = reservoir_weights(con if weights is None else weights, normalize_by=cfg.normalize)
        self.w_in = input_matrix(con, cfg.attractive_class, cfg.aversive_class, swap)
        self.reservoir = Reservoir(
            w,
            self.w_in,
            alphas=np.asarray(cfg.gains),
            units=Units(activation="tanh", leak=cfg.leak, input_scaling=cfg.input_scaling),
            batch=2 * flies if self.evoked else flies,
            dtype=np.float64,  # the side signals of weak networks are near float32's resolution
            settings={"normalize": cfg.normalize},
        )
        self.weights = w
        self.dn_left = con.select(celltype="DN-VNC", side="left")
        self.dn_right = con.select(celltype="DN-VNC", side="right")
        self.features = READOUTS[cfg.readout]
        self.reset()

    def reset(self) -> None:
        self.state = self.reservoir.zeros()  # (1, G, B, N)

    def update(self, u: np.ndarray) -> np.ndarray:
        """Advance once with cues ``u`` ``(G, B, 4)``; return the readout features ``(G, B, F)``
        (``evoked``: those of ``u`` minus those of `swapped` ``u``, run side by side)."""
        u = np.asarray(u)
        if self.evoked:
            u = np.concatenate([u, swapped(u)], axis=1)  # (G, 2B, 4)
        self.state = self.reservoir.step(self.state, u[None])
        f = self.features(self.state[0], self.dn_left, self.dn_right)  # (G, B or 2B, F)
        return f[:, : self.flies] - f[:, self.flies :] if self.evoked else f


def reference_update(
    w: sp.spmatrix, x: np.ndarray, u: np.ndarray, w_in: np.ndarray, cfg: NetworkConfig
) -> np.ndarray:
    """The update in plain numpy, one gain at a time: ``x`` ``(G, B, N)``, ``u`` ``(G, B, 4)``."""
    out = np.empty_like(x)
    for g, alpha in enumerate(cfg.gains):
        z = alpha * (x[g] @ w) + cfg.input_scaling * (u[g] @ w_in)  # (B, N)
        out[g] = (1 - cfg.leak) * x[g] + cfg.leak * np.tanh(z)
    return out


def lateral_gains(
    con: Connectome,
    cfg: NetworkConfig,
    weights: sp.spmatrix | None = None,
    swap: bool = False,
    base: float = 1.0,
    delta: float = 0.01,
    steps: int = 40,
) -> np.ndarray:
    """How each cue's left-right difference reaches the DN-VNC difference, open loop: ``(G, 2)``
    ``[attractive, aversive]`` per gain, each ``(e_L - e_R) / (u_L - u_R)`` after ``steps``
    updates with every cue at ``base`` and one class at ``base +- delta`` (left +, right -),
    ``e`` the evoked DN-VNC means. The teacher turns toward ``u_AL - u_AR`` and away from
    ``u_VL - u_VR``; a readout of ``e_L - e_R`` alone follows the cue with the larger gain, and
    the other one helps (opposite sign) or pulls against it (same sign)."""
    from dataclasses import replace

    net = ChoiceNetwork(
        con, replace(cfg, readout="difference", response="evoked"), 2, weights, swap
    )
    u = np.full((len(cfg.gains), 2, 4), base)
    u[:, 0, :2] += [delta, -delta]  # the attractive cue's difference
    u[:, 1, 2:] += [delta, -delta]  # the aversive cue's
    for _ in range(steps):
        e = net.update(u)[..., 0]  # (G, 2)
    return e / (2 * delta)
