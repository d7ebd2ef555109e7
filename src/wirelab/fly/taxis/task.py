"""Closed-loop odor taxis: antennae -> olfactory sensory neurons -> connectome -> trained readout.

Arena: one odor source (`OdorSource`, intensity ``P / r^2`` as flygym's ``OdorArena``) at the
origin, in a circular arena of ``arena_radius`` mm around it. Each trial starts at a random
distance in ``start_distance`` mm and a random bearing, facing a random direction; it succeeds
when the fly comes within ``radius`` mm of the source before ``time_limit``, and fails when it
leaves the arena (``|p| > arena_radius``) first or the time runs out (`evaluate`). A one-fly
trial ends at either event (`ended`); in a kinematic batch every fly walks the whole time, and a
fly counts until its first event only (it is scored, and its final distance taken, at its exit).

Sensing (every controller update): the left/right antenna intensities ``I = [I_L, I_R]`` become
the input of the left/right olfactory sensory neurons. ``encoding="log"`` (default, a
Weber-Fechner-like compression) uses ``u = gain * log1p(I / I0)``; ``encoding="adapted"`` divides
by the bilateral mean (sensory adaptation removes the common level): ``u = gain * I / mean(I)``.
The defaults (log, gain 0.3) were chosen on development seeds (123), not on the reported runs.
The arena (default 50 mm: twice the farthest start) ends the trials of flies walking away: a fly
walking straight from 25 mm leaves it in about 2 s; the teacher's flies that leave it seldom
come back within the time limit.

Teacher (turn toward the side with more odor, as flygym's ``simple_odor_taxis`` example: the drive
of the side that smells more is lowered)::

    d = (I_L - I_R) / (I_L + I_R),   s = tanh(k * d),
    signal = [1 - c * max(s, 0), 1 - c * max(-s, 0)]

(a lower left drive turns the fly left). Training: ``train_trials`` runs driven by the teacher
plus Ornstein-Uhlenbeck exploration noise on the turn command, recording the readout neurons
(DN-VNC, optionally DN-SEZ) and the clean teacher signal; ridge regression (`fit_ridge_cv`, ridge
chosen by leave-runs-out CV) maps the states to the signal. Deployment: the fitted readout drives
the body in closed loop on ``trials`` new random starts (different seed). The same is done for
null-model reservoirs; baselines walk with a constant ``[1, 1]`` or a random signal, and the
``input-only`` readout maps the encoded antenna inputs ``u`` ``(B, 2)`` straight to the drive
(``u @ W + b``, ridge-fitted on the same training runs, no reservoir).
Metrics per condition: ``success_rate``, ``path_efficiency`` (straight distance to the success
circle / path walked, successful trials), ``time_to_source_s`` (successful trials), and per fly
``left_arena`` and ``exit_time_s`` (None for a fly that did not leave).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from wirelab.data.connectomes import Connectome
from wirelab.errors import UsageError
from wirelab.fly.bodies.base import Body, Observation
from wirelab.fly.bodies.kinematic import KinematicBody
from wirelab.fly.controller import ConnectomeController, ControllerConfig
from wirelab.fly.loop import Trace, run_loop
from wirelab.fly.mapping import LinearMapping, fit_ridge_cv
from wirelab.fly.odor import OdorSource


@dataclass(frozen=True)
class TaxisConfig:
    """Arena, trials, sensing, teacher and training settings (all go to ``config.json``)."""

    trials: int = 100
    train_trials: int = 40
    time_limit: float = 10.0
    radius: float = 2.0
    start_distance: tuple[float, float] = (15.0, 25.0)
    arena_radius: float = 50.0
    source_height: float = 1.0
    encoding: str = "log"
    input_gain: float = 0.3
    log_i0: float = 1e-4
    teacher_k: float = 50.0
    teacher_c: float = 0.8
    explore_sigma: float = 0.3
    explore_tau: float = 0.5
    heading_noise: float = 0.3
    body_dt: float = 1e-3
    seed: int = 0

    def __post_init__(self) -> None:
        if self.trials < 1 or self.train_trials < 2 or self.time_limit <= 0 or self.radius <= 0:
            raise UsageError(
                "taxis needs trials >= 1, train_trials >= 2, time_limit > 0, radius > 0"
            )
        if self.encoding not in ("adapted", "log"):
            raise UsageError(f"encoding must be 'adapted' or 'log', not {self.encoding!r}")
        lo, hi = self.start_distance
        if not 0 < self.radius < lo <= hi:
            raise UsageError("start distances must exceed the success radius")
        if not (math.isfinite(self.arena_radius) and self.arena_radius > hi):
            raise UsageError(
                f"the arena radius must be finite and exceed the start distances (> {hi:g} mm)"
            )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def source(cfg: TaxisConfig) -> OdorSource:
    return OdorSource((0.0, 0.0), height=cfg.source_height, peak=1.0)


def starts(cfg: TaxisConfig, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` random start positions ``(n, 2)`` and headings ``(n,)`` around the source."""
    rng = np.random.default_rng(seed)
    r = rng.uniform(*cfg.start_distance, n)
    bearing = rng.uniform(-np.pi, np.pi, n)
    xy = np.stack([r * np.cos(bearing), r * np.sin(bearing)], axis=-1)
    return xy, rng.uniform(-np.pi, np.pi, n)


