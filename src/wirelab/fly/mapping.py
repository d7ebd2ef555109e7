"""From readout activity to the descending signal ``[left, right]``.

Fixed mapping (`FixedMapping`), on the mean DN-VNC activity of each side ``(dn_L, dn_R)``::

    ipsilateral:    [left, right] = offset + gain * [e_L, e_R]
    contralateral:  [left, right] = offset + gain * [e_R, e_L]

    direct:  e = dn(u)                      the seed's conversion
    evoked:  e = dn(u) - dn(u0)             what the stimulus changes, per side

``dn(u)`` is the DN-VNC activity of the network driven by the sensory input ``u = [u_L, u_R]``
and ``dn(u0)`` that of the same network (same weights, same initial state, advanced in the same
batch) driven by the baseline input ``u0``:

    swapped (default)  u0 = [u_R, u_L]                 the same stimulus on the other side
    symmetric          u0 = [(u_L + u_R) / 2] * 2      the same total input on both sides
    none               u0 = [0, 0]

The tanh reservoir is silent without input (``x = 0`` is a fixed point), so ``none`` gives
``e = dn(u)``, i.e. the direct mapping. ``swapped`` and ``symmetric`` remove the response that any
input evokes, including the network's fixed left/right bias (with row normalisation both one-sided
olfactory stimuli leave the left DN-VNC more active), and keep what depends on the side of the
stimulus. ``symmetric`` also keeps a common-mode part (with row normalisation the split input
evokes more DN activity than the one-sided one, which lowers both drives); ``swapped`` has almost
none, so larger gains do not saturate the drive. The connectome decides the sign of ``e_L - e_R``;
``gain`` (> 0) only its size. Symmetric input, and no input, give ``e = 0``: the fly walks with
``[offset, offset]``.

Trained mapping (`LinearMapping`), on the readout neuron activities ``r`` ``(B, F)``::

    [left, right] = r @ W + b          W: (F, 2), b: (2,)

fitted by ridge regression (`fit_ridge_cv`, the reservoir's `Ridge` with standardised features
and leave-runs-out folds) to a teacher's signals. Both return ``(B, 2)``; the body
clips to its drive range.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from wirelab.errors import UsageError
from wirelab.fly.limits import check_magnitude
from wirelab.reservoir.ridge import Ridge

SIDEDNESS = ("ipsilateral", "contralateral")
RESPONSES = ("direct", "evoked")
BASELINES = ("swapped", "symmetric", "none")
EVOKED_GAIN = 10.0  # default gain of the evoked mapping (docs/fly.md: why 10)


class Mapping(Protocol):
    def __call__(self, dn: np.ndarray, features: np.ndarray) -> np.ndarray: ...


def baseline_input(u: np.ndarray, baseline: str = "symmetric") -> np.ndarray:
    """``u0`` for the input ``u`` ``(B, 2)``: sides swapped, bilateral mean, or zeros."""
    u = np.atleast_2d(np.asarray(u, dtype=np.float64))
    if baseline == "swapped":
        return u[..., ::-1].copy()
    if baseline == "none":
        return np.zeros_like(u)
    return np.repeat(u.mean(axis=-1, keepdims=True), 2, axis=-1)


@dataclass(frozen=True)
class FixedMapping:
    """``offset + gain * e`` per side, sides kept (ipsilateral) or swapped (contralateral).

    ``response="direct"``: ``e = dn``, ``dn`` ``(B, 2)``. ``response="evoked"``: the controller
    runs ``2B`` networks, rows ``[:B]`` on the input ``u`` and rows ``[B:]`` on the baseline
    ``u0`` (`evoked_inputs`), ``dn`` is ``(2B, 2)`` and ``e = dn[:B] - dn[B:]``.
    """

    kind: str = "ipsilateral"
    gain: float = 1.0
    offset: float = 1.0
    response: str = "direct"
    baseline: str = "swapped"

    def __post_init__(self) -> None:
        if self.kind not in SIDEDNESS:
            raise UsageError(f"sides must be one of {', '.join(SIDEDNESS)}, not {self.kind!r}")
        if self.response not in RESPONSES:
            raise UsageError(
                f"mapping must be one of {', '.join(RESPONSES)}, not {self.response!r}"
            )
        if self.baseline not in BASELINES:
            raise UsageError(
                f"baseline must be one of {', '.join(BASELINES)}, not {self.baseline!r}"
            )
        check_magnitude(self.gain, "gain")
        check_magnitude(self.offset, "offset")

    @property
    def networks_per_fly(self) -> int:
        """Reservoir states per fly: 2 for ``evoked`` (stimulated and baseline), else 1."""
        return 2 if self.response == "evoked" else 1

    def inputs(self, u: np.ndarray) -> np.ndarray:
        """The controller input for the fly input ``u`` ``(B, 2)``: ``(B, 2)`` or ``(2B, 2)``."""
        u = np.atleast_2d(np.asarray(u, dtype=np.float64))
        if self.response == "evoked":
            return np.concatenate([u, baseline_input(u, self.baseline)])
        return u

    def evoked(self, dn: np.ndarray) -> np.ndarray:
        """``e`` ``(B, 2)`` from the controller's ``dn`` (see the class docstring)."""
        d = np.atleast_2d(np.asarray(dn))
        if self.response == "evoked":
            b = d.shape[0] // 2
            return d[:b] - d[b:]
        return d

    def __call__(self, dn: np.ndarray, features: np.ndarray) -> np.ndarray:
        d = self.evoked(dn)  # (B, 2) [e_L, e_R]
        if self.kind == "contralateral":
            d = d[..., ::-1]
        return self.offset + self.gain * d


def default_mapping() -> FixedMapping:
    """The fixed mapping every experiment and `ConnectomeController.from_connectome` start from:
    ipsilateral, ``evoked`` (side-swapped baseline), gain `EVOKED_GAIN`, offset 1."""
    return FixedMapping("ipsilateral", gain=EVOKED_GAIN, offset=1.0, response="evoked")


@dataclass(frozen=True)
class LinearMapping:
    """``features @ weight + bias``; ``weight`` ``(F, 2)``, ``bias`` ``(2,)``."""

    weight: np.ndarray
    bias: np.ndarray

    def __call__(self, dn: np.ndarray, features: np.ndarray) -> np.ndarray:
        return np.asarray(features) @ self.weight + self.bias  # (B, 2)


RIDGES = (1e-4, 1e-2, 1.0, 1e2, 1e4)


def fit_ridge_cv(
    x: np.ndarray,
    y: np.ndarray,
    groups: np.ndarray,
    ridges: tuple[float, ...] = RIDGES,
) -> tuple[LinearMapping, float, dict[float, float]]:
    """The reservoir's ridge (`wirelab.reservoir.ridge.Ridge`) on standardised features, the
    penalty chosen by leave-groups-out CV (groups = training runs, at most 5 folds), refit on all.

    ``x`` ``(S, F)`` features, ``y`` ``(S, 2)`` targets, ``groups`` ``(S,)``. Returns the mapping,
    the chosen penalty and the held-out squared error per sample for each penalty.
    """
    model = Ridge(ridges, folds=5, standardize=True).fit(x, y, groups=groups)
    assert model.coef_ is not None and model.intercept_ is not None and model.ridge_ is not None
    scores: dict[float, float] = {}
    if model.cv_errors_ is not None:  # per sample and output -> per sample
        scores = {
            lam: float(e) * np.shape(y)[1] for lam, e in zip(ridges, model.cv_errors_, strict=True)
        }
    return LinearMapping(weight=model.coef_, bias=model.intercept_), model.ridge_, scores
