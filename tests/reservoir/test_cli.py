"""The CLI through a real subprocess on the real larval connectome."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import requires_larva


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "wirelab.cli", *args],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=600,
    )


@requires_larva
def test_reservoir_run_writes_results_and_summary(tmp_path: Path) -> None:
    out = tmp_path / "mc"
    proc = run(
        "reservoir",
        "run",
        "--task",
        "memory-capacity",
        "--connectome",
        "larva",
        "--inputs",
        "sensory",
        "--outputs",
        "DN-VNC",
        "--normalize",
        "row",
        "--alpha",
        "0.5:1.0:2",
        "--nulls",
        "1",
        "--workers",
        "1",
        "--quick",
        "--out",
        str(out),
    )
    assert proc.returncode == 0, proc.stderr
    assert "MC = sum_(k=1..30)" in proc.stdout  # the metric definition is printed
    metrics = json.loads((out / "metrics.json").read_text())
    rows = metrics["results"]
    assert len(rows) == 2 * 2  # (connectome + 1 null) x 2 alphas
    assert set(rows[0]) == {"model", "null", "alpha", "task", "metric", "value"}
    s = metrics["summary"]["memory-capacity"]
    assert {"best_alpha", "connectome", "null_mean", "null_std", "p_value", "z"} <= set(s)
    assert s["p_value"] in (0.5, 1.0)
    assert (out / "score_vs_alpha.png").stat().st_size > 1000
    config = json.loads((out / "config.json").read_text())
    assert config["config"]["seed"] == 0 and config["config"]["nulls"] == 1


@requires_larva
def test_bad_population_and_alpha_are_one_line_errors(tmp_path: Path) -> None:
    proc = run(
        "reservoir",
        "run",
        "--task",
        "decision",
        "--outputs",
        "annotation=nothing",
        "--nulls",
        "0",
        "--workers",
        "1",
        "--out",
        str(tmp_path / "x"),
    )
    assert proc.returncode == 2
    assert proc.stderr.startswith("wirelab: error: population is empty")
    assert len(proc.stderr.strip().splitlines()) == 1
    proc = run(
        "reservoir", "run", "--task", "narma10", "--alpha", "1:2", "--out", str(tmp_path / "y")
    )
    assert proc.returncode == 2 and "START:STOP:N" in proc.stderr


@requires_larva
def test_connectome_paths(tmp_path: Path) -> None:
    proc = run(
        "connectome",
        "paths",
        "--from",
        "sensory:left",
        "--to",
        "DN-VNC",
        "--populations",
        "sensory:left,DN-VNC:left,DN-VNC:right",
        "--steps",
        "10",
        "--out",
        str(tmp_path / "p"),
    )
    assert proc.returncode == 0, proc.stderr
    assert "crossing the midline" in proc.stdout
    m = json.loads((tmp_path / "p" / "metrics.json").read_text())
    assert m["reachability"]["reachable"] > 0.9
    assert abs(m["spectral_radius"] - 1.0) < 1e-6  # row-stochastic: Perron root 1
    assert m["response"]["sensory:left"]["DN-VNC:left"]["gain"] > 0
