"""Docs as tests: every ```python block of docs/sweep.md runs as written (a fresh interpreter in
a temporary directory, ``WIRELAB_DATA_DIR`` set), its grid example parses, and its commands name
no path of one machine."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from tests.attention.test_docs import blocks, machine_paths, run_snippet
from wirelab.sweep.grid import parse_grid

DOC = Path(__file__).resolve().parents[2] / "docs" / "sweep.md"


@pytest.mark.parametrize("index", range(len(blocks(DOC, "python"))))
def test_python_snippet_runs_as_written(index: int, tmp_path: Path) -> None:
    r = run_snippet(blocks(DOC, "python")[index], tmp_path)
    assert r.returncode == 0, r.stderr[-2000:]


def test_grid_example_parses() -> None:
    grid_example = blocks(DOC, "toml")[0]
    grid = parse_grid(tomllib.loads(grid_example), "docs/sweep.md")
    assert len(grid.points()) == 3 * 3 * 2
    assert grid.point_options(grid.points()[-1])["dense"] == [512, 512, 512]


def test_documented_commands_have_no_machine_paths() -> None:
    assert blocks(DOC, "bash")
    assert machine_paths(DOC) == []


def test_no_identical_claims_for_measured_figures() -> None:
    assert "identical" not in DOC.read_text()
