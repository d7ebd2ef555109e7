"""The local backend end to end on the toy experiment: table, resume, failures, retries, kill."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from tests.clirun import one_line_error, wirelab
from tests.sweep.conftest import toy_grid
from tests.sweep.toy import main as toy_main
from wirelab.results import read_json
from wirelab.sweep.grid import load_grid
from wirelab.sweep.results_table import read_csv
from wirelab.sweep.sweep import run_sweep


def calls(tmp_path: Path) -> Counter[tuple[str, str, str]]:
    lines = (tmp_path / "calls.log").read_text().splitlines()
    return Counter(tuple(ln.split()[:3]) for ln in lines)  # type: ignore[misc]


def test_local_sweep_table_matches_direct_runs(tmp_path: Path) -> None:
    grid = load_grid(toy_grid(tmp_path))
    res = run_sweep(grid, tmp_path / "out", backend="local", workers=2)
    assert (res.ran, res.resumed, res.failed) == (8, 0, 0)
    rows = read_csv(tmp_path / "out" / "results.csv")
    assert [r["index"] for r in rows] == [str(i) for i in range(8)]
    assert [(r["n"], r["noise"], r["seed"]) for r in rows][:3] == [
        ("30", "0.1", "0"), ("30", "0.1", "1"), ("30", "1.0", "0"),
    ]  # fmt: skip
    # each row's metrics are those of running the experiment by hand with the same arguments
    toy_main(["--n", "300", "--noise", "1.0", "--seed", "1", "--dim", "6",
              "--out", str(tmp_path / "direct")])  # fmt: skip
    direct = read_json(tmp_path / "direct" / "metrics.json")
    assert float(rows[7]["test_r2"]) == direct["test_r2"]
    assert float(rows[7]["weight_error"]) == direct["weight_error"]
    assert rows[7]["fit.n_train"] == "300" and rows[7]["status"] == "ok"
    # every point ran once, with its thread budget (2 cores / 2 workers)
    log = (tmp_path / "calls.log").read_text().splitlines()
    assert len(log) == 8 and all(
        ln.endswith(f"threads={max(1, (os.cpu_count() or 1) // 2)}") for ln in log
    )
    m = read_json(tmp_path / "out" / "metrics.json")
    assert m["points"] == 8 and m["ok"] == 8 and m["metric"] == "test_r2"
    assert (tmp_path / "out" / "summary.png").is_file()
    assert len(list((tmp_path / "out" / "points").glob("*/metrics.json"))) == 8
    # run again: nothing is redone, the table is the same
    res2 = run_sweep(grid, tmp_path / "out", backend="local", workers=2)
    assert (res2.ran, res2.resumed) == (0, 8)
    assert len((tmp_path / "calls.log").read_text().splitlines()) == 8
    assert read_csv(tmp_path / "out" / "results.csv") == rows


def test_failed_point_is_recorded_and_others_finish(tmp_path: Path) -> None:
    vary = "n = [30, 40]\nfail = [false, true]\n"
    grid = load_grid(toy_grid(tmp_path, vary=vary))
    res = run_sweep(grid, tmp_path / "out", workers=2)
    assert res.failed == 2
    rows = {(r["n"], r["fail"]): r for r in read_csv(tmp_path / "out" / "results.csv")}
    assert rows[("30", "False")]["status"] == "ok"
    bad = rows[("30", "True")]
    assert bad["status"] == "failed" and bad["attempts"] == "2"  # 1 + retries (default 1)
    assert bad["error"] == "exit 1: error: asked to fail"
    assert bad["test_r2"] == ""
    m = read_json(tmp_path / "out" / "metrics.json")
    assert m["failed"] == 2 and {p["error"] for p in m["failed_points"]} == {bad["error"]}
    # failed points are retried on the next start, finished ones are not
    res2 = run_sweep(grid, tmp_path / "out", workers=2)
    assert (res2.ran, res2.resumed, res2.failed) == (2, 2, 2)


def test_flaky_point_succeeds_on_retry(tmp_path: Path) -> None:
    flag = tmp_path / "flaky-flag"
    grid = load_grid(toy_grid(tmp_path, extra_fixed=f'flaky = "{flag}"\n', vary="n = [30]\n"))
    res = run_sweep(grid, tmp_path / "out", workers=1)
    (row,) = res.rows
    assert row["status"] == "ok" and row["attempts"] == 2 and flag.exists()


def test_cli_sweep_killed_midway_resumes_without_redoing_points(tmp_path: Path) -> None:
    grid = toy_grid(tmp_path, extra_fixed="sleep = 0.6\n")
    out = tmp_path / "out"
    argv = [
        sys.executable,
        "-m",
        "wirelab.cli",
        "sweep",
        str(grid),
        "--workers",
        "1",
        "--out",
        str(out),
    ]
    proc = subprocess.Popen(
        argv, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 120
        while len(list(out.glob("points/*/metrics.json"))) < 3:
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.1)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the sweep and the point it was running
        proc.wait()
    done_before = {p.parent.name for p in out.glob("points/*/metrics.json")}
    assert 3 <= len(done_before) < 8
    assert not (out / "metrics.json").exists()  # the sweep is not marked complete
    r = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert f"{len(done_before)} already complete" in r.stdout
    assert "resuming" in r.stderr
    # completed points ran exactly once; at most the one interrupted point ran twice
    counts = calls(tmp_path)
    assert len(counts) == 8 and sum(counts.values()) <= 9
    for pid in done_before:
        cfg = read_json(out / "points" / pid / "config.json")["config"]
        assert counts[(str(cfg["n"]), str(cfg["noise"]), str(cfg["seed"]))] == 1
    rows = read_csv(out / "results.csv")
    assert len(rows) == 8 and all(r["status"] == "ok" for r in rows)
    assert json.loads((out / "metrics.json").read_text())["resumed"] == len(done_before)


def test_cli_errors(tmp_path: Path) -> None:
    def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
        return wirelab("sweep", *args)

    r = run(tmp_path / "none.toml", "--out", tmp_path / "o")
    assert r.returncode == 2 and one_line_error(r) and "does not exist" in r.stderr
    grid = toy_grid(tmp_path)
    r = run(grid, "--out", tmp_path / "o", "--address", "127.0.0.1:1")
    assert r.returncode == 2 and one_line_error(r) and "--address only applies" in r.stderr
    r = run(grid, "--out", tmp_path / "o", "--backend", "nope")
    assert r.returncode == 2 and one_line_error(r) and "local, ray" in r.stderr
    assert not (tmp_path / "o").exists()  # refused before the sweep's directory exists
    r = run(grid, "--out", tmp_path / "o", "--dry-run")
    assert r.returncode == 0 and len(r.stdout.splitlines()) == 8
    assert "--n 30 --noise 0.1 --seed 0 --out" in r.stdout.splitlines()[0]
