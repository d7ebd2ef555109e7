"""Batched points: one command per group of points that differ only in the batch key."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.sweep.conftest import toy_grid
from wirelab.errors import UsageError
from wirelab.results import read_json
from wirelab.sweep.batch import plan, point_metrics
from wirelab.sweep.grid import BatchSpec, load_grid, parse_grid
from wirelab.sweep.results_table import read_csv
from wirelab.sweep.sweep import run_sweep

VARY = "n = [30, 300]\nnoise = [0.1, 1.0, 3.0]\nseed = [0]\n"
BATCH = '\n[batch]\nkey = "noise"\nrows = "rows"\n'


def test_plan_groups_points_that_differ_only_in_the_key(tmp_path: Path) -> None:
    grid = load_grid(toy_grid(tmp_path, vary=VARY + BATCH))
    groups, singles = plan(grid, grid.batch, grid.points())
    assert not singles and len(groups) == 2
    assert [p.params["noise"] for p in groups[0].points] == [0.1, 1.0, 3.0]
    assert groups[0].argv[-6:] == ["--n", "30", "--noise", "0.1,1.0,3.0", "--seed", "0"]
    # a group of one is a single point
    groups, singles = plan(grid, grid.batch, grid.points()[:4])
    assert len(groups) == 1 and [p.index for p in singles] == [3]


def test_point_metrics_with_wildcards() -> None:
    m = {"summary": {"mc": {"per_alpha": [{"alpha": 0.5, "z": 1.0}, {"alpha": 1.0, "z": 2.0}]},
                     "narma": {"per_alpha": [{"alpha": 1.0, "z": 3.0}]}}}  # fmt: skip
    spec = BatchSpec("alpha", "summary.*.per_alpha")
    assert point_metrics(m, spec, 1.0) == {"mc": {"z": 2.0}, "narma": {"z": 3.0}}
    assert point_metrics(m, spec, 0.5) == {"mc": {"z": 1.0}}
    assert point_metrics(m, spec, 0.7) is None
    assert point_metrics({"rows": [{"k": "a", "v": 1}]}, BatchSpec("k", "rows"), "a") == {"v": 1}


def test_bad_batch_tables() -> None:
    base = {"sweep": {"command": "x"}, "vary": {"a": [1, 2]}}
    with pytest.raises(UsageError, match="not in \\[vary\\]"):
        parse_grid({**base, "batch": {"key": "b", "rows": "r"}})
    with pytest.raises(UsageError, match="takes key"):
        parse_grid({**base, "batch": {"key": "a"}})


def test_batched_sweep_equals_point_by_point(tmp_path: Path) -> None:
    grid = load_grid(toy_grid(tmp_path, vary=VARY + BATCH))
    res = run_sweep(grid, tmp_path / "batched", workers=2)
    assert (res.ran, res.failed) == (6, 0)
    log = (tmp_path / "calls.log").read_text().splitlines()
    assert sorted(ln.split()[1] for ln in log) == ["0.1,1.0,3.0", "0.1,1.0,3.0"]  # two commands
    m = read_json(tmp_path / "batched" / "metrics.json")
    assert [b["points"] for b in m["batches"]] == [3, 3]
    res2 = run_sweep(grid, tmp_path / "single", workers=2, batch=False)
    assert res2.ran == 6 and len((tmp_path / "calls.log").read_text().splitlines()) == 8
    batched = read_csv(tmp_path / "batched" / "results.csv")
    single = read_csv(tmp_path / "single" / "results.csv")
    cols = ["index", "point", "n", "noise", "seed", "status", "test_r2", "test_mse", "weight_error"]
    assert [[r[c] for c in cols] for r in batched] == [[r[c] for c in cols] for r in single]
    assert all(r["status"] == "ok" and r["test_r2"] for r in batched)
    # each batched point has its own complete result directory naming its batch
    cfg = read_json(tmp_path / "batched" / "points" / batched[0]["point"] / "config.json")
    assert cfg["batch"]["key"] == "noise" and "--noise" in cfg["argv"]
    # resume: nothing runs again
    assert run_sweep(grid, tmp_path / "batched", workers=2).ran == 0
