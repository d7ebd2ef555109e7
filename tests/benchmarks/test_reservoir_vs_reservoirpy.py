"""benchmarks/reservoir_vs_reservoirpy.py at its tiny size: every configuration it names (one
reservoir, the 64-reservoir case as distinct matrices and as gains of one matrix, the memory
capacity parity) is in its JSON line with a figure."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("reservoirpy")

REPO = Path(__file__).resolve().parents[2]
FIGURES = [
    "single_reservoirpy_steps_per_s",
    "single_wirelab_scipy_steps_per_s",
    "single_ratio",
    "many_reservoirpy_s",
    "many_wirelab_block_scipy_s",
    "many_wirelab_gains_scipy_s",
    "many_ratio_distinct_matrices",
    "many_ratio_shared_matrix",
    "mc_reservoirpy",
    "mc_wirelab",
]


@pytest.fixture(scope="module")
def result() -> dict:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    proc = subprocess.run(
        [sys.executable, "benchmarks/reservoir_vs_reservoirpy.py", "--tiny"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 1, proc.stdout
    return json.loads(lines[0])


@pytest.mark.parametrize("name", FIGURES)
def test_every_configuration_has_a_figure(result: dict, name: str) -> None:
    assert isinstance(result[name], (int, float)) and result[name] > 0, (name, result[name])


def test_states_agree_and_load_is_named(result: dict) -> None:
    assert result["single_max_abs_diff_scipy"] < 1e-5  # float32 wirelab vs float64 reservoirpy
    assert result["reservoirs"] == 3 and result["steps"] == 200
    assert len(result["load_average"]) == 3
