"""benchmarks/fly_bodies.py and benchmarks/fly_controller.py at a tiny size, in the fly environment
(flygym 2): every body configuration each one names is in its JSON line with a figure."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from wirelab.fly.envs import fly_python

REPO = Path(__file__).resolve().parents[2]
FLY = fly_python()
pytestmark = pytest.mark.skipif(
    FLY is None, reason="needs the fly environment (.venv-fly, flygym 2: make fly-env)"
)


def _run(script: str, *args: str) -> dict:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MUJOCO_GL": "osmesa"}
    proc = subprocess.run(
        [str(FLY), f"benchmarks/{script}", *args],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 1, proc.stdout
    return json.loads(lines[0])


def test_fly_bodies_names_every_body_configuration() -> None:
    row = _run("fly_bodies.py", "--steps", "20", "--warmup", "2")
    for name in ["lean", "physics", "demo", "demo_dof_order"]:
        value = row[f"{name}_ms_per_step"]
        assert isinstance(value, (int, float)) and value > 0, (name, value)
    assert row["speedup_vs_demo"] == pytest.approx(
        row["demo_ms_per_step"] / row["lean_ms_per_step"], rel=0.02, abs=0.01
    )
    assert "load_1min_start" in row and "load_1min_end" in row


def test_fly_controller_names_both_bodies() -> None:
    row = _run("fly_controller.py", "--steps", "40", "--update-steps", "20")
    assert row["body"] == "flygym"
    for key in ["flygym_wall_s_per_sim_s", "kinematic_wall_s_per_sim_s", "controller_share"]:
        assert isinstance(row[key], (int, float)) and row[key] > 0, (key, row[key])
    assert "load_before" in row and "load_after" in row
