"""Calibrate the kinematic body against NeuroMechFly (flygym) runs.

Protocol (``wirelab fly calibrate --body NAME``): for each constant descending signal ``[L, R]``
of a grid, walk the NeuroMechFly body ``NAME`` (default ``flygym``, flygym 2 with the hybrid
turning controller; ``flygym1``, flygym 1.2.1's ``HybridTurningController``) on flat ground for
``duration`` seconds, drop the first ``settle`` seconds (landing, CPG start-up), and measure

- yaw rate ``omega = (heading(T) - heading(settle)) / (T - settle)`` (rad/s, CCW positive);
- forward speed ``v`` = path length of the thorax sampled once per stride (1/12 s, the CPG
  frequency) over the same window / time, so that the within-stride sway does not count.

Then fit the kinematic model (see `wirelab.fly.bodies.kinematic`) by least squares through the
origin: ``v = v_gain * (L + R) / 2`` and ``omega = w_gain * (R - L)``, and report R^2 of each
fit. The antenna offsets (forward, lateral, in the fly frame) and height come from the body's
``antennae()`` (``(2, 3)`` world positions of the left and right antenna) over a short walk; a
body that can be calibrated is one that reports them (`calibration_bodies`). ``tau = 1 / 20`` s
is the CPG amplitude convergence of the hybrid turning controller (``convergence_coefs = 20``).
The result, with the command and the raw runs, is ``calibration.json`` beside this module; the
kinematic body loads it. `run` is decorated with `wirelab.fly.envs.in_fly_env`: typed in the
main environment with a body of the fly environment, it runs there.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from wirelab.errors import UsageError
from wirelab.fly.bodies.base import Body
from wirelab.fly.envs import in_fly_env
from wirelab.fly.limits import check_magnitude, check_seconds

DEFAULT_BODY = "flygym"
DEFAULT_GRID: tuple[tuple[float, float], ...] = (
    (1.0, 1.0),
    (0.6, 0.6),
    (1.2, 0.4),
    (0.4, 1.2),
    (1.0, 0.6),
    (0.6, 1.0),
)
STRIDE = 1.0 / 12.0  # s, HybridTurningController intrinsic_freqs = 12 Hz
CPG_TAU = 1.0 / 20.0  # s, HybridTurningController convergence_coefs = 20


@cache
def load_calibration() -> dict[str, Any]:
    """The stored calibration (``calibration.json`` beside this module)."""
    text = resources.files("wirelab.fly.bodies").joinpath("calibration.json").read_text()
    return dict(json.loads(text))


def calibration_bodies() -> list[str]:
    """The registered bodies a calibration can measure: those reporting ``antennae()``."""
    from wirelab.fly.bodies import BODIES, body_class

    return [n for n in BODIES.names() if callable(getattr(body_class(n), "antennae", None))]


def check_body(body: str) -> type[Body]:
    """The registered body class ``body``, or a one-line `UsageError` when it cannot be
    calibrated against (no ``antennae()``: not a simulated NeuroMechFly)."""
    from wirelab.fly.bodies import body_class

    cls = body_class(body)
    if not callable(getattr(cls, "antennae", None)):
        choices = " or ".join(calibration_bodies())
        raise UsageError(f"calibration needs a NeuroMechFly body (--body {choices}), not {body!r}")
    return cls


def physics_body(body: str, **kwargs: Any) -> Body:
    """A body of the registered kind ``body`` (`check_body`) built with ``kwargs``."""
    return check_body(body)(**kwargs)


def measure_run(
    left: float,
    right: float,
    duration: float,
    settle: float,
    seed: int = 0,
    timestep: float = 1e-4,
    body: str = DEFAULT_BODY,
) -> dict[str, float]:
    """One run of ``body`` with a constant signal; returns ``v`` (mm/s) and ``omega`` (rad/s)."""
    fly = physics_body(body, seed=seed, timestep=timestep)
    try:
        n = round(duration / fly.dt)
        every = max(1, round(STRIDE / fly.dt))
        t0 = round(settle / fly.dt)
        xy, heading = [], []
        for i in range(1, n + 1):
            obs = fly.act(np.array([left, right]))
            if i >= t0 and (i - t0) % every == 0:
                xy.append(obs.position)
                heading.append(float(obs.heading))
    finally:
        fly.close()
    pts = np.array(xy)  # (S, 2)
    span = (len(pts) - 1) * every * fly.dt
    path = float(np.sum(np.linalg.norm(np.diff(pts, axis=0), axis=1)))
    return {
        "left": left,
        "right": right,
        "v": path / span,
        "omega": (heading[-1] - heading[0]) / span,
        "displacement": float(np.linalg.norm(pts[-1] - pts[0])),
        "heading_change_deg": float(np.degrees(heading[-1] - heading[0])),
    }


def measure_antennae(
    duration: float = 0.2, seed: int = 0, body: str = DEFAULT_BODY
) -> dict[str, float]:
    """Antenna offsets in the fly frame (forward, lateral; mm) and height, averaged over the
    second half of a walk with drives ``[1, 1]``: from ``antennae()`` ``(2, 3)`` [left, right]
    world positions, ``forward = mean_a (a_xy - p) . f``, ``lateral = (a_L - a_R)_xy . l / 2``
    with ``p`` the body's position, ``f``, ``l`` its forward and left axes."""
    from wirelab.fly.odor import OdorSource

    fly = physics_body(body, seed=seed, odor=OdorSource((50.0, 0.0)))
    fwd, lat, z = [], [], []
    try:
        for _ in range(round(duration / fly.dt)):
            obs = fly.act(np.array([1.0, 1.0]))
            ant = np.asarray(fly.antennae())  # type: ignore[attr-defined]  # (2, 3) [L, R] xyz
            h = float(obs.heading)
            f_axis, l_axis = np.array([np.cos(h), np.sin(h)]), np.array([-np.sin(h), np.cos(h)])
            rel = ant[:, :2] - obs.position  # (2, 2)
            fwd.append(float(np.mean(rel @ f_axis)))
            lat.append(float((rel[0] - rel[1]) @ l_axis / 2))
            z.append(float(np.mean(ant[:, 2])))
    finally:
        fly.close()
    half = len(fwd) // 2  # second half: after landing
    return {
        "antenna_forward": float(np.mean(fwd[half:])),
        "antenna_lateral": float(np.mean(lat[half:])),
        "antenna_z": float(np.mean(z[half:])),
    }