def encode(cfg: TaxisConfig, odor: np.ndarray) -> np.ndarray:
    """Antenna intensities ``(B, 2)`` -> sensory input ``(B, 2)`` (see module docstring)."""
    i = np.atleast_2d(odor)
    if cfg.encoding == "adapted":
        return cfg.input_gain * i / i.mean(axis=-1, keepdims=True)
    return cfg.input_gain * np.log1p(i / cfg.log_i0)


def teacher(cfg: TaxisConfig, odor: np.ndarray) -> np.ndarray:
    """Steer toward the stronger side: ``(B, 2)`` odor -> ``(B, 2)`` signal."""
    i = np.atleast_2d(odor)
    s = np.tanh(cfg.teacher_k * (i[:, 0] - i[:, 1]) / (i[:, 0] + i[:, 1]))
    return _steer(cfg, s)


def _steer(cfg: TaxisConfig, s: np.ndarray) -> np.ndarray:
    """Turn command ``s`` in [-1, 1] (> 0: left) -> ``(B, 2)`` signal lowering the inner side."""
    return np.stack(
        [1 - cfg.teacher_c * np.maximum(s, 0), 1 - cfg.teacher_c * np.maximum(-s, 0)], axis=-1
    )


def kinematic_body(
    cfg: TaxisConfig, n: int, seed: int, cls: type[Body] = KinematicBody
) -> KinematicBody:
    """A batch of ``n`` flies (a body class with ``supports_batch``) at random starts."""
    xy, heading = starts(cfg, n, seed)
    return cls(  # type: ignore[call-arg, return-value]
        batch=n,
        dt=cfg.body_dt,
        start_xy=xy,
        start_heading=heading,
        odor=source(cfg),
        heading_noise=cfg.heading_noise,
        seed=seed,
    )


def _odor(obs: Observation) -> np.ndarray:
    if obs.odor is None:
        raise UsageError("taxis needs a body with an odor source")
    return np.atleast_2d(obs.odor)


