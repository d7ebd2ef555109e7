"""Is a larger flygym physics step good enough? Compare it with 1e-4 s on calibration drives.

For each constant drive ``[L, R]`` the NeuroMechFly body (``body``: default ``flygym``, flygym 2;
``flygym1``, flygym 1.2.1) walks ``duration`` s with the reference step and with the candidate
step (same seed), and `wirelab.fly.bodies.calibration.measure_run` measures the forward speed
``v`` and yaw rate ``omega`` after ``settle`` s. The candidate passes when, for every drive,

    |v - v_ref| <= tol * |v_ref|     and     |omega - omega_ref| <= tol * max(|omega_ref|, w_min)

``w_min``, the largest reference yaw rate of the grid, is the scale for the straight drives,
whose own reference yaw rate is about zero. Every run is a job of the study executor
(`wirelab.parallel`).
`run` is decorated with `wirelab.fly.envs.in_fly_env`: typed in the main environment with a body
of the fly environment, the whole validation runs there.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from wirelab.errors import UsageError
from wirelab.fly.bodies.calibration import DEFAULT_BODY, check_body, measure_run
from wirelab.fly.envs import in_fly_env
from wirelab.parallel import ExecOptions, Job, map_jobs
from wirelab.results import experiment

VALIDATION_GRID: tuple[tuple[float, float], ...] = ((1.0, 1.0), (1.2, 0.4), (0.4, 1.2))
REFERENCE = 1e-4


def _measure(args: tuple[float, float, float, float, int, float, str]) -> dict[str, float]:
    t0 = time.perf_counter()
    left, right, duration, settle, seed, timestep, body = args
    r = measure_run(left, right, duration, settle, seed=seed, timestep=timestep, body=body)
    r["timestep"] = timestep
    r["wall_s"] = time.perf_counter() - t0
    return r


def validate_timestep(
    timestep: float,
    grid: Sequence[tuple[float, float]] = VALIDATION_GRID,
    duration: float = 0.8,
    settle: float = 0.2,
    tol: float = 0.05,
    seed: int = 0,
    options: ExecOptions | None = None,
    body: str = DEFAULT_BODY,
    show: bool = True,
) -> dict[str, Any]:
    """Per drive the reference and candidate ``v``/``omega``, their relative errors and ``ok``."""
    check_body(body)
    steps = (REFERENCE, timestep)
    jobs = [(l_, r_, duration, settle, seed, ts, body) for l_, r_ in grid for ts in steps]
    named = [Job(f"[{j[0]:g}, {j[1]:g}] step {j[5]:g}", _measure, (j,)) for j in jobs]
    res = map_jobs(named, options or ExecOptions(), label="timestep runs", show=show)
    ref, cand = res[0::2], res[1::2]
    w_min = max(abs(r["omega"]) for r in ref)
    rows = []
    for a, b in zip(ref, cand, strict=True):
        dv = abs(b["v"] - a["v"]) / abs(a["v"])
        dw = abs(b["omega"] - a["omega"]) / max(abs(a["omega"]), w_min)
        rows.append(
            {
                "left": a["left"],
                "right": a["right"],
                "v_ref": a["v"],
                "v": b["v"],
                "omega_ref": a["omega"],
                "omega": b["omega"],
                "v_rel_error": dv,
                "omega_rel_error": dw,
                "wall_s_ref": a["wall_s"],
                "wall_s": b["wall_s"],
                "ok": bool(dv <= tol and dw <= tol),
            }
        )
    return {
        "body": body,
        "timestep": timestep,
        "reference": REFERENCE,
        "tol": tol,
        "rows": rows,
        "ok": all(r["ok"] for r in rows),
    }


@dataclass(frozen=True)
class TimestepConfig:
    """``wirelab fly timestep``: the candidate step, how long each drive walks, the tolerance,
    the worker processes and the NeuroMechFly body (a name of `wirelab.fly.bodies.BODIES`)."""

    timestep: float = 2e-4
    duration: float = 0.8
    settle: float = 0.2
    tol: float = 0.05
    seed: int = 0
    workers: int | None = None
    backend: str = "local"
    address: str | None = None
    body: str = DEFAULT_BODY

    def executor(self) -> ExecOptions:
        """Where the runs go (``--workers`` checked against memory for a flygym body)."""
        from wirelab.fly.bodies import executor

        return executor(self.body, self.workers, self.backend, self.address)

    def validate(self) -> None:
        if not 1e-5 <= self.timestep <= 1e-3:
            raise UsageError(f"timestep must be in [1e-5, 1e-3] s, got {self.timestep:g}")
        if not 0.0 <= self.settle < self.duration:
            raise UsageError("settle must be >= 0 and shorter than duration")
        if not 0.0 < self.tol <= 1.0:
            raise UsageError(f"tol must be in (0, 1], got {self.tol:g}")
        check_body(self.body)
        self.executor()


@in_fly_env
def run(cfg: TimestepConfig, out: Path, *, overwrite: bool = False) -> dict[str, Any]:
    """The validation as a result directory (``metrics.json``: the rows and ``ok``)."""
    cfg.validate()
    with experiment(
        out, command="wirelab fly timestep", config=asdict(cfg), overwrite=overwrite
    ) as rd:
        r = validate_timestep(
            cfg.timestep,
            duration=cfg.duration,
            settle=cfg.settle,
            tol=cfg.tol,
            seed=cfg.seed,
            options=cfg.executor(),
            body=cfg.body,
        )
        return rd.finish(r)
