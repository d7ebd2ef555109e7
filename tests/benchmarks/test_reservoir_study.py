"""benchmarks/reservoir_study.py at its tiny size: every reservoirpy configuration it names
(NumPy backend, JAX backend with each W format probed) is in its JSON line with a figure, or
named as refused with the reason; the ratio is against the faster configuration."""

from __future__ import annotations

import pytest

from tests.benchmarks import run_benchmark

pytest.importorskip("reservoirpy")

PEERS = ["reservoirpy_numpy", "reservoirpy_jax"]
FIGURES = ["cpu_s", "reservoir_cpu_s", "readout_cpu_s", "ratio", "max_abs_state_diff"]


@pytest.fixture(scope="module")
def result() -> dict:
    return run_benchmark("reservoir_study.py", "--tiny", timeout=300)


@pytest.mark.parametrize("peer", PEERS)
def test_every_peer_configuration_has_a_figure_or_a_reason(result: dict, peer: str) -> None:
    if peer in result["refused"]:
        reason = result["refused"][peer]
        assert isinstance(reason, str) and reason and "\n" not in reason
        assert peer not in result["peers"]
        return
    row = result["peers"][peer]
    for name in FIGURES:
        assert isinstance(row[name], (int, float)), (peer, name, row[name])
    assert row["cpu_s"] > 0
    assert row["max_abs_state_diff"] < 1e-12  # the same states, float64 on both sides


def test_jax_formats_probed_when_jax_runs(result: dict) -> None:
    if "reservoirpy_jax" in result["refused"]:
        assert result["reservoirpy_jax_ms_per_step"] == {}
        return
    formats = result["reservoirpy_jax_ms_per_step"]
    assert set(formats) == {"bcoo", "bcsr", "dense"}
    assert all(v > 0 for v in formats.values())


def test_ratio_is_against_the_faster_peer(result: dict) -> None:
    peers = result["peers"]
    fastest = min(peers, key=lambda name: peers[name]["cpu_s"])
    assert result["vs"] == fastest
    assert result["ratio"] == peers[fastest]["ratio"]
    assert result["ratio"] == pytest.approx(
        peers[fastest]["cpu_s"] / result["wirelab_cpu_s"], rel=0.1
    )
    assert len(result["load_average"]) == 3
