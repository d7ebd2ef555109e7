"""Fly body benchmark: milliseconds per physics step of NeuroMechFly, flygym 2 against flygym 1.

Same settings for every body: ``--steps`` physics steps (default 10,000 = 1 simulated s) of
1e-4 s under drive ``[1, 1]``, no rendering, no odor, after ``--warmup`` untimed steps (numba
compiles on the first step). One process, one core (run under ``OMP_NUM_THREADS=1``).

Under Python >= 3.12 (flygym 2.1.1) it measures

- ``lean``: `wirelab.fly.bodies.flygym2.Flygym2Body` (`HybridTurning` + `NmfWiring`), whole
  ``act`` per step; inside it ``physics`` (``mj_step``), ``controller`` (reading the sensors,
  `HybridTurning.step`, writing the actuators) and ``interface`` (the rest: signal check,
  Observation); ``controller_share = controller / lean``, ``nonphysics_share = (lean -
  physics) / lean``;
- ``demo``: flygym's own ``flygym_demo`` ``HybridTurningController`` as shipped (no output
  order given, so it rebuilds the joint order every step), wired as flygym does
  (``HybridControllerObservation.from_sim`` -> ``step`` -> ``apply_locomotion_action`` ->
  ``sim.step``); ``demo_dof_order``: the same with the actuator order passed once.

Under Python 3.11 (flygym 1.2.1) it measures today's ``FlygymBody`` (``flygym121``) and the
dm_control physics step inside it (``nonphysics_share``: controller and flygym's observation).

Prints ONE JSON line, with the 1-minute load average before and after (the machine is shared:
compare ratios measured in one run).
Usage: ``python benchmarks/fly_bodies.py [--steps 10000] [--warmup 200]``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections.abc import Callable
from importlib.metadata import version
from typing import Any

import numpy as np

DRIVE = np.array([1.0, 1.0])
DT = 1e-4


class Timed:
    """Wrap ``fn``, adding its wall time to ``seconds``."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn, self.seconds = fn, 0.0

    def __call__(self, *args: Any) -> Any:
        t0 = time.perf_counter()
        out = self.fn(*args)
        self.seconds += time.perf_counter() - t0
        return out


def _ms(seconds: float, steps: int) -> float:
    return round(seconds / steps * 1e3, 4)


def lean(steps: int, warmup: int) -> dict[str, float]:
    from wirelab.fly.bodies.flygym2 import Flygym2Body

    body = Flygym2Body(seed=0, timestep=DT)
    for _ in range(warmup):
        body.act(DRIVE)
    physics = Timed(body._step)
    parts = [(body.wiring, "sense"), (body.controller, "step"), (body.wiring, "actuate")]
    ctrl = [Timed(getattr(obj, name)) for obj, name in parts]
    body._step = physics  # type: ignore[method-assign]
    for (obj, name), timed in zip(parts, ctrl, strict=True):
        setattr(obj, name, timed)
    t0 = time.perf_counter()
    for _ in range(steps):
        body.act(DRIVE)
    total = time.perf_counter() - t0
    body.close()
    controller = sum(t.seconds for t in ctrl)
    return {
        "lean_ms_per_step": _ms(total, steps),
        "physics_ms_per_step": _ms(physics.seconds, steps),
        "controller_ms_per_step": _ms(controller, steps),
        "interface_ms_per_step": _ms(total - physics.seconds - controller, steps),
        "controller_share": round(controller / total, 4),
        "nonphysics_share": round((total - physics.seconds) / total, 4),
    }


def demo(steps: int, warmup: int, dof_order: bool) -> dict[str, float]:
    from flygym.compose import ActuatorType
    from flygym_demo.complex_terrain import (
        HybridControllerObservation,
        HybridTurningController,
        LocomotionAction,
        PreprogrammedSteps,
        apply_locomotion_action,
    )

    from wirelab.fly.bodies.flygym2 import build_simulation

    sim = build_simulation((0.0, 0.0), 0.0, DT)
    fly = sim.world.fly
    dofs = fly.get_actuated_jointdofs_order(ActuatorType.POSITION)
    pre = PreprogrammedSteps()
    order = dofs if dof_order else None
    ctrl = HybridTurningController(timestep=DT, preprogrammed_steps=pre, output_dof_order=order)
    sim.reset()
    ctrl.reset(seed=0)
    neutral = LocomotionAction(pre.default_pose_by_dof_order(dofs), np.ones(6, dtype=bool))
    apply_locomotion_action(sim, fly.name, neutral)
    sim.warmup()
    physics = Timed(sim.step)

    def step() -> None:
        obs = HybridControllerObservation.from_sim(sim, fly.name)
        apply_locomotion_action(sim, fly.name, ctrl.step(DRIVE, obs))
        physics()

    for _ in range(warmup):
        step()
    physics.seconds = 0.0
    t0 = time.perf_counter()
    for _ in range(steps):
        step()
    total = time.perf_counter() - t0
    key = "demo_dof_order" if dof_order else "demo"
    return {
        f"{key}_ms_per_step": _ms(total, steps),
        f"{key}_physics_ms": _ms(physics.seconds, steps),
    }


def flygym121(steps: int, warmup: int) -> dict[str, float]:
    try:
        from wirelab.fly.bodies.flygym1 import FlygymBody  # type: ignore[import-not-found]
    except ImportError:
        from wirelab.fly.flygym_body import FlygymBody

    body = FlygymBody(seed=0, timestep=DT)
    for _ in range(warmup):
        body.act(DRIVE)
    physics = body.sim.physics
    timed = Timed(physics.step)
    physics.step = timed
    t0 = time.perf_counter()
    for _ in range(steps):
        body.act(DRIVE)
    total = time.perf_counter() - t0
    body.close()
    return {
        "flygym121_ms_per_step": _ms(total, steps),
        "physics_ms_per_step": _ms(timed.seconds, steps),
        "nonphysics_share": round((total - timed.seconds) / total, 4),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=10_000, help="timed physics steps")
    parser.add_argument("--warmup", type=int, default=200, help="untimed steps first")
    args = parser.parse_args()
    os.environ.setdefault("MUJOCO_GL", "osmesa")
    t_start = time.perf_counter()
    row: dict[str, Any] = {
        "benchmark": "fly_bodies",
        "python": platform.python_version(),
        "flygym": version("flygym"),
        "mujoco": version("mujoco"),
        "steps": args.steps,
        "timestep": DT,
        "drive": DRIVE.tolist(),
        "load_1min_start": round(os.getloadavg()[0], 2),
    }
    if sys.version_info >= (3, 12):
        row.update(lean(args.steps, args.warmup))
        row.update(demo(args.steps, args.warmup, dof_order=True))
        row.update(demo(args.steps, args.warmup, dof_order=False))
        row["speedup_vs_demo"] = round(row["demo_ms_per_step"] / row["lean_ms_per_step"], 2)
        row["speedup_vs_demo_dof_order"] = round(
            row["demo_dof_order_ms_per_step"] / row["lean_ms_per_step"], 2
        )
        row["targets"] = {"speedup_vs_demo": 3, "controller_share": 0.2}
    else:
        row.update(flygym121(args.steps, args.warmup))
    row["seconds"] = round(time.perf_counter() - t_start, 1)
    row["load_1min_end"] = round(os.getloadavg()[0], 2)
    print(json.dumps(row))


if __name__ == "__main__":
    main()
