"""Issues #18 and #33: hostile or broken grids (huge, non-finite, not a wirelab command) fail at
once with one line; point processes never outlive their driver unless asked to, and a resume kills
what a killed driver left running."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from tests.clirun import one_line_error, wirelab
from tests.sweep.conftest import REPO, toy_grid, write_grid
from wirelab.errors import UsageError
from wirelab.sweep.grid import DEFAULT_MAX_POINTS, load_grid, parse_grid
from wirelab.sweep.procs import MARKER
from wirelab.sweep.sweep import run_sweep


def _grid(vary: Mapping[str, object], command: str = "wirelab logic train") -> dict[str, object]:
    return {"sweep": {"command": command}, "vary": vary}


def _error_line(r: subprocess.CompletedProcess[str]) -> str:
    """The one error line of a failed sweep (the progress bar may have printed its own line)."""
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    errors = [ln for ln in lines if "error" in ln]
    assert r.returncode in (1, 2) and "Traceback" not in r.stderr, r.stderr
    assert len(errors) == 1 and lines[-1] == errors[0], r.stderr
    return errors[0]


def _sweep(tmp_path: Path, body: str, *args: str) -> subprocess.CompletedProcess[str]:
    grid = write_grid(tmp_path / "g.toml", body)
    return wirelab("sweep", grid, "--out", tmp_path / "o", *args)


@pytest.mark.parametrize(
    "vary",
    [
        "a = { range = [0, 1000000] }\nb = { range = [0, 1000000] }\n",  # 10^12, per key 10^6
        "a = { range = [1000] }\nb = { range = [1000] }\nc = { range = [1000] }\n"
        "d = { range = [1000] }\n",  # 10^12 from keys of 1,000 values each
        "a = { linspace = [0, 1, 1000000000000] }\n",
        "a = { range = [0, 1000000] }\n",  # 10^6: over the default limit too
    ],
)
def test_huge_grid_fails_fast_with_one_line(tmp_path: Path, vary: str) -> None:
    t0 = time.perf_counter()
    r = _sweep(tmp_path, f'[sweep]\ncommand = "wirelab logic train"\n[vary]\n{vary}')
    assert time.perf_counter() - t0 < 0.5
    assert r.returncode == 2 and one_line_error(r), r.stderr
    assert "over the limit of 10,000" in r.stderr and "--max-points" in r.stderr
    assert not (tmp_path / "o").exists()


def test_max_points_raises_the_limit(tmp_path: Path) -> None:
    body = '[sweep]\ncommand = "python -m tests.sweep.toy"\n[vary]\nn = { range = [12] }\n'
    r = _sweep(tmp_path, body, "--dry-run", "--max-points", "11")
    assert r.returncode == 2 and one_line_error(r) and "12 points" in r.stderr
    r = _sweep(tmp_path, body, "--dry-run", "--max-points", "12")
    assert r.returncode == 0 and len(r.stdout.splitlines()) == 12
    big = {"a": {"range": [DEFAULT_MAX_POINTS]}, "b": [1, 2]}
    with pytest.raises(UsageError, match="over the limit"):
        parse_grid(_grid(big))
    assert len(parse_grid(_grid(big), max_points=2 * DEFAULT_MAX_POINTS).points()) == 20_000


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("[0, 10, 0]", "the step must not be zero"),
        ("[0, 10, -1]", "the step must go from start towards stop"),
        ("[10, 0, 2]", "the step must go from start towards stop"),
    ],
)
def test_bad_range_step_is_one_line(tmp_path: Path, spec: str, message: str) -> None:
    r = _sweep(tmp_path, f'[sweep]\ncommand = "wirelab x"\n[vary]\nseed = {{ range = {spec} }}\n')
    assert r.returncode == 2 and one_line_error(r) and message in r.stderr, r.stderr


def test_unterminated_quote_in_command_is_one_line(tmp_path: Path) -> None:
    body = '[sweep]\ncommand = "wirelab logic train --name \'oops"\n[vary]\nseed = [0, 1]\n'
    r = _sweep(tmp_path, body, "--dry-run")
    assert r.returncode == 2 and one_line_error(r) and "No closing quotation" in r.stderr


def test_unknown_metric_stops_the_sweep_with_one_line(tmp_path: Path) -> None:
    grid = toy_grid(tmp_path, vary="n = [30, 40, 50]\n").read_text().replace("test_r2", "r2")
    path = write_grid(tmp_path / "grid.toml", grid)
    r = wirelab("sweep", path, "--out", tmp_path / "o", "--workers", "1")
    line = _error_line(r)
    assert r.returncode == 2 and "metric 'r2' is not a numeric column" in line and "test_r2" in line
    assert len((tmp_path / "calls.log").read_text().splitlines()) == 1  # stopped after one
    # a resume checks the finished points before running anything
    r = wirelab("sweep", path, "--out", tmp_path / "o", "--workers", "1")
    assert r.returncode == 2 and one_line_error(r) and "'r2'" in r.stderr
    assert len((tmp_path / "calls.log").read_text().splitlines()) == 1
    write_grid(path, grid.replace('"r2"', '"test_r2"'))
    r = wirelab("sweep", path, "--out", tmp_path / "o", "--workers", "1")
    assert r.returncode == 0, r.stderr
    assert len((tmp_path / "calls.log").read_text().splitlines()) == 3  # the first one kept


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has ended (only its exit status waits to be collected)


def _wait(condition: object, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return True
        time.sleep(0.05)
    return False


@pytest.fixture
def hanging_sweep(tmp_path: Path) -> Iterator[tuple[list[str], Path, Path]]:
    """A one-point sweep whose point hangs on its first attempt; yields (argv, out, pid file)."""
    flag = tmp_path / "hanging.pid"
    grid = toy_grid(tmp_path, extra_fixed=f'hang_once = "{flag}"\n', vary="n = [30]\n")
    out = tmp_path / "out"
    argv = [sys.executable, "-m", "wirelab.cli", "sweep", str(grid), "--workers", "1"]
    yield [*argv, "--out", str(out)], out, flag
    if flag.is_file():  # never leave a hanging point behind
        pid = int(flag.read_text())
        if _alive(pid):
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:  # not a group leader
                os.kill(pid, signal.SIGKILL)


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})


def _start(argv: list[str], flag: Path) -> tuple[subprocess.Popen[bytes], int]:
    driver = subprocess.Popen(
        argv,
        cwd=REPO,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        # as a terminal's foreground job: SIGINT neither ignored nor blocked (both are inherited,
        # and a library earlier in the test process may have blocked it: the signal would wait)
        preexec_fn=_default_sigint,
    )
    assert _wait(lambda: flag.is_file() and flag.read_text().strip(), 60), "point never started"
    return driver, int(flag.read_text())


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_driver_stopped_by_signal_kills_its_points(hanging_sweep, sig) -> None:
    argv, out, flag = hanging_sweep
    driver, point = _start(argv, flag)
    markers = list(out.glob(f"points/*/{MARKER}"))
    assert len(markers) == 1 and str(point) in markers[0].read_text()
    os.kill(driver.pid, sig)  # the driver alone, as `kill PID` or Ctrl-C would
    driver.wait(timeout=30)
    assert driver.returncode != 0
    assert _wait(lambda: not _alive(point), 10), "the point outlived its driver"
    assert not markers[0].exists()
    assert not (out / "metrics.json").exists() and (out / "failed.json").is_file()


def test_points_die_with_a_driver_killed_outright(hanging_sweep) -> None:
    argv, out, flag = hanging_sweep
    driver, point = _start(argv, flag)
    os.kill(driver.pid, signal.SIGKILL)  # no cleanup possible: the kernel ends the point
    driver.wait(timeout=30)
    assert _wait(lambda: not _alive(point), 10), "the point outlived its driver"
    (marker,) = out.glob(f"points/*/{MARKER}")  # the driver could not remove it
    r = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "1/1 points ok" in r.stdout and not marker.exists() and not list(out.rglob(MARKER))


def test_resume_kills_a_point_left_running_by_a_killed_driver(hanging_sweep) -> None:
    argv, out, flag = hanging_sweep
    argv = [*argv, "--points-outlive-driver"]
    driver, point = _start(argv, flag)
    os.kill(driver.pid, signal.SIGKILL)  # no cleanup possible
    driver.wait(timeout=30)
    time.sleep(0.3)
    assert _alive(point)  # left behind, still in the point's directory
    (marker,) = out.glob(f"points/*/{MARKER}")
    r = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert f"killed process group {point}" in r.stderr.replace("\n", " ")
    assert not _alive(point) and not marker.exists()
    assert "1/1 points ok" in r.stdout


def test_marker_of_a_finished_point_is_removed(tmp_path: Path) -> None:
    """A point that finished after its driver was killed keeps its marker; the next start removes
    it without running the point again."""
    grid = toy_grid(tmp_path, vary="n = [30]\n")
    out = tmp_path / "o"
    assert wirelab("sweep", grid, "--out", out, "--workers", "1").returncode == 0
    (point,) = (out / "points").iterdir()
    dead = subprocess.Popen([sys.executable, "-c", ""])
    dead.wait()
    (point / MARKER).write_text(
        f'{{"pid": {dead.pid}, "pgid": {dead.pid}, "driver_pid": {dead.pid}, "argv": []}}'
    )
    r = wirelab("sweep", grid, "--out", out, "--workers", "1")
    assert r.returncode == 0 and "1 already complete" in r.stdout, r.stderr
    assert not (point / MARKER).exists()
    assert len((tmp_path / "calls.log").read_text().splitlines()) == 1


@pytest.mark.parametrize(
    ("tables", "message"),
    [
        ("[vary]\nalpha = [nan, inf]\n", "vary.alpha = nan is not a finite number"),
        ("[vary]\nalpha = [0.5, -inf]\n", "vary.alpha = -inf is not a finite number"),
        ("[fixed]\nalpha = inf\n[vary]\nseed = [0]\n", "fixed.alpha = inf is not a finite"),
        ("[vary]\ndense = [[64, nan]]\n", "vary.dense = nan is not a finite number"),
        ("[vary]\nalpha = { linspace = [0, nan, 3] }\n", "linspace = nan is not a finite"),
        ('[vary]\nalpha = { linspace = ["a", 1, 3] }\n', "takes [start, stop, count]"),
    ],
)
@pytest.mark.parametrize("dry_run", [True, False])
def test_non_finite_grid_values_are_one_line(
    tmp_path: Path, tables: str, message: str, dry_run: bool
) -> None:
    body = f'[sweep]\ncommand = "wirelab reservoir run"\n{tables}'
    r = _sweep(tmp_path, body, *(["--dry-run"] if dry_run else []))
    assert r.returncode == 2 and one_line_error(r) and message in r.stderr, r.stderr
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    ("command", "message"),
    [
        ("rm -rf /", "is not a wirelab command"),
        ("/bin/sh -c true", "is not a wirelab command"),
        ("wirelab frobnicate", "has no command 'frobnicate'"),
        ("wirelab logic frobnicate", "wirelab logic has no command 'frobnicate'"),
        ("wirelab --help", "has no command '--help'"),
        ("wirelab logic", "is a group, not a command"),
        ("wirelab data list", "takes no --out DIR"),
        ("python -c 'import os'", "must be python -m MODULE"),
        ("python3 -c pass", "must be python -m MODULE"),
        ("python evil.py", "must be python -m MODULE"),
        ("python -u -m tests.sweep.toy", "must be python -m MODULE"),
        ("python -m", "must be python -m MODULE"),
        ("python -m ../x", "must be python -m MODULE"),
        ("python", "must be python -m MODULE"),
    ],
)
def test_a_command_that_is_not_a_wirelab_command_is_refused_at_dry_run(
    tmp_path: Path, command: str, message: str
) -> None:
    r = _sweep(tmp_path, f'[sweep]\ncommand = "{command}"\n[vary]\nseed = [0, 1]\n', "--dry-run")
    assert r.returncode == 2 and one_line_error(r) and message in r.stderr, r.stderr
    assert r.stdout == ""
    for ok in ("wirelab logic train", "python -m tests.sweep.toy", "python3 -m pkg.mod --x 1"):
        assert parse_grid(_grid({"seed": [0]}, command=ok)).command == ok


def test_a_python_c_grid_runs_nothing(tmp_path: Path) -> None:
    """``python -c`` is refused when the grid is read: the sweep writes nothing, runs nothing."""
    marker = tmp_path / "ran"
    body = f'[sweep]\ncommand = "python -c \'open(\\"{marker}\\", \\"w\\")\'"\n[vary]\nseed = [0]\n'
    r = _sweep(tmp_path, body)
    assert r.returncode == 2 and one_line_error(r) and "python -m MODULE" in r.stderr, r.stderr
    assert not marker.exists() and not (tmp_path / "o").exists()


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "0", "-1"])
def test_timeout_must_be_a_finite_positive_number(tmp_path: Path, value: str) -> None:
    grid = toy_grid(tmp_path, vary="n = [30]\n")
    for extra in (["--dry-run"], []):
        r = wirelab("sweep", grid, "--out", tmp_path / "o", "--timeout", value, *extra)
        assert r.returncode == 2 and one_line_error(r) and "--timeout" in r.stderr, r.stderr
    assert not (tmp_path / "o").exists() and not (tmp_path / "calls.log").exists()
    with pytest.raises(UsageError, match="finite number of seconds"):
        run_sweep(load_grid(grid), tmp_path / "o", timeout=float(value))


def test_empty_out_is_a_usage_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    grid = toy_grid(tmp_path, vary="n = [30]\n")
    monkeypatch.chdir(tmp_path)
    for extra in (["--dry-run"], []):
        r = wirelab("sweep", grid, "--out", "", *extra)
        assert r.returncode == 2 and one_line_error(r) and "'' is empty" in r.stderr, r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["grid.toml"]


def test_a_point_whose_metrics_cannot_be_read_is_failed_not_the_sweep(tmp_path: Path) -> None:
    """Issue 47: a point's metrics.json with a 10,000-digit integer, 200,000 nested arrays or
    100 nested objects makes that point failed with the reason; the sweep still ends."""
    vary = "n = [30]\nnoise = [0.1, 0.2, 0.3, 0.4]\nseed = [0]\n"
    grid = load_grid(toy_grid(tmp_path, vary=vary))
    first = run_sweep(grid, tmp_path / "o", backend="local", workers=1)
    assert first.failed == 0
    hostile = [
        '{"x": ' + "9" * 10_000 + "}",
        "[" * 200_000 + "]" * 200_000,
        '{"a": ' * 100 + "1" + "}" * 100,
    ]
    rows = [r for r in first.rows if r["noise"] != 0.4]
    for row, text in zip(rows, hostile, strict=True):
        (tmp_path / "o" / "points" / row["point"] / "metrics.json").write_text(text)
    again = run_sweep(grid, tmp_path / "o", backend="local", workers=1)
    assert again.ran == 0, again
    errors = [r["error"] for r in again.rows if r["status"] == "failed"]
    assert len(errors) == 3, again.rows
    assert "digits" in errors[0] and "nests deeper" in errors[1] and "nests deeper" in errors[2]
    assert all(e.startswith("metrics.json unreadable: ") and len(e) < 200 for e in errors)
    assert [r["status"] for r in again.rows].count("ok") == 1
