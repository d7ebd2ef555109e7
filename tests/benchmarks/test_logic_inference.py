"""benchmarks/logic_inference.py at its tiny size: every peer it names (PyTorch's hard mode and
torchlogix's compiled circuit) has an images/s figure in its JSON line, the C and torchlogix
outputs agree with wirelab's, and the torchlogix ratio is computed from those figures."""

from __future__ import annotations

import importlib.util
import shutil

import pytest

from tests.benchmarks import run_benchmark
from tests.conftest import requires_mnist

pytest.importorskip("torch")

# torchlogix 0.2.2 does not import plainly on Python 3.11 (its circuit.py needs 3.12): look it up.
pytestmark = [
    requires_mnist,
    pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc for the compiled circuits"),
    pytest.mark.skipif(
        importlib.util.find_spec("torchlogix") is None,
        reason="torchlogix not installed: make bench",
    ),
]
PEERS = ["torch_hard", "torchlogix_compiled"]


@pytest.fixture(scope="module")
def result() -> dict:
    return run_benchmark("logic_inference.py", "--tiny", timeout=240)


def test_every_peer_has_a_figure(result: dict) -> None:
    assert sorted(result["peers"]) == sorted(PEERS)
    for name in PEERS:
        value = result["peers"][name]
        assert isinstance(value, int) and value > 0, (name, value)
    assert "refused" not in result and result["images"] == 1024


def test_outputs_agree_and_ratios_come_from_the_figures(result: dict) -> None:
    assert all(layout["agrees_with_torch"] for layout in result["c"].values())
    assert result["torchlogix"]["agrees_with_wirelab"] is True
    c_rate, peers = result["c_images_per_s"], result["peers"]
    assert result["ratio_c_vs_torchlogix"] == pytest.approx(
        c_rate / peers["torchlogix_compiled"], rel=0.01
    )
    assert result["ratio_c_vs_torch"] == pytest.approx(c_rate / peers["torch_hard"], rel=0.01)
