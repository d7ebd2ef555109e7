"""Batched points: one command per group of points that differ only in the batch key."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.sweep.conftest import toy_grid
from wirelab.errors import UsageError
from wirelab.reservoir.jobs import summarise
from wirelab.reservoir.nulls import DEFAULT_NULLS
from wirelab.results import read_json
from wirelab.sweep.batch import plan, point_metrics
from wirelab.sweep.grid import BatchSpec, load_grid, parse_grid
from wirelab.sweep.results_table import flatten_metrics, read_csv
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


def _default_reservoir_metrics() -> dict[str, Any]:
    """A default reservoir run's metrics (`jobs.summarise` over `DEFAULT_NULLS`): the connectome
    and two nulls of each family, memory capacity at gains 0.5 and 1.0."""
    scores = {
        ("connectome", -1): (5.0, 9.0),
        ("degree", 0): (4.0, 6.0),
        ("degree", 1): (4.5, 7.0),
        ("degree-boundary", 0): (5.0, 8.0),
        ("degree-boundary", 1): (5.5, 9.5),
    }
    jobs = [
        {
            "rows": [
                {"model": m, "null": i, "alpha": a, "task": "mc", "metric": "mc", "value": v}
                for a, v in zip((0.5, 1.0), values, strict=True)
            ],
            "extras": {
                "model": m,
                "null": i,
                "cpu_seconds": 0.0,
                "higher_is_better": {"mc": True},
                "definitions": {"mc": "memory capacity"},
            },
        }
        for (m, i), values in scores.items()
    ]
    return summarise(jobs, list(DEFAULT_NULLS))


def test_a_default_reservoir_sweep_can_take_each_null_family() -> None:
    # rows = "summary.*.per_alpha" (the docs' example) takes the first family alone: degree
    m = _default_reservoir_metrics()
    first = point_metrics(m, BatchSpec("alpha", "summary.*.per_alpha"), 1.0)
    assert first is not None and set(first) == {"mc"} and first["mc"]["null_mean"] == 6.5
    # rows = "summary_by_null_model.*.*.per_alpha": one row per family and task
    each = point_metrics(m, BatchSpec("alpha", "summary_by_null_model.*.*.per_alpha"), 1.0)
    assert each is not None and set(each) == {"degree.mc", "degree-boundary.mc"}
    assert each["degree.mc"]["null_mean"] == 6.5 and each["degree-boundary.mc"]["p_value"] == 2 / 3
    assert {"degree.mc.p_value", "degree-boundary.mc.p_value"} <= set(flatten_metrics(each))
    # a point run without [batch]: its whole metrics.json flattened, every family a column
    cols = flatten_metrics(m)
    assert {f"summary_by_null_model.{k}.mc.p_value" for k in DEFAULT_NULLS} <= set(cols)


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
