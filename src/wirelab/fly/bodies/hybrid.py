"""NeuroMechFly v2's hybrid turning controller, written for speed (the fast path).

The controller of Wang-Chen et al. 2024 (Nature Methods 21:2353), as shipped with flygym 2
(``flygym_demo.complex_terrain.HybridTurningController``), reimplemented so that one step is
one compiled kernel over preallocated arrays. `wirelab.fly.bodies.hybrid_reference` is the
same controller as plain loops; the tests check that both, and flygym's demo controller, give
the same joint commands.

Per physics step ``dt``, for legs ``i`` in ``LEGS`` order (left front, middle, hind, then right):

1. **Descending drives** ``[d_L, d_R]``: amplitude ``R_i = |d_side(i)|`` and frequency
   ``nu_i = sign(d_side(i)) * 12 Hz`` (a negative drive steps that side backwards).
2. **CPGs** (Euler, tripod phase biases ``phi_ij`` in {0, pi}, ``w_ij = 10`` where
   ``phi_ij = pi``)::

       dtheta_i/dt = 2 pi nu_i + sum_j r_j w_ij sin(theta_j - theta_i - phi_ij)
       dr_i/dt     = 20 (R_i - r_i)

3. **Preprogrammed step**: ``psi_i(theta)`` is a periodic cubic spline through one recorded
   step of leg ``i`` (7 joint angles); the command is ``q_i = psi_i(pi) + r_i (psi_i(theta_i) -
   psi_i(pi))``, so ``r_i = 0`` holds the neutral pose.
4. **Corrections**: the *retraction* rule picks the leg hanging lowest below the thorax when
   it hangs ``> 0.05`` mm lower than the third-lowest (and keeps it for 20 steps once its
   correction exceeds 20); the *stumbling* rule flags legs whose tibia or tarsus 1-2 feel a
   ground force against the heading ``< -1``. Each correction ``c_i`` grows at 800 (retraction) or
   2,200 (stumbling) per s while its rule fires and decays at 700 / 1,800 per s otherwise;
   retraction wins. The joint command becomes ``q_i + clip(c_i, 0, 80) g(theta_i) v_i`` with
   ``g`` a piecewise-linear gain over the step phase (0.8 mid-swing, -0.1 mid-stance) and
   ``v_i`` a fixed per-leg joint direction.
5. **Adhesion** is off during swing (``swing_start < theta mod 2 pi < swing_end + pi/4``).

The arithmetic follows flygym's demo operation by operation (same sums in the same order, the
same spline evaluation as scipy's ``PPoly``), so the commands are equal bit for bit; only
``sin`` runs in numpy, the rest in one numba kernel.
"""

from __future__ import annotations

import pickle
from dataclasses import dataclass
from importlib.resources import files

import numpy as np
from numba import njit

LEGS = ("lf", "lm", "lh", "rf", "rm", "rh")
# The 7 actuated joints of one leg, as (child segment, axis), in the order of the recorded step
DOFS = (
    ("coxa", "pitch"),
    ("coxa", "roll"),
    ("coxa", "yaw"),
    ("trochanterfemur", "pitch"),
    ("trochanterfemur", "roll"),
    ("tibia", "pitch"),
    ("tarsus1", "pitch"),
)
_RECORDED_DOFS = ("Coxa", "Coxa_roll", "Coxa_yaw", "Femur", "Femur_roll", "Tibia", "Tarsus1")
# Correction directions v_i per leg position (front, middle, hind), left side; the right side
# mirrors roll and yaw.
_CORRECTION = {
    "f": (-0.03, 0.0, 0.0, -0.03, 0.0, 0.03, 0.03),
    "m": (-0.015, 0.001, 0.025, -0.02, 0.0, -0.02, 0.0),
    "h": (0.0, 0.0, 0.0, -0.02, 0.0, 0.01, -0.02),
}
_MIRROR = np.array([1.0, -1.0, -1.0, 1.0, -1.0, 1.0, 1.0])
_GAIN_VALUES = (0.0, 0.8, 0.0, -0.1, 0.0)  # g at swing start, mid-swing, swing end + ext, ...
TWO_PI = 2 * np.pi


