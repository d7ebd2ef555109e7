"""Fly controller benchmark: controller share of a flygym physics step; kinematic vs flygym speed.

Measured side by side in one process:

- flygym: ``HybridTurningController`` physics steps (no rendering) while the connectome controller
  updates every K = 20 steps (reservoir step + DN readout + fixed mapping); the controller's time
  per physics step divided by the physics time per step is ``controller_share`` (target < 5%);
- kinematic body: wall seconds per simulated second (single fly, dt = 1 ms), against flygym's
  wall seconds per simulated second (timestep 1e-4 s): ``kinematic_speedup`` (target >= 1000).

Prints ONE JSON line. Usage: ``python benchmarks/fly_controller.py [--steps 600] [--body NAME]``:
in the fly environment (.venv-fly) it measures the flygym 2 body, in the main one flygym 1.2.1.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=600, help="timed flygym physics steps")
    parser.add_argument("--update-steps", type=int, default=20)
    parser.add_argument(
        "--body",
        default=None,
        help="flygym body (default: flygym in the fly environment, else flygym1)",
    )
    args = parser.parse_args()

    from wirelab.data import load_larva
    from wirelab.fly.bodies import body_class
    from wirelab.fly.bodies.kinematic import KinematicBody
    from wirelab.fly.controller import ConnectomeController, ControllerConfig
    from wirelab.fly.envs import flygym2_here
    from wirelab.fly.mapping import FixedMapping

    body_name = args.body or ("flygym" if flygym2_here() else "flygym1")

    load_before = os.getloadavg()[0]
    con = load_larva()
    cfg = ControllerConfig(modality="olfactory", normalize="row", update_steps=args.update_steps)
    ctrl = ConnectomeController(con, cfg, batch=1)
    mapping = FixedMapping()
    body = body_class(body_name)(seed=0)
    k = ctrl.steps_per_update(body.dt)
    u = np.array([[1.0, 0.0]])
    signal = np.array([1.0, 1.0])
    for _ in range(200):  # landing and warm-up, untimed
        body.act(signal)
    ctrl_time = phys_time = 0.0
    for i in range(args.steps):
        if i % k == 0:
            t0 = time.perf_counter()
            dn, feats = ctrl.update(u)
            signal = mapping(dn, feats)[0]
            ctrl_time += time.perf_counter() - t0
        t0 = time.perf_counter()
        body.act(signal)
        phys_time += time.perf_counter() - t0
    body.close()
    flygym_step = phys_time / args.steps
    flygym_per_sim_s = flygym_step / body.dt

    kin = KinematicBody(dt=1e-3)
    sim_s = 20.0
    n = round(sim_s / kin.dt)
    sig = np.array([1.2, 0.8])
    t0 = time.perf_counter()
    for _ in range(n):
        kin.act(sig)
    kin_per_sim_s = (time.perf_counter() - t0) / sim_s

    print(
        json.dumps(
            {
                "benchmark": "fly_controller",
                "body": body_name,
                "python": sys.version.split()[0],
                "load_before": round(load_before, 2),
                "load_after": round(os.getloadavg()[0], 2),
                "flygym_steps": args.steps,
                "update_every_k_steps": k,
                "flygym_step_ms": round(flygym_step * 1e3, 4),
                "controller_ms_per_update": round(ctrl_time / max(1, -(-args.steps // k)) * 1e3, 4),
                "controller_ms_per_physics_step": round(ctrl_time / args.steps * 1e3, 5),
                "controller_share": round(ctrl_time / phys_time, 5),
                "controller_share_target": 0.05,
                "flygym_wall_s_per_sim_s": round(flygym_per_sim_s, 3),
                "kinematic_wall_s_per_sim_s": round(kin_per_sim_s, 6),
                "kinematic_speedup": round(flygym_per_sim_s / kin_per_sim_s, 1),
                "kinematic_speedup_target": 1000,
            }
        )
    )


if __name__ == "__main__":
    main()
