"""The Ray backend: a local Ray instance with two workers runs a small real grid end to end and
gives the same table as the local backend (timing columns aside)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.sweep.conftest import toy_grid
from wirelab.sweep.grid import load_grid
from wirelab.sweep.results_table import read_csv, timing_column
from wirelab.sweep.sweep import run_sweep

pytest.importorskip("ray", reason="the ray extra is not installed (pip install 'wirelab[ray]')")


def _without_timing(rows: list[dict[str, str]]) -> list[dict[str, str]]:
    return [{k: v for k, v in r.items() if not timing_column(k)} for r in rows]


def test_ray_and_local_give_identical_tables(tmp_path: Path) -> None:
    vary = "n = [30, 300]\nnoise = [0.1, 1.0]\nfail = [false]\nseed = [0]\n"
    grid_path = toy_grid(tmp_path, vary=vary + "", extra_fixed="")
    # one failing point: recorded as failed with its error, the sweep goes on
    text = grid_path.read_text().replace("fail = [false]", "fail = [false, true]")
    grid_path.write_text(text.replace("n = [30, 300]", "n = [30]"))
    grid = load_grid(grid_path)
    ray_res = run_sweep(grid, tmp_path / "ray", backend="ray", workers=2)
    local_res = run_sweep(grid, tmp_path / "local", backend="local", workers=2)
    assert ray_res.failed == local_res.failed == 2
    ray_rows = read_csv(tmp_path / "ray" / "results.csv")
    local_rows = read_csv(tmp_path / "local" / "results.csv")
    assert len(ray_rows) == 4
    assert _without_timing(ray_rows) == _without_timing(local_rows)
    ok = [r for r in ray_rows if r["status"] == "ok"]
    assert len(ok) == 2 and all(r["test_r2"] for r in ok)
    bad = [r for r in ray_rows if r["status"] == "failed"]
    assert all(r["error"] == "exit 1: error: asked to fail" and r["attempts"] == "2" for r in bad)
    # the result directories came back to the driver's output directory
    for r in ok:
        point = tmp_path / "ray" / "points" / r["point"]
        assert (point / "metrics.json").is_file() and (point / "config.json").is_file()
        assert (point / "sweep.log").is_file()


def test_a_point_whose_ray_worker_dies_is_retried_then_recorded_as_failed(tmp_path: Path) -> None:
    """A lost worker is Ray's to retry (`WORKER_RETRIES` more runs of the task); a point that
    loses it every time is recorded as failed, its error naming Ray, and the sweep goes on."""
    from wirelab.sweep.options import WORKER_RETRIES

    vary = "n = [30]\nnoise = [0.1]\nkill_ray_worker = [false, true]\nseed = [0]\n"
    grid = load_grid(toy_grid(tmp_path, vary=vary))
    result = run_sweep(grid, tmp_path / "ray", backend="ray", workers=2)
    assert result.failed == 1
    good, lost = result.rows
    assert good["status"] == "ok" and good["test_r2"] > 0.9
    assert lost["status"] == "failed" and lost["attempts"] == 1 + WORKER_RETRIES
    assert lost["error"].startswith("ray: ") and "Worker" in lost["error"], lost["error"]
