"""The tour's frame with toy steps: each step's line and time, a skipped and a failed step, the
page of this tour's result directories only (not an earlier tour's), each card's verdict."""

from __future__ import annotations

import io
import os
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from tests.report.stories import reservoir_metrics
from wirelab import tour
from wirelab.errors import SkipStep
from wirelab.results import ResultDir


def run(out: Path, quick: bool = False) -> dict[str, Any]:
    """A toy step: one reservoir-shaped result directory that answers its question."""
    rd = ResultDir.create(out / "mc", command="wirelab reservoir run", config={}, overwrite=True)
    rd.finish(reservoir_metrics(p=0.05, n=19))
    return {"quick": quick}


def skip(out: Path, quick: bool = False) -> dict[str, Any]:
    raise SkipStep("no data (test)")


def fail(out: Path, quick: bool = False) -> dict[str, Any]:
    raise RuntimeError("boom")


def test_tour_frame(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stale = ResultDir.create(tmp_path / "old" / "r", command="wirelab reservoir run", config={})
    stale.finish(reservoir_metrics(p=0.33, n=2))  # an earlier tour's: not on this page
    os.utime(stale.path / "config.json", (1.0, 1.0))
    other = types.ModuleType("tour_other_step")
    other.run = skip  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "tour_other_step", other)
    steps = (
        tour.Step("toy", "a toy step", "tests.test_tour"),
        tour.Step("skip", "a skipped step", "tour_other_step"),
    )
    monkeypatch.setattr(tour, "STEPS", steps)
    text = io.StringIO()
    code = tour.run_tour(tmp_path, quick=True, console=Console(file=text, width=200))
    out = text.getvalue()
    assert code == 0
    assert "toy: ok in" in out and "skip: skipped in" in out and "skipped: no data (test)" in out
    assert "(yes) Yes: 11.5 is above the null mean 7.62, p = 0.05 ≤ 0.05." in out
    page = (tmp_path / "report.html").read_text()
    assert "toy/mc" in page and "old/r" not in page
    other.run = fail  # type: ignore[attr-defined]
    code = tour.run_tour(tmp_path, quick=True, console=Console(file=io.StringIO(), width=200))
    assert code == 1
