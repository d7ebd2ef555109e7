"""A static odor field shared by both bodies.

Same law as flygym's ``OdorArena`` default (``diffuse_func = d**-2``): a point source at
``(x_s, y_s, z_s)`` with peak ``P`` gives intensity ``I(a) = P / |a - s|**2`` at a sensor at
``a``. The source height ``z_s`` keeps the intensity finite on the floor.
The kinematic body places its two antennae at ``pos + R(heading) @ (forward, +-lateral)`` with the
offsets measured on NeuroMechFly (see ``calibration.json``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from wirelab.errors import UsageError


@dataclass(frozen=True)
class OdorSource:
    """One attractive point source.

    Attributes:
        xy: ``(2,)`` position in mm.
        height: ``z_s - z_antenna`` in mm (vertical offset of the source above the antennae).
        peak: ``P``, intensity at unit distance.
    """

    xy: tuple[float, float] = (20.0, 0.0)
    height: float = 1.0
    peak: float = 1.0

    def __post_init__(self) -> None:
        if self.peak <= 0 or self.height < 0:
            raise UsageError("odor source needs peak > 0 and height >= 0")

    def intensity(self, sensors_xy: np.ndarray) -> np.ndarray:
        """``I = P / (|a_xy - s_xy|^2 + h^2)``; ``sensors_xy`` ``(..., 2)`` -> ``(...)``."""
        d = np.asarray(sensors_xy, dtype=np.float64) - np.asarray(self.xy)  # (..., 2)
        r2 = np.einsum("...i,...i->...", d, d) + self.height**2
        if np.any(r2 == 0):
            raise UsageError("an odor sensor sits exactly on the odor source (height 0)")
        return self.peak / r2


def antenna_positions(
    position: np.ndarray, heading: np.ndarray, forward: float, lateral: float
) -> np.ndarray:
    """World ``(..., 2, 2)`` [left, right] antenna xy for bodies at ``position`` ``(..., 2)``.

    The left antenna is at ``+lateral`` along the fly's left axis ``(-sin h, cos h)``.
    """
    h = np.asarray(heading, dtype=np.float64)
    fwd = np.stack([np.cos(h), np.sin(h)], axis=-1)  # (..., 2)
    left = np.stack([-np.sin(h), np.cos(h)], axis=-1)  # (..., 2)
    base = np.asarray(position, dtype=np.float64) + forward * fwd  # (..., 2)
    return np.stack([base + lateral * left, base - lateral * left], axis=-2)  # (..., 2, 2)
