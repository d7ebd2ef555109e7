"""The Python API of `wirelab.sweep`: every public name documented, the package quickstart runs,
the CLI is a thin layer over `run_sweep` with `SweepOptions`' defaults, and a point's failure on a
remote back end names that back end (as Ray's always did)."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

import wirelab.sweep
from tests.attention.test_docs import run_snippet
from tests.sweep.conftest import toy_grid
from wirelab.errors import UsageError
from wirelab.parallel import JobResult
from wirelab.sweep import SweepOptions, run_sweep
from wirelab.sweep.cli import command
from wirelab.sweep.points import failed_outcome
from wirelab.sweep.results_table import read_csv


def test_every_public_name_is_documented() -> None:
    assert wirelab.sweep.__all__
    undocumented = [
        n for n in wirelab.sweep.__all__ if not inspect.getdoc(getattr(wirelab.sweep, n))
    ]
    assert undocumented == []


def test_the_package_quickstart_runs(tmp_path: Path) -> None:
    (code,) = re.findall(r"^```python\n(.*?)^```", wirelab.sweep.__doc__ or "", re.M | re.S)
    r = run_snippet(code, tmp_path)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "4 points" in r.stdout and r.stdout.count("wirelab reservoir run") == 4


def test_cli_defaults_are_the_options_defaults() -> None:
    defaults = {p.name: p.default for p in command.params}
    opts = SweepOptions()
    for name in ("backend", "workers", "threads", "address", "timeout"):
        assert defaults[name] == getattr(opts, name), name
    assert defaults["no_batch"] is (not opts.batch)
    assert defaults["points_outlive_driver"] is opts.outlive


def test_run_sweep_takes_a_grid_path_and_options_as_keywords(tmp_path: Path) -> None:
    grid = toy_grid(tmp_path, vary="n = [30]\nnoise = [0.1]\nseed = [0, 1]\n")
    result = run_sweep(str(grid), tmp_path / "out", SweepOptions(workers=2), batch=False)
    assert [r["status"] for r in result.rows] == ["ok", "ok"]
    assert len(read_csv(tmp_path / "out" / "results.csv")) == 2


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (SweepOptions(backend="nope"), "unknown executor back end 'nope'"),
        (SweepOptions(address="h:1"), "--address only applies to --backend ray"),
        (SweepOptions(workers=0), "--workers must be 1 to 4,096"),
        (SweepOptions(threads=0), "threads >= 1"),
        (SweepOptions(timeout=float("inf")), "--timeout must be a finite number"),
        (SweepOptions(timeout=0.0), "--timeout must be a finite number"),
    ],
)
def test_bad_options_are_one_line_before_anything_is_written(
    tmp_path: Path, options: SweepOptions, message: str
) -> None:
    with pytest.raises(UsageError, match=message):
        run_sweep(toy_grid(tmp_path), tmp_path / "out", options)
    assert not (tmp_path / "out").exists()


def test_a_failed_job_names_a_remote_back_end_once() -> None:
    lost = JobResult(0, "p1", None, "ray: WorkerCrashedError: lost", "", 3, 2.0)
    raised = JobResult(1, "p2", None, "OSError: no space", "OSError", 1, 0.5)
    assert failed_outcome(lost, "ray", remote=True).error == "ray: WorkerCrashedError: lost"
    assert failed_outcome(lost, "ray", remote=True).attempts == 3
    assert failed_outcome(raised, "ray", remote=True).error == "ray: OSError: no space"
    assert failed_outcome(raised, "local", remote=False).error == "OSError: no space"
    assert failed_outcome(raised, "local", remote=False).status == "failed"
