"""benchmarks/scale.py at a tiny size: the whole-brain study (a generated 2,000-neuron brain,
annotation-selected populations, one degree null, named with --null-model) prints one JSON line
with every figure named in docs/scale.md, and the cost model's fields."""

from __future__ import annotations

from tests.benchmarks import run_benchmark


def test_the_brain_study_names_its_figures() -> None:
    row = run_benchmark("scale.py", "brain", "--tiny", timeout=300)
    assert row["study"] == "brain" and row["tiny"] is True
    assert (row["neurons"], row["edges"]) == (2000, 40000)
    assert "--outputs descending" in row["command"] and "--connectome" in row["command"]
    # the family docs/scale.md measured, named: not the default's two (degree, degree-boundary)
    assert "--nulls 1 --null-model degree " in row["command"]
    for key in ("generate_s", "load_s", "load_reference_s", "wall_1_s", "wall_2_s"):
        assert isinstance(row[key], (int, float)) and row[key] > 0, key
    for key in ("peak_rss_1_mb", "peak_rss_2_mb", "estimate_mb", "serial_s", "pool_startup_s"):
        assert isinstance(row[key], (int, float)) and row[key] > 0, key
    assert row["phases"]["networks"]["jobs"] == 2  # the connectome and one null
    for n in (1, 2, 8, 32, 128):
        assert row[f"predicted_{n}_s"] > 0
    assert {"load_before", "load_after", "speedup_2", "error_2"} <= set(row)
