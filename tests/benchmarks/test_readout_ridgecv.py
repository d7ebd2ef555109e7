"""benchmarks/readout_ridgecv.py at its tiny size: every larval table row (task x network) is in
its JSON line with both sides' scores, times and lambdas, and the verdicts follow from them."""

from __future__ import annotations

import pytest

from tests.benchmarks import run_benchmark
from tests.conftest import requires_larva

pytest.importorskip("sklearn")

TASKS = ["memory-capacity", "narma10", "mackey-glass", "lorenz", "decision"]
NETWORKS = ["connectome", "degree", "random-esn"]


@pytest.fixture(scope="module")
def result() -> dict:
    return run_benchmark("readout_ridgecv.py", "--tiny", timeout=300)


@requires_larva
@pytest.mark.parametrize("task", TASKS)
@pytest.mark.parametrize("network", NETWORKS)
def test_every_row_has_both_sides(result: dict, task: str, network: str) -> None:
    row = result["rows"][f"{task}/{network}"]
    for side in ["wirelab", "sklearn"]:
        assert isinstance(row[f"{side}_score"], float), (side, row)
        assert row[f"{side}_s"] > 0 and row[f"{side}_lambda"] >= 0, (side, row)
    assert row["speedup"] == pytest.approx(row["sklearn_s"] / row["wirelab_s"])
    a, b = row["wirelab_score"], row["sklearn_score"]
    sign = 1.0 if row["higher_is_better"] else -1.0
    assert row["better_or_equal"] == (sign * (a - b) >= -1e-4 * abs(b))


@requires_larva
def test_the_peers_and_totals_are_named(result: dict) -> None:
    assert set(result["peers"]) == {"sklearn", "sklearn_classifier"}
    assert result["networks"] == NETWORKS
    assert len(result["rows"]) == len(TASKS) * len(NETWORKS)
    assert result["all_better_or_equal"] == all(
        r["better_or_equal"] for r in result["rows"].values()
    )
    assert result["min_speedup"] == min(r["speedup"] for r in result["rows"].values())
    assert "load_average_before" in result and "load_average_after" in result


@requires_larva
def test_the_exact_solver_is_wirelabs_side_with_solver_exact(result: dict) -> None:
    """``--solver exact``: recorded, every asked row on both sides, scikit-learn's side the same
    and wirelab's scored by the exact solver (its scores are not the fast default's)."""
    rows = ["lorenz/connectome", "mackey-glass/connectome"]
    args = ["--tiny", "--solver", "exact", "--tasks", "lorenz,mackey-glass"]
    exact = run_benchmark("readout_ridgecv.py", *args, timeout=300)
    assert result["solver"] == "fast" and exact["solver"] == "exact"
    assert set(rows) <= set(exact["rows"]) and len(exact["rows"]) == 6
    for row in rows:
        assert exact["rows"][row]["sklearn_score"] == result["rows"][row]["sklearn_score"]
    scores = [(exact["rows"][r]["wirelab_score"], result["rows"][r]["wirelab_score"]) for r in rows]
    assert any(a != b for a, b in scores)
