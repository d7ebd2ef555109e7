"""benchmarks/logic_train_vs_torchlogix.py at its tiny size: every torchlogix configuration it
names (its `PARAMETRIZATIONS`) has a training-step time and a discrete images/s in its JSON
line, and both ratios are against the fastest configuration."""

from __future__ import annotations

import importlib.util

import pytest

from tests.benchmarks import run_benchmark
from tests.conftest import requires_mnist

pytest.importorskip("torch")

# torchlogix 0.2.2 does not import plainly on Python 3.11 (its circuit.py needs 3.12): look it up.
pytestmark = [
    requires_mnist,
    pytest.mark.skipif(
        importlib.util.find_spec("torchlogix") is None,
        reason="torchlogix not installed: make bench",
    ),
]
PARAMETRIZATIONS = ["raw", "warp", "light"]


@pytest.fixture(scope="module")
def result() -> dict:
    return run_benchmark("logic_train_vs_torchlogix.py", "--tiny", "--threads", "1", timeout=180)


def test_every_peer_configuration_has_a_figure(result: dict) -> None:
    assert sorted(result["torchlogix_configs"]) == sorted(PARAMETRIZATIONS)
    for name, row in result["torchlogix_configs"].items():
        assert row["step_s"] > 0 and row["discrete_images_per_s"] > 0, (name, row)
    assert result["wirelab_step_s"] > 0 and result["wirelab_discrete_images_per_s"] > 0
    assert "load" in result and result["tiny"] is True


def test_ratios_are_against_the_fastest_configuration(result: dict) -> None:
    rows = result["torchlogix_configs"]
    fastest = min(rows, key=lambda n: rows[n]["step_s"])
    assert result["vs"] == fastest
    assert result["torchlogix_step_s"] == rows[fastest]["step_s"]
    ratio = rows[fastest]["step_s"] / result["wirelab_step_s"]
    assert result["speedup"] == pytest.approx(ratio, rel=0.2, abs=0.01)
    best = max(rows, key=lambda n: rows[n]["discrete_images_per_s"])
    assert result["inference_vs"] == best
    assert result["torchlogix_discrete_images_per_s"] == rows[best]["discrete_images_per_s"]
