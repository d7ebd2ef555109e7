"""benchmarks/attention_vs_torch.py at its tiny size: every torch configuration it names is in its
JSON line with a number, and each case's ratio is against the fastest of them."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from tests.benchmarks import run_benchmark

pytest.importorskip("torch")

REPO = Path(__file__).resolve().parents[2]
CASES = {
    "forward_no_weights": ["torch_module_train", "torch_module_eval", "torch_sdpa"],
    "forward_weights": ["torch_module_train", "torch_module_eval", "torch_sdpa"],
    "train_step_no_weights": ["torch_module_train", "torch_module_eval", "torch_sdpa"],
    "train_step_weights": ["torch_module_train", "torch_module_eval", "torch_sdpa"],
    "decode_cached": ["torch_sdpa_cache"],
}


@pytest.fixture(scope="module")
def result() -> dict:
    return run_benchmark("attention_vs_torch.py", "--tiny", "--threads", "1", timeout=120)


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_peer_configuration_has_a_figure(result: dict, case: str) -> None:
    row = result["mha"][case]
    for name in ["wirelab", *CASES[case]]:
        value = row[f"{name}_ms"]
        assert isinstance(value, (int, float)) and value > 0, (case, name, value)


@pytest.mark.parametrize("case", sorted(CASES))
def test_ratio_is_against_the_fastest_peer(result: dict, case: str) -> None:
    row = result["mha"][case]
    peers = {n: row[f"{n}_ms"] for n in CASES[case]}
    fastest = min(peers, key=peers.__getitem__)
    assert row["vs"] == fastest
    assert row["speedup"] == pytest.approx(peers[fastest] / row["wirelab_ms"], rel=0.05, abs=2e-3)


def test_nothing_refused_and_outputs_checked(result: dict) -> None:
    assert result["refused"] == {}
    assert result["decode"]["max_abs_diff_cached_vs_full"] < 1e-5
    assert result["kv_cache_ratio"] == {"4": 1.0, "2": 0.5, "1": 0.25}
    assert "loadavg_start" in result and "loadavg_end" in result


def test_no_ratio_against_a_weaker_configuration() -> None:
    spec = importlib.util.spec_from_file_location(
        "bench", REPO / "benchmarks/attention_vs_torch.py"
    )
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    configs = ["wirelab", "torch_module_train", "torch_module_eval", "torch_sdpa"]
    times = {"wirelab": 1.0, "torch_module_train": 2.0, "torch_module_eval": 3.0}  # no SDPA
    row = bench.report(times, configs, "forward_no_weights", {})
    assert row["speedup"] is None and row["vs"] is None
    assert "torch_sdpa" in row["refused"]
    row = bench.report({**times, "torch_sdpa": 1.5}, configs, "forward_no_weights", {})
    assert row["vs"] == "torch_sdpa" and row["speedup"] == 1.5
