from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.report.conftest import make_runs


def wirelab(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "wirelab.cli", *args], capture_output=True, text=True, timeout=120
    )


def test_report_command(tmp_path: Path) -> None:
    make_runs(tmp_path / "runs")
    out = tmp_path / "page.html"
    r = wirelab("report", str(tmp_path / "runs" / "logic"), str(tmp_path / "runs" / "reservoir"),
                "--out", str(out))  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert f"3 runs -> {out}" in r.stdout
    page = out.read_text()
    assert "run-logic-train" in page and "run-reservoir-mc" in page
    assert "run-attention-broken" not in page


def test_broken_run_is_reported_not_fatal(tmp_path: Path) -> None:
    make_runs(tmp_path / "runs")
    r = wirelab("report", str(tmp_path / "runs"), "--out", str(tmp_path / "p.html"))
    assert r.returncode == 0, r.stderr
    assert "broken runs (shown with the reason): attention/broken" in r.stderr


def test_no_result_dirs_is_exit_2(tmp_path: Path) -> None:
    (tmp_path / "nothing").mkdir()
    r = wirelab("report", str(tmp_path / "nothing"), "--out", str(tmp_path / "p.html"))
    assert r.returncode == 2
    assert r.stderr.startswith("wirelab: error: no result directories")
    assert len(r.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "p.html").exists()
    r = wirelab("report", str(tmp_path / "missing"))
    assert r.returncode == 2 and "does not exist" in r.stderr
    r = wirelab("report")
    assert r.returncode == 2