@dataclass(frozen=True)
class HybridParams:
    """The controller's constants (flygym 2's defaults; rates in 1/s, heights in mm)."""

    frequency: float = 12.0
    coupling: float = 10.0
    convergence: float = 20.0
    stumbling_force: float = -1.0
    retraction_height: float = 0.05
    retraction_rates: tuple[float, float] = (800.0, 700.0)
    stumbling_rates: tuple[float, float] = (2200.0, 1800.0)
    max_correction: float = 80.0
    swing_extension: float = np.pi / 4
    persistence_steps: int = 20
    persistence_threshold: float = 20.0


@dataclass(frozen=True)
class SteppingData:
    """Everything fixed about the controller, as arrays (``K`` spline intervals).

    Attributes:
        knots: ``(K + 1,)`` phase grid ``0 .. 2 pi`` of the recorded step.
        coeffs: ``(6, 4, K, 7)`` cubic coefficients per leg, power ``3 - p`` at index ``p``.
        neutral: ``(6, 7)`` ``psi_i(pi)``, the pose at zero amplitude.
        swing: ``(6, 2)`` swing start and end phase per leg.
        correction: ``(6, 7)`` correction directions ``v_i``.
        gain: ``(3, 6, 5)`` breakpoints, slopes and values of the phase gain ``g``.
        phase_bias: ``(6, 6)`` ``phi_ij``.
        weights: ``(6, 6)`` ``w_ij``.
    """

    knots: np.ndarray
    coeffs: np.ndarray
    neutral: np.ndarray
    swing: np.ndarray
    correction: np.ndarray
    gain: np.ndarray
    phase_bias: np.ndarray
    weights: np.ndarray


def load_steps(params: HybridParams | None = None) -> SteppingData:
    """The recorded steps shipped with flygym 2, as `SteppingData` (needs flygym 2)."""
    from scipy.interpolate import CubicSpline

    p = params or HybridParams()
    asset = files("flygym_demo.complex_terrain") / "assets/single_steps_untethered.pkl"
    with asset.open("rb") as f:
        rec = pickle.load(f)
    n = len(rec["joint_LFCoxa"])
    duration = n * rec["meta"]["timestep"]
    knots = np.linspace(0, TWO_PI, n)
    coeffs, neutral, swing = [], [], []
    for leg in LEGS:
        y = np.array([rec[f"joint_{leg.upper()}{d}"] for d in _RECORDED_DOFS], dtype=float)
        if leg[0] == "r":
            y *= _MIRROR[:, None]  # flygym 2 angles: right roll and yaw change sign
        spline = CubicSpline(knots, y, axis=1, bc_type="periodic")
        coeffs.append(spline.c)  # (4, K, 7)
        neutral.append(spline(np.array([np.pi]))[:, 0])
        # phase 0 starts the swing; the recording's "stance" time is where the swing ends
        end = rec["swing_stance_time"]["stance"][leg.upper()]
        swing.append(np.array([0, end], dtype=float) / duration * TWO_PI)
    sign = {"l": np.ones(7), "r": _MIRROR}
    correction = np.array([np.array(_CORRECTION[leg[1]]) * sign[leg[0]] for leg in LEGS])
    bias = np.pi * np.array([[(i + j) % 2 for j in range(6)] for i in range(6)], dtype=float)
    return SteppingData(
        knots=knots,
        coeffs=np.ascontiguousarray(np.stack(coeffs)),
        neutral=np.stack(neutral),
        swing=np.stack(swing),
        correction=correction,
        gain=_gain_table(np.stack(swing), p.swing_extension),
        phase_bias=bias,
        weights=(bias > 0) * p.coupling,
    )


def _gain_table(swing: np.ndarray, extension: float) -> np.ndarray:
    """``(3, 6, 5)``: breakpoints ``x``, slopes (0 past the last point) and values of ``g``."""
    y = np.array(_GAIN_VALUES)
    out = np.zeros((3, 6, 5))
    for i, (start, end) in enumerate(swing):
        x = np.array(
            [start, np.mean([start, end]), end + extension, np.mean([end, TWO_PI]), TWO_PI]
        )
        out[0, i] = x
        out[1, i, :4] = (y[1:] - y[:-1]) / (x[1:] - x[:-1])
        out[2, i] = y
    return out