def train_readout(
    con: Connectome,
    ctrl_cfg: ControllerConfig,
    cfg: TaxisConfig,
    weights: sp.spmatrix | None = None,
    progress: Callable[[float], None] | None = None,
) -> tuple[LinearMapping, dict[str, Any]]:
    """Teacher-driven runs with exploration -> ridge readout (see module docstring)."""
    n = cfg.train_trials
    body = kinematic_body(cfg, n, seed=cfg.seed + 10_000)
    ctrl = ConnectomeController(con, ctrl_cfg, batch=n, weights=weights)
    k = ctrl.steps_per_update(body.dt)
    dt_u = k * body.dt
    rng = np.random.default_rng(cfg.seed + 20_000)
    noise = np.zeros(n)

    def decide(obs: Observation, u: np.ndarray, dn: Any, f: Any) -> np.ndarray:
        nonlocal noise
        noise += -noise * dt_u / cfg.explore_tau + cfg.explore_sigma * np.sqrt(
            2 * dt_u / cfg.explore_tau
        ) * rng.standard_normal(n)
        i = _odor(obs)
        s = np.tanh(cfg.teacher_k * (i[:, 0] - i[:, 1]) / (i[:, 0] + i[:, 1]))
        return _steer(cfg, np.clip(s + noise, -1, 1))

    trace = run_loop(
        body,
        cfg.time_limit,
        sense=lambda obs: encode(cfg, _odor(obs)),
        decide=decide,
        controller=ctrl,
        record_features=True,
        progress=progress,
    )
    assert trace.features is not None and trace.odor is not None
    s, b, f = trace.features.shape
    x = trace.features.reshape(s * b, f)
    y = teacher(cfg, trace.odor.reshape(s * b, 2))
    groups = np.tile(np.arange(b), s)
    mapping, ridge, scores = fit_ridge_cv(x, y, groups)
    pred = mapping(None, x)  # type: ignore[arg-type]
    r2 = 1 - np.sum((pred - y) ** 2) / np.sum((y - y.mean(axis=0)) ** 2)
    u = trace.inputs.reshape(s * b, 2)
    direct, direct_ridge, _ = fit_ridge_cv(u, y, groups)
    r2_direct = 1 - np.sum((direct(None, u) - y) ** 2) / np.sum((y - y.mean(axis=0)) ** 2)  # type: ignore[arg-type]
    return mapping, {
        "ridge": ridge,
        "cv_mse": scores,
        "train_r2": float(r2),
        "samples": s * b,
        "input_only": direct,
        "input_only_r2": float(r2_direct),
        "input_only_ridge": direct_ridge,
    }


def ended(cfg: TaxisConfig) -> Callable[[Observation], bool]:
    """``stop`` of a one-fly trial (`run_loop`): True once the fly is within ``radius`` of the
    source or farther than ``arena_radius`` from it."""
    src = np.asarray(source(cfg).xy)

    def stop(obs: Observation) -> bool:
        d = float(np.linalg.norm(np.asarray(obs.position) - src))
        return d <= cfg.radius or d > cfg.arena_radius

    return stop


def _first(mask: np.ndarray) -> np.ndarray:
    """Per column of an ``(S, B)`` mask the first True row, or ``S`` where there is none."""
    return np.where(mask.any(axis=0), mask.argmax(axis=0), len(mask))


def evaluate(trace: Trace, cfg: TaxisConfig, dt_u: float) -> dict[str, Any]:
    """Success, path efficiency, time to source and arena exits for each fly of a batch trace.

    Rows ``0..S`` are the ``S`` updates' positions then the final one (row ``i`` at time
    ``i * dt_u``). A fly succeeds when it first comes within ``radius`` before it first gets
    farther than ``arena_radius`` (it left the arena: a failure, its final distance is taken
    at the exit).
    """
    pos = np.concatenate([trace.position, np.asarray(trace.extra["final_position"])[None]])
    dist = np.linalg.norm(pos, axis=-1)  # (S+1, B), source at the origin
    arrive, leave = _first(dist <= cfg.radius), _first(dist > cfg.arena_radius)
    success, left = arrive < leave, leave < arrive
    first = np.where(success, arrive, len(pos) - 1)
    steps = np.linalg.norm(np.diff(pos, axis=0), axis=-1)  # (S, B)
    path = np.array([steps[: first[i], i].sum() for i in range(pos.shape[1])])
    straight = dist[0] - cfg.radius
    eff = np.divide(straight, path, out=np.zeros_like(path), where=path > 0)
    times = first * dt_u
    final = np.where(left, dist[np.minimum(leave, len(pos) - 1), np.arange(pos.shape[1])], dist[-1])
    return {
        "trials": int(pos.shape[1]),
        "successes": int(success.sum()),
        "success_rate": float(success.mean()),
        "path_efficiency": float(eff[success].mean()) if success.any() else None,
        "time_to_source_s": float(times[success].mean()) if success.any() else None,
        "final_distance_mm": float(final.mean()),
        "success": success.tolist(),
        "arena_exits": int(left.sum()),
        "left_arena": left.tolist(),
        "exit_time_s": [float(e * dt_u) if x else None for e, x in zip(leave, left, strict=True)],
    }


