"""benchmarks/memory_roofline.py at its tiny size: the bytes model, both bandwidths, the limits
and the engine's figures are in its JSON line, and the limit is bytes over bandwidth."""

from __future__ import annotations

import pytest

from tests.benchmarks import run_benchmark

pytest.importorskip("torch")


@pytest.fixture(scope="module")
def result() -> dict:
    return run_benchmark("memory_roofline.py", "--tiny", timeout=300)


def test_bytes_model(result: dict) -> None:
    n, nnz, c = result["neurons"], result["edges"], result["columns"]
    w_bytes = nnz * 12 + (n + 1) * 4
    assert result["w_bytes"] == w_bytes
    assert result["bytes_per_column_step"] == round(w_bytes / c + 16 * n)


@pytest.mark.parametrize("where", ["dram", "cache"])
def test_limit_is_bytes_over_bandwidth(result: dict, where: str) -> None:
    gbs = result["dram_gb_s" if where == "dram" else "working_set_gb_s"]
    limits = result[f"limit_us_per_column_step_{where}"]
    for name in ("copy", "add"):
        assert gbs[name] > 0
        expected = result["bytes_per_column_step"] / (gbs[name] * 1e9) * 1e6
        assert limits[name] == pytest.approx(expected, rel=0.02, abs=0.02)


def test_engine_figures_and_load(result: dict) -> None:
    assert result["engine_us_per_column_step"] > 0 and result["product_us_per_column_step"] > 0
    assert result["engine_over_dram_limit"] > 0
    assert len(result["load_average"]) == 3
