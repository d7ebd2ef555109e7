"""A fast planar fly: differential drive calibrated against NeuroMechFly.

Update per step of length ``dt`` (Euler), for every fly of a batch independently::

    u      <- u + dt / tau * (clip(d) - u)               # CPG amplitudes settle (flygym: 1/20 s)
    v       = v_gain * (u_L + u_R) / 2                    # forward speed, mm/s
    omega   = w_gain * (u_R - u_L) + sigma * xi / sqrt(dt)   # yaw rate, rad/s, CCW positive
    heading <- heading + omega * dt
    pos     <- pos + v * dt * (cos heading, sin heading)

``d = [left, right]`` is the descending signal. ``v_gain``, ``w_gain`` and the antenna offsets
come from ``calibration.json``, fitted to flygym runs by `wirelab.fly.bodies.calibration` (a
larger left drive turns the fly clockwise, as in flygym). ``sigma`` is optional heading noise
(rad/sqrt(s)). All state is ``(B,)``/``(B, 2)`` numpy so thousands of trials run as one batch.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from wirelab.errors import UsageError
from wirelab.fly.bodies.base import Observation, check_signal
from wirelab.fly.bodies.calibration import load_calibration
from wirelab.fly.odor import OdorSource, antenna_positions


class KinematicBody:
    """Planar differential-drive fly (see module docstring).

    Args:
        batch: number of flies simulated together, or None for a single unbatched fly.
        dt: step length in seconds.
        start_xy: ``(2,)`` or ``(B, 2)`` start positions (mm).
        start_heading: scalar or ``(B,)`` start headings (rad).
        odor: odor source, or None for a flat arena without odor.
        heading_noise: ``sigma`` in rad/sqrt(s).
        seed: seed of the heading noise.
        calibration: override of the calibration constants (keys of ``calibration.json``).
    """

    name = "kinematic"
    renders_video: ClassVar[bool] = False
    supports_batch: ClassVar[bool] = True

    def __init__(
        self,
        batch: int | None = None,
        dt: float = 1e-3,
        start_xy: np.ndarray | tuple[float, float] = (0.0, 0.0),
        start_heading: np.ndarray | float = 0.0,
        odor: OdorSource | None = None,
        heading_noise: float = 0.0,
        seed: int = 0,
        calibration: dict[str, float] | None = None,
    ) -> None:
        if dt <= 0 or (batch is not None and batch < 1) or heading_noise < 0:
            raise UsageError("kinematic body needs dt > 0, batch >= 1 and heading_noise >= 0")
        cal = dict(load_calibration()["kinematic"])
        if calibration:
            cal.update(calibration)
        self.v_gain = float(cal["v_gain"])
        self.w_gain = float(cal["w_gain"])
        self.tau = float(cal["tau"])
        self.antenna_forward = float(cal["antenna_forward"])
        self.antenna_lateral = float(cal["antenna_lateral"])
        self.batch = batch
        self.dt = float(dt)
        self.odor = odor
        self.heading_noise = float(heading_noise)
        self.seed = seed
        shape = () if batch is None else (batch,)
        self._start_xy = np.broadcast_to(np.asarray(start_xy, dtype=np.float64), (*shape, 2))
        self._start_heading = np.broadcast_to(np.asarray(start_heading, dtype=np.float64), shape)
        self.reset()

    def reset(self) -> Observation:
        self.t = 0.0
        self.position = self._start_xy.copy()  # (B, 2)
        self.heading = self._start_heading.copy()  # (B,)
        self.drive = np.zeros((*self.heading.shape, 2))  # (B, 2) settled CPG amplitude u
        self.rng = np.random.default_rng(self.seed)
        return self.observe()

    def observe(self) -> Observation:
        odor = None
        if self.odor is not None:
            ant = antenna_positions(
                self.position, self.heading, self.antenna_forward, self.antenna_lateral
            )  # (B, 2, 2)
            odor = self.odor.intensity(ant)  # (B, 2)
        return Observation(self.t, self.position, self.heading, odor)  # never mutated in place

    def velocities(self) -> tuple[np.ndarray, np.ndarray]:
        """Current forward speed (mm/s) and noise-free yaw rate (rad/s), each ``(B,)``."""
        u = self.drive
        v = self.v_gain * 0.5 * (u[..., 0] + u[..., 1])
        w = self.w_gain * (u[..., 1] - u[..., 0])
        return v, w

    def act(self, descending_signal: np.ndarray) -> Observation:
        d = check_signal(descending_signal, self.batch)  # (B, 2)
        self.drive = self.drive + (self.dt / self.tau) * (d - self.drive)
        v, w = self.velocities()
        if self.heading_noise:
            w = w + self.heading_noise / np.sqrt(self.dt) * self.rng.standard_normal(w.shape)
        self.heading = self.heading + w * self.dt
        step = v * self.dt  # (B,)
        pos = self.position.copy()  # (B, 2)
        pos[..., 0] += step * np.cos(self.heading)
        pos[..., 1] += step * np.sin(self.heading)
        self.position = pos
        self.t += self.dt
        return self.observe()

    def close(self) -> None:
        pass
