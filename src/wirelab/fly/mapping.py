"""From readout activity to the descending signal ``[left, right]``.

Fixed mapping (`FixedMapping`), on the mean DN-VNC activity of each side ``(dn_L, dn_R)``::

    ipsilateral:    [left, right] = offset + gain * [dn_L, dn_R]
    contralateral:  [left, right] = offset + gain * [dn_R, dn_L]

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
from wirelab.reservoir.readout import Ridge

SIDEDNESS = ("ipsilateral", "contralateral")


class Mapping(Protocol):
    def __call__(self, dn: np.ndarray, features: np.ndarray) -> np.ndarray: ...


@dataclass(frozen=True)
class FixedMapping:
    """``offset + gain * dn`` per side, sides kept (ipsilateral) or swapped (contralateral)."""

    kind: str = "ipsilateral"
    gain: float = 1.0
    offset: float = 1.0

    def __post_init__(self) -> None:
        if self.kind not in SIDEDNESS:
            raise UsageError(f"mapping must be one of {', '.join(SIDEDNESS)}, not {self.kind!r}")

    def __call__(self, dn: np.ndarray, features: np.ndarray) -> np.ndarray:
        d = np.asarray(dn)  # (B, 2) [dn_L, dn_R]
        if self.kind == "contralateral":
            d = d[..., ::-1]
        return self.offset + self.gain * d


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
    """The reservoir's ridge (`wirelab.reservoir.readout.Ridge`) on standardised features, the
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
