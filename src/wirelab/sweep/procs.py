"""The processes of a sweep's points: each in its own process group, killed with the driver.

Every attempt of a point starts a new session (``start_new_session``), so the point and any
process it starts form one process group, ``pgid = pid`` of the point. The driver keeps the groups
it runs in a `ProcessGroups` and ends them all (SIGTERM, then SIGKILL after a grace period) when it
stops for any reason: the sweep finished, an error, Ctrl-C (SIGINT) or SIGTERM (the driver's
`wirelab.results.experiment` turns SIGTERM into an exception so that the cleanup runs). A driver
killed outright (SIGKILL) cannot clean up: its points are started through `wirelab.parallel.tether`,
so that the kernel kills them with it, unless ``ProcessGroups.tether`` is off (``wirelab sweep
--points-outlive-driver``).

Each running attempt also leaves a marker,
``.running.json`` in the point's directory, with its pid, process group and start time and those of
its driver. The next start of the sweep calls `reap_stale` on every point it is about to run: a
marker whose driver is gone but whose point still runs is a left-over, and its group is killed
before the point is run again; a marker whose driver still runs means another driver works on this
directory, and the sweep refuses to start. The sweep reaps finished points too, so that no marker
outlives the attempt that wrote it. Start times (``/proc/PID/stat``) guard against a pid
that was reused by an unrelated process.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

from wirelab.errors import UsageError
from wirelab.results import atomic_write_bytes

__all__ = [
    "MARKER",
    "ProcessGroups",
    "clear_marker",
    "kill_group",
    "reap_stale",
    "write_marker",
]

MARKER = ".running.json"


def start_time(pid: int) -> int | None:
    """The start time of ``pid`` in clock ticks since boot (Linux), or None if unknown."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        return int(stat.rsplit(")", 1)[1].split()[19])  # field 22 of the whole line
    except (OSError, IndexError, ValueError):
        return None


def _alive(pid: int, started: int | None) -> bool:
    """Whether ``pid`` runs and is the process that started at ``started`` (when known)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    now = start_time(pid)
    return started is None or now is None or now == started


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _signal_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def _wait_gone(pgids: list[int], seconds: float) -> list[int]:
    """The groups still alive after waiting up to ``seconds``."""
    deadline = time.monotonic() + seconds
    left = [g for g in pgids if _group_alive(g)]
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = [g for g in left if _group_alive(g)]
    return left


def kill_group(pgid: int, grace: float = 3.0) -> None:
    """SIGTERM the process group, SIGKILL it if it is not gone after ``grace`` seconds."""
    _signal_group(pgid, signal.SIGTERM)
    for g in _wait_gone([pgid], grace):
        _signal_group(g, signal.SIGKILL)
        _wait_gone([g], 5.0)


class ProcessGroups:
    """The process groups a driver runs now; `kill_all` ends them and stops further attempts.

    ``tether``: start points through `wirelab.parallel.tether`, so that they die with the driver."""

    def __init__(self, *, tether: bool = True) -> None:
        self._lock = threading.Lock()
        self._groups: set[int] = set()
        self.stopping = threading.Event()
        self.tether = tether

    def add(self, pgid: int) -> None:
        """Track a started group; one started after `kill_all` (a retry racing the stop) is
        killed at once, so nothing outlives the stop."""
        with self._lock:
            self._groups.add(pgid)
            late = self.stopping.is_set()
        if late:
            _signal_group(pgid, signal.SIGKILL)

    def discard(self, pgid: int) -> None:
        with self._lock:
            self._groups.discard(pgid)

    def kill_all(self, grace: float = 3.0) -> None:
        """No new attempt starts after this; every running group is terminated, then killed."""
        with self._lock:  # under the lock: a group added after this snapshot sees `stopping`
            self.stopping.set()
            groups = sorted(self._groups)
        for g in groups:
            _signal_group(g, signal.SIGTERM)
        for g in _wait_gone(groups, grace):
            _signal_group(g, signal.SIGKILL)


def write_marker(out: Path, pid: int, argv: list[str]) -> None:
    """Record a running attempt of the point in ``out`` (its process group is ``pid``)."""
    me = os.getpid()
    record = {
        "pid": pid,
        "pgid": pid,
        "started": start_time(pid),
        "driver_pid": me,
        "driver_started": start_time(me),
        "argv": argv,
    }
    atomic_write_bytes(out / MARKER, json.dumps(record).encode())


def clear_marker(out: Path) -> None:
    (out / MARKER).unlink(missing_ok=True)


def _read_marker(path: Path) -> dict[str, Any] | None:
    try:
        rec = json.loads(path.read_text())
        int(rec["pid"]), int(rec["pgid"]), int(rec["driver_pid"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return dict(rec)


def reap_stale(out: Path) -> str | None:
    """Deal with an attempt left running in ``out`` by an earlier driver (see the module doc).

    Returns a message when a left-over process group was killed, None when there was none;
    raises `UsageError` when the driver that started it still runs."""
    path = out / MARKER
    if not path.is_file():
        return None
    rec = _read_marker(path)
    if rec is None:
        path.unlink(missing_ok=True)
        return None
    driver = int(rec["driver_pid"])
    if driver != os.getpid() and _alive(driver, rec.get("driver_started")):
        raise UsageError(
            f"{out} is being run by another sweep driver (pid {driver}); stop it or wait for it"
        )
    message = None
    pid, pgid = int(rec["pid"]), int(rec["pgid"])
    if _alive(pid, rec.get("started")) or _group_alive(pgid):
        kill_group(pgid)
        message = f"killed process group {pgid} left running in {out} by a stopped driver"
    path.unlink(missing_ok=True)
    return message
