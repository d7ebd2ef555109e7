"""benchmarks/reservoir_vs_reservoirpy.py at its tiny size: every configuration it names (one
reservoir, the 64-reservoir case as distinct matrices and as gains of one matrix, the memory
capacity parity) is in its JSON line with a figure."""

from __future__ import annotations

import pytest

from tests.benchmarks import run_benchmark

pytest.importorskip("reservoirpy")

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
    return run_benchmark("reservoir_vs_reservoirpy.py", "--tiny", timeout=300)


@pytest.mark.parametrize("name", FIGURES)
def test_every_configuration_has_a_figure(result: dict, name: str) -> None:
    assert isinstance(result[name], (int, float)) and result[name] > 0, (name, result[name])


def test_states_agree_and_load_is_named(result: dict) -> None:
    assert result["single_max_abs_diff_scipy"] < 1e-5  # float32 wirelab vs float64 reservoirpy
    assert result["reservoirs"] == 3 and result["steps"] == 200
    assert len(result["load_average"]) == 3
