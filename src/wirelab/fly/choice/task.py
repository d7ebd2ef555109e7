"""The two-odor choice task: geometry, cues, teacher and per-trial scores.

Arena (the taxis study's: a circle of ``arena_radius`` = 50 mm, starts 15-25 mm from the
sources). Every start puts the fly at the arena's centre; two point sources lie at the same
distance ``d ~ U(start_distance)`` from it, at bearings ``b + phi`` (the fly's left) and
``b - phi`` (its right) about a random bisector ``b``, with ``phi ~ U(half_angle_deg)``. A fair,
balanced coin per start (`starts`: half the starts each way, shuffled) puts the attractive source
on the left or the right and the aversive one on the other side. The fly faces the bisector
within ``+- heading_jitter_deg``, so walking straight reaches neither: it must choose.

Cues (two channels, left and right kept; `cues`): each source is a field ``I = P / (r^2 + h^2)``
(flygym's ``OdorArena`` law, `wirelab.fly.odor.OdorSource`) read at the two antennae
(`wirelab.fly.odor.antenna_positions`, offsets from ``calibration.json``)::

    c = [A_L, A_R, V_L, V_R]                                   # (B, 4) attractive, aversive
    u = input_gain * log1p(c / I0)                              # (B, 4) `encode`, log
    u = input_gain * c / mean(c_L, c_R)   (per class)           # (B, 4) adapted

Teacher (`teacher`): climb the value field ``log A - log V`` across the antennae, which leads to
the attractive source while moving away from the aversive one (``A / V = (r_V / r_A)^2``)::

    s = tanh(k * ((ln A_L - ln A_R) - (ln V_L - ln V_R)))
    signal = [1 - c max(s, 0), 1 - c max(-s, 0)]

Ends (`evaluate`, on the trajectory; the first event decides): within ``radius`` of the
attractive source (success), within ``contact_radius`` of the aversive one (contact, failure),
farther than ``arena_radius`` from the centre (left the arena, failure), or ``time_limit``.
Scores per trial: ``success``, ``contact``, ``left_arena``, ``closest_aversive_mm`` (closest
approach to the aversive source until the end), ``time_to_goal_s`` and ``path_efficiency``
(``(d0 - radius) / path walked``, successful trials).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from wirelab.errors import UsageError
from wirelab.fly.odor import antenna_positions

CUES = ("attractive-left", "attractive-right", "aversive-left", "aversive-right")


@dataclass(frozen=True)
class ChoiceConfig:
    """Arena, trials, sensing, teacher and training settings (all go to ``config.json``)."""

    trials: int = 100
    train_trials: int = 40
    time_limit: float = 6.0
    radius: float = 2.0
    contact_radius: float = 2.0
    start_distance: tuple[float, float] = (15.0, 25.0)
    half_angle_deg: tuple[float, float] = (30.0, 60.0)
    heading_jitter_deg: float = 20.0
    arena_radius: float = 50.0
    source_height: float = 1.0
    encoding: str = "log"
    input_gain: float = 0.3
    log_i0: float = 1e-4
    teacher_k: float = 25.0
    teacher_c: float = 0.8
    explore_sigma: float = 0.3
    explore_tau: float = 0.5
    heading_noise: float = 0.3
    body_dt: float = 1e-3
    seed: int = 0

    def __post_init__(self) -> None:
        if self.trials < 1 or self.train_trials < 2 or not self.time_limit > 0:
            raise UsageError("choice needs trials >= 1, train_trials >= 2 and time_limit > 0")
        lo, hi = self.start_distance
        if not (0 < self.radius < lo <= hi and 0 < self.contact_radius < lo):
            raise UsageError("start distances must exceed the success and contact radii")
        a_lo, a_hi = self.half_angle_deg
        if not 0 < a_lo <= a_hi < 90:
            raise UsageError("half angles must lie in (0, 90) degrees")
        gap = 2 * lo * math.sin(math.radians(a_lo))
        if gap <= self.radius + self.contact_radius:
            raise UsageError("the two sources must be farther apart than radius + contact_radius")
        if not (math.isfinite(self.arena_radius) and self.arena_radius > hi):
            raise UsageError(f"the arena radius must be finite and exceed {hi:g} mm")
        if self.encoding not in ENCODINGS:
            raise UsageError(
                f"encoding must be one of {', '.join(ENCODINGS)}, not {self.encoding!r}"
            )
        for name in ("input_gain", "log_i0", "teacher_k", "teacher_c", "body_dt"):
            value = getattr(self, name)
            if not (math.isfinite(value) and value > 0):
                raise UsageError(f"{name} must be finite and > 0, got {value}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Starts:
    """``n`` starts: fly position ``(n, 2)`` and heading ``(n,)``, the attractive and aversive
    sources ``(n, 2)`` and ``side`` ``(n,)`` (+1: attractive on the fly's left, -1: right)."""

    xy: np.ndarray
    heading: np.ndarray
    attractive: np.ndarray
    aversive: np.ndarray
    side: np.ndarray

    def tile(self, g: int) -> Starts:
        """The same starts repeated ``g`` times (one block per gain): ``(g * n, ...)``."""
        return Starts(*(np.concatenate([a] * g) for a in asdict(self).values()))

    def pick(self, i: int) -> Starts:
        """Start ``i`` alone: ``(1, ...)`` arrays."""
        return Starts(*(a[i : i + 1] for a in asdict(self).values()))


def starts(cfg: ChoiceConfig, n: int, seed: int) -> Starts:
    """``n`` random starts (module docstring); the sides are balanced (``n // 2`` each way)."""
    rng = np.random.default_rng(seed)
    side = rng.permutation(np.where(np.arange(n) < (n + 1) // 2, 1.0, -1.0))
    bisector = rng.uniform(-np.pi, np.pi, n)
    d = rng.uniform(*cfg.start_distance, n)
    phi = np.radians(rng.uniform(*cfg.half_angle_deg, n))
    jitter = np.radians(rng.uniform(-cfg.heading_jitter_deg, cfg.heading_jitter_deg, n))

    def at(bearing: np.ndarray) -> np.ndarray:
        return np.stack([d * np.cos(bearing), d * np.sin(bearing)], axis=-1)  # (n, 2)

    return Starts(
        xy=np.zeros((n, 2)),
        heading=bisector + jitter,
        attractive=at(bisector + side * phi),
        aversive=at(bisector - side * phi),
        side=side,
    )


def intensity(sensors: np.ndarray, src: np.ndarray, height: float) -> np.ndarray:
    """``P / (|a - s|^2 + h^2)`` with ``P = 1``: sensors ``(B, 2, 2)``, sources ``(B, 2)`` ->
    ``(B, 2)`` [left, right]."""
    d = sensors - src[:, None, :]  # (B, 2, 2)
    return 1.0 / (np.einsum("bsi,bsi->bs", d, d) + height**2)


def cues(
    st: Starts, position: np.ndarray, heading: np.ndarray, forward: float, lateral: float, h: float
) -> np.ndarray:
    """Antenna intensities ``(B, 4)`` ``[A_L, A_R, V_L, V_R]`` of flies at ``position``
    ``(B, 2)`` with ``heading`` ``(B,)``; antenna offsets ``forward``/``lateral`` (mm)."""
    ant = antenna_positions(position, heading, forward, lateral)  # (B, 2, 2)
    return np.concatenate([intensity(ant, st.attractive, h), intensity(ant, st.aversive, h)], -1)


def _log(cfg: ChoiceConfig, c: np.ndarray) -> np.ndarray:
    return cfg.input_gain * np.log1p(c / cfg.log_i0)


def _adapted(cfg: ChoiceConfig, c: np.ndarray) -> np.ndarray:
    pair_mean = np.repeat(0.5 * (c[:, 0::2] + c[:, 1::2]), 2, axis=-1)  # (B, 4)
    return cfg.input_gain * c / pair_mean


ENCODINGS = {"log": _log, "adapted": _adapted}


def encode(cfg: ChoiceConfig, c: np.ndarray) -> np.ndarray:
    """Antenna intensities ``(B, 4)`` -> sensory input ``(B, 4)``, by ``cfg.encoding``:
    ``log``: ``u = input_gain * log1p(c / I0)``; ``adapted`` (each class adapted to its own
    bilateral mean, which removes the common level): ``u = input_gain * c / mean(c_L, c_R)``."""
    return ENCODINGS[cfg.encoding](cfg, np.atleast_2d(np.asarray(c, dtype=np.float64)))


def steer(cfg: ChoiceConfig, s: np.ndarray) -> np.ndarray:
    """Turn command ``s`` in [-1, 1] (> 0: left) -> ``(B, 2)`` signal lowering the inner side."""
    return np.stack(
        [1 - cfg.teacher_c * np.maximum(s, 0), 1 - cfg.teacher_c * np.maximum(-s, 0)], axis=-1
    )


def teacher_turn(cfg: ChoiceConfig, c: np.ndarray) -> np.ndarray:
    """``s = tanh(k ((ln A_L - ln A_R) - (ln V_L - ln V_R)))``: ``(B, 4)`` -> ``(B,)``."""
    lc = np.log(np.asarray(c))
    return np.tanh(cfg.teacher_k * ((lc[:, 0] - lc[:, 1]) - (lc[:, 2] - lc[:, 3])))


def teacher(cfg: ChoiceConfig, c: np.ndarray) -> np.ndarray:
    """The teacher's signal ``(B, 2)`` for the cues ``(B, 4)`` (module docstring)."""
    return steer(cfg, teacher_turn(cfg, c))


def first(mask: np.ndarray) -> np.ndarray:
    """Per column of an ``(S, B)`` mask the first True row, or ``S`` where there is none."""
    return np.where(mask.any(axis=0), mask.argmax(axis=0), len(mask))


def evaluate(pos: np.ndarray, st: Starts, cfg: ChoiceConfig, dt_u: float) -> dict[str, Any]:
    """Per-trial scores of flies whose positions at the updates are ``pos`` ``(S+1, B, 2)``
    (row ``i`` at time ``i * dt_u``); the first event decides (module docstring)."""
    d_att = np.linalg.norm(pos - st.attractive[None], axis=-1)  # (S+1, B)
    d_av = np.linalg.norm(pos - st.aversive[None], axis=-1)
    arrive = first(d_att <= cfg.radius)
    touch = first(d_av <= cfg.contact_radius)
    leave = first(np.linalg.norm(pos - st.xy[None], axis=-1) > cfg.arena_radius)
    end = np.minimum(np.minimum(arrive, touch), np.minimum(leave, len(pos) - 1))
    success = arrive < np.minimum(touch, leave)
    contact = touch < np.minimum(arrive, leave)
    left = leave < np.minimum(arrive, touch)
    rows = np.arange(len(pos))[:, None]
    closest = np.where(rows <= end[None], d_av, np.inf).min(axis=0)  # (B,)
    steps = np.linalg.norm(np.diff(pos, axis=0), axis=-1)  # (S, B)
    path = np.where(rows[:-1] < end[None], steps, 0.0).sum(axis=0)
    straight = d_att[0] - cfg.radius
    eff = np.divide(straight, path, out=np.zeros_like(path), where=path > 0)
    return {
        "success": success.tolist(),
        "contact": contact.tolist(),
        "left_arena": left.tolist(),
        "closest_aversive_mm": closest.tolist(),
        "time_to_goal_s": [
            float(a * dt_u) if s else None for a, s in zip(arrive, success, strict=True)
        ],
        "path_efficiency": [float(e) if s else None for e, s in zip(eff, success, strict=True)],
        "end_time_s": (end * dt_u).tolist(),
    }


def summarize(trials: dict[str, Any]) -> dict[str, Any]:
    """A condition's means over its trials (`evaluate`'s lists), with Wilson 95% intervals."""
    from wirelab.fly.taxis.task import wilson

    n = len(trials["success"])
    succ, cont = int(sum(trials["success"])), int(sum(trials["contact"]))
    tts = [t for t in trials["time_to_goal_s"] if t is not None]
    eff = [e for e in trials["path_efficiency"] if e is not None]
    return {
        "trials": n,
        "successes": succ,
        "success_rate": succ / n,
        "success_ci": wilson(succ, n),
        "contacts": cont,
        "contact_rate": cont / n,
        "contact_ci": wilson(cont, n),
        "arena_exits": int(sum(trials["left_arena"])),
        "closest_aversive_mm": float(np.mean(trials["closest_aversive_mm"])),
        "time_to_goal_s": float(np.mean(tts)) if tts else None,
        "path_efficiency": float(np.mean(eff)) if eff else None,
    }
