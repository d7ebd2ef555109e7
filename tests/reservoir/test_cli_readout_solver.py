"""``wirelab reservoir run --readout-solver``: the choice reaches the config (config.json), every
readout of the run (`ridge.readout_solver` around the tasks), and a bad name is one line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from tests.clirun import one_line_error, wirelab
from tests.reservoir.test_cli import toy  # noqa: F401  (fixture)
from wirelab.reservoir.experiment import ExperimentConfig
from wirelab.reservoir.ridge import SOLVERS, ExactRowRidge


class _Counted(ExactRowRidge):
    """The exact solver, counting its fits (one per readout of the run)."""

    fits = 0

    def __init__(self, x: np.ndarray, y: np.ndarray) -> None:
        type(self).fits += 1
        super().__init__(x, y)


@pytest.fixture
def counted() -> Iterator[type[_Counted]]:
    SOLVERS.add("exact", _Counted, "the exact solver, counted", replace=True)
    _Counted.fits = 0
    try:
        yield _Counted
    finally:
        SOLVERS.add("exact", ExactRowRidge, "SVD-level basis, one SVD per fold", replace=True)


@pytest.mark.parametrize("solver", [None, "fast", "exact"])
def test_the_option_reaches_config_json_and_every_readout(
    solver: str | None,
    toy: str,  # noqa: F811
    counted: type[_Counted],
    tmp_path: Path,
) -> None:
    out = tmp_path / "run"
    args = ["reservoir", "run", "--connectome", toy, "--task", "memory-capacity"]
    args += ["--task", "narma10", "--alpha", "1.0", "--nulls", "1", "--workers", "1"]
    args += ["--quick", "--out", str(out)]
    args += [] if solver is None else ["--readout-solver", solver]
    r = wirelab(*args)
    assert r.returncode == 0, r.stderr
    config = json.loads((out / "config.json").read_text())["config"]
    default = ExperimentConfig().readout_solver
    assert default == "fast" and config["readout_solver"] == (solver or default)
    assert (counted.fits > 0) == (solver == "exact")  # every readout, or none, is exact


def test_an_unknown_solver_is_one_line_before_any_work(
    toy: str,  # noqa: F811
    tmp_path: Path,
) -> None:
    out = tmp_path / "x"
    args = ["reservoir", "run", "--task", "narma10", "--connectome", toy, "--out", str(out)]
    r = wirelab(*args, "--readout-solver", "svd")
    assert r.returncode == 2 and one_line_error(r) and "fast" in r.stderr and not out.exists()