def deploy(
    cfg: TaxisConfig,
    policy: str,
    con: Connectome | None = None,
    ctrl_cfg: ControllerConfig | None = None,
    mapping: LinearMapping | None = None,
    weights: sp.spmatrix | None = None,
    body: Body | None = None,
    progress: Callable[[float], None] | None = None,
    stop: Callable[[Observation], bool] | None = None,
) -> tuple[Trace, dict[str, Any]]:
    """Closed-loop test: ``policy`` is ``reservoir`` (needs ``mapping``), ``input-only`` (a
    mapping on the inputs), ``teacher``, ``constant`` or ``random``. Kinematic batch of
    ``cfg.trials`` unless ``body`` is given; ``stop`` ends the run early (`run_loop`)."""
    b = body if body is not None else kinematic_body(cfg, cfg.trials, seed=cfg.seed)
    n = getattr(b, "batch", None) or 1
    ctrl = None
    ctrl_cfg = ctrl_cfg or ControllerConfig()
    k = max(1, round(ctrl_cfg.update_interval / b.dt))
    rng = np.random.default_rng(cfg.seed + 30_000)
    rand_sig = np.ones((n, 2))
    hold = max(1, round(0.1 / (k * b.dt)))  # random baseline: new signal every 0.1 s
    count = 0

    def decide(obs: Observation, u: np.ndarray, dn: Any, f: Any) -> np.ndarray:
        nonlocal rand_sig, count
        if policy == "reservoir":
            assert mapping is not None
            return mapping(dn, f)
        if policy == "input-only":
            assert mapping is not None
            return mapping(None, u)  # type: ignore[arg-type]
        if policy == "teacher":
            return teacher(cfg, _odor(obs))
        if policy == "constant":
            return np.ones((n, 2))
        if policy == "random":
            if count % hold == 0:
                rand_sig = _steer(cfg, rng.uniform(-1, 1, n))
            count += 1
            return rand_sig
        raise UsageError(f"unknown policy {policy!r}")

    if policy == "input-only" and mapping is None:
        raise UsageError("the input-only policy needs a trained mapping")
    if policy == "reservoir":
        if con is None or mapping is None:
            raise UsageError("the reservoir policy needs a connectome and a trained mapping")
        ctrl = ConnectomeController(con, ctrl_cfg, batch=n, weights=weights)
    try:
        trace = run_loop(
            b,
            cfg.time_limit,
            sense=lambda obs: encode(cfg, _odor(obs)),
            decide=decide,
            controller=ctrl,
            steps_per_update=k,
            progress=progress,
            stop=stop,
        )
    finally:
        if body is not None:
            b.close()
    return trace, evaluate(trace, cfg, k * b.dt)


def wilson(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score 95% interval of a proportion."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    den = 1 + z**2 / n
    mid = (p + z**2 / (2 * n)) / den
    half = z * np.sqrt(p * (1 - p) / n + z**2 / (4 * n**2)) / den
    return (float(max(0.0, mid - half)), float(min(1.0, mid + half)))
