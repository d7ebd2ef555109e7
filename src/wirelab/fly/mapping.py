"""From readout activity to the descending signal ``[left, right]``.

Fixed mapping (`FixedMapping`), on the mean DN-VNC activity of each side ``(dn_L, dn_R)``::

    ipsilateral:    [left, right] = offset + gain * [dn_L, dn_R]
    contralateral:  [left, right] = offset + gain * [dn_R, dn_L]

Trained mapping (`LinearMapping`), on the readout neuron activities ``r`` ``(B, F)``::

    [left, right] = r @ W + b          W: (F, 2), b: (2,)

fitted by ridge regression (`fit_ridge`) to a teacher's signals. Both return ``(B, 2)``; the body
clips to its drive range.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from wirelab.errors import UsageError

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


def fit_ridge(x: np.ndarray, y: np.ndarray, ridge: float) -> LinearMapping:
    """Closed-form ridge with an unpenalised bias on standardised features.

    ``Z = (X - mean) / std`` (constant features get std 1), ``Wz = (Z^T Z + lam I)^-1 Z^T Yc``,
    returned in the original units as ``W = Wz / std`` and ``b = mean_y - mean_x @ W``, so the
    penalty does not depend on the scale of the activity (spectral vs row normalisation).
    ``x`` ``(S, F)`` features, ``y`` ``(S, 2)`` targets.
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.ndim != 2 or y.ndim != 2 or len(x) != len(y) or len(x) < 2 or ridge < 0:
        raise UsageError(
            f"ridge needs x (S, F), y (S, 2), S >= 2, ridge >= 0; got {x.shape}, {y.shape}"
        )
    mx, my = x.mean(axis=0), y.mean(axis=0)
    sd = x.std(axis=0)
    sd[sd < 1e-12] = 1.0
    z, yc = (x - mx) / sd, y - my  # (S, F), (S, 2)
    a = z.T @ z + ridge * np.eye(x.shape[1])
    w = np.linalg.solve(a, z.T @ yc) / sd[:, None]  # (F, 2)
    return LinearMapping(weight=w, bias=my - mx @ w)


def fit_ridge_cv(
    x: np.ndarray,
    y: np.ndarray,
    groups: np.ndarray,
    ridges: tuple[float, ...] = (1e-4, 1e-2, 1.0, 1e2, 1e4),
) -> tuple[LinearMapping, float, dict[float, float]]:
    """Choose ``ridge`` by leave-group-out CV (groups = training runs), refit on all data."""
    groups = np.asarray(groups)
    uniq = np.unique(groups)
    folds = np.array_split(uniq, min(5, len(uniq)))
    scores: dict[float, float] = {}
    for lam in ridges:
        err = 0.0
        for fold in folds:
            test = np.isin(groups, fold)
            if test.all() or not test.any():
                continue
            m = fit_ridge(x[~test], y[~test], lam)
            err += float(np.sum((m(None, x[test]) - y[test]) ** 2))  # type: ignore[arg-type]
        scores[lam] = err / len(y)
    best = min(scores, key=lambda k: scores[k])
    return fit_ridge(x, y, best), best, scores