class HybridTurning:
    """The hybrid turning controller (see module docstring); one `step` per physics step.

    Args:
        timestep: physics step ``dt`` (s).
        seed: seed of the initial CPG phases (uniform in ``[0, 2 pi)``, as flygym's demo).
        params: the controller's constants.
        steps: the recorded steps (default: `load_steps`).
    """

    def __init__(
        self,
        timestep: float = 1e-4,
        seed: int = 0,
        params: HybridParams | None = None,
        steps: SteppingData | None = None,
    ) -> None:
        self.params = p = params or HybridParams()
        self.data = steps or load_steps(p)
        self.dt = float(timestep)
        rates = (*p.retraction_rates, *p.stumbling_rates)
        self._scalars = np.array(
            [self.dt, p.retraction_height, p.persistence_threshold, p.persistence_steps, *rates]
        )
        self._scalars = np.append(self._scalars, p.max_correction)
        sw = self.data.swing
        ends = sw[:, 1] + p.swing_extension
        # (4, 6): base frequency, convergence, swing start, swing end + extension
        self._legs = np.stack([np.full(6, p.frequency), np.full(6, p.convergence), sw[:, 0], ends])
        self.state = np.zeros((4, 6))  # phase theta, amplitude r, retraction, stumbling
        self.persistence = np.zeros(6, dtype=np.int64)  # retraction persistence counter
        self.angles = np.zeros((6, 7))  # (leg, DOFS) joint commands (rad)
        self.adhesion = np.zeros(6)  # 1.0 on, 0.0 off
        self._arg = np.zeros((6, 6))  # theta_j - theta_i - phi_ij for the next step
        self._sin = np.zeros((6, 6))
        d = self.data
        # the kernel's arguments after the inputs: state, outputs, constants
        self._k: tuple[np.ndarray, ...] = (self._sin, self.state, self.persistence, self.angles)
        self._k += (self.adhesion, self._arg, d.weights, d.phase_bias, self._legs, d.gain)
        self._k += (self._scalars, d.coeffs, d.knots, d.neutral, d.correction)
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        """Random phases from ``seed``, zero amplitudes and corrections."""
        rng = np.random.RandomState(0 if seed is None else seed)
        self.state[:] = 0.0
        self.state[0] = rng.random(6) * 2 * np.pi
        self.persistence[:] = 0
        theta = self.state[0]
        self._arg[:] = theta[np.newaxis, :] - theta[:, np.newaxis] - self.data.phase_bias

    def step(
        self, drive: np.ndarray, depth: np.ndarray, stumbling: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Advance one ``dt``; return ``(angles (6, 7), adhesion (6,))`` (views, reused).

        Args:
            drive: ``(2,)`` descending drives ``[left, right]``, finite.
            depth: ``(6,)`` thorax z minus each claw's (tarsus 5) z, mm.
            stumbling: ``(6,)`` bool, the stumbling rule fires on that leg
                (`stumbling_from_forces`).
        """
        np.sin(self._arg, out=self._sin)
        _step_kernel(np.asarray(drive, dtype=np.float64), depth, stumbling, *self._k)
        return self.angles, self.adhesion


def stumbling_from_forces(forces: np.ndarray, heading: np.ndarray, threshold: float) -> np.ndarray:
    """``(6,)`` bool: a leg stumbles when any of its links' ground force along the heading is
    below ``threshold``. ``forces`` ``(6, L, 3)`` world frame, ``heading`` ``(3,)`` unit."""
    return (np.dot(forces, heading) < threshold).any(axis=1)


@njit(cache=True)
def _retraction_leg(depth: np.ndarray, threshold: float) -> int:
    """The leg hanging deepest, if it hangs ``> threshold`` below the third deepest, else -1."""
    srt = np.sort(depth)
    if srt[5] > srt[3] + threshold:
        return int(np.argmax(depth))
    return -1


@njit(cache=True)
def _interval(knots: np.ndarray, x: float) -> int:
    """``k`` with ``knots[k] <= x < knots[k + 1]`` (the last interval includes its end)."""
    lo, hi = 0, knots.size - 1
    if x >= knots[hi]:
        return hi - 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if x < knots[mid]:
            hi = mid
        else:
            lo = mid
    return lo


@njit(cache=True)
def _phase_gain(gain: np.ndarray, i: int, x: float) -> float:
    """``g_i(x)``: numpy's ``interp`` over the 5 breakpoints of leg ``i``, same arithmetic."""
    xp = gain[0, i]
    if x < xp[0]:
        return gain[2, i, 0]
    j = 0
    while j < 4 and xp[j + 1] <= x:
        j += 1
    if j == 4 or xp[j] == x:
        return gain[2, i, j]
    return gain[1, i, j] * (x - xp[j]) + gain[2, i, j]


@njit(cache=True)
def _step_kernel(
    drive: np.ndarray,
    depth: np.ndarray,
    stumbling: np.ndarray,
    sin_now: np.ndarray,
    state: np.ndarray,
    persist: np.ndarray,
    angles: np.ndarray,
    adhesion: np.ndarray,
    arg_next: np.ndarray,
    weights: np.ndarray,
    bias: np.ndarray,
    legs: np.ndarray,
    gain: np.ndarray,
    scal: np.ndarray,
    coeffs: np.ndarray,
    knots: np.ndarray,
    neutral: np.ndarray,
    correction: np.ndarray,
) -> None:
    """One controller step in place (shapes as in `HybridTurning` and `SteppingData`)."""
    theta, r = state[0], state[1]
    leg = _retraction_rule(depth, state[2], persist, scal)
    _cpg_step(drive, sin_now, theta, r, weights, legs, scal[0])
    for i in range(6):
        push = _correction(i, i == leg or persist[i] > 0, stumbling[i], state, scal)
        x = theta[i] % TWO_PI
        k = _interval(knots, x)
        s = x - knots[k]
        s2 = s * s
        s3 = s2 * s
        push *= _phase_gain(gain, i, x)
        for q in range(7):
            c = coeffs[i, :, k, q]
            psi = ((c[3] + c[2] * s) + c[1] * s2) + c[0] * s3  # scipy PPoly's order
            n = neutral[i, q]
            angles[i, q] = (n + r[i] * (psi - n)) + push * correction[i, q]
        adhesion[i] = 0.0 if legs[2, i] < x < legs[3, i] else 1.0
    for i in range(6):
        for j in range(6):
            arg_next[i, j] = theta[j] - theta[i] - bias[i, j]


@njit(cache=True)
def _retraction_rule(
    depth: np.ndarray, retraction: np.ndarray, persist: np.ndarray, scal: np.ndarray
) -> int:
    """The leg to retract (-1: none); starts and advances the persistence counters."""
    srt = np.sort(depth)
    leg = int(np.argmax(depth)) if srt[5] > srt[3] + scal[1] else -1
    if leg >= 0 and retraction[leg] > scal[2]:
        persist[leg] = 1
    for i in range(6):
        if persist[i] > 0:
            persist[i] += 1
        if persist[i] > scal[3]:
            persist[i] = 0
    return leg


@njit(cache=True)
def _cpg_step(
    drive: np.ndarray,
    sin_now: np.ndarray,
    theta: np.ndarray,
    r: np.ndarray,
    weights: np.ndarray,
    legs: np.ndarray,
    dt: float,
) -> None:
    """Euler step of the oscillators; ``sin_now[i, j] = sin(theta_j - theta_i - phi_ij)``."""
    dtheta = np.empty(6)
    dr = np.empty(6)
    for i in range(6):
        side = drive[0] if i < 3 else drive[1]
        nu = legs[0, i] * (1.0 if side >= 0 else -1.0)
        coupling = 0.0
        for j in range(6):
            coupling += r[j] * weights[i, j] * sin_now[i, j]
        dtheta[i] = TWO_PI * nu + coupling
        dr[i] = legs[1, i] * (abs(side) - r[i])
    for i in range(6):
        theta[i] += dtheta[i] * dt
        r[i] += dr[i] * dt


@njit(cache=True)
def _correction(i: int, retract: bool, stumble: bool, state: np.ndarray, scal: np.ndarray) -> float:
    """Update leg ``i``'s retraction and stumbling corrections; the clipped net correction."""
    dt = scal[0]
    if retract:
        state[2, i] += scal[4] * dt
    else:
        v = state[2, i] - scal[5] * dt
        state[2, i] = v if v > 0 else 0.0
    if stumble:
        state[3, i] += scal[6] * dt
    else:
        v = state[3, i] - scal[7] * dt
        state[3, i] = v if v > 0 else 0.0
    if state[2, i] > 0:
        net = state[2, i]
        state[3, i] = 0.0
    else:
        net = state[3, i]
    return min(max(net, 0.0), scal[8])
