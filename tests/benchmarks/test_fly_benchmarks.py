"""benchmarks/fly_bodies.py and benchmarks/fly_controller.py at a tiny size, in the fly environment
(flygym 2): every body configuration each one names is in its JSON line with a figure."""

from __future__ import annotations

import pytest

from tests.benchmarks import run_benchmark
from wirelab.fly.envs import fly_python

FLY = fly_python()
pytestmark = pytest.mark.skipif(
    FLY is None, reason="needs the fly environment (.venv-fly, flygym 2: make fly-env)"
)


def _run(script: str, *args: str) -> dict:
    assert FLY is not None
    return run_benchmark(script, *args, python=FLY)


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
