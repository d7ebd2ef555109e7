"""examples/07_sweep_on_ray.py at its CI size: a gain grid of the larval reservoir against its
degree-preserving nulls runs as Ray tasks on a local node, prints the tidy table, and writes the
sweep directory; run again, it resumes (nothing runs twice)."""

from __future__ import annotations

import csv
import re
import subprocess
from pathlib import Path

import pytest

from tests.conftest import requires_larva
from tests.examples import run_example

REPO = Path(__file__).resolve().parents[2]
SCRIPT = "examples/07_sweep_on_ray.py"
NUM = r"(-?[\d.]+)"
# alpha, null model, status, MC of the connectome, the nulls' mean +- std, z, p
ROW = re.compile(rf"^\s*{NUM}\s+degree\s+ok\s+{NUM}\s+{NUM} \+- {NUM}\s+{NUM}\s+{NUM}$", re.M)


def _run(out: Path) -> subprocess.CompletedProcess[str]:
    return run_example(SCRIPT, "--small", "--out", str(out))


@requires_larva
def test_example_07_runs_a_gain_grid_on_ray_and_resumes(tmp_path: Path) -> None:
    pytest.importorskip("ray", reason="the ray extra is not installed (pip install 'wirelab[ray]')")
    r = _run(tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "2 points run on Ray, 0 already complete, 0 failed" in r.stdout
    rows = ROW.findall(r.stdout)
    assert [float(a) for a, *_ in rows] == [0.5, 1.0]
    for _, mc, null_mean, null_std, _z, p in rows:
        assert 0 < float(mc) <= 30 and 0 < float(null_mean) <= 30  # MC is at most its 30 delays
        assert float(null_std) >= 0 and float(p) == pytest.approx(1 / 3, abs=1e-3)  # 2 nulls
    table = list(csv.DictReader((tmp_path / "results.csv").open()))
    assert [t["status"] for t in table] == ["ok", "ok"]
    mc = [float(t["summary.memory-capacity.connectome"]) for t in table]
    assert mc == pytest.approx([float(row[1]) for row in rows], abs=0.006)
    assert (tmp_path / "summary.png").stat().st_size > 5_000
    for t in table:  # each point's result directory came back from its Ray task
        assert (tmp_path / "points" / t["point"] / "metrics.json").is_file()
    again = _run(tmp_path)
    assert again.returncode == 0, again.stderr[-3000:]
    assert "0 points run on Ray, 2 already complete" in again.stdout
