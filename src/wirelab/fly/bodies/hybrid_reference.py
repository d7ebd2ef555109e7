"""The hybrid turning controller as plain Python: one loop per equation, no arrays to speak of.

A readable twin of `wirelab.fly.bodies.hybrid.HybridTurning` (same constants, same recorded
steps, same ``step(drive, depth, stumbling)``), written from the equations of NeuroMechFly v2
(Wang-Chen et al. 2024, Nature Methods 21:2353; Methods, "Hybrid controller"). Per leg ``i``
(``LEGS`` order), each physics step ``dt``:

    R_i = |d_side|,  nu_i = sign(d_side) f                                (descending drives)
    theta_i += dt [2 pi nu_i + sum_j r_j w_ij sin(theta_j - theta_i - phi_ij)]    (CPG phase)
    r_i     += dt a (R_i - r_i)                                              (CPG amplitude)
    q_i      = psi_i(pi) + r_i [psi_i(theta_i) - psi_i(pi)]              (preprogrammed step)
    c_i      : retraction / stumbling correction, rising while its rule fires, else decaying
    q_i     += clip(c_i, 0, c_max) g_i(theta_i mod 2 pi) v_i                    (correction)
    adhesion_i = theta_i mod 2 pi outside the swing (extended by pi / 4)

``psi_i`` is leg ``i``'s periodic cubic spline through one recorded step, evaluated here from
its coefficients as ``sum_p c_p s^(3 - p)`` with ``s`` the phase past the segment's start.
The test checks that this and the fast path give the same commands (within 1e-9; the sums are
written in the same order, so in practice they agree bit for bit).
"""

from __future__ import annotations

import math

import numpy as np

from wirelab.fly.bodies.hybrid import HybridParams, SteppingData, load_steps


class HybridTurningReference:
    """The hybrid turning controller, plain loops (same API as `HybridTurning`)."""

    def __init__(
        self,
        timestep: float = 1e-4,
        seed: int = 0,
        params: HybridParams | None = None,
        steps: SteppingData | None = None,
    ) -> None:
        self.params = params or HybridParams()
        self.data = steps or load_steps(self.params)
        self.dt = float(timestep)
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        """Random phases (numpy's legacy generator, as flygym), zero amplitudes, corrections."""
        self.theta = [float(x) * 2 * math.pi for x in np.random.RandomState(seed or 0).random(6)]
        self.r = [0.0] * 6
        self.retraction = [0.0] * 6
        self.stumble = [0.0] * 6
        self.persistence = [0] * 6

    def step(
        self, drive: np.ndarray, depth: np.ndarray, stumbling: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """One ``dt``: ``(angles (6, 7), adhesion (6,))`` from drives ``[left, right]``, the
        claws' depth below the thorax ``(6,)`` (mm) and the stumbling flags ``(6,)``."""
        p, dt = self.params, self.dt
        retract = self._retraction_leg([float(z) for z in depth])
        self._cpg_step([float(drive[0])] * 3 + [float(drive[1])] * 3)
        angles = np.zeros((6, 7))
        adhesion = np.zeros(6)
        for i in range(6):
            # correction: rises while its rule fires, decays otherwise; retraction wins
            if i == retract or self.persistence[i] > 0:
                self.retraction[i] += p.retraction_rates[0] * dt
            else:
                self.retraction[i] = max(0.0, self.retraction[i] - p.retraction_rates[1] * dt)
            if stumbling[i]:
                self.stumble[i] += p.stumbling_rates[0] * dt
            else:
                self.stumble[i] = max(0.0, self.stumble[i] - p.stumbling_rates[1] * dt)
            if self.retraction[i] > 0:
                self.stumble[i] = 0.0
                c = self.retraction[i]
            else:
                c = self.stumble[i]
            c = min(max(c, 0.0), p.max_correction)
            phase = self.theta[i] % (2 * math.pi)
            psi = self._spline(i, phase)
            push = c * self._gain(i, phase)
            for q in range(7):
                n = float(self.data.neutral[i, q])
                angles[i, q] = n + self.r[i] * (psi[q] - n) + push * self.data.correction[i, q]
            start, end = self.data.swing[i]
            in_swing = start < phase < end + p.swing_extension
            adhesion[i] = 0.0 if in_swing else 1.0
        return angles, adhesion

    def _retraction_leg(self, depth: list[float]) -> int:
        """The retraction rule: the deepest claw, if ``> threshold`` below the third deepest;
        a leg whose correction passed the persistence threshold keeps retracting for a while."""
        p = self.params
        ranked = sorted(range(6), key=lambda i: depth[i])
        deepest, third = ranked[5], ranked[3]
        leg = deepest if depth[deepest] > depth[third] + p.retraction_height else -1
        if leg >= 0 and self.retraction[leg] > p.persistence_threshold:
            self.persistence[leg] = 1
        for i in range(6):
            if self.persistence[i] > 0:
                self.persistence[i] += 1
            if self.persistence[i] > p.persistence_steps:
                self.persistence[i] = 0
        return leg

    def _cpg_step(self, drive: list[float]) -> None:
        """Euler step of the six coupled phase oscillators (all derivatives from the old state)."""
        p, w, phi = self.params, self.data.weights, self.data.phase_bias
        dtheta, dr = [0.0] * 6, [0.0] * 6
        for i in range(6):
            nu = p.frequency * (1.0 if drive[i] >= 0 else -1.0)
            coupling = 0.0
            for j in range(6):
                coupling += (
                    self.r[j] * w[i, j] * math.sin(self.theta[j] - self.theta[i] - phi[i, j])
                )
            dtheta[i] = 2 * math.pi * nu + coupling
            dr[i] = p.convergence * (abs(drive[i]) - self.r[i])
        for i in range(6):
            self.theta[i] += dtheta[i] * self.dt
            self.r[i] += dr[i] * self.dt

    def _spline(self, leg: int, phase: float) -> list[float]:
        """The 7 joint angles of the recorded step of ``leg`` at ``phase`` in ``[0, 2 pi]``."""
        knots = self.data.knots
        k = len(knots) - 2
        while k > 0 and knots[k] > phase:  # the segment holding the phase
            k -= 1
        s = phase - float(knots[k])
        c = self.data.coeffs[leg, :, k, :]  # (4, 7): s^3, s^2, s, 1
        return [
            float(c[3, q] + c[2, q] * s + c[1, q] * (s * s) + c[0, q] * (s * s * s))
            for q in range(7)
        ]

    def _gain(self, leg: int, phase: float) -> float:
        """Piecewise-linear correction gain: 0 at swing start, 0.8 mid-swing, 0 at the extended
        swing end, -0.1 mid-stance, 0 at the cycle's end."""
        x, y = self.data.gain[0, leg], self.data.gain[2, leg]
        for j in range(4):
            if x[j] <= phase < x[j + 1]:
                if phase == x[j]:
                    return float(y[j])
                return float((y[j + 1] - y[j]) / (x[j + 1] - x[j]) * (phase - x[j]) + y[j])
        return float(y[4])
