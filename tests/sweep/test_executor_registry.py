"""Adding a sweep backend is one class plus one registry line: a toy backend registered here
runs a small grid through ``wirelab sweep --backend toy`` and gives the local backend's table."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.clirun import wirelab
from tests.sweep.conftest import toy_grid
from wirelab.results import read_json
from wirelab.sweep.executors import EXECUTORS, Executor, Task
from wirelab.sweep.results_table import read_csv, timing_column
from wirelab.sweep.runner import Outcome


class SerialExecutor(Executor):
    """Toy: the points one after another, in the driver's own thread."""

    def run(self, tasks: list[Task]) -> Iterator[Outcome]:
        for task in tasks:
            yield self.run_one(task)


@pytest.fixture
def toy() -> Iterator[str]:
    EXECUTORS.add("toy", SerialExecutor, "toy: one point after another in the driver")
    try:
        yield "toy"
    finally:
        EXECUTORS.remove("toy")


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


def test_removed_backend_is_refused(tmp_path: Path) -> None:
    assert "toy" not in EXECUTORS
    r = wirelab("sweep", toy_grid(tmp_path), "--backend", "toy", "--out", tmp_path / "o")
    assert r.returncode == 2 and "unknown sweep executor 'toy'" in r.stderr
