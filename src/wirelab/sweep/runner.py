"""Run one point of a sweep: a subprocess with a thread budget, retried a bounded number of times.

Both backends call `run_point`. The local backend runs it in the point's result directory; the Ray
backend runs it on a worker in a temporary directory and ships the files back to the driver
(`collect_files` / `write_files`), so a cluster needs no shared file system.

Each attempt runs in its own process group, recorded in the driver's `ProcessGroups` and in a
marker file in the point's directory (`wirelab.sweep.procs`): a timeout kills the whole group, and
so does the driver when it stops; unless ``groups.tether`` is off, the attempt is started through
`wirelab.parallel.tether` and dies with the driver even when the driver cannot clean up.

A point *succeeded* when the command exits 0 and left ``metrics.json``; anything else is an
attempt that failed, and after ``1 + retries`` attempts the point is recorded as failed with the
last line its command printed to stderr.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from wirelab.parallel.tether import tethered
from wirelab.results import FAILED, METRICS, atomic_write_bytes
from wirelab.sweep.procs import ProcessGroups, clear_marker, kill_group, write_marker

THREAD_VARS = (
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "NUMEXPR_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "WIRELAB_THREADS",
)
LOG_NAME = "sweep.log"


@dataclass
class Outcome:
    """What happened to one point."""

    id: str
    status: str  # ok | failed
    attempts: int
    seconds: float
    error: str = ""
    files: dict[str, bytes] | None = None  # Ray: the result directory's files, shipped back

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("files")
        return d


def point_env(threads: int) -> dict[str, str]:
    """This process's environment with every thread pool capped at ``threads``."""
    env = dict(os.environ)
    for var in THREAD_VARS:
        env[var] = str(threads)
    env.setdefault("MPLBACKEND", "Agg")
    env["PYTHONUNBUFFERED"] = "1"
    return env


def _last_error_line(log: str) -> str:
    lines = [ln.strip() for ln in log.splitlines() if ln.strip()]
    for ln in reversed(lines):
        if "error" in ln.lower() or "exception" in ln.lower():
            return ln[:500]
    return lines[-1][:500] if lines else "no output"


def _attempt(
    argv: list[str],
    out_path: Path,
    threads: int,
    timeout: float | None,
    cwd: str | None,
    groups: ProcessGroups,
) -> tuple[int | str, str]:
    """One run of ``argv`` in a new process group: (exit code or "timeout"/"oserror", log)."""
    head = f"$ {' '.join(argv)}\n"
    try:
        proc = subprocess.Popen(
            tethered(argv) if groups.tether else argv,
            env=point_env(threads),
            cwd=cwd if cwd and Path(cwd).is_dir() else None,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            errors="replace",
            start_new_session=True,  # its own process group: pgid = proc.pid
        )
    except OSError as exc:
        return "oserror", f"{head}{exc}"
    groups.add(proc.pid)
    try:
        write_marker(out_path, proc.pid, argv)
        try:
            stdout, stderr = proc.communicate(timeout=timeout)
            return proc.returncode, f"{head}{stdout}\n{stderr}"
        except subprocess.TimeoutExpired:
            kill_group(proc.pid)
            stdout, stderr = proc.communicate()
            return "timeout", f"{head}timed out after {timeout} s\n{stderr}"
    finally:
        if proc.poll() is None:  # this thread is leaving early: the group goes with it
            kill_group(proc.pid)
            proc.wait()
        groups.discard(proc.pid)
        clear_marker(out_path)


def run_point(
    point_id: str,
    argv: list[str],
    out: str,
    *,
    threads: int = 1,
    retries: int = 1,
    timeout: float | None = None,
    cwd: str | None = None,
    groups: ProcessGroups | None = None,
) -> Outcome:
    """Run ``argv`` (whose ``--out`` is ``out``) until it succeeds or ``1 + retries`` attempts;
    no new attempt starts once ``groups`` is stopping (the driver is exiting)."""
    groups = groups or ProcessGroups()
    out_path = Path(out)
    t0 = time.perf_counter()
    error = ""
    attempt = 0
    for attempt in range(1, retries + 2):
        if groups.stopping.is_set():
            attempt -= 1
            error = "stopped: the sweep driver is exiting"
            break
        out_path.mkdir(parents=True, exist_ok=True)
        # the sweep decides to (re)run this point: a previous attempt's outcome is not kept, so
        # that the command does not refuse to rerun into a directory holding a failed run
        for stale in (METRICS, FAILED):
            (out_path / stale).unlink(missing_ok=True)
        rc, log = _attempt(argv, out_path, threads, timeout, cwd, groups)
        atomic_write_bytes(out_path / LOG_NAME, log.encode(errors="replace"))
        if rc == 0 and (out_path / METRICS).is_file():
            return Outcome(point_id, "ok", attempt, time.perf_counter() - t0)
        (out_path / METRICS).unlink(missing_ok=True)  # a failed run is never complete
        if groups.stopping.is_set():
            error = "stopped: the sweep driver is exiting"
        elif rc == 0:
            error = "exited 0 but wrote no metrics.json"
        elif rc == "timeout":
            error = f"timed out after {timeout} s"
        else:
            error = f"exit {rc}: {_last_error_line(log)}"
    return Outcome(point_id, "failed", attempt, time.perf_counter() - t0, error)


def collect_files(path: Path) -> dict[str, bytes]:
    """Every file below ``path`` as {relative posix path: bytes}."""
    return {
        p.relative_to(path).as_posix(): p.read_bytes()
        for p in sorted(path.rglob("*"))
        if p.is_file()
    }


def write_files(path: Path, files: dict[str, bytes]) -> None:
    """Write shipped files under ``path``; ``metrics.json`` last, so that it marks completeness."""
    names = sorted(files, key=lambda n: n == "metrics.json")
    for name in names:
        target = (path / name).resolve()
        if path.resolve() not in target.parents:
            raise ValueError(f"refusing to write {name} outside {path}")
        atomic_write_bytes(target, files[name])


def run_point_shipped(
    point_id: str,
    argv_before_out: list[str],
    *,
    threads: int = 1,
    retries: int = 1,
    timeout: float | None = None,
    cwd: str | None = None,
) -> Outcome:
    """`run_point` in a temporary directory on this machine; the files travel in the Outcome."""
    tmp = Path(tempfile.mkdtemp(prefix=f"wirelab-sweep-{point_id}-"))
    try:
        out = tmp / point_id
        outcome = run_point(
            point_id,
            [*argv_before_out, "--out", str(out)],
            str(out),
            threads=threads,
            retries=retries,
            timeout=timeout,
            cwd=cwd,
        )
        outcome.files = collect_files(out) if out.is_dir() else {}
        return outcome
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