def fit(runs: Sequence[dict[str, float]]) -> dict[str, float]:
    """Least-squares gains through the origin and their R^2 (see module docstring)."""
    mean = np.array([(r["left"] + r["right"]) / 2 for r in runs])
    diff = np.array([r["right"] - r["left"] for r in runs])
    v = np.array([r["v"] for r in runs])
    w = np.array([r["omega"] for r in runs])
    v_gain = float(mean @ v / (mean @ mean))
    w_gain = float(diff @ w / (diff @ diff))

    def r2(y: np.ndarray, yhat: np.ndarray) -> float:
        return float(1 - np.sum((y - yhat) ** 2) / np.sum((y - y.mean()) ** 2))

    return {
        "v_gain": v_gain,
        "w_gain": w_gain,
        "v_r2": r2(v, v_gain * mean),
        "omega_r2": r2(w, w_gain * diff),
    }


def calibrate(
    grid: Sequence[tuple[float, float]] = DEFAULT_GRID,
    duration: float = 1.0,
    settle: float = 0.2,
    progress: Callable[[str], None] | None = None,
    body: str = DEFAULT_BODY,
) -> dict[str, Any]:
    """Run the grid on ``body``, fit, and return the content of ``calibration.json``."""
    t0 = time.perf_counter()
    runs = []
    for left, right in grid:
        runs.append(measure_run(left, right, duration, settle, body=body))
        if progress:
            progress(f"L={left} R={right}: {runs[-1]}")
    antennae = measure_antennae(body=body)
    gains = fit(runs)
    return {
        "kinematic": {
            "v_gain": gains["v_gain"],
            "w_gain": gains["w_gain"],
            "tau": CPG_TAU,
            "antenna_forward": antennae["antenna_forward"],
            "antenna_lateral": antennae["antenna_lateral"],
        },
        "measurement": {
            "command": (
                f"wirelab fly calibrate --body {body} --duration {duration} --settle {settle} "
                "--grid "
                + ";".join(f"{a:g},{b:g}" for a, b in grid)
                + " --write src/wirelab/fly/bodies/calibration.json"
            ),
            "body": body,
            "flygym_timestep": 1e-4,
            "duration_s": duration,
            "settle_s": settle,
            "fit": gains,
            "antennae": antennae,
            "runs": runs,
            "wall_s": time.perf_counter() - t0,
            "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        },
    }


def parse_grid(text: str) -> tuple[tuple[float, float], ...]:
    """``"1,1;1.2,0.4"`` -> ``((1.0, 1.0), (1.2, 0.4))``; anything else is a `UsageError`."""
    try:
        pairs = tuple((float(a), float(b)) for a, b in (p.split(",") for p in text.split(";") if p))
    except ValueError:
        raise UsageError(f"--grid must look like '1,1;1.2,0.4', got {text!r}") from None
    if not pairs or not all(math.isfinite(v) for p in pairs for v in p):
        raise UsageError(f"--grid must look like '1,1;1.2,0.4', got {text!r}")
    for v in (v for p in pairs for v in p):
        check_magnitude(v, "--grid")
    return pairs


@dataclass(frozen=True)
class CalibrateConfig:
    """Seconds per flygym run, seconds dropped at its start, the signal grid ``[(L, R), ...]``,
    where to write the calibration JSON besides the result directory (None: nowhere), and the
    NeuroMechFly body measured (a name of `wirelab.fly.bodies.BODIES`)."""

    duration: float = 0.8
    settle: float = 0.2
    grid: tuple[tuple[float, float], ...] = DEFAULT_GRID
    write: Path | None = None
    body: str = DEFAULT_BODY

    def __post_init__(self) -> None:
        if not (math.isfinite(self.duration) and math.isfinite(self.settle)) or not (
            self.duration > self.settle >= 0
        ):
            raise UsageError("--duration must exceed --settle >= 0")
        runs = len(self.grid)  # one run per signal pair, one after another
        check_seconds(self.duration * runs, f"--duration x {runs} signal pairs", self.body)
        if not self.grid:
            raise UsageError("--grid needs at least one signal pair")


@in_fly_env
def run(
    config: CalibrateConfig, out: Path, *, overwrite: bool = False, progress: bool = True
) -> dict[str, Any]:
    """`calibrate` into the result directory ``out`` (``metrics.json`` holds what
    ``calibration.json`` holds), and into ``config.write`` when given. Returns the metrics."""
    from wirelab.progress import progress_bar
    from wirelab.results import experiment, write_json

    check_body(config.body)
    cfg = {
        "duration": config.duration,
        "settle": config.settle,
        "grid": [list(p) for p in config.grid],
        "write": config.write,
        "body": config.body,
    }
    with experiment(out, command="wirelab fly calibrate", config=cfg, overwrite=overwrite) as rd:
        label = f"calibrate ({config.body})"
        with progress_bar(label, total=len(config.grid), show=progress) as bar:
            result = calibrate(
                config.grid,
                config.duration,
                config.settle,
                progress=lambda _: bar.advance(),
                body=config.body,
            )
        if config.write is not None:
            write_json(config.write, result)
        return rd.finish(result)
