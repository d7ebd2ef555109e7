"""The sweep runs on the one back-end registry of every study (`wirelab.parallel.POOLS`): a toy
back end registered there in one line runs a small grid through ``wirelab sweep --backend toy``
and gives the local back end's table; the same entry serves `wirelab.parallel.map_jobs`."""

from __future__ import annotations

from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.clirun import wirelab
from tests.sweep.conftest import toy_grid
from wirelab.parallel import POOLS, ExecOptions, Job, JobResult, Pool, map_jobs
from wirelab.results import read_json
from wirelab.sweep.results_table import read_csv, timing_column


class SerialPool(Pool):
    """Toy: the jobs one after another, in the driver's own thread."""

    def run(self, jobs: list[Job], shared: Any = None) -> Generator[JobResult, None, None]:
        for i, job in enumerate(jobs):
            yield JobResult(i, job.key, job.fn(*job.args))


@pytest.fixture
def toy() -> Iterator[str]:
    POOLS.add("toy", SerialPool, "toy: one job after another in the driver")
    try:
        yield "toy"
    finally:
        POOLS.remove("toy")


def _table(path: Path) -> list[dict[str, str]]:
    rows = read_csv(path / "results.csv")
    return [{k: v for k, v in r.items() if not timing_column(k)} for r in rows]


def test_toy_backend_runs_a_grid_through_the_cli(tmp_path: Path, toy: str) -> None:
    grid = toy_grid(tmp_path, vary="n = [30, 300]\nnoise = [0.1]\nseed = [0, 1]\n")
    r = wirelab("sweep", grid, "--backend", toy, "--workers", "1", "--out", tmp_path / "toy")
    assert r.returncode == 0, r.stderr
    assert "4/4 points ok" in r.stdout
    m = read_json(tmp_path / "toy" / "metrics.json")
    assert m["backend"] == "toy" and m["ok"] == 4
    r = wirelab("sweep", grid, "--workers", "2", "--out", tmp_path / "local")
    assert r.returncode == 0, r.stderr
    assert _table(tmp_path / "toy") == _table(tmp_path / "local")
    # a sweep resumes into its own finished directory: nothing runs again
    r = wirelab("sweep", grid, "--backend", toy, "--out", tmp_path / "toy")
    assert r.returncode == 0 and "0 run now, 4 already complete" in r.stdout
    # the same entry is a back end of every study
    jobs = [Job(str(i), abs, (-i,)) for i in range(3)]
    assert map_jobs(jobs, ExecOptions(toy, workers=2), show=False) == [0, 1, 2]


def test_removed_backend_is_refused(tmp_path: Path) -> None:
    assert "toy" not in POOLS
    r = wirelab("sweep", toy_grid(tmp_path), "--backend", "toy", "--out", tmp_path / "o")
    assert r.returncode == 2 and "unknown executor back end 'toy'" in r.stderr
